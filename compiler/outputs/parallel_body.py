"""Statements and expressions of an export as `parallel.py` sees them: the
abstract value of each expression (`parallel_values.py`), every memory
access with its index, and every update of an accumulator. Anything it
cannot account for raises `NotSplittable` with the reason.

Mutable locals are followed flow-insensitively (a local's value covers all
its assignments), so a body is run until those values stop changing.
User functions are followed into, with their arguments' values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..intrinsics import Intrinsic
from ..syntax import ast as A
from ..typesys import model as T
from .parallel_updates import conditional_form, direct_element, update_form
from .parallel_values import (DEAD, SAME, ZERO, Acc, Elem, Lin, NotSplittable, Ptr, add, const, describe, join,
                              lanes, scale, sizeof)

_READS = {"load", "load_masked"}
_WRITES = {"store", "store_masked", "stream_store"}
_REDUCE = {"reduce_add": "+", "reduce_add_fast": "+", "reduce_max": "max", "reduce_min": "min"}
_MAX_DEPTH = 24  # nested calls of user functions followed


@dataclass
class Var:
    value: object
    mutable: bool
    top: bool = False  # declared at the function's top level
    acc: bool = False  # a top-level variable updated inside the loops
    op: str | None = None  # the accumulator's operation: "+", "max" or "min"
    init: object = None


@dataclass(frozen=True)
class Access:
    param: str
    write: bool
    ci: int  # the position's coefficient in the index, in view elements
    off: int | None  # the constant part of the index, in view elements
    width: int  # view elements
    scale: Fraction  # view elements per parameter element
    stage: str  # "first" (the first loop), "post" (what follows it), "top" (outside loops)


@dataclass
class Frame:
    """One function body being analysed: its locals, kept across the passes."""
    lets: dict = field(default_factory=dict)
    changed: bool = False
    returns: list = field(default_factory=list)
    callee: bool = False


class Scope:
    def __init__(self, parent: "Scope | None" = None):
        self.names: dict[str, Var] = {}
        self.parent = parent

    def lookup(self, name: str) -> Var | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class Body:
    """The analysis state of one export."""

    def __init__(self, func: A.Func, decisions, functions: dict[int, A.Func], consts: dict[str, object]):
        self.func = func
        self.decisions = decisions
        self.functions = functions
        self.params = {p.name: p for p in func.params}
        self.consts = consts
        self.length: str | None = None
        # "top": outside the loops (runs in every chunk); "first": the first loop;
        # "post": the loops and tails after it (they run in the last chunk only)
        self.stage = "top"
        self.guarded = 0  # inside a branch, an inner loop or a callee
        self.depth = 0
        self.accesses: set[Access] = set()
        self.elem_data: set[str] = set()  # parameters whose elements read before the loop are used as data
        self.direct: set[tuple[str, str, Fraction, Fraction]] = set()  # (acc, param, lo, hi) in the first loop

    # ---- values ----
    def same(self, v, what: str):
        """`v` used as data: it must be equal in a chunk and in the whole call."""
        if v is SAME or v is ZERO:
            return SAME
        if isinstance(v, Lin):
            if v.invariant or (self.stage == "post" and v.ci == -v.cn):
                return SAME
            raise NotSplittable(f"{what} uses {describe(v)} as a value")
        if isinstance(v, Elem):
            self.elem_data.add(v.param)
            return SAME
        raise NotSplittable(f"{what} uses {describe(v)} as a value")

    def name(self, e: A.Name, scope: Scope):
        var = scope.lookup(e.name)
        if var is not None:
            if var.value is DEAD:
                raise NotSplittable(f"'{e.name}' is used after the loop that advanced it")
            return var.value
        p = self.params.get(e.name)
        if p is not None:
            if isinstance(p.ty, T.Pointer):
                return Ptr(p.name, Fraction(1))
            if p.name == self.length:
                return Lin(0, 1, 0)
            return Lin(0, 0, None) if T.is_int(p.ty) else SAME
        if e.name in self.consts:
            value = self.consts[e.name]
            return const(value) if isinstance(value, int) and not isinstance(value, bool) else SAME
        raise NotSplittable(f"'{e.name}' is not understood")

    def expr(self, e, scope: Scope):
        if isinstance(e, A.Paren):
            return self.expr(e.inner, scope)
        if isinstance(e, A.IntLit):
            return const(e.value)
        if isinstance(e, A.FloatLit):
            return ZERO if e.value == 0 else SAME
        if isinstance(e, (A.BoolLit, A.StringLit)):
            return SAME
        if isinstance(e, A.Name):
            return self.name(e, scope)
        if isinstance(e, A.Binary):
            return self.binary(e, scope)
        if isinstance(e, A.Unary):
            v = self.expr(e.operand, scope)
            if e.op == "-" and isinstance(v, Lin):
                return scale(v, -1)
            return self.same(v, f"'{e.op}'")
        if isinstance(e, A.Index):
            return self.index(e, scope)
        if isinstance(e, A.Field):
            return self.same(self.expr(e.base, scope), "a field access")
        if isinstance(e, A.Call):
            return self.call(e, scope)
        if isinstance(e, A.VectorLit):
            values = [self.expr(x, scope) for x in e.elems]
            if all(v is ZERO or v == const(0) for v in values):
                return ZERO
            for v in values:
                self.same(v, "a vector literal")
            return SAME
        if isinstance(e, A.StructLit):
            for f in e.fields:
                self.same(self.expr(f.value, scope), "a struct literal")
            return SAME
        raise NotSplittable("an expression that did not check")

    def binary(self, e: A.Binary, scope: Scope):
        """Along the left spine, so long chains `a + b + c + ...` need no deep recursion."""
        spine = A.left_spine(e)
        value = self.expr(spine[-1].left, scope)
        for b in reversed(spine):
            value = self.combine(b, value, self.expr(b.right, scope))
        return value

    def combine(self, e: A.Binary, left, right):
        op = e.op
        if isinstance(left, Acc) or isinstance(right, Acc):
            if isinstance(left, Acc) and isinstance(right, Acc) and op in ("+", ".+"):
                return Acc(left.vars | right.vars, left.ops | right.ops | {"+"})
            raise NotSplittable(f"an accumulator is combined by '{op}'")
        if isinstance(left, Lin) and isinstance(right, Lin):
            if op in ("+", "-"):
                return add(left, right, 1 if op == "+" else -1)
            if op == "*":
                if left.invariant and left.off is not None:
                    return scale(right, left.off)
                if right.invariant and right.off is not None:
                    return scale(left, right.off)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                self.same(add(left, right, -1), f"the comparison '{op}'")
                return SAME
        self.same(left, f"'{op}'")
        self.same(right, f"'{op}'")
        return Lin(0, 0, None) if T.is_int(e.ty) else SAME

    def index(self, e: A.Index, scope: Scope):
        base = self.expr(e.base, scope)
        if isinstance(base, Ptr):
            if isinstance(e.ty, T.Pointer):
                raise NotSplittable("a pointer is read from an array of pointers")
            return self.access(base, self.index_value(e.index, scope), 1, False)
        self.same(self.expr(e.index, scope), "a lane index")
        return self.same(base, "a lane read")

    def index_value(self, e, scope: Scope):
        """An index's value. Below the loop variable in an unsigned type it wraps
        where the chunk's position is 0 but the whole call's is not: refused."""
        v = self.expr(e, scope)
        if isinstance(v, Lin) and v.ci and T.is_int(e.ty) and getattr(e.ty, "is_unsigned", False) \
                and (v.off is None or v.off < 0):
            raise NotSplittable("an unsigned index below the loop variable (it wraps in a chunk)")
        return v

    def access(self, ptr: Ptr, index, width: int, write: bool):
        """Record a read or write of `width` elements of the view `ptr` at `index`."""
        if not isinstance(index, Lin) or index.cn != 0:
            self.same(index, "an index")
            index = Lin(0, 0, None)
        if self.stage == "top":
            if write:
                raise NotSplittable(f"'{ptr.param}' is written outside the loop")
            if index.ci:
                raise NotSplittable(f"'{ptr.param}' is read outside the loop at the loop variable")
        self.accesses.add(Access(ptr.param, write, index.ci, index.off, width, ptr.scale, self.stage))
        if self.stage == "top" and index.off is not None:
            return Elem(ptr.param, index.off / ptr.scale, (index.off + width) / ptr.scale)
        return SAME

    # ---- calls ----
    def call(self, e: A.Call, scope: Scope):
        callee = self.decisions.callee_of(e)
        if isinstance(callee, Intrinsic):
            return self.intrinsic(e, callee, scope)
        func = self.functions.get(getattr(getattr(callee, "span", None), "start", None))
        if func is None:
            raise NotSplittable(f"the call of '{e.name}' is not resolved")
        return self.user_call(e, func, scope)

    def intrinsic(self, e: A.Call, intr: Intrinsic, scope: Scope):
        name = intr.name
        if name == "println":
            raise NotSplittable("it prints (println): the order of the output would change")
        if name.startswith("prefetch"):
            return SAME  # a hint: no effect on any value
        if intr.params[:2] == ("ptr", "index"):
            ptr = self.pointer(e.args[0], scope, name)
            index = self.index_value(e.args[1], scope)
            write = name in _WRITES
            if not write and name not in _READS and not name.startswith("load_"):
                raise NotSplittable(f"'{name}' takes a pointer")
            for extra in e.args[2:]:
                self.same(self.expr(extra, scope), f"'{name}'")
            width = lanes(e.args[2].ty) if write else lanes(e.ty)
            return self.access(ptr, index, width, write)
        if name == "gather":
            ptr = self.pointer(e.args[0], scope, name)
            self.same(self.expr(e.args[1], scope), "the indices of gather")
            return self.access(ptr, Lin(0, 0, None), 1, False)
        if name.startswith("ptr_as_"):
            ptr = self.pointer(e.args[0], scope, name)
            old, new = sizeof(e.args[0].ty.pointee), sizeof(e.ty.pointee)
            if old is None or new is None:
                raise NotSplittable(f"'{name}' of '{ptr.param}': element size unknown")
            return Ptr(ptr.param, ptr.scale * Fraction(old, new))
        values = [self.expr(a, scope) for a in e.args]
        if any(isinstance(a.ty, T.Pointer) for a in e.args):
            raise NotSplittable(f"'{name}' takes a pointer")
        if name in _REDUCE and isinstance(values[0], Acc):
            return Acc(values[0].vars, values[0].ops | {_REDUCE[name]})
        if name in ("max", "min") and any(isinstance(v, Acc) for v in values):
            if all(isinstance(v, Acc) for v in values):
                return Acc(values[0].vars | values[1].vars, values[0].ops | values[1].ops | {name})
        if name == "splat" and (isinstance(values[0], Elem) or values[0] in (ZERO, const(0))):
            return ZERO if values[0] == const(0) else values[0]
        for v in values:
            self.same(v, f"'{name}'")
        return Lin(0, 0, None) if T.is_int(e.ty) else SAME

    def pointer(self, arg, scope: Scope, name: str) -> Ptr:
        v = self.expr(arg, scope)
        if not isinstance(v, Ptr):
            raise NotSplittable(f"'{name}' is given a pointer that is not a parameter")
        return v

    def user_call(self, e: A.Call, func: A.Func, scope: Scope):
        if self.depth >= _MAX_DEPTH:
            raise NotSplittable(f"calls nest deeper than {_MAX_DEPTH}")
        inner = Scope()
        for p, arg in zip(func.params, e.args):
            v = self.expr(arg, scope)
            if isinstance(v, Acc):
                raise NotSplittable(f"an accumulator is passed to '{func.name}'")
            if isinstance(v, Elem):
                v = self.same(v, f"'{func.name}'")
            inner.names[p.name] = Var(v, False)
        frame = Frame(callee=True)
        self.depth += 1
        self.guarded += 1
        try:
            self.run(func.body, inner, frame)
        finally:
            self.depth -= 1
            self.guarded -= 1
        if func.ret is None or not frame.returns:
            return SAME
        result = frame.returns[0]
        for v in frame.returns[1:]:
            result = join(result, v)
        return result

    # ---- statements ----
    def run(self, block: A.Block, scope: Scope, frame: Frame) -> None:
        """Analyse `block` until its locals' values are stable."""
        for _ in range(8):
            frame.changed = False
            frame.returns.clear()
            self.block(block, Scope(scope), frame)
            if not frame.changed:
                return
        raise NotSplittable("a local's value does not settle")

    def block(self, block: A.Block, scope: Scope, frame: Frame) -> None:
        for s in block.stmts:
            self.stmt(s, scope, frame)

    def stmt(self, s, scope: Scope, frame: Frame) -> None:
        if isinstance(s, A.Let):
            value = self.expr(s.value, scope)
            var = frame.lets.get(id(s))
            if var is None:
                var = frame.lets[id(s)] = Var(value, s.mutable)
            else:
                self.settle(var, join(var.value, value), frame)
            scope.names[s.name] = var
        elif isinstance(s, A.Assign):
            self.assign(s, scope, frame)
        elif isinstance(s, A.ExprStmt):
            self.expr(s.expr, scope)
        elif isinstance(s, A.If) and self.conditional_update(s, scope):
            pass  # `if e > acc { acc = e }`
        elif isinstance(s, A.If):
            self.same(self.expr(s.cond, scope), "an if condition")
            self.guarded += 1
            self.block(s.then, Scope(scope), frame)
            if isinstance(s.orelse, A.Block):
                self.block(s.orelse, Scope(scope), frame)
            elif s.orelse is not None:
                self.stmt(s.orelse, scope, frame)
            self.guarded -= 1
        elif isinstance(s, A.While):
            self.guarded += 1
            self.same(self.expr(s.cond, scope), "a loop condition")
            self.block(s.body, Scope(scope), frame)
            self.guarded -= 1
        elif isinstance(s, A.ForEach):
            start, end = self.expr(s.start, scope), self.expr(s.end, scope)
            if not isinstance(start, Lin) or not isinstance(end, Lin):
                raise NotSplittable("a foreach range that is not an integer range")
            self.same(add(end, start, -1), "the trip count of a foreach")
            inner = Scope(scope)
            inner.names[s.var] = Var(Lin(start.ci, start.cn, None), False)
            self.guarded += 1
            self.block(s.body, inner, frame)
            self.guarded -= 1
        elif isinstance(s, A.Unroll):
            self.stmt(s.loop, scope, frame)
        elif isinstance(s, A.Return):
            if not frame.callee:
                raise NotSplittable("it returns from inside its loop")
            if s.value is not None:
                frame.returns.append(self.expr(s.value, scope))
        else:
            raise NotSplittable("a statement that did not check")

    def settle(self, var: Var, value, frame: Frame) -> None:
        if value != var.value:
            var.value = value
            frame.changed = True

    def assign(self, s: A.Assign, scope: Scope, frame: Frame) -> None:
        target = A.unparen(s.target)
        if isinstance(target, A.Name):
            var = scope.lookup(target.name)
            if var is None or var.value is DEAD:
                raise NotSplittable(f"'{target.name}' is assigned where it cannot be followed")
            if var.acc:
                form = update_form(self.decisions, target.name, s.value)
                if form is None:
                    raise NotSplittable(f"'{target.name}' is updated by something other than +, max or min "
                                        "of itself")
                self.update(var, target.name, *form, scope)
            elif var.top or not var.mutable:
                raise NotSplittable(f"'{target.name}' carries a value from one iteration to the next")
            else:
                self.settle(var, join(var.value, self.expr(s.value, scope)), frame)
            return
        root = target
        while isinstance(root, A.Field):
            root = A.unparen(root.base)
        if isinstance(root, A.Index):
            base = self.expr(root.base, scope)
            if not isinstance(base, Ptr):
                raise NotSplittable("an element of a local is assigned")
            self.same(self.expr(s.value, scope), "a stored value")
            self.access(base, self.index_value(root.index, scope), 1, True)
        elif isinstance(root, A.Name) and root is not target:
            var = scope.lookup(root.name)
            if var is None or var.top or var.acc:
                raise NotSplittable(f"a field of '{root.name}' carries a value from one iteration to the next")
            self.same(self.expr(s.value, scope), "a field value")
        else:
            raise NotSplittable("an assignment to something other than a variable or an element")

    def update(self, var: Var, name: str, op: str, others: list, scope: Scope) -> None:
        """An accumulator's update by `op` with `others`, which read no accumulator."""
        if var.op not in (None, op):
            raise NotSplittable(f"'{name}' is updated by both {var.op} and {op}")
        var.op = op
        for other in others:
            self.same(self.expr(other, scope), f"the update of '{name}'")
        if op != "+" and not self.guarded and self.stage == "first":
            found = direct_element(others[0])
            if found is not None:
                self.direct_read(name, *found, scope)

    def conditional_update(self, s: A.If, scope: Scope) -> bool:
        form = conditional_form(s)
        if form is None:
            return False
        var = scope.lookup(form[0])
        if var is None or not var.acc:
            return False
        self.update(var, *form, scope)
        return True

    def direct_read(self, acc: str, base, index, width: int, scope: Scope) -> None:
        """Elements of a parameter every first-loop iteration takes into `acc`'s
        maximum or minimum, at the loop variable (`max(acc, x[i])`)."""
        ptr, at = self.expr(base, scope), self.expr(index, scope)
        if isinstance(ptr, Ptr) and isinstance(at, Lin) and at.ci == ptr.scale and at.cn == 0 and at.off is not None:
            self.direct.add((acc, ptr.param, at.off / ptr.scale, (at.off + width) / ptr.scale))
