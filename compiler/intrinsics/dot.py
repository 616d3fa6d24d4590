"""Integer dot products and widening multiplies (INTRINSICS.md §6).

x86 has the pmadd*/phadd family, ARM the dot-product, matrix-multiply,
pairwise-add and widening-multiply instructions; each side's members fail
on the other target with a message naming the closest alternative.
"""
from __future__ import annotations

from .table import arm_only, declare_fixed, declare_fixed_imm, x86_only

FAMILY = "integer dot product"

_DOTPROD = "requires ARMv8.2-A dot product extension; compile with --dotprod"
_I8MM = "requires ARMv8.6-A I8MM extension; compile with --i8mm"


def _dotprod_only(name: str):
    return arm_only(f"{name} is ARM-only (NEON dot product); no x86 equivalent", "dotprod",
                    f"{name} {_DOTPROD}")


def _mmla(name: str, a: str, b: str, what: str):
    return declare_fixed(name, ("acc", "a", "b"), [(("i32x4", a, b), "i32x4")],
                         f"2x2 i32 tile: acc[2i+j] += sum over k<8 of a[8i+k]*b[8j+k] ({what}).",
                         FAMILY, "v1.11",
                         arm_only(f"{name} is ARM-only (I8MM); no x86 equivalent", "i8mm", f"{name} {_I8MM}"))


def _neon(name: str, params: tuple[str, str], ret: str, doc: str):
    return declare_fixed(name, ("a", "b"), [(params, ret)], doc, FAMILY, "v1.11",
                         arm_only(f"{name} is ARM-only (NEON); no x86 equivalent"))


INTRINSICS = [
    declare_fixed("maddubs_i16", ("a", "b"),
                  [(("u8x16", "i8x16"), "i16x8"), (("u8x32", "i8x32"), "i16x16"),
                   (("u8x64", "i8x64"), "i16x32")],
                  "r[k] = sat16(a[2k]*b[2k] + a[2k+1]*b[2k+1]), a unsigned, b signed (pmaddubsw).",
                  FAMILY, "CORE (v0.5)",
                  x86_only("maddubs_i16 is x86-only (SSSE3/AVX2 pmaddubsw, mixed-sign u8*i8 "
                           "multiply-add). On ARM, use usmmla_i32 (with --i8mm) or wmul_i16 and addp_i16")),
    declare_fixed("madd_i16", ("a", "b"),
                  [(("i16x8", "i16x8"), "i32x4"), (("i16x16", "i16x16"), "i32x8"),
                   (("i16x32", "i16x32"), "i32x16")],
                  "r[k] = a[2k]*b[2k] + a[2k+1]*b[2k+1] in i32 (pmaddwd).", FAMILY, "v1.11",
                  x86_only("madd_i16 is x86-only (SSE2/AVX2 pmaddwd, i16*i16 multiply-add to i32). "
                           "On ARM, use wmul_i32 and addp_i32")),
    declare_fixed("hadd_i16", ("a", "b"),
                  [(("i16x8", "i16x8"), "i16x8"), (("i16x16", "i16x16"), "i16x16")],
                  "Adjacent-pair sums [a0+a1, ..., b0+b1, ...] (wrapping; 256-bit: per 128-bit half).",
                  FAMILY, "v1.11",
                  x86_only("hadd_i16 is x86-only (SSSE3/AVX2 phaddw). On ARM, use addp_i16")),
    declare_fixed("vdot_i32", ("a", "b"), [(("i8x16", "i8x16"), "i32x4")],
                  "r[k] = sum over j<4 of a[4k+j]*b[4k+j] (sdot, zero accumulator).", FAMILY, "v1.11",
                  _dotprod_only("vdot_i32")),
    declare_fixed_imm("vdot_lane_i32", ("acc", "a", "b", "lane"), ("i32x4", "i8x16", "i8x16"), "i32x4",
                      (0, 3), "r[k] = acc[k] + sum over j<4 of a[4k+j]*b[4*lane+j] (sdot by element).",
                      FAMILY, "v1.11", _dotprod_only("vdot_lane_i32"),
                      range_message="vdot_lane_i32 lane must be 0..3"),
    _mmla("smmla_i32", "i8x16", "i8x16", "signed x signed"),
    _mmla("ummla_i32", "u8x16", "u8x16", "unsigned x unsigned"),
    _mmla("usmmla_i32", "u8x16", "i8x16", "unsigned a x signed b"),
    _neon("addp_i32", ("i32x4", "i32x4"), "i32x4", "Pairwise sums [a0+a1, a2+a3, b0+b1, b2+b3]."),
    _neon("addp_i16", ("i16x8", "i16x8"), "i16x8", "Pairwise sums of a, then of b."),
    _neon("wmul_i16", ("i8x8", "i8x8"), "i16x8", "r[k] = i16(a[k]) * i16(b[k]) (smull)."),
    _neon("wmul_u16", ("u8x8", "u8x8"), "u16x8", "r[k] = u16(a[k]) * u16(b[k]) (umull)."),
    _neon("wmul_i32", ("i16x4", "i16x4"), "i32x4", "r[k] = i32(a[k]) * i32(b[k]) (smull)."),
    _neon("wmul_u32", ("u16x4", "u16x4"), "u32x4", "r[k] = u32(a[k]) * u32(b[k]) (umull)."),
    declare_fixed("wmul_u64_lo", ("a", "b"), [(("u32x4", "u32x4"), "u64x2")],
                  "[a0*b0, a1*b1] as full 64-bit products.", FAMILY, "v1.12"),
    declare_fixed("wmul_u64_hi", ("a", "b"), [(("u32x4", "u32x4"), "u64x2")],
                  "[a2*b2, a3*b3] as full 64-bit products.", FAMILY, "v1.12"),
    # No target rule: its u64x4 result is what ARM cannot hold, and the
    # general vector-width rule reports that (`u64x4 requires AVX2; ...`).
    declare_fixed("wmul_u64", ("a", "b"), [(("u32x4", "u32x4"), "u64x4")],
                  "All four full 64-bit products (256-bit result).", FAMILY, "v1.14",
                  x86_only("wmul_u64 is x86-only (its u64x4 result is 256-bit); "
                           "use wmul_u64_lo and wmul_u64_hi on ARM")),
]
