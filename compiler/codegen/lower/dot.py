"""Lowering of the integer dot products, pairwise adds and widening
multiplies (INTRINSICS.md §6). Each lowering only runs on the target its
target rule admits."""
from __future__ import annotations

from llvmlite import ir

from .common import call_intrinsic, cannot_lower, immediate, is_arm, shuffle

_MADDUBS = {16: "llvm.x86.ssse3.pmadd.ub.sw.128", 32: "llvm.x86.avx2.pmadd.ub.sw",
            64: "llvm.x86.avx512.pmaddubs.w.512"}
_MADD = {8: "llvm.x86.sse2.pmadd.wd", 16: "llvm.x86.avx2.pmadd.wd", 32: "llvm.x86.avx512.pmaddw.d.512"}
_HADD = {8: "llvm.x86.ssse3.phadd.w.128", 16: "llvm.x86.avx2.phadd.w"}


def _by_lanes(table: dict[int, str]):
    """A two-operand x86 intrinsic chosen by the first operand's lane count."""
    def lower(em, call, want):
        name = table.get(call.args[0].ty.lanes)
        if name is None:
            cannot_lower(em, f"no instruction takes {call.args[0].ty}")
        a, b = (em.expr(x) for x in call.args)
        return call_intrinsic(em, name, [], em.types(call.ty), [a, b])
    return lower


_V4I32 = ir.VectorType(ir.IntType(32), 4)
_V16I8 = ir.VectorType(ir.IntType(8), 16)


def _vdot(em, call, want):
    a, b = (em.expr(x) for x in call.args)
    return call_intrinsic(em, "llvm.aarch64.neon.sdot.v4i32.v16i8", [], _V4I32,
                          [ir.Constant(_V4I32, None), a, b])


def _vdot_lane(em, call, want):
    acc, a, b = (em.expr(x) for x in call.args[:3])
    lane = immediate(em, call.args[3])
    # Broadcast b's 4-byte group `lane` to every group: the by-element sdot form.
    words = em.builder.bitcast(b, _V4I32)
    picked = em.builder.bitcast(shuffle(em, words, None, [lane] * 4), _V16I8)
    return call_intrinsic(em, "llvm.aarch64.neon.sdot.v4i32.v16i8", [], _V4I32, [acc, a, picked])


def _mmla(op: str):
    def lower(em, call, want):
        acc, a, b = (em.expr(x) for x in call.args)
        return call_intrinsic(em, f"llvm.aarch64.neon.{op}.v4i32.v16i8", [], _V4I32, [acc, a, b])
    return lower


def _neon_binary(op: str):
    """llvm.aarch64.neon.<op> overloaded on the result type (addp, smull, umull)."""
    def lower(em, call, want):
        a, b = (em.expr(x) for x in call.args)
        lt = em.types(call.ty)
        return call_intrinsic(em, f"llvm.aarch64.neon.{op}", [lt], lt, [a, b])
    return lower


def _wmul_u64(first: int | None):
    """Full 64-bit products of u32 lanes: `first` picks lanes first..first+1,
    None all four. ARM has umull (umull2 for the upper pair); on x86 the
    zext + mul pattern selects vpmuludq."""
    def lower(em, call, want):
        a, b = (em.expr(x) for x in call.args)
        lanes = call.ty.lanes
        if first is not None:
            a, b = (shuffle(em, x, None, [first, first + 1]) for x in (a, b))
        lt = em.types(call.ty)
        if is_arm(em):
            return call_intrinsic(em, "llvm.aarch64.neon.umull", [lt], lt, [a, b])
        wide = ir.VectorType(ir.IntType(64), lanes)
        return em.builder.mul(em.builder.zext(a, wide), em.builder.zext(b, wide))
    return lower


LOWER = {"maddubs_i16": _by_lanes(_MADDUBS), "madd_i16": _by_lanes(_MADD), "hadd_i16": _by_lanes(_HADD),
         "vdot_i32": _vdot, "vdot_lane_i32": _vdot_lane,
         "smmla_i32": _mmla("smmla"), "ummla_i32": _mmla("ummla"), "usmmla_i32": _mmla("usmmla"),
         "addp_i32": _neon_binary("addp"), "addp_i16": _neon_binary("addp"),
         "wmul_i16": _neon_binary("smull"), "wmul_u16": _neon_binary("umull"),
         "wmul_i32": _neon_binary("smull"), "wmul_u32": _neon_binary("umull"),
         "wmul_u64_lo": _wmul_u64(0), "wmul_u64_hi": _wmul_u64(2), "wmul_u64": _wmul_u64(None)}
