"""Text into Markdown, the one way the server does it: every user or compiler
text (messages, names, types, docs) goes through `escape` or into `code` /
`code_block`, so a message like "cannot use '*' on vectors. Use '.*'" reaches
the reader intact instead of turning into emphasis (Neovim rendered it
"cannot use '' ... Use '.'")."""
from __future__ import annotations

import re

# CommonMark lets any ASCII punctuation be backslash-escaped. Escaped
# everywhere: what can open or close inline syntax (emphasis, code, links,
# HTML, tables, strikethrough, entities). Escaped at the start of a line only:
# what starts a block there (headings, lists, rules, setext underlines,
# ordered-list markers `1.` / `1)`). The rest (`.`, `-`, `(`, `{`, `!` ...)
# means nothing elsewhere once `[` is escaped, and stays readable raw.
_INLINE = re.compile(r"([\\`*\[\]<>|~&])")
# An underscore between letters or digits (`x86_64`, `load_f32x8`) can neither open nor
# close emphasis (CommonMark's flanking rules): only the others are escaped.
_UNDERSCORES = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_LINE_START = re.compile(r"^([ \t]*)(?:([#+\-=])|(\d+)([.)]))", re.MULTILINE)


def escape(text: str) -> str:
    """`text` as Markdown that renders as exactly `text`."""
    text = _INLINE.sub(r"\\\1", str(text))
    text = _UNDERSCORES.sub(lambda m: "\\_" * len(m.group()), text)
    return _LINE_START.sub(lambda m: m.group(1) + ("\\" + m.group(2) if m.group(2)
                                                   else m.group(3) + "\\" + m.group(4)), text)


def _fence(text: str, char: str, least: int) -> str:
    longest = max((len(run) for run in re.findall(re.escape(char) + "+", text)), default=0)
    return char * max(least, longest + 1)


def code(text: str) -> str:
    """Inline code (`text`), fenced past any backticks it holds."""
    text = str(text)
    fence = _fence(text, "`", 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, language: str = "ea") -> str:
    fence = _fence(text, "`", 3)
    return f"{fence}{language}\n{text}\n{fence}"


def emphasis(text: str) -> str:
    """`text` in italics, escaped (the note style of the hovers)."""
    return f"*{escape(text)}*"
