"""`LineTable`: the start offset of every line of a text, as a read-only
sequence that an edit copies in time that does not grow with the file.

The starts are kept in blocks of about `BLOCK` lines, each relative to its
block's base offset. A copy edited in one place rebuilds the block or two
the edit touches, shares every other block with the original, and moves the
base offsets of the blocks after the edit: O(BLOCK + lines / BLOCK) rather
than a new list of every line (`SourceFile.edited`, once per keystroke).
The original stays valid: nothing is changed in place.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

BLOCK = 256


class LineTable(Sequence):
    __slots__ = ("blocks", "bases", "firsts", "count")

    def __init__(self, blocks: list[list[int]], bases: list[int], firsts: list[int], count: int):
        self.blocks = blocks  # relative starts, each block non-empty
        self.bases = bases  # the offset each block's entries are relative to
        self.firsts = firsts  # the index of each block's first line
        self.count = count

    @classmethod
    def of(cls, starts: Sequence[int]) -> "LineTable":
        if isinstance(starts, LineTable):
            return starts
        return cls.from_blocks([list(starts[n:n + BLOCK]) for n in range(0, len(starts), BLOCK)], [], [], 0)

    @classmethod
    def from_blocks(cls, absolute: list[list[int]], blocks, bases, first: int) -> "LineTable":
        """Continue `blocks`/`bases` (whose lines start at 0) with blocks of absolute offsets."""
        firsts = [0]
        for b in blocks[:-1]:
            firsts.append(firsts[-1] + len(b))
        count = firsts[-1] + len(blocks[-1]) if blocks else 0
        blocks, bases, firsts = list(blocks), list(bases), firsts if blocks else []
        for starts in absolute:
            if starts:
                base = starts[0]
                blocks.append([s - base for s in starts])
                bases.append(base)
                firsts.append(count)
                count += len(starts)
        return cls(blocks, bases, firsts, count)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(self.count))]
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError("line table index out of range")
        b = bisect_right(self.firsts, i) - 1
        return self.bases[b] + self.blocks[b][i - self.firsts[b]]

    def line_of(self, offset: int) -> int:
        """How many lines start at or before `offset` (`bisect_right` of the starts)."""
        b = bisect_right(self.bases, offset) - 1
        if b < 0:
            return 0
        return self.firsts[b] + bisect_right(self.blocks[b], offset - self.bases[b])

    def edited(self, keep: int, made: list[int], after: int, by: int) -> "LineTable":
        """The table of `self[:keep] + made + [s + by for s in self[after:]]`."""
        blocks, bases, firsts = self.blocks, self.bases, self.firsts
        if not blocks:
            return LineTable.of(made)
        lo = max(0, bisect_right(firsts, keep) - 1)  # the block holding line `keep` (or the last)
        hi = min(len(blocks) - 1, max(lo, bisect_right(firsts, after) - 1))  # the block holding line `after`
        head = [bases[lo] + s for s in blocks[lo][:keep - firsts[lo]]]
        tail = [bases[hi] + s + by for s in blocks[hi][max(0, after - firsts[hi]):]]
        middle = head + made + tail
        pieces = [middle[n:n + BLOCK] for n in range(0, len(middle), BLOCK)]
        out = LineTable.from_blocks(pieces, blocks[:lo], bases[:lo], 0)
        shift = out.count - (firsts[hi] + len(blocks[hi]))  # lines gained before the blocks after `hi`
        out.blocks += blocks[hi + 1:]
        out.bases += [b + by for b in bases[hi + 1:]]
        out.firsts += [f + shift for f in firsts[hi + 1:]]
        out.count = self.count + shift
        return out
