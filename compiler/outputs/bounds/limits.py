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
2^32 - 1). A value whose lower bound is not provably within its type, from
the loop facts and the parameters' types, leaves the pointer unchecked
(reasons.WRAPS): the bindings have no such check."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .poly import Poly


@dataclass(frozen=True)
class IndexLimit:
    index: Poly  # an upper bound of one value an index is computed from, in the parameters
    most: int  # the largest value of the type it is computed in
    type: str  # that type's name, for messages

    def text(self) -> str:
        return f"{self.index.text()} <= {self.most} ({self.type})"

    def to_json(self) -> dict:
        return {"index": self.index.to_json(), "max": self.most, "type": self.type}

    @staticmethod
    def from_json(data) -> "IndexLimit":
        if not (isinstance(data, dict) and isinstance(data.get("max"), int) and isinstance(data.get("type"), str)):
            raise ValueError('an index limit is {"index": polynomial, "max": integer, "type": name}')
        return IndexLimit(Poly.from_json(data.get("index")), data["max"], data["type"])


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
    those another limit of the same type provably exceeds by a constant; in a stable order."""
    kept: list[IndexLimit] = []
    for lim in limits:
        top = poly_max(lim.index, ranges)
        if top is None or top <= lim.most or lim in kept:
            continue
        kept.append(lim)
    dominated = {id(a) for a in kept for b in kept
                 if a is not b and a.most == b.most and (b.index - a.index).is_const and (b.index - a.index).value >= 0
                 and (a.index != b.index)}
    return sorted((lim for lim in kept if id(lim) not in dominated),
                  key=lambda lim: (lim.most, -lim.index.degree, lim.index.text()))
