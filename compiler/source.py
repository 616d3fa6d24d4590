"""Source model: files, spans and position conversions.

The lexer works on the file's bytes decoded as latin-1, so every index into
`SourceFile.raw` is a byte offset. Columns are counted in characters (UTF-8
code points), so tabs and non-ASCII text never shift a caret; the LSP wants
UTF-16 columns, which `SourceFile.utf16_col` provides.
"""
from __future__ import annotations

from bisect import bisect_right


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

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end or (self.start == self.end == offset)

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

    def __init__(self, path: str, data: bytes | str):
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        self.path = path
        self.data = data
        self.raw = data.decode("latin-1")
        self.ascii = data.isascii()
        starts = [0]
        find = self.raw.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.line_starts = starts

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset)

    def col_of(self, line: int, offset: int) -> int:
        """1-based character column of byte `offset` on `line`."""
        start = self.line_starts[line - 1]
        if self.ascii:
            return offset - start + 1
        return _char_count(self.raw, start, offset) + 1

    def span(self, start: int, end: int) -> Span:
        line = self.line_of(start)
        end_line = self.line_of(end) if end > start else line
        return Span(start, end, line, self.col_of(line, start), end_line, self.col_of(end_line, end))

    def line_text(self, line: int) -> str:
        """The decoded text of a 1-based line, without its newline."""
        if not 1 <= line <= len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.raw)
        text = self.data[start:end].decode("utf-8", "replace")
        return text[:-1] if text.endswith("\r") else text

    def offset_at(self, line: int, col: int) -> int:
        """Byte offset of a 1-based line and character column (clamped)."""
        line = min(max(line, 1), len(self.line_starts))
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.raw)
        if self.ascii:
            return min(start + max(col, 1) - 1, end)
        chars = 0
        for i in range(start, end):
            if chars == col - 1:
                return i
            if not 0x80 <= ord(self.raw[i]) <= 0xBF:
                chars += 1
        return end

    def utf16_col(self, line: int, col: int) -> int:
        """0-based UTF-16 column (LSP `character`) of a 1-based character column."""
        text = self.line_text(line)
        prefix = text[: max(col - 1, 0)]
        return sum(2 if ord(c) > 0xFFFF else 1 for c in prefix)

    def col_from_utf16(self, line: int, character: int) -> int:
        """1-based character column of a 0-based UTF-16 column."""
        units = 0
        for i, c in enumerate(self.line_text(line)):
            if units >= character:
                return i + 1
            units += 2 if ord(c) > 0xFFFF else 1
        return len(self.line_text(line)) + 1

    def text_of(self, span: Span) -> str:
        return self.data[span.start : span.end].decode("utf-8", "replace")


def _char_count(raw: str, start: int, end: int) -> int:
    """Characters in raw[start:end]: bytes that are not UTF-8 continuation bytes."""
    n = 0
    for i in range(start, end):
        if not 0x80 <= ord(raw[i]) <= 0xBF:
            n += 1
    return n
