"""`LineTable` (compiler/linetable.py) is the list of line starts it stands
for, after any sequence of edits (random, seeded: lines added, removed and
replaced anywhere, across block boundaries, at both ends), and the tables it
was copied from stay as they were."""
from __future__ import annotations

import random
from bisect import bisect_right

import pytest

from ea_compiler.linetable import BLOCK, LineTable
from ea_compiler.source import SourceFile


def check(table: LineTable, want: list[int]) -> None:
    assert list(table) == want and len(table) == len(want)
    for offset in {0, 1, want[-1] if want else 0, (want[-1] + 7) if want else 3} | set(want[::37]) | \
            {s - 1 for s in want[::53]}:
        assert table.line_of(offset) == bisect_right(want, offset), offset
    assert all(len(b) > 0 for b in table.blocks)


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_match_a_list(seed):
    rnd = random.Random(seed)
    want = [0]
    for _ in range(rnd.choice([1, 3 * BLOCK, 10 * BLOCK + 17])):
        want.append(want[-1] + rnd.randint(1, 40))
    table = LineTable.of(want)
    kept = []
    for _ in range(200):
        keep = rnd.randint(1, len(want))
        after = min(len(want), keep + rnd.choice([0, 0, 1, 2, BLOCK, 3 * BLOCK]))
        start = want[keep - 1] + 1  # an offset on line `keep`
        made = sorted({start + rnd.randint(0, 2 * BLOCK) for _ in range(rnd.choice([0, 0, 1, 5, BLOCK + 3]))})
        by = rnd.randint(-5, 5) + (made[-1] - start if made else 0)
        if after < len(want):
            by = max(by, (made[-1] if made else start) + 1 - want[after])  # later lines stay after the made ones
        new = want[:keep] + made + [s + by for s in want[after:]]
        kept.append((table, list(want)))
        table, want = table.edited(keep, made, after, by), new
        check(table, want)
    for old, was in kept[::20]:  # copies, never edits in place
        assert list(old) == was


def test_a_source_edited_keeps_lines_and_columns():
    text = "".join(f"let x{n}: i32 = {n}\n" for n in range(3 * BLOCK))
    source = SourceFile("t.ea", text)
    at = text.index("x300")
    new = text[:at] + "y\n\nz" + text[at:]
    edited = source.edited(new.encode(), at, at, at + 4)
    fresh = SourceFile("t.ea", new)
    assert list(edited.line_starts) == fresh.line_starts and isinstance(edited.line_starts, LineTable)
    for offset in (0, at, at + 3, len(new) - 1):
        assert edited.line_of(offset) == fresh.line_of(offset)
        assert edited.span(offset, offset + 1).as_tuple() == fresh.span(offset, offset + 1).as_tuple()
