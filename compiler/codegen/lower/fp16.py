"""Lowering of the half-precision conversions (INTRINSICS.md §8): f16
values travel as i16 bit patterns, so the conversions are a bitcast and an
exact widening (vcvtph2ps / fcvtl) or a nearest-even narrowing (vcvtps2ph / fcvtn)."""
from __future__ import annotations

from llvmlite import ir

from .common import require_x86


def _needs_f16c(em) -> None:
    # Without F16C LLVM would call a runtime helper: refuse instead of emulating.
    if not em.options.is_arm:
        require_x86(em, "f16c")


def _cvt_f16_f32(em, call, want):
    _needs_f16c(em)
    v = em.expr(call.args[0])
    halves = em.builder.bitcast(v, ir.VectorType(ir.HalfType(), call.ty.lanes))
    return em.builder.fpext(halves, em.types(call.ty))


def _cvt_f32_f16(em, call, want):
    _needs_f16c(em)
    v = em.expr(call.args[0])
    halves = em.builder.fptrunc(v, ir.VectorType(ir.HalfType(), call.ty.lanes))
    return em.builder.bitcast(halves, em.types(call.ty))


LOWER = {"cvt_f16_f32": _cvt_f16_f32, "cvt_f32_f16": _cvt_f32_f16}
