"""AArch64/NEON end to end (ARM-only intrinsics (sdot, *mmla, pairwise, widening multiplies, abd) and half precision): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .aarch64_harness import (c_array, c_float, f32s, ints, line, needs_qemu, require, run_arm,
                              wrap)


# 13. ARM-only: sdot (--dotprod)
# ---------------------------------------------------------------------------

DOTPROD_EA = """
export func vd(a: *i8, b: *i8, acc: *i32, out: *mut i32) {
    let x: i8x16 = load(a, 0)
    let y: i8x16 = load(b, 0)
    let c: i32x4 = load(acc, 0)
    store(out, 0, vdot_i32(x, y))
    store(out, 4, vdot_lane_i32(c, x, y, 0))
    store(out, 8, vdot_lane_i32(c, x, y, 1))
    store(out, 12, vdot_lane_i32(c, x, y, 2))
    store(out, 16, vdot_lane_i32(c, x, y, 3))
}
"""

_DP_A = [-128, 127, -1, 5, 100, -100, 3, 7, -128, -128, -128, -128, 1, 2, 3, 4]
_DP_B = [-128, 127, 9, -6, 50, 60, -70, 80, 127, -128, 0, 1, -2, 11, 13, -17]
_DP_ACC = [1000000, -5, 0, 2 ** 31 - 100000]

DOTPROD_C = r"""
void vd(const int8_t*, const int8_t*, const int32_t*, int32_t*);
""" + c_array("int8_t", "A", _DP_A) + c_array("int8_t", "B", _DP_B) + c_array("int32_t", "ACC", _DP_ACC) + r"""
int main(void) {
    int32_t o[20];
    vd(A, B, ACC, o);
    for (int k = 0; k < 20; k++) pi(o[k]);
    nl();
    return 0;
}
"""


def dotprod_expected() -> list[str]:
    a, b, acc = _DP_A, _DP_B, _DP_ACC
    plain = [sum(a[4 * k + j] * b[4 * k + j] for j in range(4)) for k in range(4)]
    lanes = [wrap(acc[k] + sum(a[4 * k + j] * b[4 * lane + j] for j in range(4)), 32)
             for lane in range(4) for k in range(4)]
    return [ints(plain + lanes)]


@needs_qemu
def test_vdot_dotprod(tmp_path, qemu_features):
    require(qemu_features, "asimddp")
    assert run_arm(tmp_path, DOTPROD_EA, DOTPROD_C, "--dotprod") == dotprod_expected()


# ---------------------------------------------------------------------------
# 14. ARM-only: smmla / ummla / usmmla (--i8mm)
# ---------------------------------------------------------------------------

I8MM_EA = """
export func mm(a: *i8, b: *i8, acc: *i32, out: *mut i32) {
    let c: i32x4 = load(acc, 0)
    let sa: i8x16 = load(a, 0)
    let sb: i8x16 = load(b, 0)
    let ua: u8x16 = load(ptr_as_u8(a), 0)
    let ub: u8x16 = load(ptr_as_u8(b), 0)
    store(out, 0, smmla_i32(c, sa, sb))
    store(out, 4, ummla_i32(c, ua, ub))
    store(out, 8, usmmla_i32(c, ua, sb))
}
"""

_MM_A = [-128, 127, -1, 5, 100, -100, 3, 7, -128, -128, -128, -128, -128, -128, -128, -128]
_MM_B = [-128, 127, 9, -6, 50, 60, -70, 80, 255 - 256, 1, 2, 3, -128, -128, -128, -128]
_MM_ACC = [10, -20, 30, -40]

I8MM_C = r"""
void mm(const int8_t*, const int8_t*, const int32_t*, int32_t*);
""" + c_array("int8_t", "A", _MM_A) + c_array("int8_t", "B", _MM_B) + c_array("int32_t", "ACC", _MM_ACC) + r"""
int main(void) {
    int32_t o[12];
    mm(A, B, ACC, o);
    for (int k = 0; k < 12; k++) pi(o[k]);
    nl();
    return 0;
}
"""


def i8mm_expected() -> list[str]:
    def mmla(a, b):
        return [_MM_ACC[2 * i + j] + sum(a[8 * i + k] * b[8 * j + k] for k in range(8))
                for i in range(2) for j in range(2)]
    sa, sb = _MM_A, _MM_B
    ua, ub = [v & 0xFF for v in sa], [v & 0xFF for v in sb]
    return [ints(mmla(sa, sb) + mmla(ua, ub) + mmla(ua, sb))]


@needs_qemu
def test_mmla_i8mm(tmp_path, qemu_features):
    require(qemu_features, "i8mm")
    assert run_arm(tmp_path, I8MM_EA, I8MM_C, "--i8mm") == i8mm_expected()


# ---------------------------------------------------------------------------
# 15. ARM-only: pairwise add and widening multiplies (64-bit D-register types)
# ---------------------------------------------------------------------------

PAIRWISE_EA = """
export func pw(a: *i32, b: *i32, h: *i16, out: *mut i32, hout: *mut i16) {
    let x: i32x4 = load(a, 0)
    let y: i32x4 = load(b, 0)
    store(out, 0, addp_i32(x, y))
    let p: i16x8 = load(h, 0)
    let q: i16x8 = load(h, 8)
    store(hout, 0, addp_i16(p, q))
}

export func wm(sb: *i8, ub: *u8, sh: *i16, uh: *u16, uw: *u32,
               o16: *mut i16, ou16: *mut u16, o32: *mut i32, ou32: *mut u32, o64: *mut u64) {
    let a: i8x8 = load_i8x8(sb, 0)
    let b: i8x8 = load_i8x8(sb, 8)
    store(o16, 0, wmul_i16(a, b))
    let c: u8x8 = load_u8x8(ub, 0)
    let d: u8x8 = load_u8x8(ub, 8)
    store(ou16, 0, wmul_u16(c, d))
    let e: i16x4 = load_i16x4(sh, 0)
    let f: i16x4 = load_i16x4(sh, 4)
    store(o32, 0, wmul_i32(e, f))
    let g: u16x4 = load(uh, 0)
    let k: u16x4 = load(uh, 4)
    store(ou32, 0, wmul_u32(g, k))
    let m: u32x4 = load(uw, 0)
    let n: u32x4 = load(uw, 4)
    store(o64, 0, wmul_u64_lo(m, n))
    store(o64, 2, wmul_u64_hi(m, n))
}
"""

_PW_A = [2 ** 31 - 1, 1, -5, 7]
_PW_B = [100, -100, -(2 ** 31), -1]
_PW_H = [32767, 1, -3, 4, 1000, -2000, -32768, -1, 5, 6, 7, 8, 20000, 20000, 0, -9]
_WM_S8 = [-128, 127, -1, 5, 100, -7, 0, 64, -128, -128, 3, -5, -100, 9, 77, 2]
_WM_U8 = [255, 200, 1, 0, 17, 128, 99, 250, 255, 2, 3, 40, 5, 128, 254, 250]
_WM_S16 = [-32768, 32767, -1, 1234, -32768, -32768, 30000, -4321]
_WM_U16 = [65535, 40000, 2, 300, 65535, 50000, 65000, 301]
_WM_U32 = [0xFFFFFFFF, 3000000000, 7, 0x80000000, 0xFFFFFFFF, 5, 4000000000, 0x80000001]

PAIRWISE_C = r"""
void pw(const int32_t*, const int32_t*, const int16_t*, int32_t*, int16_t*);
void wm(const int8_t*, const uint8_t*, const int16_t*, const uint16_t*, const uint32_t*,
        int16_t*, uint16_t*, int32_t*, uint32_t*, uint64_t*);
""" + c_array("int32_t", "PA", [wrap(v, 32) for v in _PW_A]) + c_array("int32_t", "PB", [wrap(v, 32) for v in _PW_B]) \
    + c_array("int16_t", "PH", _PW_H) + c_array("int8_t", "S8", _WM_S8) + c_array("uint8_t", "U8", _WM_U8) \
    + c_array("int16_t", "S16", _WM_S16) + c_array("uint16_t", "U16", _WM_U16) \
    + c_array("uint32_t", "U32", _WM_U32, lambda v: f"{v}u") + r"""
int main(void) {
    int32_t o[4]; int16_t h[8];
    pw(PA, PB, PH, o, h);
    for (int k = 0; k < 4; k++) pi(o[k]);
    nl();
    for (int k = 0; k < 8; k++) pi(h[k]);
    nl();
    int16_t o16[8]; uint16_t ou16[8]; int32_t o32[4]; uint32_t ou32[4]; uint64_t o64[4];
    wm(S8, U8, S16, U16, U32, o16, ou16, o32, ou32, o64);
    for (int k = 0; k < 8; k++) pi(o16[k]);
    nl();
    for (int k = 0; k < 8; k++) pu(ou16[k]);
    nl();
    for (int k = 0; k < 4; k++) pi(o32[k]);
    nl();
    for (int k = 0; k < 4; k++) pu(ou32[k]);
    nl();
    for (int k = 0; k < 4; k++) pu(o64[k]);
    nl();
    return 0;
}
"""


def pairwise_expected() -> list[str]:
    a, b, h = _PW_A, _PW_B, _PW_H
    ab = a + b
    return [ints([wrap(ab[2 * k] + ab[2 * k + 1], 32) for k in range(4)]),
            ints([wrap(h[2 * k] + h[2 * k + 1], 16) for k in range(8)]),
            ints([_WM_S8[k] * _WM_S8[k + 8] for k in range(8)]),
            ints([_WM_U8[k] * _WM_U8[k + 8] for k in range(8)]),
            ints([_WM_S16[k] * _WM_S16[k + 4] for k in range(4)]),
            ints([_WM_U16[k] * _WM_U16[k + 4] for k in range(4)]),
            ints([_WM_U32[k] * _WM_U32[k + 4] for k in range(4)])]


@needs_qemu
def test_addp_and_widening_multiplies(tmp_path):
    assert run_arm(tmp_path, PAIRWISE_EA, PAIRWISE_C) == pairwise_expected()


# ---------------------------------------------------------------------------
# 16. ARM-only: absolute difference (sabd / uabd)
# ---------------------------------------------------------------------------

ABSDIFF_EA = """
export func ad(a: *u8, b: *u8, c: *i8, d: *i8, out: *mut u8, sout: *mut i8) {
    let x: u8x16 = load(a, 0)
    let y: u8x16 = load(b, 0)
    store(out, 0, abs_diff_u8x16(x, y))
    let p: i8x16 = load(c, 0)
    let q: i8x16 = load(d, 0)
    store(sout, 0, abs_diff_i8x16(p, q))
}

export func ad_wide(a: *i16, b: *i16, c: *i32, d: *i32, out: *mut i16, out32: *mut i32,
                    ua: *u16, ub: *u16, uout: *mut u16, wa: *u32, wb: *u32, wout: *mut u32) {
    let x: i16x8 = load(a, 0)
    let y: i16x8 = load(b, 0)
    store(out, 0, abs_diff_i16x8(x, y))
    let p: i32x4 = load(c, 0)
    let q: i32x4 = load(d, 0)
    store(out32, 0, abs_diff_i32x4(p, q))
    let m: u16x8 = load(ua, 0)
    let n: u16x8 = load(ub, 0)
    store(uout, 0, abs_diff_u16x8(m, n))
    let s: u32x4 = load(wa, 0)
    let t: u32x4 = load(wb, 0)
    store(wout, 0, abs_diff_u32x4(s, t))
}
"""

_AD_A = [10, 250, 0, 255, 128, 127, 3, 200, 1, 2, 3, 4, 5, 6, 7, 8]
_AD_B = [250, 10, 255, 0, 127, 128, 3, 100, 8, 7, 6, 5, 4, 3, 2, 1]
_AD_C = [100, -27, -64, 63, 0, -1, 1, 5, -100, 27, 64, -63, 50, -50, 120, -120]
_AD_D = [-27, 100, 63, -64, 0, 1, -1, -5, 27, -100, -63, 64, -50, 50, 7, -7]
_AD_H = [30000, -2767, 0, -32768, 1, 5, -9, 100]
_AD_H2 = [-2767, 30000, 32767, -1, -1, 5, 9, -100]
_AD_I = [2 ** 30, -(2 ** 30), 7, -7]
_AD_I2 = [-(2 ** 30) + 1, 2 ** 30 - 1, -7, 7]
_AD_U16 = [0, 65535, 40000, 1, 2, 3, 30000, 60000]
_AD_U16B = [65535, 0, 1, 40000, 3, 2, 60000, 30000]
_AD_U32 = [0, 0xFFFFFFFF, 3000000000, 5]
_AD_U32B = [0xFFFFFFFF, 0, 1, 3000000000]

ABSDIFF_C = r"""
void ad(const uint8_t*, const uint8_t*, const int8_t*, const int8_t*, uint8_t*, int8_t*);
void ad_wide(const int16_t*, const int16_t*, const int32_t*, const int32_t*, int16_t*, int32_t*,
             const uint16_t*, const uint16_t*, uint16_t*, const uint32_t*, const uint32_t*, uint32_t*);
""" + c_array("uint8_t", "A", _AD_A) + c_array("uint8_t", "B", _AD_B) + c_array("int8_t", "C", _AD_C) \
    + c_array("int8_t", "D", _AD_D) + c_array("int16_t", "H", _AD_H) + c_array("int16_t", "H2", _AD_H2) \
    + c_array("int32_t", "I", _AD_I) + c_array("int32_t", "I2", _AD_I2) + c_array("uint16_t", "U16", _AD_U16) \
    + c_array("uint16_t", "U16B", _AD_U16B) + c_array("uint32_t", "U32", _AD_U32, lambda v: f"{v}u") \
    + c_array("uint32_t", "U32B", _AD_U32B, lambda v: f"{v}u") + r"""
int main(void) {
    uint8_t u[16]; int8_t s[16]; int16_t h[8]; int32_t i[4]; uint16_t uh[8]; uint32_t ui[4];
    ad(A, B, C, D, u, s);
    for (int k = 0; k < 16; k++) pu(u[k]);
    nl();
    for (int k = 0; k < 16; k++) pi(s[k]);
    nl();
    ad_wide(H, H2, I, I2, h, i, U16, U16B, uh, U32, U32B, ui);
    for (int k = 0; k < 8; k++) pu((uint16_t)h[k]);
    nl();
    for (int k = 0; k < 4; k++) pu((uint32_t)i[k]);
    nl();
    for (int k = 0; k < 8; k++) pu(uh[k]);
    nl();
    for (int k = 0; k < 4; k++) pu(ui[k]);
    nl();
    return 0;
}
"""


def absdiff_expected() -> list[str]:
    def absd(xs, ys):
        return [abs(x - y) for x, y in zip(xs, ys)]
    # |a - b| of signed lanes can exceed the signed range (e.g. 30000 - -2767); the
    # driver prints i16/i32 results as unsigned bit patterns, which is exact.
    return [ints(absd(_AD_A, _AD_B)), ints(absd(_AD_C, _AD_D)), ints(absd(_AD_H, _AD_H2)),
            ints(absd(_AD_I, _AD_I2)), ints(absd(_AD_U16, _AD_U16B)), ints(absd(_AD_U32, _AD_U32B))]


@needs_qemu
def test_abs_diff(tmp_path):
    # the u8 inputs differ by more than 127, so a signed sabd would give other results
    assert any(abs(wrap(x, 8) - wrap(y, 8)) != abs(x - y) for x, y in zip(_AD_A, _AD_B))
    assert run_arm(tmp_path, ABSDIFF_EA, ABSDIFF_C) == absdiff_expected()


# ---------------------------------------------------------------------------
# 17. Half precision: native f16x8/f16x4 (--fp16) and cvt_f16_f32/cvt_f32_f16
# ---------------------------------------------------------------------------

FP16_EA = """
export func h8(a: *f16, b: *f16, c: *f16, out: *mut f16) {
    let x: f16x8 = load(a, 0)
    let y: f16x8 = load(b, 0)
    let z: f16x8 = load(c, 0)
    store(out, 0, fma(x, y, z))
    store(out, 8, x .+ y)
    store(out, 16, x .* y .- z)
    let s: f16x4 = load(a, 0)
    store(out, 24, s .* splat(0.5))
}

export func h_red(a: *f16, out: *mut f32) {
    let x: f16x8 = load(a, 0)
    out[0] = to_f32(reduce_add(x))
    out[1] = to_f32(reduce_max(x))
    out[2] = to_f32(reduce_min(x))
}
"""

_H_A = [1.5, -2.0, 0.25, 3.0, 1024.0, -0.5, 7.0, 2048.0]
_H_B = [2.0, 0.5, -4.0, 1.0, 1.0, 0.75, -1.0, 1.0]
_H_C = [0.5, -1.0, 3.0, 0.125, 1.0, 0.0, 2.0, 1.0]
_H_RED = [2048.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]

FP16_C = r"""
void h8(const uint16_t*, const uint16_t*, const uint16_t*, uint16_t*);
void h_red(const uint16_t*, float*);
static const uint16_t A[] = {%(a)s}, B[] = {%(b)s}, C[] = {%(c)s}, R[] = {%(r)s};
int main(void) {
    uint16_t o[28]; float f[3];
    h8(A, B, C, o);
    for (int k = 0; k < 28; k++) printf("%%04x ", o[k]);
    nl();
    h_red(R, f); pf(f[0]); pf(f[1]); pf(f[2]); nl();
    h_red(A, f); pf(f[0]); pf(f[1]); pf(f[2]); nl();
    return 0;
}
"""


def _h(v) -> np.float16:
    return np.float16(v)


def _hbits(values) -> str:
    return line(*("%04x" % int(np.float16(v).view(np.uint16)) for v in values))


def _hlist(values) -> str:
    return ", ".join("0x%04x" % int(np.float16(v).view(np.uint16)) for v in values)


def _fma16(a, b, c) -> np.float16:
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    d = float(exact)
    assert Fraction(d) == exact
    return np.float16(d)


def _ordered_sum16(values) -> np.float16:
    total = _h(0.0)
    for v in values:
        total = np.float16(total + _h(v))
    return total


def fp16_expected() -> list[str]:
    a, b, c = ([_h(v) for v in vs] for vs in (_H_A, _H_B, _H_C))
    fused = [_fma16(a[k], b[k], c[k]) for k in range(8)]
    adds = [np.float16(a[k] + b[k]) for k in range(8)]
    mulsub = [np.float16(np.float16(a[k] * b[k]) - c[k]) for k in range(8)]
    halves = [np.float16(a[k] * _h(0.5)) for k in range(4)]
    red = _ordered_sum16(_H_RED)
    assert red == 2048.0      # 2048 + 1 rounds back to 2048 in binary16; a tree sum gives 2056
    return [_hbits(fused + adds + mulsub + halves),
            f32s([red, max(_H_RED), min(_H_RED)]),
            f32s([_ordered_sum16(_H_A), max(_H_A), min(_H_A)])]


@needs_qemu
def test_fp16_vectors(tmp_path, qemu_features):
    require(qemu_features, "asimdhp")
    c = FP16_C % {"a": _hlist(_H_A), "b": _hlist(_H_B), "c": _hlist(_H_C), "r": _hlist(_H_RED)}
    assert run_arm(tmp_path, FP16_EA, c, "--fp16") == fp16_expected()


CVT_EA = """
export func to_single(bits: *i16, out: *mut f32) {
    let v: i16x4 = load_i16x4(bits, 0)
    store(out, 0, cvt_f16_f32(v))
}

export func to_half(x: *f32, out: *mut i16) {
    let v: f32x4 = load(x, 0)
    store(out, 0, cvt_f32_f16(v))
}
"""

_CVT_BITS = [0x3C00, 0xC000, 0x7BFF, 0x0001]     # 1, -2, 65504 (max), smallest subnormal
_CVT_F = [1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 65520.0, 1.0 / 3.0]   # ties to even, overflow, inexact

CVT_C = r"""
void to_single(const int16_t*, float*);
void to_half(const float*, int16_t*);
""" + c_array("int16_t", "BITS", [wrap(v, 16) for v in _CVT_BITS]) + c_array("float", "F", _CVT_F, c_float) + r"""
int main(void) {
    float f[4]; int16_t h[4];
    to_single(BITS, f); for (int k = 0; k < 4; k++) pf(f[k]); nl();
    to_half(F, h); for (int k = 0; k < 4; k++) printf("%04x ", (uint16_t)h[k]); nl();
    return 0;
}
"""


@needs_qemu
def test_cvt_f16_without_fp16_flag(tmp_path):
    singles = [np.uint16(b).view(np.float16).astype(np.float32) for b in _CVT_BITS]
    with np.errstate(over="ignore"):      # 65520 rounds to +inf in binary16, as intended
        halves = [np.float32(v).astype(np.float16) for v in _CVT_F]   # numpy rounds to nearest even
    assert [int(h.view(np.uint16)) for h in halves[:3]] == [0x3C00, 0x3C02, 0x7C00]
    expected = [f32s(singles), _hbits(halves)]
    assert run_arm(tmp_path, CVT_EA, CVT_C) == expected


# ---------------------------------------------------------------------------
