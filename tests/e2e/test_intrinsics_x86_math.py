"""End to end on x86: integer dot products and widening multiplies,
saturating arithmetic, half-precision conversions, the polynomial
approximations and streaming stores (INTRINSICS.md §6-§10). Expected values
come from numpy and from the bit-exact f32 models in f32_model.py, both
written from the spec."""
from __future__ import annotations

import math

import numpy as np
import pytest

import hostcpu

from ea_compiler import Options

from . import f32_model as fm
from .intrinsics_harness import Cases, expected_strings, host_has, run_cases

pytestmark = pytest.mark.skipif(not host_has("avx2") or not host_has("f16c"),
                                reason="host CPU lacks AVX2/F16C (256-bit x86 forms, vcvtph2ps)")

rng = np.random.default_rng(7)
I16 = np.concatenate([[-32768, -32768, -32768, -32768, 32767, 32767, -1, 1],
                      rng.integers(-32768, 32768, 56)]).astype(np.int16)
I16B = np.concatenate([[-32768, -32768, -32768, -32768, 32767, 32767, 1, -1],
                       rng.integers(-32768, 32768, 56)]).astype(np.int16)
U8 = np.concatenate([[255, 255, 0, 128], rng.integers(0, 256, 60)]).astype(np.uint8)
I8 = np.concatenate([[-128, -128, 127, -1], rng.integers(-128, 128, 60)]).astype(np.int8)
U32 = np.array([0xFFFFFFFF, 3, 0x80000000, 123456789], dtype=np.uint32)
U32B = np.array([0xFFFFFFFF, 0xFFFFFFFF, 2, 987654321], dtype=np.uint32)

CASES = Cases()
AVX512 = Cases()


# ---- madd_i16: r[k] = a[2k]b[2k] + a[2k+1]b[2k+1] in i32 (wrapping) ----
def madd(a, b):
    p = a.astype(np.int64) * b.astype(np.int64)
    return (p[0::2] + p[1::2]).astype(np.int32)


for n, group in ((8, CASES), (16, CASES), (32, AVX512)):
    group.binary(f"madd_i16x{n}", "madd_i16(x, y)", "i16", f"i16x{n}", "i32", f"i32x{n // 2}",
                 I16[:n], I16B[:n], madd(I16[:n], I16B[:n]))


# ---- maddubs_i16 (CORE, its 512-bit form needs AVX-512BW): sat16 of u8*i8 pairs ----
def maddubs(a, b):
    p = a.astype(np.int64) * b.astype(np.int64)
    return np.clip(p[0::2] + p[1::2], -32768, 32767)


for n, group in ((16, CASES), (32, CASES), (64, AVX512)):
    body = (f"    let x: u8x{n} = load(a0, 0)\n    let y: i8x{n} = load(a1, 0)\n"
            f"    let r: i16x{n // 2} = maddubs_i16(x, y)\n    store(o0, 0, r)")
    group.add(f"maddubs_i16_x{n}", body, [("u8", U8[:n]), ("i8", I8[:n])], [("i16", n // 2)],
              [maddubs(U8[:n], I8[:n])])


# ---- hadd_i16: adjacent pairs, a then b, per 128-bit half (wrapping) ----
def hadd(a, b):
    out = []
    for h in range(0, len(a), 8):
        for v in (a[h:h + 8], b[h:h + 8]):
            out.extend((v[0::2].astype(np.int32) + v[1::2]).astype(np.int16))
    return out


for n in (8, 16):
    CASES.binary(f"hadd_i16x{n}", "hadd_i16(x, y)", "i16", f"i16x{n}", "i16", f"i16x{n}", I16[:n], I16B[:n],
                 hadd(I16[:n], I16B[:n]))

# ---- full 64-bit products of u32 lanes ----
PROD = U32.astype(np.uint64) * U32B.astype(np.uint64)
CASES.binary("wmul_u64_lo", "wmul_u64_lo(x, y)", "u32", "u32x4", "u64", "u64x2", U32, U32B, PROD[:2])
CASES.binary("wmul_u64_hi", "wmul_u64_hi(x, y)", "u32", "u32x4", "u64", "u64x2", U32, U32B, PROD[2:])
CASES.binary("wmul_u64", "wmul_u64(x, y)", "u32", "u32x4", "u64", "u64x4", U32, U32B, PROD)

# ---- saturating add/sub: clamp to the element range; signedness from the type ----
SAT = {"i8x16": (I8, -128, 127), "u8x16": (U8, 0, 255), "i16x8": (I16, -32768, 32767),
       "u16x8": (I16.view(np.uint16), 0, 65535)}
for ty, (data, lo, hi) in SAT.items():
    elem = ty.split("x")[0]
    n = int(ty.split("x")[1])
    a, b = data[:n], data[n:2 * n][::-1]
    # Edge lanes: both operands at the extremes.
    a = np.concatenate([[hi, lo], a[2:]]).astype(data.dtype)
    b = np.concatenate([[hi, hi], b[2:]]).astype(data.dtype)
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    for op, exact in (("add", wide_a + wide_b), ("sub", wide_a - wide_b)):
        CASES.binary(f"sat_{op}_{ty}", f"sat_{op}_{ty}(x, y)", elem, ty, elem, ty, a, b, np.clip(exact, lo, hi))
        if ty in ("u16x8", "i8x16"):  # the deprecated polymorphic spelling
            CASES.binary(f"sat_{op}_poly_{ty}", f"sat_{op}(x, y)", elem, ty, elem, ty, a, b,
                         np.clip(exact, lo, hi))

# ---- binary16 <-> f32 ----
HALF_BITS = np.concatenate([[0x0000, 0x8000, 0x3C00, 0x7BFF, 0x0001, 0x03FF, 0x7C00, 0xFC00, 0xC000, 0x0400],
                            rng.integers(0, 0x7C00, 6) | (rng.integers(0, 2, 6) << 15)]).astype(np.uint16)
HALF_AS_F32 = HALF_BITS.view(np.float16).astype(np.float32)
CASES.add("cvt_f16_f32_i16x4", "    store(o0, 0, cvt_f16_f32(load(a0, 0)))", [("i16", HALF_BITS[:4].view(np.int16))],
          [("f32", 4)], [HALF_AS_F32[:4]])
for n in (8, 16):
    CASES.unary(f"cvt_f16_f32_i16x{n}", "cvt_f16_f32(v)", "i16", f"i16x{n}", "f32", f"f32x{n}",
                HALF_BITS[:n].view(np.int16), HALF_AS_F32[:n])
# Ties to even, overflow to infinity, subnormals, signed zero.
TO_HALF = np.concatenate([[1 + 2 ** -11, 1 + 3 * 2 ** -11, 65504, 65519.99, 65520, 1e-8, 2 ** -24, -0.0,
                           np.inf, -2 ** -25, 3 * 2 ** -25, 0.1],
                          rng.standard_normal(4) * 1000]).astype(np.float32)
with np.errstate(over="ignore"):  # 65520 rounds to infinity, as it should
    HALF_OF = TO_HALF.astype(np.float16).view(np.int16)
CASES.add("cvt_f32_f16_f32x4", "    let v: f32x4 = load(a0, 0)\n    store(o0, 0, cvt_f32_f16(v))",
          [("f32", TO_HALF[:4])], [("i16", 4)], [HALF_OF[:4]])
for n in (8, 16):
    CASES.unary(f"cvt_f32_f16_f32x{n}", "cvt_f32_f16(v)", "f32", f"f32x{n}", "i16", f"i16x{n}", TO_HALF[:n],
                HALF_OF[:n])

# ---- polynomial approximations, inside each documented domain ----
POLY_INPUTS = {
    "exp_poly_f32": np.concatenate([[-50, 50, 0, -0.0, 1, -1, 0.34657359, 88.0 / 2, -10.5, 2.5],
                                    rng.uniform(-50, 50, 6)]),
    "tanh_approx_f32": np.concatenate([[0, -0.0, 9, -9, 20, -1e30, 0.5, 1e-3], rng.uniform(-12, 12, 8)]),
    "log_approx_f32": np.concatenate([[1, 2, 0.5, 0.70710677, 0.7071068, 1e-30, 1e30, 3.4e38],
                                      np.exp(rng.uniform(-40, 40, 8))]),
    "sin_approx_f32": np.concatenate([[0, -0.0, math.pi / 4, math.pi / 2, -3 * math.pi / 4, 1e6, -1e7, 7.0],
                                      rng.uniform(-1e4, 1e4, 8)]),
}
POLY_INPUTS["cos_approx_f32"] = POLY_INPUTS["sin_approx_f32"]
MODELS = {"exp_poly_f32": fm.exp_poly, "tanh_approx_f32": fm.tanh_approx, "log_approx_f32": fm.log_approx,
          "sin_approx_f32": fm.sin_approx, "cos_approx_f32": fm.cos_approx}
for name, xs in POLY_INPUTS.items():
    xs = xs.astype(np.float32)
    want = [MODELS[name](x) for x in xs]
    for n in (4, 8, 16):
        CASES.unary(f"{name}_x{n}", f"{name}(v)", "f32", f"f32x{n}", "f32", f"f32x{n}", xs[:n], want[:n])
# Many more points through a loop, to make the bit-exact comparison sensitive to every step.
POLY_SWEEP = {"exp_poly_f32": rng.uniform(-50, 50, 256), "tanh_approx_f32": rng.uniform(-10, 10, 256),
              "log_approx_f32": np.exp(rng.uniform(-80, 80, 256)), "sin_approx_f32": rng.uniform(-100, 100, 256)}
POLY_SWEEP["cos_approx_f32"] = POLY_SWEEP["sin_approx_f32"]
for name, xs in POLY_SWEEP.items():
    xs = xs.astype(np.float32)
    body = ("    let mut i: i32 = 0\n    while i < 256 {\n"
            f"        store(o0, i, {name}(load_f32x8(a0, i)))\n        i = i + 8\n    }}")
    CASES.add(f"{name}_sweep", body, [("f32", xs)], [("f32", 256)], [[MODELS[name](x) for x in xs]])

# ---- streaming stores (vectors aligned to their size) and the fence ----
F32 = rng.standard_normal(16).astype(np.float32)
CASES.add("stream_store_f32x4", "    let v: f32x4 = load(a0, 0)\n    stream_store(o0, 4, v)\n    fence_nt()",
          [("f32", F32[:4])], [("f32", 8)], [np.concatenate([np.zeros(4), F32[:4]])])
CASES.add("stream_store_i32x8", "    let v: i32x8 = load(a0, 0)\n    stream_store(o0, 8, v)\n    fence_nt()",
          [("i32", I16[:8])], [("i32", 16)], [np.concatenate([np.zeros(8), I16[:8]])])
CASES.add("stream_store_u8x64", "    let v: u8x64 = load(a0, 0)\n    stream_store(o0, 64, v)\n    fence_nt()",
          [("u8", U8)], [("u8", 128)], [np.concatenate([np.zeros(64), U8])])
CASES.add("stream_store_f64x2", "    let v: f64x2 = load(a0, 0)\n    stream_store(o0, 2, v)\n    fence_nt()",
          [("f64", [1.5, -2.25])], [("f64", 4)], [[0, 0, 1.5, -2.25]])
for elem, value in (("i16", -1234), ("u16", 65000), ("i32", -123456789), ("u32", 4000000000),
                    ("i64", -(1 << 62) - 5), ("u64", (1 << 64) - 3)):
    CASES.add(f"stream_store_{elem}", f"    let s: {elem} = a0[0]\n    stream_store(o0, 3, s)\n    fence_nt()",
              [(elem, [value])], [(elem, 4)], [[0, 0, 0, value]])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return run_cases(CASES, tmp_path_factory.mktemp("math_x86"))


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_intrinsic(results, c):
    assert results[c.name] == expected_strings(c)


@pytest.fixture(scope="module")
def results_avx512(tmp_path_factory):
    hostcpu.require_runnable(Options(avx512=True))  # pmaddwd/pmaddubsw on 512-bit vectors
    return run_cases(AVX512, tmp_path_factory.mktemp("math_avx512"), Options(avx512=True))


@pytest.mark.parametrize("c", AVX512, ids=[c.name for c in AVX512])
def test_intrinsic_avx512(results_avx512, c):
    assert results_avx512[c.name] == expected_strings(c)


# The models themselves must honour each documented error bound, or they
# would only be restating our lowering.
BOUNDS = {"exp_poly_f32": (np.exp, "rel", 2 ** -17), "tanh_approx_f32": (np.tanh, "abs", 1e-6),
          "log_approx_f32": (np.log, "abs", 1e-5), "sin_approx_f32": (np.sin, "abs", 1e-5),
          "cos_approx_f32": (np.cos, "abs", 1e-5)}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_model_accuracy(name):
    ref, kind, bound = BOUNDS[name]
    xs = POLY_INPUTS[name].astype(np.float32)
    got = np.array([MODELS[name](x) for x in xs], dtype=np.float64)
    true = ref(xs.astype(np.float64))
    err = np.abs(got - true) / (np.abs(true) if kind == "rel" else 1)
    assert err.max() <= bound, (name, xs[err.argmax()], err.max())
