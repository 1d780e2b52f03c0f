"""Strings from the input (names, reasons that quote them) made safe to put inside Markdown.

Pages show such strings with `st.text`, `st.code` or in dataframes where they can; where a line mixes the
page's own Markdown labels with them, `md_escape` makes them literal.
"""

from __future__ import annotations

import re

#: U+2060 WORD JOINER: invisible, and breaks the patterns GFM turns into links.
_JOINER = "\u2060"


def _no_autolinks(text: str) -> str:
    """GFM links bare `http://...`, `www.x` and `a@b.c` *after* escapes are resolved, so backslashes cannot stop
    it; an invisible word joiner inside each pattern (`http:⁠//`, `www⁠.`, `a⁠@b`) does."""
    text = text.replace("://", ":" + _JOINER + "//").replace("@", _JOINER + "@")
    return re.sub(r"(?i)(www)\.", lambda m: m.group(1) + _JOINER + ".", text)


def md_escape(text: str) -> str:
    """`text` made literal inside Markdown: every character Markdown or Streamlit's directives read is escaped,
    and line breaks become spaces (a name cannot start a list or a heading). Bare URLs and e-mail addresses
    get an invisible word joiner so that GFM does not turn them into links."""
    out = []
    for ch in _no_autolinks(" ".join(str(text).split("\n"))):
        if ch in "\\`*_{}[]()<>#+!|~$:=":
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def md_code(text: str) -> str:
    """`text` as a Markdown code span: shown literally (no link, image, emphasis or directive inside it).

    The fence is one backtick longer than the longest run of backticks in `text`, so a name containing
    backticks cannot close it early; line breaks and control characters become spaces.
    """
    flat = "".join(" " if ch < " " or ch == "\x7f" else ch for ch in str(text))
    longest = 0
    run = 0
    for ch in flat:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
