"""Index limits: an index computed in a fixed-width integer type must stay in
that type for the address to be the one the extent was proved for.

`a[i * n + j]` with i32 values reaches `m * n - 1` for the proof, which
treats arithmetic as exact. The machine code computes it in i32, so a call
with `m * n` past 2^31 wraps to a negative index and reads before the array.
An array that long is only 2 GiB of u8, so a call can do that. For each
integer value an index is made of (its arithmetic and the locals it reads),
the walk records the value's upper bound in the parameters with the largest
value of its type. A limit that the parameters' own types already keep
(`n - 1` in i32 for an i32 `n`) is dropped. The bindings check the rest
before the call, next to the extents.

Below its type a value wraps too (`to_i64(i - 1)` with a u32 `i` at 0 is
2^32 - 1; `n - 1` with n at i32's smallest is its largest). A value whose
lower bound is not provably within its type, from the loop facts and the
parameters' types, gets a limit the other way (`n - 1 >= -2147483648`),
checked alike; one with no lower bound in the parameters, or a constant one
below its type, leaves the pointer unchecked (reasons.WRAPS). Which values
need limits, and where, is `wraps.py`'s."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .poly import Poly


@dataclass(frozen=True)
class IndexLimit:
    index: Poly  # an upper bound of one value an index is computed from, in the parameters
    most: int  # the largest value of the type it is computed in (with `below`: the smallest)
    type: str  # that type's name, for messages
    below: bool = False  # `index` is a lower bound, which must stay at or above `most`

    def text(self) -> str:
        return f"{self.index.text()} {'>=' if self.below else '<='} {self.most} ({self.type})"

    def holds(self, value: int) -> bool:
        return value >= self.most if self.below else value <= self.most

    def to_json(self) -> dict:
        return {"index": self.index.to_json(), "min" if self.below else "max": self.most, "type": self.type}

    @staticmethod
    def from_json(data) -> "IndexLimit":
        below = isinstance(data, dict) and "min" in data and "max" not in data
        bound = data.get("min" if below else "max") if isinstance(data, dict) else None
        if not (isinstance(bound, int) and not isinstance(bound, bool) and isinstance(data.get("type"), str)):
            raise ValueError('an index limit is {"index": polynomial, "max" (or "min"): integer, "type": name}')
        return IndexLimit(Poly.from_json(data.get("index")), bound, data["type"], below)


def poly_range(p: Poly, ranges: Mapping[str, tuple[int, int]]) -> tuple[int, int] | None:
    """Bounds (low, high) of `p` over the parameters' ranges (interval arithmetic); None when
    `p` uses a name without a range."""
    low = high = 0
    for monomial, coef in p.terms.items():
        lo = hi = coef
        for name in monomial:
            if name not in ranges:
                return None
            a, b = ranges[name]
            products = (lo * a, lo * b, hi * a, hi * b)
            lo, hi = min(products), max(products)
        low, high = low + lo, high + hi
    return low, high


def poly_max(p: Poly, ranges: Mapping[str, tuple[int, int]]) -> int | None:
    """An upper bound of `p` over the parameters' ranges; None when `p` uses a name without one."""
    found = poly_range(p, ranges)
    return None if found is None else found[1]


def needed(limits: list[IndexLimit], ranges: Mapping[str, tuple[int, int]]) -> list[IndexLimit]:
    """The limits a call must check: without those the parameters' types keep, repeats, and
    those another limit of the same type and direction provably passes first by a constant;
    in a stable order."""
    kept: list[IndexLimit] = []
    for lim in limits:
        found = poly_range(lim.index, ranges)
        if found is None or lim.holds(found[0] if lim.below else found[1]) or lim in kept:
            continue
        kept.append(lim)

    def passes_first(a: IndexLimit, b: IndexLimit) -> bool:  # b fails whenever a does
        gap = (a.index - b.index) if a.below else (b.index - a.index)
        return a.most == b.most and a.below == b.below and gap.is_const and gap.value >= 0 and a.index != b.index

    dominated = {id(a) for a in kept for b in kept if a is not b and passes_first(a, b)}
    return sorted((lim for lim in kept if id(lim) not in dominated),
                  key=lambda lim: (lim.below, lim.most, -lim.index.degree, lim.index.text()))
