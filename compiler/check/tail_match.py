"""Whether a kernel's `tail scalar` computes, element by element, what its
body computes. When it does, running the tail on a few elements first and
the body from there (a peeled prologue: compiler/codegen/ntpeel.py) stores
the same values, bit for bit, as the kernel as written, so the body's
streaming stores can start at an aligned address.

Both parts are evaluated symbolically into one expression per element
stored: the body's vectors lane by lane, the tail once. A load is named by
its array and its offset from the element being stored, so lane 3 of
`load(x, i)` stored at `out[i + 3]` and the tail's `x[i]` stored at
`out[i]` are the same leaf. Only lane-wise operations are understood
(operators, splat, load, fma, sqrt, min, max, abs, select, conversions,
widen_*); a branch, a loop, an assignment to a variable (a value carried
from one element to the next), a call to a function or any other
intrinsic means "not proven", with the reason.

An array both read and stored must be read only at the element being
stored, before it is stored: then no element reads what another writes.
Arrays passed under different names may still be the same memory: the
caller of this decision tests at run time that they are apart (`arrays`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..intrinsics import entry
from .loop_accesses import index_offset, merge
from ..syntax import ast as A
from ..typesys import model as T

# Intrinsics whose lane k is the same-named scalar operation on lane k of each argument.
LANEWISE = frozenset({"fma", "sqrt", "rsqrt", "abs", "min", "max", "select", "exp"})
CONVERSIONS = frozenset({"to_f32", "to_f64", "to_i16", "to_i32", "to_i64"})  # by the source's class
IGNORED = frozenset({"prefetch"})  # no effect on the values stored


@dataclass(frozen=True)
class TailMatch:
    ok: bool
    why: str = ""  # why not, for `ea inspect`
    # array -> (lowest, highest) offset from the loop variable read or written, in its own elements
    arrays: dict[str, tuple[int, int]] = field(default_factory=dict)
    written: tuple[str, ...] = ()


class _NotProven(Exception):
    pass


class _Lanes(tuple):
    """A vector value: one scalar expression per lane."""


def match(func: A.Func, decisions, const_values: dict) -> TailMatch:
    """Whether the desugared kernel `func` (body: init, main loop, tail loop)
    has a `tail scalar` that stores what its body stores, element by element."""
    kernel = func.origin
    if kernel is None or kernel.tail != "scalar" or kernel.tail_body is None:
        return TailMatch(False, "the kernel has no `tail scalar`")
    loops = [s for s in func.body.stmts if isinstance(s, A.While)]
    if len(loops) != 2:
        return TailMatch(False, "the kernel has no `tail scalar`")
    main, tail = loops
    try:
        body = _Part("body", kernel.var, decisions, const_values, func).run(main.body.stmts[:-1])
        scalar = _Part("tail", kernel.var, decisions, const_values, func).run(tail.body.stmts[:-1])
        return _compare(body, scalar, kernel.step)
    except _NotProven as e:
        return TailMatch(False, str(e))


class _Part:
    """One evaluation of the body or the tail: the stores it makes, in order,
    as (array, offset from the loop variable, value), and the offsets read."""

    def __init__(self, name: str, var: str, decisions, const_values: dict, func: A.Func):
        self.name, self.var, self.decisions, self.consts, self.func = name, var, decisions, const_values, func
        self.params = {p.name: p for p in func.params}
        self.env: dict[str, object] = {}
        self.stores: list[tuple[str, int, object]] = []
        self.reads: dict[str, set[int]] = {}

    def run(self, stmts) -> "_Part":
        for s in stmts:
            self.stmt(s)
        return self

    def stmt(self, s) -> None:
        if isinstance(s, A.Let):
            self.env[s.name] = self.expr(s.value)
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Index):
            self.store(s.target.base, s.target.index, self.expr(s.value))
        elif isinstance(s, A.Assign):
            raise _NotProven(f"the {self.name} assigns to a variable (a value carried from element to element)")
        elif isinstance(s, A.If) and self.name == "tail" and isinstance(s.orelse, A.Block):
            self.choose(s)
        elif isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call):
            name = self.intrinsic(s.expr)
            if name in ("store", "stream_store") and len(s.expr.args) == 3:
                self.store(s.expr.args[0], s.expr.args[1], self.expr(s.expr.args[2]))
            elif name not in IGNORED:
                raise _NotProven(f"the {self.name} calls `{s.expr.name}`")
        else:
            raise _NotProven(f"the {self.name} has control flow (an `if`, a loop or a `return`)")

    def choose(self, s: A.If) -> None:
        """`if c { out[i] = a } else { out[i] = b }`: out[i] = select(c, a, b)."""
        cond = self.expr(s.cond)
        branches = []
        for block in (s.then, s.orelse):
            part = _Part(self.name, self.var, self.decisions, self.consts, self.func)
            part.env, part.reads, part.stores = dict(self.env), self.reads, list(self.stores)
            branches.append(part.run(block.stmts).stores[len(self.stores):])
        then, other = branches
        if [(p, o) for p, o, _ in then] != [(p, o) for p, o, _ in other]:
            raise _NotProven(f"the {self.name}'s branches store to different elements")
        for (ptr, at, a), (_, _, b) in zip(then, other):
            self.stores.append((ptr, at, ("call", "select", str(self.params[ptr].ty.pointee), cond, a, b)))

    def intrinsic(self, call: A.Call) -> str | None:
        intr = self.decisions.intrinsic_of(call)
        return None if intr is None else entry(intr).name

    def array(self, e: A.Expr) -> str:
        e = A.unparen(e)
        if isinstance(e, A.Name) and e.name in self.params and isinstance(self.params[e.name].ty, T.Pointer) \
                and e.name not in self.env:
            return e.name
        raise _NotProven(f"the {self.name} addresses memory through something other than a pointer parameter")

    def offset(self, e: A.Expr) -> int:
        consts = {k: v for k, v in self.consts.items() if k not in self.env}
        at = index_offset(e, self.var, consts)
        if at is None:
            raise _NotProven(f"the {self.name} has an index that is not the loop variable plus a constant")
        return at

    def load(self, ptr: A.Expr, index: A.Expr, lanes: int | None):
        name, at = self.array(ptr), self.offset(index)
        if any(s[0] == name for s in self.stores):
            raise _NotProven(f"the {self.name} reads `{name}` after storing to it")
        count = lanes or 1
        self.reads.setdefault(name, set()).update(range(at, at + count))
        if lanes is None:
            return ("load", name, at)
        return _Lanes(("load", name, at + k) for k in range(lanes))

    def store(self, ptr: A.Expr, index: A.Expr, value) -> None:
        self.stores.append((self.array(ptr), self.offset(index), value))

    def expr(self, e: A.Expr):
        e = A.unparen(e)
        ty = e.ty
        if isinstance(e, (A.IntLit, A.FloatLit, A.BoolLit)):
            return ("const", e.value, str(ty))
        if isinstance(e, A.Name):
            return self.name_value(e)
        if isinstance(e, A.Index):
            return self.load(e.base, e.index, None)
        if isinstance(e, A.Unary):
            return _map(lambda a: ("unary", e.op, _elem(ty), a), self.expr(e.operand))
        if isinstance(e, A.Binary):
            op = e.op[1:] if e.op.startswith(".") else e.op
            return _map(lambda a, b: ("binary", op, _elem(ty), a, b), self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.VectorLit):
            return _Lanes(self.expr(x) for x in e.elems)
        if isinstance(e, A.Call):
            return self.call(e)
        raise _NotProven(f"the {self.name} uses an expression that is not lane by lane")

    def name_value(self, e: A.Name):
        if e.name in self.env:
            return self.env[e.name]
        if e.name == self.var:
            return ("var", 0)  # the loop variable as a value: in the body the same in every lane
        if e.name in self.params:
            return ("param", e.name)
        if e.name in self.consts:
            return ("const", self.consts[e.name], str(e.ty))
        raise _NotProven(f"the {self.name} reads `{e.name}`")

    def call(self, e: A.Call):
        name = self.intrinsic(e)
        ty = e.ty
        if name == "load" and len(e.args) == 2 and isinstance(ty, T.Vector):
            return self.load(e.args[0], e.args[1], ty.lanes)
        if name == "splat" and isinstance(ty, T.Vector):
            value = self.expr(e.args[0])
            if isinstance(value, _Lanes):
                raise _NotProven(f"the {self.name} splats a vector")
            return _Lanes([value] * ty.lanes)
        if name is not None and name.startswith("widen_") and isinstance(ty, T.Vector):
            return self.widen(name, e, ty)
        if name == "shuffle" and len(e.args) in (2, 3) and isinstance(A.unparen(e.args[-1]), A.VectorLit):
            return self.shuffle(e)
        if name in CONVERSIONS and len(e.args) == 1:
            source = e.args[0].ty
            cls = getattr(source.elem if isinstance(source, T.Vector) else source, "cls", None)
            return _map(lambda a: ("convert", _elem(ty), cls, a), self.expr(e.args[0]))
        if name in LANEWISE:
            args = [self.expr(a) for a in e.args]
            return _map(lambda *xs: ("call", name, _elem(ty), *xs), *args)
        raise _NotProven(f"the {self.name} calls `{e.name}`, which is not lane by lane")

    def shuffle(self, e: A.Call):
        """shuffle(v, [k...]) / shuffle(a, b, [k...]): lane j is lane k_j of v (of a then b)."""
        lanes: list = []
        for arg in e.args[:-1]:
            value = self.expr(arg)
            if not isinstance(value, _Lanes):
                raise _NotProven(f"the {self.name} shuffles a scalar")
            lanes.extend(value)
        picks = [x.value if isinstance(x, A.IntLit) else None for x in A.unparen(e.args[-1]).elems]
        if any(k is None or not 0 <= k < len(lanes) for k in picks):
            raise _NotProven(f"the {self.name} shuffles with indices that are not literals")
        return _Lanes(lanes[k] for k in picks)

    def widen(self, name: str, e: A.Call, ty: T.Vector):
        """widen_u8_f32x8(v): lane k is byte k (k + suffix) of v, zero- or sign-extended, converted."""
        parts = name.split("_")  # widen, u8|i8, f32x8|i32x4|u16, [suffix|hi]
        if len(parts) < 3 or parts[1] not in ("u8", "i8") or parts[2] == "u16":
            raise _NotProven(f"the {self.name} calls `{e.name}`, which is not lane by lane")
        first = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else 0
        source = self.expr(e.args[0])
        if not isinstance(source, _Lanes):
            raise _NotProven(f"the {self.name} widens a scalar")
        sign = "uint" if parts[1] == "u8" else "int"
        return _Lanes(("convert", _elem(ty), sign, source[first + k]) for k in range(ty.lanes))


def _elem(ty) -> str:
    if isinstance(ty, T.Mask):
        return "bool"
    return str(ty.elem) if isinstance(ty, T.Vector) else str(ty)


def _map(fn, *values):
    """Apply `fn` lane by lane; scalars stand for every lane."""
    widths = {len(v) for v in values if isinstance(v, _Lanes)}
    if not widths:
        return fn(*values)
    if len(widths) > 1:
        raise _NotProven("vectors of different widths meet in one operation")
    (n,) = widths
    return _Lanes(fn(*(v[k] if isinstance(v, _Lanes) else v for v in values)) for k in range(n))


def _relative(expr, at: int):
    """`expr` with its loads and the loop variable counted from element `at` (the one stored)."""
    if not isinstance(expr, tuple) or not expr:
        return expr
    if expr[0] == "load":
        return ("load", expr[1], expr[2] - at)
    if expr[0] == "var":
        return ("var", expr[1] - at)
    return tuple(_relative(x, at) if isinstance(x, tuple) else x for x in expr)


def _compare(body: _Part, tail: _Part, step: int) -> TailMatch:
    if not body.stores:
        return TailMatch(False, "the body stores nothing")
    wanted: dict[str, tuple[int, object]] = {}
    for name, at, value in tail.stores:
        if isinstance(value, _Lanes):
            raise _NotProven("the tail stores a vector")
        if name in wanted:
            raise _NotProven(f"the tail stores to `{name}` twice")
        wanted[name] = (at, _relative(value, at))
    stored: dict[str, dict[int, object]] = {}
    for name, at, value in body.stores:
        lanes = value if isinstance(value, _Lanes) else (value,)
        for k, lane in enumerate(lanes):
            if at + k in stored.setdefault(name, {}):
                raise _NotProven(f"the body stores element {at + k} of `{name}` twice")
            stored[name][at + k] = _relative(lane, at + k)
    if set(stored) != set(wanted):
        raise _NotProven("the body and the tail store to different arrays")
    for name, (at, value) in wanted.items():
        got = stored[name]  # distinct elements: these three say it is exactly [at, at + step)
        if len(got) != step or min(got) != at or max(got) != at + step - 1:
            raise _NotProven(f"the body does not store the {step} elements of `{name}` the tail would")
        if any(v != value for v in stored[name].values()):
            raise _NotProven(f"the tail does not compute what the body stores to `{name}`, element by element")
    for name in wanted:
        for part in (body, tail):
            first = wanted[name][0]
            if any(not first <= r < first + step for r in part.reads.get(name, ())):
                raise _NotProven(f"`{name}` is read at another element than the one stored")
        if any(off != wanted[name][0] for off in tail.reads.get(name, ())):
            raise _NotProven(f"`{name}` is read at another element than the one stored")
    arrays = merge(*({n: (min(o), max(o)) for n, o in part.reads.items()} for part in (body, tail)),
                   {name: (at, at + step - 1) for name, (at, _) in wanted.items()})
    return TailMatch(True, arrays=arrays, written=tuple(wanted))
