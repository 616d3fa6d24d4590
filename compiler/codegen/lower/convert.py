"""Lowering of the conversions, widen and narrow."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from ..literals import materialised


def convert(em, v: ir.Value, src: T.Type, dst: T.Type) -> ir.Value:
    """Numeric conversion by source and destination class (INTRINSICS.md §5)."""
    bld = em.builder
    se = src.elem if isinstance(src, T.Vector) else src
    de = dst.elem if isinstance(dst, T.Vector) else dst
    lt = em.types(dst)
    if se.is_float and de.is_float:
        if se.bits == de.bits:
            return v
        return bld.fpext(v, lt) if de.bits > se.bits else bld.fptrunc(v, lt)
    if se.is_float:
        return bld.fptoui(v, lt) if de.is_unsigned else bld.fptosi(v, lt)
    if de.is_float:
        return bld.uitofp(v, lt) if se.is_unsigned else bld.sitofp(v, lt)
    if se.bits == de.bits:
        return v
    if se.bits > de.bits:
        return bld.trunc(v, lt)
    return bld.zext(v, lt) if se.is_unsigned else bld.sext(v, lt)


def _to(target: T.Scalar):
    def lower(em, call, want):
        arg = call.args[0]
        src = materialised(arg.ty, None)
        v = em.expr(arg, src)
        return convert(em, v, src, call.ty)
    return lower


def widen_bytes(em, v: ir.Value, first: int, lanes: int, signed: bool, dst: T.Vector) -> ir.Value:
    """Bytes first..first+lanes of a 16-byte vector, extended and converted."""
    bld = em.builder
    mask = ir.Constant(ir.VectorType(ir.IntType(32), lanes), list(range(first, first + lanes)))
    part = bld.shuffle_vector(v, ir.Constant(v.type, ir.Undefined), mask)
    wide_int = ir.VectorType(ir.IntType(32), lanes)
    ext = bld.sext(part, wide_int) if signed else bld.zext(part, wide_int)
    if dst.elem.is_float:
        return bld.sitofp(ext, em.types(dst))
    if dst.elem.bits != 32:
        return bld.trunc(ext, em.types(dst)) if dst.elem.bits < 32 else ext
    return ext


def _widen(signed: bool, first: int = 0):
    def lower(em, call, want):
        dst = call.ty
        return widen_bytes(em, em.expr(call.args[0]), first, dst.lanes, signed, dst)
    return lower


def _narrow_f32x4_i8(em, call, want):
    # Truncate to integer, keep the low 8 bits, no saturation (INTRINSICS.md §5).
    bld = em.builder
    v = em.expr(call.args[0])
    ints = bld.fptosi(v, ir.VectorType(ir.IntType(32), 4))
    return bld.trunc(ints, ir.VectorType(ir.IntType(8), 4))


LOWER = {"to_f32": _to(T.F32), "to_f64": _to(T.F64), "to_i32": _to(T.I32), "to_i64": _to(T.I64),
         "to_i16": _to(T.I16), "to_f16": _to(T.F16),
         "widen_i8_f32x4": _widen(True), "widen_u8_f32x4": _widen(False),
         "narrow_f32x4_i8": _narrow_f32x4_i8}
