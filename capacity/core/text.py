"""Strings from input, made safe to show: no raw control characters, escapes or line breaks.

A name can hold anything YAML can (a newline, an ANSI escape that recolours a terminal, a bidi override
that reorders a line). Every message that quotes input goes through `safe`, so a hostile name shows as
text (`'a\\x1b[31mb'`) and never acts on the terminal or splits a one-line message.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories never printed raw: controls, format characters (bidi overrides, zero-width),
#: line and paragraph separators, surrogates, private use and unassigned code points.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


def safe(text: str) -> str:
    """`text` with every control, format or separator character written as a Python escape (\\n, \\x1b,
    \\u202e); printable text, non-ASCII letters included, is unchanged. Idempotent on its own output only
    where nothing needed escaping (a backslash is kept as it is)."""
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == " " or (ch.isprintable() and unicodedata.category(ch) not in _HIDDEN):
            out.append(ch)
        else:
            code = ord(ch)
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (
                f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"))
    return "".join(out)


def quoted(text: str) -> str:
    """`text` in single quotes, escaped by `safe`: how a message names an input string."""
    return f"'{safe(text)}'"


def safe_lines(lines: list[str]) -> str:
    """The program's lines joined by newlines, a newline inside one of them (from a name) escaped."""
    return "\n".join(safe(line) for line in lines)


def safe_output(text: str) -> str:
    """Program output (many lines) with every character `safe` escapes escaped, but its own newlines and
    tabs: what the command line's stdout and stderr filter (`capacity.cli.TerminalSafe`) lets through."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "\n".join("\t".join(safe(part) for part in line.split("\t")) for line in text.split("\n"))
