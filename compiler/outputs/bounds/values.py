"""What an expression is worth to the walk (`walk.py`): the parameter a
pointer expression points into (`Ref`, through locals and `ptr_as_*`
views), the integer value of an expression as a polynomial over the
parameters and atoms, or unknown — and whether unknown because it depends
on memory."""
from __future__ import annotations

from dataclasses import dataclass

from ...intrinsics import resolve_call
from ...intrinsics.table import Intrinsic
from ...syntax import ast as A
from ...typesys import model as T
from .poly import Poly
from .reasons import UNITS, size_of


@dataclass(frozen=True)
class Ref:
    """A pointer into parameter `param`: index k through it is element k * num / den of the parameter."""
    param: str
    num: int = 1
    den: int = 1


class _FromData:
    """The state of an integer variable computed from memory (unknown, and why)."""

    def __repr__(self) -> str:
        return "FROM_DATA"


FROM_DATA = _FromData()


class Values:
    """The program's functions and constants, and the values of expressions in an environment
    (name -> Ref, Poly, FROM_DATA or None). The walk (`walk.Walk`) says what `fail` does."""

    def __init__(self, program: A.Program, decisions):
        self.decisions = decisions
        self.funcs: dict[str, list[A.Func]] = {}
        self.consts: dict[str, int] = {}
        for item in program.items:
            if isinstance(item, A.Func):
                self.funcs.setdefault(item.name, []).append(item)
            elif isinstance(item, A.ConstDecl) and isinstance(item.value, A.IntLit):
                self.consts[item.name] = item.value.value

    def fail(self, ref: Ref, reason: str) -> None:
        raise NotImplementedError

    def callee(self, call: A.Call):
        if self.decisions is not None:
            return self.decisions.callee_of(call)
        return resolve_call(call.name, call.name in self.funcs)

    def pointer(self, e: A.Expr, env: dict) -> Ref | None:
        """The parameter `e` points into, if it is a pointer local or a view of one."""
        e = A.unparen(e)
        if isinstance(e, A.Name):
            state = env.get(e.name)
            return state if isinstance(state, Ref) else None
        if isinstance(e, A.Call) and e.args:
            callee = self.callee(e)
            if isinstance(callee, Intrinsic) and callee.memory is not None and callee.memory.kind == "view":
                inner = self.pointer(e.args[0], env)
                if inner is None:
                    return None
                new, old = _pointee_size(e.ty), _pointee_size(e.args[0].ty)
                if new is None or old is None:
                    self.fail(inner, UNITS)
                    return None
                return Ref(inner.param, inner.num * new, inner.den * old)
        return None

    def value(self, e: A.Expr, env: dict) -> Poly | None:
        """The integer value of `e` as a polynomial, or None."""
        e = A.unparen(e)
        if isinstance(e, A.IntLit):
            return Poly.const(wrapped(e.value, e.ty))
        if isinstance(e, A.Name):
            if e.name in env:
                state = env[e.name]
                return state if isinstance(state, Poly) else None
            return Poly.const(wrapped(self.consts[e.name], e.ty)) if e.name in self.consts else None
        if isinstance(e, A.Unary) and e.op == "-":
            inner = self.value(e.operand, env)
            return None if inner is None else -inner
        if isinstance(e, A.Binary):
            spine = A.left_spine(e)
            acc = self.operand(spine[-1].left, spine[-1].ty, env)
            for b in reversed(spine):
                if acc is None:
                    return None
                acc = _apply(b.op, acc, self.operand(b.right, b.ty, env))
            return acc
        if isinstance(e, A.Call) and len(e.args) == 1:
            callee = self.callee(e)
            if isinstance(callee, Intrinsic) and callee.family == "conversion" and _widens(e.args[0].ty, e.ty):
                return self.value(e.args[0], env)
        return None

    def operand(self, e: A.Expr, ty, env: dict) -> Poly | None:
        """An operand of arithmetic in `ty`: a literal as that type holds it (`i + 200` in i8 adds -56)."""
        found = self.value(e, env)
        if found is not None and found.is_const and isinstance(A.unparen(e), A.IntLit):
            return Poly.const(wrapped(found.value, ty))
        return found

    def reads(self, e: A.Expr, env: dict) -> bool:
        """`e`'s value depends on memory: it reads an element or a field,
        calls a function, or uses a variable computed so."""
        for x in A.walk([e]):
            if isinstance(x, (A.Index, A.Field)) or (isinstance(x, A.Name) and env.get(x.name) is FROM_DATA):
                return True
            if isinstance(x, A.Call):
                callee = self.callee(x)
                if not isinstance(callee, Intrinsic) or (callee.memory is not None and callee.memory.kind != "view"):
                    return True
        return False


def _apply(op: str, a: Poly, b: Poly | None) -> Poly | None:
    if b is None:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "<<" and b.is_const and 0 <= b.value < 63:
        return a.scale(1 << b.value)
    return None


def integer(ty) -> bool:
    return isinstance(ty, T.Scalar) and ty.is_integer


def wrapped(value, ty):
    """An integer literal's value as its type holds it (`let i: i8 = 200` is -56, as the
    machine code has it); other values as they are."""
    found = int_range(ty) if isinstance(value, int) and not isinstance(value, bool) else None
    if found is None:
        return value
    lo, hi = found
    return (value - lo) % (hi - lo + 1) + lo


def int_range(ty) -> tuple[int, int] | None:
    if not integer(ty):
        return None
    if ty.is_unsigned:
        return 0, (1 << ty.bits) - 1
    return -(1 << (ty.bits - 1)), (1 << (ty.bits - 1)) - 1


def _widens(src, dst) -> bool:
    """Converting a `src` integer to `dst` keeps every value."""
    a, b = int_range(src), int_range(dst)
    return a is not None and b is not None and b[0] <= a[0] and a[1] <= b[1]


def fits_i32(ty) -> bool:
    """A foreach bound of this type reaches the loop unchanged (it is converted to i32)."""
    return ty is T.INT_LIT or _widens(ty, T.I32)


def lanes_of(ty) -> int | None:
    if isinstance(ty, T.Vector):
        return ty.lanes
    if isinstance(ty, T.Scalar):
        return 1
    return None


def _pointee_size(ty) -> int | None:
    return size_of(ty.pointee) if isinstance(ty, T.Pointer) else None


