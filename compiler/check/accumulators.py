"""What an accumulator is, decided once: inspect's `one-accumulator` hint
(compiler/inspect/hints.py) and the unroll transformation meant to answer
it (compiler/tune/transforms/loopshape.py) both ask this module, so a hint
and its fix cannot disagree about which variable is the chain.

An accumulator of a loop body is a variable updated exactly once there, as
`acc = acc OP e` (or `e OP acc`) with OP one of `+ * | ^` (their `.`
vector forms for vectors; `|` and `^` only on integers), `acc = max(acc, e)`
or `min`, or `acc = fma(a, b, acc)` (a sum), and read nowhere else in the
body: its partial results can then be kept in independent registers and
combined after the loop. `max`, `min` and `fma` are the intrinsics the
checker recorded for the call (a user function of another name is not one).
Names declared in the body are per iteration, never accumulators."""
from __future__ import annotations

from dataclasses import dataclass

from ..syntax import ast as A
from ..typesys import model as T
from .decisions import Decisions

# The operator of an update -> what the accumulator computes.
_KINDS = {"+": "sum", ".+": "sum", "*": "product", ".*": "product", "|": "or", ".|": "or", "^": "xor", ".^": "xor"}


@dataclass(frozen=True)
class Accumulator:
    name: str
    kind: str  # "sum", "product", "max", "min", "or", "xor" (fma accumulates a sum)
    op: str  # the operator that combines two partial results: ".+", "+", "max", ...
    ty: T.Type
    assign: A.Assign

    @property
    def is_float(self) -> bool:
        """A float chain: each update waits for the previous one's full latency."""
        elem = self.ty.elem if isinstance(self.ty, T.Vector) else self.ty
        return isinstance(elem, T.Scalar) and elem.is_float


def accumulators(decisions: Decisions, body, exclude=frozenset()) -> list[Accumulator]:
    """The accumulators of the loop body `body` (a statement list), in source
    order; `exclude`: names that are not, whatever their shape (the loop's index)."""
    statements = list(A.statements(body))
    declared = {s.name for s in statements if isinstance(s, A.Let)}
    names = [n for n in A.walk(body) if isinstance(n, A.Name)]
    updates: dict[str, list[A.Assign]] = {}
    for s in statements:
        if isinstance(s, A.Assign) and isinstance(s.target, A.Name):
            updates.setdefault(s.target.name, []).append(s)
    out = []
    for name, assigns in updates.items():
        if name in exclude or name in declared or len(assigns) != 1:
            continue
        s = assigns[0]
        found = reduction(decisions, s, name)
        if found is None:
            continue
        reads = [n for n in names if n.name == name and n is not s.target]
        if len(reads) != 1:  # the one read is in the update itself
            continue
        out.append(Accumulator(name, found[0], found[1], s.target.ty, s))
    return sorted(out, key=lambda a: a.assign.span.start)


def reduction(decisions: Decisions, s: A.Assign, name: str) -> tuple[str, str] | None:
    """(kind, combining operator) when `s` updates `name` as a reduction, else None."""
    v = A.unparen(s.value)
    ty = s.target.ty
    if not isinstance(ty, (T.Scalar, T.Vector)) or not (ty.spelled if isinstance(ty, T.Vector) else ty.is_numeric):
        return None
    if isinstance(v, A.Binary) and v.op in _KINDS and (_is_name(v.left, name) or _is_name(v.right, name)):
        if v.op.startswith(".") != isinstance(ty, T.Vector):
            return None
        if _KINDS[v.op] in ("or", "xor") and not _integer(ty):
            return None
        return _KINDS[v.op], v.op
    if isinstance(v, A.Call) and _intrinsic(decisions, v, ("max", "min")) and len(v.args) == 2 \
            and any(_is_name(x, name) for x in v.args):
        return v.name, v.name
    if isinstance(v, A.Call) and _intrinsic(decisions, v, ("fma",)) and len(v.args) == 3 \
            and _is_name(v.args[2], name):
        return "sum", ".+" if isinstance(ty, T.Vector) else "+"
    return None


def _is_name(e, name: str) -> bool:
    e = A.unparen(e)
    return isinstance(e, A.Name) and e.name == name


def _intrinsic(decisions: Decisions, call: A.Call, names: tuple[str, ...]) -> bool:
    intr = decisions.intrinsic_of(call)
    return intr is not None and intr.name in names


def _integer(ty) -> bool:
    elem = ty.elem if isinstance(ty, T.Vector) else ty
    return elem.is_integer


def in_remainder(acc: Accumulator, function_accumulators) -> bool:
    """A scalar accumulator of a function that also accumulates vectors is a
    remainder loop's (the elements, rows or columns the vector loops leave):
    its chain is not what bounds the kernel, so no hint names it."""
    return not isinstance(acc.ty, T.Vector) and any(isinstance(a.ty, T.Vector) for a in function_accumulators)
