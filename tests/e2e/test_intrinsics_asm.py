"""Instruction selection of the intrinsic lowerings (INTRINSICS.md
"Targets / lowering" column), checked in the assembly without running it:
the ARM-only intrinsics (and the ARM forms of the shared ones) compile to an
AArch64 object with the expected mnemonic; a few x86 forms whose
instruction is part of the contract (streaming stores, the fence, pmovmskb...)
are checked on a fixed x86-64-v3 CPU."""
from __future__ import annotations

import re

import pytest

from ea_compiler import Options

from .intrinsics_harness import compile_module

ARM = Options(target_triple="aarch64-unknown-linux-gnu", dotprod=True, i8mm=True, fp16=True)
X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="x86-64-v3")


def fn(params: str, ret: str, expr: str) -> str:
    return f"export func f({params}) -> {ret} {{\n    return {expr}\n}}\n"


ARM_CASES = [
    # (intrinsic, source, mnemonic regex)
    ("vdot_i32", fn("a: i8x16, b: i8x16", "i32x4", "vdot_i32(a, b)"), r"\bsdot\s+v\d+\.4s, v\d+\.16b, v\d+\.16b"),
    ("vdot_lane_i32", fn("c: i32x4, a: i8x16, b: i8x16", "i32x4", "vdot_lane_i32(c, a, b, 2)"),
     r"\bsdot\s+v\d+\.4s, v\d+\.16b, v\d+\.4b\[2\]"),
    ("smmla_i32", fn("c: i32x4, a: i8x16, b: i8x16", "i32x4", "smmla_i32(c, a, b)"), r"\bsmmla\b"),
    ("ummla_i32", fn("c: i32x4, a: u8x16, b: u8x16", "i32x4", "ummla_i32(c, a, b)"), r"\bummla\b"),
    ("usmmla_i32", fn("c: i32x4, a: u8x16, b: i8x16", "i32x4", "usmmla_i32(c, a, b)"), r"\busmmla\b"),
    ("addp_i32", fn("a: i32x4, b: i32x4", "i32x4", "addp_i32(a, b)"), r"\baddp\s+v\d+\.4s"),
    ("addp_i16", fn("a: i16x8, b: i16x8", "i16x8", "addp_i16(a, b)"), r"\baddp\s+v\d+\.8h"),
    ("wmul_i16", fn("a: i8x8, b: i8x8", "i16x8", "wmul_i16(a, b)"), r"\bsmull\s+v\d+\.8h"),
    ("wmul_u16", fn("a: u8x8, b: u8x8", "u16x8", "wmul_u16(a, b)"), r"\bumull\s+v\d+\.8h"),
    ("wmul_i32", fn("a: i16x4, b: i16x4", "i32x4", "wmul_i32(a, b)"), r"\bsmull\s+v\d+\.4s"),
    ("wmul_u32", fn("a: u16x4, b: u16x4", "u32x4", "wmul_u32(a, b)"), r"\bumull\s+v\d+\.4s"),
    ("wmul_u64_lo", fn("a: u32x4, b: u32x4", "u64x2", "wmul_u64_lo(a, b)"), r"\bumull\s+v\d+\.2d"),
    ("wmul_u64_hi", fn("a: u32x4, b: u32x4", "u64x2", "wmul_u64_hi(a, b)"), r"\bumull2\s+v\d+\.2d"),
    *[(f"abs_diff_{t}", fn(f"a: {t}, b: {t}", t, f"abs_diff_{t}(a, b)"),
       rf"\b{'u' if t[0] == 'u' else 's'}abd\s+v\d+\.{ {'8': '16b', '16': '8h', '32': '4s'}[t[1:].split('x')[0]] }")
      for t in ("i8x16", "u8x16", "i16x8", "u16x8", "i32x4", "u32x4")],
    ("abs_diff", fn("a: u16x8, b: u16x8", "u16x8", "abs_diff(a, b)"), r"\buabd\s+v\d+\.8h"),
    ("shuffle_bytes", fn("a: u8x16, b: u8x16", "u8x16", "shuffle_bytes(a, b)"), r"\btbl\b"),
    ("round_f32x4_i32x4", fn("a: f32x4", "i32x4", "round_f32x4_i32x4(a)"), r"\bfcvtns\s+v\d+\.4s"),
    ("pack_sat_i32x4", fn("a: i32x4, b: i32x4", "i16x8", "pack_sat_i32x4(a, b)"), r"\bsqxtn2?\s"),
    ("pack_sat_i16x8", fn("a: i16x8, b: i16x8", "i8x16", "pack_sat_i16x8(a, b)"), r"\bsqxtn2?\s"),
    ("pack_usat_i32x4", fn("a: i32x4, b: i32x4", "u16x8", "pack_usat_i32x4(a, b)"), r"\bsqxtun2?\s"),
    ("pack_usat_i16x8", fn("a: i16x8, b: i16x8", "u8x16", "pack_usat_i16x8(a, b)"), r"\bsqxtun2?\s"),
    ("cvt_f16_f32", fn("a: i16x4", "f32x4", "cvt_f16_f32(a)"), r"\bfcvtl\b"),
    ("cvt_f32_f16", fn("a: f32x4", "i16x4", "cvt_f32_f16(a)"), r"\bfcvtn\b"),
    ("sat_add_i8x16", fn("a: i8x16, b: i8x16", "i8x16", "sat_add_i8x16(a, b)"), r"\bsqadd\b"),
    ("sat_sub_u16x8", fn("a: u16x8, b: u16x8", "u16x8", "sat_sub_u16x8(a, b)"), r"\buqsub\b"),
    ("bsrli_i8x16", fn("a: i8x16", "i8x16", "bsrli_i8x16(a, 3)"), r"\bext\s+v\d+\.16b, v\d+\.16b, v\d+\.16b, #3"),
    ("bslli_i8x16", fn("a: i8x16", "i8x16", "bslli_i8x16(a, 5)"), r"\bext\s+v\d+\.16b, v\d+\.16b, v\d+\.16b, #11"),
    ("fence_nt", "export func f() {\n    fence_nt()\n}\n", r"\bdmb\s+ishst\b"),
    ("stream_store", "export func f(p: *mut f32, v: f32x4) {\n    stream_store(p, 0, v)\n}\n", r"\bstnp\b"),
    ("stream_store_i64", "export func f(p: *mut i64, v: i64) {\n    stream_store(p, 1, v)\n}\n", r"\bstnp\b"),
]


@pytest.mark.parametrize("name,src,pattern", ARM_CASES, ids=[c[0] for c in ARM_CASES])
def test_arm_lowering(name, src, pattern):
    module = compile_module(src, ARM)
    assert module.object()[:4] == b"\x7fELF"
    asm = module.asm()
    assert re.search(pattern, asm), f"{name}: /{pattern}/ not in\n{asm}"


X86_CASES = [
    ("movemask", fn("a: u8x16", "i32", "movemask(a)"), r"\bv?pmovmskb\b"),
    ("movemask_u8x32", fn("a: u8x32", "i32", "movemask(a)"), r"\bvpmovmskb\s+%ymm"),
    ("shuffle_bytes", fn("a: u8x16, b: u8x16", "u8x16", "shuffle_bytes(a, b)"), r"\bv?pshufb\b"),
    ("permute_runtime", fn("a: f32x8, b: i32x8", "f32x8", "permute_runtime(a, b)"), r"\bvpermps\b"),
    ("madd_i16", fn("a: i16x8, b: i16x8", "i32x4", "madd_i16(a, b)"), r"\bv?pmaddwd\b"),
    ("hadd_i16", fn("a: i16x16, b: i16x16", "i16x16", "hadd_i16(a, b)"), r"\bvphaddw\b"),
    ("round_f32x8_i32x8", fn("a: f32x8", "i32x8", "round_f32x8_i32x8(a)"), r"\bvcvtps2dq\b"),
    ("pack_sat_i32x8", fn("a: i32x8, b: i32x8", "i16x16", "pack_sat_i32x8(a, b)"),
     r"\bvpackssdw\b[\s\S]*\bvpermq\b"),
    ("pack_usat_i16x16", fn("a: i16x16, b: i16x16", "u8x32", "pack_usat_i16x16(a, b)"),
     r"\bvpackuswb\b[\s\S]*\bvpermq\b"),
    ("sat_add_u8x16", fn("a: u8x16, b: u8x16", "u8x16", "sat_add_u8x16(a, b)"), r"\bv?paddusb\b"),
    ("sat_sub_i16x8", fn("a: i16x8, b: i16x8", "i16x8", "sat_sub_i16x8(a, b)"), r"\bv?psubsw\b"),
    ("cvt_f16_f32", fn("a: i16x8", "f32x8", "cvt_f16_f32(a)"), r"\bvcvtph2ps\b"),
    ("cvt_f32_f16", fn("a: f32x8", "i16x8", "cvt_f32_f16(a)"), r"\bvcvtps2ph\b"),
    ("wmul_u64_lo", fn("a: u32x4, b: u32x4", "u64x2", "wmul_u64_lo(a, b)"), r"\bv?pmuludq\b"),
    ("bslli_i8x32", fn("a: i8x32", "i8x32", "bslli_i8x32(a, 4)"), r"\bvpslldq\s+\$4, %ymm"),
    ("bsrli_i8x16", fn("a: i8x16", "i8x16", "bsrli_i8x16(a, 3)"), r"\bv?psrldq\s+\$3"),
    ("stream_store_f32x8", "export func f(p: *mut f32, v: f32x8) {\n    stream_store(p, 8, v)\n}\n",
     r"\bvmovntps\s+%ymm"),
    ("stream_store_i32", "export func f(p: *mut i32, v: i32) {\n    stream_store(p, 1, v)\n}\n", r"\bmovntil\b"),
    ("stream_store_u64", "export func f(p: *mut u64, v: u64) {\n    stream_store(p, 1, v)\n}\n", r"\bmovntiq\b"),
    ("fence_nt", "export func f() {\n    fence_nt()\n}\n", r"\bsfence\b"),
    ("exp_poly_f32", fn("a: f32x8", "f32x8", "exp_poly_f32(a)"), r"\bvfn?madd"),
]


@pytest.mark.parametrize("name,src,pattern", X86_CASES, ids=[c[0] for c in X86_CASES])
def test_x86_lowering(name, src, pattern):
    asm = compile_module(src, X86).asm()
    assert re.search(pattern, asm), f"{name}: /{pattern}/ not in\n{asm}"


@pytest.mark.parametrize("name", ["exp_poly_f32", "tanh_approx_f32", "log_approx_f32", "sin_approx_f32",
                                  "cos_approx_f32"])
@pytest.mark.parametrize("opts", [X86, ARM], ids=["x86", "arm"])
def test_polynomials_never_call_libm(name, opts):
    module = compile_module(fn("a: f32x4", "f32x4", f"{name}(a)"), opts)
    assert not re.search(r"\b(call|bl)\b", module.asm())
    assert not re.search(r"declare[^@]*@(?!llvm\.)", module.ir())
