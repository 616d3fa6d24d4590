"""Integer dot products and widening multiplies."""
from __future__ import annotations

from .table import declare_fixed, x86_only

FAMILY = "integer dot product"

INTRINSICS = [
    declare_fixed("maddubs_i16", ("a", "b"),
                  [(("u8x16", "i8x16"), "i16x8"), (("u8x32", "i8x32"), "i16x16"),
                   (("u8x64", "i8x64"), "i16x32")],
                  "r[k] = sat16(a[2k]*b[2k] + a[2k+1]*b[2k+1]), a unsigned, b signed (pmaddubsw).",
                  FAMILY, "CORE (v0.5)",
                  x86_only("maddubs_i16 is x86-only (SSSE3/AVX2 pmaddubsw, mixed-sign u8*i8 "
                           "multiply-add). On ARM, use usmmla_i32 (with --i8mm) or wmul_i16 and addp_i16")),
]
