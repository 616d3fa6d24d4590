"""Lowering of splat, fma, sqrt, rsqrt, exp, abs, min, max."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from ..literals import materialised
from .common import call_intrinsic, elem_of


def splat_value(em, scalar: ir.Value, vt: T.Vector) -> ir.Value:
    """insertelement + zero-mask shufflevector (the broadcast idiom)."""
    lt = em.types(vt)
    one = em.builder.insert_element(ir.Constant(lt, ir.Undefined), scalar, ir.Constant(ir.IntType(32), 0))
    zeros = ir.Constant(ir.VectorType(ir.IntType(32), vt.lanes), [0] * vt.lanes)
    return em.builder.shuffle_vector(one, ir.Constant(lt, ir.Undefined), zeros)


def _splat(em, call, want):
    vt = call.ty
    return splat_value(em, em.expr(call.args[0], vt.elem), vt)


def _result_type(call, want) -> T.Type:
    t = call.ty
    if T.is_literal(t):
        return materialised(t, want)
    return t


def _fma(em, call, want):
    t = _result_type(call, want)
    args = [em.expr(a, t) for a in call.args]
    lt = em.types(t)
    return call_intrinsic(em, "llvm.fma", [lt], lt, args)


def _unary_float(base: str):
    def lower(em, call, want):
        t = _result_type(call, want)
        lt = em.types(t)
        return call_intrinsic(em, base, [lt], lt, [em.expr(call.args[0], t)])
    return lower


def _rsqrt(em, call, want):
    # Exact 1/sqrt(x): a division, not an estimate instruction (INTRINSICS.md §2).
    t = _result_type(call, want)
    lt = em.types(t)
    root = call_intrinsic(em, "llvm.sqrt", [lt], lt, [em.expr(call.args[0], t)])
    one = ir.Constant(lt, 1.0) if not isinstance(t, T.Vector) else ir.Constant(lt, [1.0] * t.lanes)
    return em.builder.fdiv(one, root)


def _abs(em, call, want):
    t = _result_type(call, want)
    lt = em.types(t)
    x = em.expr(call.args[0], t)
    if elem_of(t).is_float:
        return call_intrinsic(em, "llvm.fabs", [lt], lt, [x])
    return call_intrinsic(em, "llvm.abs", [lt], lt, [x, ir.Constant(ir.IntType(1), 0)])


def _minmax(which: str):
    def lower(em, call, want):
        t = _result_type(call, want)
        lt = em.types(t)
        a, b = (em.expr(x, t) for x in call.args)
        elem = elem_of(t)
        if elem.is_float:  # minnum/maxnum: the non-NaN operand wins
            return call_intrinsic(em, f"llvm.{which}num", [lt], lt, [a, b])
        sign = "u" if elem.is_unsigned else "s"
        return call_intrinsic(em, f"llvm.{sign}{which}", [lt], lt, [a, b])
    return lower


LOWER = {"splat": _splat, "fma": _fma, "sqrt": _unary_float("llvm.sqrt"), "rsqrt": _rsqrt,
         "exp": _unary_float("llvm.exp"), "abs": _abs, "min": _minmax("min"), "max": _minmax("max")}
