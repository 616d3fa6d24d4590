"""AArch64/NEON end to end (ARM target rules through the CLI (no qemu needed)): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations

import pytest

from .aarch64_harness import (ea_arm)


# 18. ARM target rules through the CLI (no qemu needed)
# ---------------------------------------------------------------------------

_GATHER = ("gather has no NEON equivalent on ARM. Use scalar load + f32x4_from_scalars "
           "(or f32x8_from_scalars) to compose the result explicitly.")
_MADDUBS = ("maddubs_i16 is x86-only (SSSE3/AVX2 pmaddubsw, mixed-sign u8*i8 multiply-add). "
            "On ARM, use usmmla_i32")

# (id, source, flags, message, exact): exact=False means the spec quotes only the message's start
TARGET_RULES = [
    ("f32x8-param", "export func f(a: f32x8) {\n}\n", (), "f32x8 requires AVX2; use f32x4 on ARM", True),
    ("f32x8-let", "export func f(p: *f32) -> f32 {\n    let v: f32x8 = load(p, 0)\n    return reduce_add(v)\n}\n",
     (), "f32x8 requires AVX2; use f32x4 on ARM", True),
    ("i32x8-return", "export func f() -> i32x8 {\n    return splat(0)\n}\n", (),
     "i32x8 requires AVX2; use i32x4 on ARM", True),
    ("f32x16-param", "export func f(a: f32x16) {\n}\n", (), "f32x16 requires AVX-512; use f32x4 on ARM", True),
    ("u8x32-param", "export func f(a: u8x32) {\n}\n", (),
     "u8x32 exceeds 128-bit NEON maximum; use a narrower vector on ARM", True),
    ("gather", "export func f(p: *f32, idx: i32x4) -> f32x4 {\n    return gather(p, idx)\n}\n", (),
     _GATHER, False),
    ("scatter", "export func f(p: *mut f32, idx: i32x4, v: f32x4) {\n    scatter(p, idx, v)\n}\n", (),
     "scatter has no NEON equivalent; use a scalar loop on ARM", True),
    ("maddubs_i16", "export func f(a: u8x16, b: i8x16) -> i16x8 {\n    return maddubs_i16(a, b)\n}\n", (),
     _MADDUBS, False),
    ("movemask", "export func f(a: u8x16) -> i32 {\n    return movemask(a)\n}\n", (),
     "movemask is x86-only (SSE2/AVX2); no NEON equivalent", True),
    ("vdot-without-dotprod", "export func f(a: i8x16, b: i8x16) -> i32x4 {\n    return vdot_i32(a, b)\n}\n", (),
     "vdot_i32 requires ARMv8.2-A dot product extension; compile with --dotprod", True),
    ("smmla-without-i8mm",
     "export func f(c: i32x4, a: i8x16, b: i8x16) -> i32x4 {\n    return smmla_i32(c, a, b)\n}\n", (),
     "smmla_i32 requires ARMv8.6-A I8MM extension; compile with --i8mm", True),
    ("f16x8-without-fp16", "export func f(p: *f16, o: *mut f16) {\n    let v: f16x8 = load(p, 0)\n"
     "    store(o, 0, v)\n}\n", (),
     "f16 vector types require --fp16; use cvt_f16_f32 to compute through f32 instead", True),
]


@pytest.mark.parametrize("src,flags,message,exact", [r[1:] for r in TARGET_RULES],
                         ids=[r[0] for r in TARGET_RULES])
def test_arm_target_rule(tmp_path, src, flags, message, exact):
    proc = ea_arm(src, tmp_path, *flags)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0] if proc.stderr else ""
    prefix = "error[codegen]: "
    assert first.startswith(prefix), proc.stderr
    if exact:
        assert first == prefix + message, proc.stderr
    else:
        assert first.startswith(prefix + message), proc.stderr
    assert not (tmp_path / "k.o").exists(), "no object file may be written after a compile error"


def test_arm_target_rules_accept_128_bit_equivalents(tmp_path):
    """Control for the rules above: the NEON spellings compile for the same triple."""
    src = ("export func f(p: *f32, a: u8x16, b: i8x16) -> f32 {\n    let v: f32x4 = load(p, 0)\n"
           "    let w: u8x16 = a .+ a\n    return reduce_add(v)\n}\n")
    proc = ea_arm(src, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.o").read_bytes()[:4] == b"\x7fELF"


def test_avx512_rejected_for_arm_triple(tmp_path):
    proc = ea_arm("export func f(a: f32x4) -> f32x4 {\n    return a\n}\n", tmp_path, "--avx512")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "error: --avx512 is incompatible with ARM target", proc.stderr
    assert not (tmp_path / "k.o").exists()
