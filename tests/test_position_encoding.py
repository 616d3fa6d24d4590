"""UTF-8 and UTF-32 columns come from the per-line tables in constant or
logarithmic time; they must equal the definition (sum the code units of the
characters before the column; the first character at or past a unit column)."""
from __future__ import annotations

import random

from ea_compiler.source import PositionEncoding, SourceFile, unit_width


def units_before(enc, src, line, col):
    return sum(unit_width(c, enc) for c in src.line_text(line)[: max(col - 1, 0)])


def char_at_units(enc, src, line, character):
    units, text = 0, src.line_text(line)
    for i, c in enumerate(text):
        if units >= character:
            return i + 1
        units += unit_width(c, enc)
    return len(text) + 1


def test_columns_equal_the_definition():
    rng = random.Random(3)
    for _ in range(1500):
        src = SourceFile("k.ea", "".join(rng.choice("ab é€😀\t\r\n") for _ in range(rng.randint(0, 30))))
        for enc in ("utf-8", "utf-32"):
            pe = PositionEncoding(enc)
            for line in range(1, src.line_count + 1):
                n = len(src.line_text(line))
                for col in range(0, n + 3):
                    assert pe.column(src, line, col) == units_before(enc, src, line, col), (enc, line, col)
                for ch in range(0, 4 * n + 3):
                    assert pe.char_col(src, line, ch) == char_at_units(enc, src, line, ch), (enc, line, ch)
