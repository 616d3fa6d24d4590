"""The abstract values `parallel.py` computes with, and how they combine.

Every value describes what an expression is in a chunk of a split call
compared with the same point of the whole call: the chunk sees its arrays
from `start` on and its length as `count`, so the position `i` it computes
is `i - start` and its `n` is `n - start`, the rest being equal.

- `Lin(ci, cn, off)`: the integer `ci * i + cn * n + off` (`off` None: some
  value equal in both calls). `Lin(0, 0, k)` is the constant k; `n - i`
  (`Lin(-1, 1, 0)`) is equal in both calls wherever only the last chunk runs.
- `SAME`: data equal in both calls (floats, vectors, loaded elements).
- `ZERO`: a zero of any type (the identity of a sum), also equal in both.
- `Ptr(param, scale)`: the pointer parameter `param`, seen through a view
  with `scale` elements per element of the parameter (`ptr_as_f32` of a
  `*Particle` has scale 4).
- `Acc(vars, ops)`: accumulators combined by the operations `ops`.
- `Elem(param, lo, hi)`: elements [lo, hi) of a parameter counted from the
  chunk's start, read before the loop (a maximum started at `x[0]`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..typesys import model as T


class NotSplittable(Exception):
    """Why an export may not be split; the message says where."""


@dataclass(frozen=True)
class Lin:
    ci: int
    cn: int
    off: int | None

    @property
    def invariant(self) -> bool:
        return self.ci == 0 and self.cn == 0


@dataclass(frozen=True)
class Ptr:
    param: str
    scale: Fraction


@dataclass(frozen=True)
class Acc:
    vars: frozenset
    ops: frozenset


@dataclass(frozen=True)
class Elem:
    param: str
    lo: Fraction
    hi: Fraction


class _Token:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


SAME = _Token("SAME")
ZERO = _Token("ZERO")
DEAD = _Token("DEAD")  # a loop variable the chain has moved on from
UNKNOWN = Lin(0, 0, None)


def const(k: int) -> Lin:
    return Lin(0, 0, k)


def add(a: Lin, b: Lin, sign: int = 1) -> Lin:
    off = None if a.off is None or b.off is None else a.off + sign * b.off
    return Lin(a.ci + sign * b.ci, a.cn + sign * b.cn, off)


def scale(a: Lin, k: int) -> Lin:
    return Lin(a.ci * k, a.cn * k, None if a.off is None else a.off * k)


def join(a, b):
    """A value covering both (a mutable local assigned twice): the same
    linear form with an unknown offset, or SAME for two invariant values."""
    if a == b:
        return a
    if isinstance(a, Lin) and isinstance(b, Lin) and (a.ci, a.cn) == (b.ci, b.cn):
        return Lin(a.ci, a.cn, None)
    invariant = (SAME, ZERO)
    if (a in invariant or isinstance(a, Lin) and a.invariant) and \
            (b in invariant or isinstance(b, Lin) and b.invariant):
        return UNKNOWN if isinstance(a, Lin) and isinstance(b, Lin) else SAME
    raise NotSplittable(f"a variable holds {describe(a)} and {describe(b)}")


def describe(v) -> str:
    if isinstance(v, Lin):
        return "a position" if v.ci else "the length" if v.cn else "an integer"
    if isinstance(v, Ptr):
        return f"pointer '{v.param}'"
    if isinstance(v, Acc):
        return f"the accumulator '{sorted(v.vars)[0]}'"
    if isinstance(v, Elem):
        return f"an element of '{v.param}' read before the loop"
    return "a loop variable after its loop" if v is DEAD else "a value"


def sizeof(t) -> int | None:
    """Bytes of one element of type `t` in C layout; None when not known here."""
    if isinstance(t, T.Scalar):
        return max(t.bits // 8, 1)
    if isinstance(t, T.Pointer):
        return 8
    if isinstance(t, T.Struct):
        size, align = 0, 1
        for ft in t.fields.values():
            fs = sizeof(ft)
            if fs is None or isinstance(ft, T.Struct):
                return None
            size = -(-size // fs) * fs + fs
            align = max(align, fs)
        return -(-size // align) * align if size else None
    return None


def lanes(t) -> int:
    return t.lanes if isinstance(t, T.Vector) else 1
