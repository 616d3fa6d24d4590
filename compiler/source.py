"""Source model: files, spans and position conversions.

The lexer works on the file's bytes decoded as latin-1, so every index into
`SourceFile.raw` is a byte offset. Columns are counted in characters (UTF-8
code points), so tabs and non-ASCII text never shift a caret; the LSP wants
UTF-16 columns, which `SourceFile.utf16_col` provides; `PositionEncoding`
counts columns in any of the LSP's encodings (UTF-8, UTF-16, UTF-32), and
`unit_width` is the one place a character's width in code units is decided.

Column conversions on a non-ASCII line go through tables built once per line
(character offsets, UTF-16 unit counts), so converting every position of a
long line costs linear time in total, not quadratic.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import add
from .linetable import LineTable

# UTF-8 continuation bytes: every other byte starts a character.
_CONTINUATION = bytes(range(0x80, 0xC0))


class Span:
    """A range of source text: byte offsets [start, end), 1-based line and
    character column of the start, and of the end (exclusive column)."""

    __slots__ = ("start", "end", "line", "col", "end_line", "end_col")

    def __init__(self, start: int, end: int, line: int, col: int, end_line: int, end_col: int):
        self.start = start
        self.end = end
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col

    @property
    def span(self) -> "Span":
        return self

    def to(self, other: "Span") -> "Span":
        """The span from the start of self to the end of other."""
        return Span(self.start, other.end, self.line, self.col, other.end_line, other.end_col)

    def at_end(self) -> "Span":
        """An empty span just after self (where something is missing)."""
        return Span(self.end, self.end, self.end_line, self.end_col, self.end_line, self.end_col)

    def at_start(self) -> "Span":
        """An empty span at the start of self (where text is inserted)."""
        return Span(self.start, self.start, self.line, self.col, self.line, self.col)

    def as_tuple(self) -> tuple[int, int, int, int, int, int]:
        return (self.start, self.end, self.line, self.col, self.end_line, self.end_col)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self.as_tuple() == other.as_tuple()

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return f"Span({self.line}:{self.col}-{self.end_line}:{self.end_col} @{self.start}..{self.end})"


class SourceFile:
    """One source text. `raw` is the byte content as a latin-1 string."""

    def __init__(self, path: str, data: bytes | str, line_starts: Sequence[int] | None = None):
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        self.path = path
        self.data = data
        self.raw = data.decode("latin-1")
        self.ascii = data.isascii()
        if line_starts is None:
            # Line starts from the lengths of the lines, without a Python-level loop.
            lengths = map(add, map(len, self.raw.split("\n")), repeat(1))
            line_starts = list(accumulate(lengths, initial=0))[:-1]
        self.line_starts = line_starts
        self._char_tables: dict[int, list[int] | None] = {}
        self._texts: dict[int, str] = {}
        self._utf16_tables: dict[int, list[int] | None] = {}

    def edited(self, data: bytes, start: int, old_end: int, new_end: int) -> "SourceFile":
        """The file after replacing bytes [start, old_end) with `data`[start:new_end]
        (`data` is the whole new text): its line table from this one's, copied
        in time that does not grow with the file (linetable.py)."""
        table = LineTable.of(self.line_starts)
        keep = table.line_of(start)  # lines starting at or before the edit keep their start
        made = [start + 1 + i for i, c in enumerate(data[start:new_end]) if c == 10]
        after = table.line_of(old_end)  # the first line start after the replaced text
        return SourceFile(self.path, data, table.edited(keep, made, after, len(data) - len(self.data)))

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_of(self, offset: int) -> int:
        starts = self.line_starts
        return starts.line_of(offset) if isinstance(starts, LineTable) else bisect_right(starts, offset)

    def col_of(self, line: int, offset: int) -> int:
        """1-based character column of byte `offset` on `line`."""
        start = self.line_starts[line - 1]
        if self.ascii:
            return offset - start + 1
        table = self._char_table(line)
        if table is None:
            return offset - start + 1
        return bisect_left(table, offset) + 1

    def span(self, start: int, end: int) -> Span:
        line = self.line_of(start)
        end_line = self.line_of(end) if end > start else line
        return Span(start, end, line, self.col_of(line, start), end_line, self.col_of(end_line, end))

    def line_text(self, line: int) -> str:
        """The decoded text of a 1-based line, without its newline."""
        if not 1 <= line <= len(self.line_starts):
            return ""
        text = self._texts.get(line)
        if text is None:
            start, end = self._line_bounds(line)
            text = self.data[start:end].decode("utf-8", "replace")
            text = text[:-1] if text.endswith("\r") else text
            self._texts[line] = text
        return text

    def offset_at(self, line: int, col: int) -> int:
        """Byte offset of a 1-based line and character column (clamped)."""
        line = min(max(line, 1), len(self.line_starts))
        start, end = self._line_bounds(line)
        index = max(col, 1) - 1
        table = None if self.ascii else self._char_table(line)
        if table is None or index == 0:
            return min(start + index, end)
        return table[index] if index < bisect_left(table, end) else end

    def utf16_col(self, line: int, col: int) -> int:
        """0-based UTF-16 column (LSP `character`) of a 1-based character column."""
        index = max(col - 1, 0)
        table = self._utf16_table(line)
        if table is None:
            return min(index, len(self.line_text(line)))
        return table[min(index, len(table) - 1)]

    def col_from_utf16(self, line: int, character: int) -> int:
        """1-based character column of a 0-based UTF-16 column."""
        table = self._utf16_table(line)
        if table is None:
            return min(max(character, 0), len(self.line_text(line))) + 1
        return min(bisect_left(table, character), len(table) - 1) + 1

    def _line_bounds(self, line: int) -> tuple[int, int]:
        """Byte offsets of the start of a 1-based line and of its newline (or end of file)."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.raw)
        return start, end

    def _char_table(self, line: int) -> list[int] | None:
        """Byte offsets of the characters of a line (its newline included); None if it is ASCII."""
        if line in self._char_tables:
            return self._char_tables[line]
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.raw)
        chunk = self.data[start:end]
        table = None if chunk.isascii() else [start + i for i, b in enumerate(chunk) if not 0x80 <= b <= 0xBF]
        self._char_tables[line] = table
        return table

    def _utf16_table(self, line: int) -> list[int] | None:
        """UTF-16 units before each character of a line's text and after its last;
        None when every character is one unit (the column is the character index)."""
        if line in self._utf16_tables:
            return self._utf16_tables[line]
        text = self.line_text(line)
        table = None
        if not text.isascii():
            widths = [unit_width(c) for c in text]
            if 2 in widths:
                table = list(accumulate(widths, initial=0))
        self._utf16_tables[line] = table
        return table

    def text_of(self, span: Span) -> str:
        return self.data[span.start : span.end].decode("utf-8", "replace")


def char_count(data: bytes, start: int, end: int) -> int:
    """Characters in data[start:end]: the bytes that are not UTF-8 continuation bytes."""
    return len(data[start:end].translate(None, _CONTINUATION))


def unit_width(ch: str, encoding: str = "utf-16") -> int:
    """Code units one character takes in a position encoding ("utf-8", "utf-16", "utf-32")."""
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    return 1


class PositionEncoding:
    """Columns counted in one position encoding, as an LSP client negotiates it
    (UTF-16 unless it prefers UTF-8 or UTF-32). `column` and `char_col` convert
    between the compiler's 1-based character columns and 0-based unit columns."""

    __slots__ = ("name",)

    def __init__(self, name: object = "utf-16"):
        # Accepts a plain name or an enum carrying one (lsprotocol's PositionEncodingKind).
        self.name = str(getattr(name, "value", name) or "utf-16").lower()

    def width(self, ch: str) -> int:
        return unit_width(ch, self.name)

    def column(self, source: SourceFile, line: int, col: int) -> int:
        """0-based column, in code units, of a 1-based character column."""
        if self.name == "utf-16":
            return source.utf16_col(line, col)
        text = source.line_text(line)
        if self.name == "utf-32":
            return min(max(col - 1, 0), len(text))
        # UTF-8: the byte offset within the line, from the per-line character tables.
        start = source.line_starts[min(max(line, 1), len(source.line_starts)) - 1]
        return min(source.offset_at(line, col) - start, len(text.encode("utf-8", "surrogatepass")))

    def char_col(self, source: SourceFile, line: int, character: int) -> int:
        """1-based character column of a 0-based column in code units."""
        if self.name == "utf-16":
            return source.col_from_utf16(line, character)
        text = source.line_text(line)
        if self.name == "utf-32":
            return min(max(character, 0), len(text)) + 1
        # UTF-8: the character at (or, inside one, after) that byte of the line.
        line = min(max(line, 1), len(source.line_starts))
        size = len(text.encode("utf-8", "surrogatepass"))
        return source.col_of(line, source.line_starts[line - 1] + min(max(character, 0), size))

    def __repr__(self) -> str:
        return f"PositionEncoding({self.name!r})"
