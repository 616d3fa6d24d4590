"""The span objects of an analysis, per top-level item, moved lazily.

An edit inside one function body adds or removes bytes (and lines) before
every item after it. Rather than moving their span objects at once (work
linear in the file), each item keeps a pending shift: the edit adds to the
pending shift of the items after it (one number per item), and an item's
spans are moved when something reads them (`settle`): the session settles
the edited item, the items its diagnostics point into, and, when a reader
asks for anything but the diagnostics, all of them (`settle_all`).

While an item is unsettled its spans hold positions of an older text, so
nothing may compare them with the spans of another item: the session keeps
each item's start (`starts`) and the index of its first token (`first_token`)
up to date instead, and finds what a span belongs to by identity (`owner`).
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import repeat
from operator import add

from ..source import Span
from .spans import bucket, collect, move


class ItemSpans:
    def __init__(self, roots: list, items: list, tokens: list, blocks: dict[int, Span]):
        """`roots`: everything holding spans; `items`: the program's items in
        source order (all settled); `blocks`: item index -> its function body's
        span, for the items whose body an edit may re-check."""
        starts = [i.span.start for i in items]
        self.starts = starts
        per_item = bucket(collect(roots, {}).values(), starts) if items else []
        # Per item: its spans outside the body (`heads`) and inside it (`insides`, rebuilt by an edit there),
        # each in memory order (by id: moving them then walks memory forwards, about twice as fast).
        self.heads: list[list[Span]] = []
        self.insides: list[list[Span]] = []
        for n, spans in enumerate(per_item):
            block = blocks.get(n)
            if block is None:
                self.heads.append(sorted(spans, key=id))
                self.insides.append([])
            else:
                self.heads.append(sorted((s for s in spans if not block.start <= s.start < block.end), key=id))
                self.insides.append(sorted((s for s in spans if block.start <= s.start < block.end), key=id))
        self.head_ids = [{id(s) for s in h} for h in self.heads]
        self.owner = {id(s): n for n, spans in enumerate(per_item) for s in spans}
        self.pending_by = [0] * len(items)
        self.pending_lines = [0] * len(items)
        token_starts = [t.start for t in tokens]
        # Tokens before the first item go with it, as its spans do.
        self.first_token = [0] + [bisect_right(token_starts, s - 1) for s in starts[1:]]

    def settle(self, n: int) -> None:
        by, lines = self.pending_by[n], self.pending_lines[n]
        if by or lines:
            move(self.heads[n], by, lines)
            move(self.insides[n], by, lines)
            self.pending_by[n] = self.pending_lines[n] = 0

    def settle_all(self) -> None:
        by, lines = self.pending_by, self.pending_lines
        for n in range(len(by)):
            if by[n] or lines[n]:
                self.settle(n)

    def settle_owners(self, spans) -> bool:
        """Settle the items holding `spans`; False if one belongs to none."""
        owner, known = self.owner, True
        for s in spans:
            n = owner.get(id(s))
            if n is None:
                known = False
            else:
                self.settle(n)
        return known

    def shift_after(self, n: int, by: int, lines: int, tokens: int) -> None:
        """The items after item `n` move by `by` bytes and `lines` lines, and
        their tokens by `tokens` places in the token list (O(items))."""
        for values, d in ((self.pending_by, by), (self.starts, by), (self.pending_lines, lines),
                          (self.first_token, tokens)):
            if d:
                values[n + 1:] = map(add, values[n + 1:], repeat(d))

    def replace_insides(self, n: int, spans: list[Span]) -> None:
        owner = self.owner
        for s in self.insides[n]:
            owner.pop(id(s), None)
        self.insides[n] = sorted(spans, key=id)
        for s in spans:
            owner[id(s)] = n

    def item_at(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1
