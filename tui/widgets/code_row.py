"""One row of a CodeView: display text, coloured spans, and what the row
stands for (a cursor stop, a group to highlight, a gutter label).

Text is made safe for a terminal here, once: tabs expand to spaces and
control characters (from binary files) become visible symbols, so no byte
of a source file ever reaches the terminal as an escape sequence. Span
columns are moved along with the text.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

TAB = 4

Span = tuple[int, int, str]  # [start, end) character columns, style category


@dataclass(frozen=True, slots=True)
class Row:
    text: str
    spans: tuple[Span, ...] = ()
    key: int | None = None  # cursor stop identity (a source line, a listing index); None: skipped
    tag: int | None = None  # highlight group (the source line a row belongs to)
    gutter: str = ""
    gutter_style: str = ""  # style category of the gutter text
    style: str = ""  # style category of the whole row (notes under a line)


def _visible(ch: str) -> str:
    """A printable stand-in for a character `str.isprintable` rejects."""
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    if unicodedata.category(ch) == "Zs":
        return " "
    return "\ufffd"  # other controls, format characters, lone surrogates


def make_row(text: str, spans: list[Span] | tuple[Span, ...] = (), **fields) -> Row:
    """A Row from raw text whose spans index the raw text's characters."""
    if text.isprintable() and "\t" not in text:
        clean, moved = text, tuple(spans)
    else:
        out: list[str] = []
        where: list[int] = []  # raw index -> display column
        col = 0
        for ch in text:
            where.append(col)
            if ch == "\t":
                pad = TAB - col % TAB
                out.append(" " * pad)
                col += pad
            else:
                out.append(ch if ch.isprintable() else _visible(ch))
                col += 1
        where.append(col)
        clean = "".join(out)
        last = len(text)
        moved = tuple((where[min(max(s, 0), last)], where[min(max(e, 0), last)], c) for s, e, c in spans)
    return Row(clean, moved, **fields)
