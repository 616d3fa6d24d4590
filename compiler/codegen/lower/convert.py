"""Lowering of the conversions, widen, narrow, round, pack and pointer
reinterpretation (INTRINSICS.md §5)."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from ..literals import materialised
from .common import call_intrinsic, is_arm, shuffle


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


def _ptr_as(em, call, want):
    # Pointers are opaque in LLVM: only the checked pointee type changes.
    return em.expr(call.args[0])


def _widen_u16(first: int):
    def lower(em, call, want):
        part = shuffle(em, em.expr(call.args[0]), None, list(range(first, first + 8)))
        return em.builder.zext(part, ir.VectorType(ir.IntType(16), 8))
    return lower


_ROUND_X86 = {4: "llvm.x86.sse2.cvtps2dq", 8: "llvm.x86.avx.cvt.ps2dq.256"}


def _round(em, call, want):
    v = em.expr(call.args[0])
    lt = em.types(call.ty)
    if is_arm(em):  # only the 4-lane form passes the target rule
        return call_intrinsic(em, "llvm.aarch64.neon.fcvtns.v4i32.v4f32", [], lt, [v])
    # cvtps2dq rounds with MXCSR, which is round-to-nearest-even by default.
    return call_intrinsic(em, _ROUND_X86[call.ty.lanes], [], lt, [v])


# (kind, source element bits, lanes) -> x86 intrinsic
_PACK_X86 = {("sat", 32, 4): "llvm.x86.sse2.packssdw.128", ("sat", 16, 8): "llvm.x86.sse2.packsswb.128",
             ("usat", 32, 4): "llvm.x86.sse41.packusdw", ("usat", 16, 8): "llvm.x86.sse2.packuswb.128",
             ("sat", 32, 8): "llvm.x86.avx2.packssdw", ("sat", 16, 16): "llvm.x86.avx2.packsswb",
             ("usat", 32, 8): "llvm.x86.avx2.packusdw", ("usat", 16, 16): "llvm.x86.avx2.packuswb"}


def _pack(kind: str):
    def lower(em, call, want):
        src = call.args[0].ty
        a, b = (em.expr(x) for x in call.args)
        lt = em.types(call.ty)
        if is_arm(em):
            return _pack_arm(em, kind, a, b, lt)
        packed = call_intrinsic(em, _PACK_X86[(kind, src.elem.bits, src.lanes)], [], lt, [a, b])
        if src.lanes * src.elem.bits == 128:
            return packed
        # The 256-bit packs work per 128-bit half, giving [a_lo, b_lo, a_hi, b_hi];
        # vpermq 0xD8 (64-bit quarters 0, 2, 1, 3) restores [a..., b...].
        quads = em.builder.bitcast(packed, ir.VectorType(ir.IntType(64), 4))
        return em.builder.bitcast(shuffle(em, quads, None, [0, 2, 1, 3]), lt)
    return lower


def _pack_arm(em, kind: str, a: ir.Value, b: ir.Value, lt: ir.VectorType) -> ir.Value:
    """sqxtn / sqxtun on each operand, then the two halves side by side."""
    half = ir.VectorType(lt.element, lt.count // 2)
    base = "llvm.aarch64.neon.sqxtn" if kind == "sat" else "llvm.aarch64.neon.sqxtun"
    lo, hi = (call_intrinsic(em, base, [half], half, [x]) for x in (a, b))
    return shuffle(em, lo, hi, list(range(lt.count)))


LOWER = {"to_f32": _to(T.F32), "to_f64": _to(T.F64), "to_i32": _to(T.I32), "to_i64": _to(T.I64),
         "to_i16": _to(T.I16), "to_f16": _to(T.F16),
         **{f"to_{t.name}": _to(t) for t in (T.I8, T.U8, T.U16, T.U32, T.U64)},
         "widen_i8_f32x4": _widen(True), "widen_u8_f32x4": _widen(False),
         "narrow_f32x4_i8": _narrow_f32x4_i8,
         **{f"ptr_as_{e}": _ptr_as for e in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64")},
         **{f"widen_{s}_f32x{n}": _widen(s == "i8") for s in ("i8", "u8") for n in (8, 16)},
         **{f"widen_{s}_f32x4_{k}": _widen(s == "i8", k) for s in ("i8", "u8") for k in (4, 8, 12)},
         **{f"widen_u8_i32x{n}": _widen(False) for n in (4, 8, 16)},
         **{f"widen_u8_i32x4_{k}": _widen(False, k) for k in (4, 8, 12)},
         "widen_u8_u16": _widen_u16(0), "widen_u8_u16_hi": _widen_u16(8),
         "round_f32x4_i32x4": _round, "round_f32x8_i32x8": _round,
         **{f"pack_{k}_{t}": _pack(k) for k in ("sat", "usat") for t in ("i32x4", "i16x8", "i32x8", "i16x16")}}
