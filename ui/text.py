"""Strings from the input (names, reasons that quote them) made safe to put inside Markdown.

Pages show such strings with `st.text`, `st.code` or in dataframes where they can; where a line mixes the
page's own Markdown labels with them, `md_escape` makes them literal.
"""

from __future__ import annotations


def md_escape(text: str) -> str:
    """`text` made literal inside Markdown: every character Markdown or Streamlit's directives read is escaped,
    and line breaks become spaces (a name cannot start a list or a heading)."""
    out = []
    for ch in " ".join(str(text).split("\n")):
        if ch in "\\`*_{}[]()<>#+!|~$:=":
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)
