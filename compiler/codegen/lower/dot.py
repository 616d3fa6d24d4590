"""Lowering of the integer dot products."""
from __future__ import annotations

from .common import call_intrinsic

_MADDUBS = {16: "llvm.x86.ssse3.pmadd.ub.sw.128", 32: "llvm.x86.avx2.pmadd.ub.sw",
            64: "llvm.x86.avx512.pmaddubs.w.512"}


def _maddubs_i16(em, call, want):
    a, b = (em.expr(x) for x in call.args)
    lanes = call.args[0].ty.lanes
    return call_intrinsic(em, _MADDUBS[lanes], [], em.types(call.ty), [a, b])


LOWER = {"maddubs_i16": _maddubs_i16}
