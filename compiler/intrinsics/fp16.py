"""Half precision conversions (INTRINSICS.md §8): f16 values carried as i16
bit patterns, so code without `--fp16` can still store and load them."""
from __future__ import annotations

from .table import declare_fixed

FAMILY = "half precision"


def _wide_on_arm(name: str, alt: str):
    """Only the 4-lane form fits NEON: the other widths involve a 256- or
    512-bit vector on one side of the conversion."""
    def rule(c, result):
        if not c.options.is_arm:
            return None
        src = c.arg(0)
        bits = max(src.bits, result.bits)
        if bits <= 128:
            return None
        return f"{name} with {src} is x86-only ({bits}-bit); use {alt} on ARM"
    return rule


INTRINSICS = [
    declare_fixed("cvt_f16_f32", ("v",),
                  [(("i16x4",), "f32x4"), (("i16x8",), "f32x8"), (("i16x16",), "f32x16")],
                  "Read each i16 lane as IEEE binary16 bits and widen it to f32 (exact).", FAMILY, "v1.11",
                  _wide_on_arm("cvt_f16_f32", "i16x4")),
    declare_fixed("cvt_f32_f16", ("v",),
                  [(("f32x4",), "i16x4"), (("f32x8",), "i16x8"), (("f32x16",), "i16x16")],
                  "Round each f32 lane to binary16 (nearest-even) and return the bit patterns as i16.",
                  FAMILY, "v1.11", _wide_on_arm("cvt_f32_f16", "f32x4")),
]
