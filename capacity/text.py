"""Input strings shown as text: control characters escaped, so a name cannot repaint a terminal.

A queue or pod name may hold an escape sequence (`\\x1b[2K` erases the line), a carriage return (what
follows overwrites the start of the line), a newline (a fake line of its own) or a Unicode bidi override
(text shown in another order than it is stored). Every such character is shown as a visible escape
(`\\x1b`, `\\r`, `\\n`, `\\u202e`) instead.
"""

from __future__ import annotations

import re

#: C0 controls (but newline and tab: `shown_output` leaves the program's own), DEL, C1 controls, the
#: Unicode line and paragraph separators, and the bidi marks, embeddings, overrides and isolates.
_OUTPUT_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(s: str) -> str:
    """One line of text with every control character escaped, newlines and tabs included."""
    return _UNSAFE.sub(_escape, s)


def shown_output(s: str) -> str:
    """Program output (many lines) with every control character escaped but its newlines and tabs."""
    return _OUTPUT_UNSAFE.sub(_escape, s)


def shown_lines(lines: list[str]) -> str:
    """The program's lines joined by newlines, a newline inside one of them (from a name) escaped."""
    return "\n".join(shown(line) for line in lines)
