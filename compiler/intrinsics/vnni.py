"""VNNI dot products: x86's one-instruction int8 and int16 multiply-accumulate
(an extension: the reference compiler has only `maddubs_i16` + `madd_i16`).

`vpdpbusd` adds four u8 x i8 products per i32 lane, `vpdpwssd` two i16 x i16
products, to the accumulator, with no intermediate saturation (the i32 sum
wraps). The 512-bit forms need AVX512-VNNI; the 128/256-bit forms need
AVX512-VNNI with AVX512-VL (EVEX) or AVX-VNNI (VEX: Alder Lake, Zen 5).
Whether the CPU has them is known before LLVM is loaded
(compiler/cpu_levels.py); codegen asks again with LLVM's view of the host
(compiler/codegen/lower/vnni.py), with the same message.
"""
from __future__ import annotations

from ..cpu_levels import cpu_label, target_features
from ..options import Options
from .table import declare_fixed

FAMILY = "VNNI dot product"
SINCE = "extension (not in the reference)"

# What to write instead on a CPU without VNNI, and on AArch64.
_X86_ALTERNATIVE = {"dpbusd": "maddubs_i16 + madd_i16 (saturating)",
                    "dpwssd": "madd_i16 and .+ (the same result in two instructions)"}
_ARM_ALTERNATIVE = {"dpbusd": "vdot_i32 or vdot_lane_i32 with --dotprod (signed i8 x i8)",
                    "dpwssd": "wmul_i32 and addp_i32"}


def has_vnni(features: frozenset[str], bits: int) -> bool:
    """The CPU runs the `bits`-wide form (accumulator width)."""
    if bits == 512:
        return "avx512vnni" in features
    return "avxvnni" in features or {"avx512vnni", "avx512vl"} <= features


def vnni_problem(name: str, bits: int, features: frozenset[str], options: Options) -> str | None:
    """Why the CPU cannot run `name` on `bits`-wide vectors, naming the
    alternative; None when it can."""
    if has_vnni(features, bits):
        return None
    where = cpu_label(options)
    if bits < 512:
        return (f"{name} needs AVX512-VNNI or AVX-VNNI, which {where} lacks; use {_X86_ALTERNATIVE[name]} "
                f"or compile for a CPU with VNNI (e.g. --target=icelake-server or --target=alderlake)")
    instead = "the 256-bit form (an i32x8 accumulator)" if has_vnni(features, 256) else _X86_ALTERNATIVE[name]
    return (f"{name} on 512-bit vectors needs AVX512-VNNI, which {where} lacks; use {instead} or compile "
            f"for a CPU with AVX512-VNNI (e.g. --target=icelake-server)")


def _target(name: str):
    def rule(c, result):
        if c.options.is_arm:
            return f"{name} is x86-only (VNNI vp{name}); on AArch64 use {_ARM_ALTERNATIVE[name]}"
        features = target_features(c.options)
        if features is None:  # a CPU we cannot read: codegen asks LLVM
            return None
        return vnni_problem(name, result.lanes * 32, features, c.options)
    return rule


INTRINSICS = [
    declare_fixed("dpbusd", ("acc", "a", "b"),
                  [(("i32x4", "u8x16", "i8x16"), "i32x4"), (("i32x8", "u8x32", "i8x32"), "i32x8"),
                   (("i32x16", "u8x64", "i8x64"), "i32x16")],
                  "r[k] = acc[k] + sum over j<4 of a[4k+j]*b[4k+j], a unsigned, b signed, exact in i32 "
                  "(vpdpbusd; no saturation, the sum wraps).", FAMILY, SINCE, _target("dpbusd")),
    declare_fixed("dpwssd", ("acc", "a", "b"),
                  [(("i32x4", "i16x8", "i16x8"), "i32x4"), (("i32x8", "i16x16", "i16x16"), "i32x8"),
                   (("i32x16", "i16x32", "i16x32"), "i32x16")],
                  "r[k] = acc[k] + a[2k]*b[2k] + a[2k+1]*b[2k+1] in i32 (vpdpwssd; no saturation, "
                  "the sum wraps).", FAMILY, SINCE, _target("dpwssd")),
]
