"""Lowering of concat, lo/hi halves, vectors built from scalars, bitcasts
and the whole-register byte shifts (INTRINSICS.md §4, second half)."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from .common import const_int, immediate, shuffle


def _concat(em, call, want):
    a, b = (em.expr(x) for x in call.args)
    return shuffle(em, a, b, list(range(call.ty.lanes)))


def _half(upper: bool):
    def lower(em, call, want):
        half = call.ty.lanes
        start = half if upper else 0
        return shuffle(em, em.expr(call.args[0]), None, list(range(start, start + half)))
    return lower


def _from_scalars(em, call, want):
    lt = em.types(call.ty)
    value = ir.Constant(lt, ir.Undefined)
    for k, arg in enumerate(call.args):
        value = em.builder.insert_element(value, em.expr(arg, T.F32), const_int(k))
    return value


def _bitcast(em, call, want):
    return em.builder.bitcast(em.expr(call.args[0]), em.types(call.ty))


def _byte_shift(right: bool):
    """Per 16-byte half, bytes move by imm and zeros fill in. The mask reads
    the pair (v, zero) as one rotated register (a zero lane is taken at the
    position it would have in that rotation), the shape LLVM matches to
    psrldq/pslldq and to AArch64 ext."""
    def lower(em, call, want):
        v = em.expr(call.args[0])
        imm = immediate(em, call.args[1])
        lanes = call.ty.lanes
        mask = []
        for h in range(0, lanes, 16):
            for j in range(16):
                src = j + imm if right else j - imm
                mask.append(h + src if 0 <= src < 16 else lanes + h + src % 16)
        return shuffle(em, v, ir.Constant(v.type, None), mask)
    return lower


_HALVES = {"lo128": False, "hi128": True, "lo256": False, "hi256": True}

LOWER = {
    **{f"concat_{t}": _concat for t in ("i8x16", "u8x16", "i8x32", "u8x32", "i32x8", "f32x8")},
    **{f"{p}_{t}": _half(_HALVES[p]) for p in ("lo128", "hi128") for t in ("i8x32", "u8x32", "i16x16", "u16x16")},
    **{f"{p}_{t}": _half(_HALVES[p]) for p in ("lo256", "hi256")
       for t in ("i8x64", "u8x64", "i32x16", "f32x16", "i16x32", "u16x32")},
    "f32x4_from_scalars": _from_scalars, "f32x8_from_scalars": _from_scalars,
    **{f"bitcast_{t}": _bitcast for t in ("i8x16", "i8x32", "i32x4", "i32x8")},
    "bsrli_i8x16": _byte_shift(True), "bsrli_i8x32": _byte_shift(True),
    "bslli_i8x16": _byte_shift(False), "bslli_i8x32": _byte_shift(False),
}
