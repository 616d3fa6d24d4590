"""AArch64/NEON end to end (kernel tail strategies, FMA/SAXPY, dot products and reductions, min/max): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .aarch64_harness import (c_array, c_float, f32, f32s, fma32, fmt64, ints, line, needs_qemu,
                              run_arm, wrap)


# ---------------------------------------------------------------------------
# 3. Kernels: each tail strategy (LANGUAGE.md §7) on f32x4 / i32x4
# ---------------------------------------------------------------------------

TAILS_EA = """
export kernel k_scalar(x: *f32, y: *f32, out: *mut f32, a: f32)
    over i in n step 4
    tail scalar { out[i] = x[i] * a + y[i] }
{
    let vx: f32x4 = load(x, i)
    store(out, i, vx .* splat(a) .+ load(y, i))
}

export kernel k_mask(x: *f32, out: *mut f32, lo: f32)
    over i in n step 4
    tail mask {
        let left: i32 = n - i
        let v: f32x4 = load_masked(x, i, left)
        store_masked(out, i, max(v, splat(lo)) .* splat(2.0), left)
    }
{
    let v: f32x4 = load(x, i)
    store(out, i, max(v, splat(lo)) .* splat(2.0))
}

export kernel k_pad(x: *f32, out: *mut f32) over i in n step 4 tail pad {
    store(out, i, load(x, i) .+ splat(1.0))
}

export kernel k_none(x: *i32, out: *mut i32) over i in n step 4 {
    let v: i32x4 = load(x, i)
    store(out, i, v .* v .- splat(3))
}
"""

_TAIL_NS = (0, 1, 3, 4, 5, 8, 11)
_SENT = -7.0


def _tails_x(k):
    return (k - 6) * 0.75


def _tails_y(k):
    return k * 0.125 - 1


TAILS_C = r"""
void k_scalar(const float*, const float*, float*, float, int32_t);
void k_mask(const float*, float*, float, int32_t);
void k_pad(const float*, float*, int32_t);
void k_none(const int32_t*, int32_t*, int32_t);
int main(void) {
    static const int ns[] = {%(ns)s};
    float x[16], y[16], out[16];
    int32_t xi[16], oi[16];
    for (int k = 0; k < 16; k++) { x[k] = (k - 6) * 0.75f; y[k] = k * 0.125f - 1.0f; xi[k] = k * 3 - 20; }
    for (unsigned t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int n = ns[t];
        for (int k = 0; k < 16; k++) out[k] = -7.0f;
        k_scalar(x, y, out, 1.5f, n);
        for (int k = 0; k < 16; k++) pf(out[k]);
        nl();
        for (int k = 0; k < 16; k++) out[k] = -7.0f;
        k_mask(x, out, -1.0f, n);
        for (int k = 0; k < 16; k++) pf(out[k]);
        nl();
        for (int k = 0; k < 16; k++) out[k] = -7.0f;
        k_pad(x, out, n);
        for (int k = 0; k < 16; k++) pf(out[k]);
        nl();
        for (int k = 0; k < 16; k++) oi[k] = -7;
        k_none(xi, oi, n);
        for (int k = 0; k < 16; k++) pi(oi[k]);
        nl();
    }
    return 0;
}
""" % {"ns": ", ".join(map(str, _TAIL_NS))}


def tails_expected() -> list[str]:
    x = [f32(_tails_x(k)) for k in range(16)]
    y = [f32(_tails_y(k)) for k in range(16)]
    out = []
    for n in _TAIL_NS:
        full = n - n % 4          # elements covered by whole steps
        out.append(f32s([x[k] * f32(1.5) + y[k] if k < n else _SENT for k in range(16)]))
        out.append(f32s([max(x[k], f32(-1.0)) * 2 if k < n else _SENT for k in range(16)]))
        out.append(f32s([x[k] + 1 if k < full else _SENT for k in range(16)]))
        out.append(ints([(3 * k - 20) ** 2 - 3 if k < full else -7 for k in range(16)]))
    return out


@needs_qemu
def test_kernel_tail_strategies(tmp_path):
    assert run_arm(tmp_path, TAILS_EA, TAILS_C) == tails_expected()


# ---------------------------------------------------------------------------
# 4. FMA / SAXPY: fused (one rounding) versus separate multiply and add
# ---------------------------------------------------------------------------

FMA_EA = """
export kernel saxpy(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 4
    tail scalar { y[i] = fma(a, x[i], y[i]) }
{
    store(y, i, fma(splat(a), load(x, i), load(y, i)))
}

export func fused(a: *f32, b: *f32, c: *f32, out: *mut f32, d: *f64, dout: *mut f64) {
    let va: f32x4 = load(a, 0)
    let vb: f32x4 = load(b, 0)
    let vc: f32x4 = load(c, 0)
    store(out, 0, fma(va, vb, vc))
    store(out, 4, va .* vb .+ vc)
    out[8] = fma(a[0], b[0], c[0])
    out[9] = a[0] * b[0] + c[0]
    let vd: f64x2 = load(d, 0)
    let m1: f64x2 = splat(-1.0)
    store(dout, 0, fma(vd, vd, m1))
    store(dout, 2, vd .* vd .+ m1)
    dout[4] = fma(d[1], d[1], -1.0)
    dout[5] = d[1] * d[1] - 1.0
}
"""

_E12 = 2.0 ** -12
_SAXPY_N = 11
_SAXPY_A = 1 + _E12
_SAXPY_X = [1 + k * _E12 for k in range(16)]
_SAXPY_Y = [-(1 + (k + 1) * _E12) for k in range(16)]
_FUSED_A = [1 + _E12, 1 + 3 * _E12, 1.5, -(1 + _E12)]
_FUSED_B = [1 + _E12, 1 - _E12, 2.0, 1 + 2 * _E12]
_FUSED_C = [-1.0, -1.0, 0.25, 1.0]
_D = [1 + 2.0 ** -30, 1 - 2.0 ** -29]

FMA_C = r"""
void saxpy(const float*, float*, float, int32_t);
void fused(const float*, const float*, const float*, float*, const double*, double*);
""" + c_array("float", "X", _SAXPY_X, c_float) + c_array("float", "Y", _SAXPY_Y, c_float) \
    + c_array("float", "FA", _FUSED_A, c_float) + c_array("float", "FB", _FUSED_B, c_float) \
    + c_array("float", "FC", _FUSED_C, c_float) + c_array("double", "D", _D, float.hex) + r"""
int main(void) {
    float y[16];
    memcpy(y, Y, sizeof y);
    saxpy(X, y, %(a)s, %(n)d);
    for (int k = 0; k < 16; k++) pf(y[k]);
    nl();
    float o[10]; double d[6];
    fused(FA, FB, FC, o, D, d);
    for (int k = 0; k < 10; k++) pf(o[k]);
    nl();
    for (int k = 0; k < 6; k++) pd(d[k]);
    nl();
    return 0;
}
""" % {"a": c_float(_SAXPY_A), "n": _SAXPY_N}


def fma_expected() -> list[str]:
    a = f32(_SAXPY_A)
    ys = [fma32(a, _SAXPY_X[k], _SAXPY_Y[k]) if k < _SAXPY_N else f32(_SAXPY_Y[k]) for k in range(16)]
    fa, fb, fc = ([f32(v) for v in vs] for vs in (_FUSED_A, _FUSED_B, _FUSED_C))
    fused = [fma32(fa[k], fb[k], fc[k]) for k in range(4)]
    unfused = [(fa[k] * fb[k]) + fc[k] for k in range(4)]   # numpy f32: each op rounded
    # The inputs are chosen so that fusing is observable.
    assert fused[0] != unfused[0] and fused[1] != unfused[1]
    dfused = [float(Fraction(d) * Fraction(d) - 1) for d in _D]
    assert all(Fraction(v) == Fraction(d) * Fraction(d) - 1 for v, d in zip(dfused, _D))
    dunfused = [d * d - 1.0 for d in _D]
    assert dfused[0] != dunfused[0]
    return [f32s(ys),
            f32s(fused + unfused + [fused[0], unfused[0]]),
            line(*(fmt64(v) for v in dfused + dunfused + [dfused[1], dunfused[1]]))]


@needs_qemu
def test_fma_saxpy(tmp_path):
    # The saxpy inputs make every odd lane differ between fused and unfused evaluation.
    assert any(fma32(f32(_SAXPY_A), _SAXPY_X[k], _SAXPY_Y[k]) != f32(_SAXPY_A) * f32(_SAXPY_X[k]) + f32(_SAXPY_Y[k])
               for k in range(_SAXPY_N))
    assert run_arm(tmp_path, FMA_EA, FMA_C) == fma_expected()


# ---------------------------------------------------------------------------
# 5. Dot product and reduce_add (floats: strictly ordered; integers: wrapping)
# ---------------------------------------------------------------------------

DOT_EA = """
export func dot(a: *f32, b: *f32, n: i32) -> f32 {
    let mut acc: f32x4 = splat(0.0)
    let mut i: i32 = 0
    while i + 4 <= n {
        acc = fma(load(a, i), load(b, i), acc)
        i = i + 4
    }
    let mut total: f32 = reduce_add(acc)
    while i < n {
        total = total + a[i] * b[i]
        i = i + 1
    }
    return total
}

export func hsum(p: *f32) -> f32 {
    let v: f32x4 = load(p, 0)
    return reduce_add(v)
}

export func hsum_d(p: *f64) -> f64 {
    let v: f64x2 = load(p, 0)
    return reduce_add(v)
}

export func isum(p: *i32) -> i32 {
    let v: i32x4 = load(p, 0)
    return reduce_add(v)
}

export func bsum(p: *u8) -> u8 {
    let v: u8x16 = load(p, 0)
    return reduce_add(v)
}

export func hsum16(p: *i16) -> i16 {
    let v: i16x8 = load(p, 0)
    return reduce_add(v)
}
"""

_DOT_A = [k - 5.0 for k in range(20)]
_DOT_B = [(k % 4) + 0.5 for k in range(20)]
_DOT_NS = (0, 3, 4, 9, 16, 19)
_HSUM = [[1e8, 1.0, -1e8, 1.0], [0.1, 0.2, 0.3, 0.4], [3.0, -1.5, 0.25, 1e-3]]
_HSUM_D = [[1e300, -1e300], [0.1, 0.7]]
_ISUM = [[2 ** 30] * 4, [1, -2, 3, -4], [2 ** 31 - 1, 1, 0, 0]]
_BSUM = [[200] * 16, list(range(16))]
_HSUM16 = [[30000, 30000, 5, 0, 0, 0, 0, -1]]

DOT_C = r"""
float dot(const float*, const float*, int32_t);
float hsum(const float*);
double hsum_d(const double*);
int32_t isum(const int32_t*);
uint8_t bsum(const uint8_t*);
int16_t hsum16(const int16_t*);
""" + c_array("float", "A", _DOT_A, c_float) + c_array("float", "B", _DOT_B, c_float) \
    + c_array("const int", "NS", _DOT_NS) \
    + c_array("float", "H", [v for r in _HSUM for v in r], c_float) \
    + c_array("double", "HD", [v for r in _HSUM_D for v in r], float.hex) \
    + c_array("int32_t", "I", [wrap(v, 32) for r in _ISUM for v in r]) \
    + c_array("uint8_t", "U", [v for r in _BSUM for v in r]) \
    + c_array("int16_t", "S", [v for r in _HSUM16 for v in r]) + r"""
int main(void) {
    for (unsigned t = 0; t < sizeof NS / sizeof NS[0]; t++) pf(dot(A, B, NS[t]));
    nl();
    for (unsigned t = 0; t < sizeof H / sizeof H[0]; t += 4) pf(hsum(H + t));
    nl();
    for (unsigned t = 0; t < sizeof HD / sizeof HD[0]; t += 2) pd(hsum_d(HD + t));
    nl();
    for (unsigned t = 0; t < sizeof I / sizeof I[0]; t += 4) pi(isum(I + t));
    nl();
    for (unsigned t = 0; t < sizeof U; t += 16) pu(bsum(U + t));
    nl();
    pi(hsum16(S));
    nl();
    return 0;
}
"""


def _ordered_sum32(values) -> np.float32:
    total = f32(0.0)
    for v in values:
        total = f32(total + f32(v))
    return total


def dot_expected() -> list[str]:
    dots = []
    for n in _DOT_NS:
        # all products and partial sums are small integers/halves: exact in any order
        dots.append(sum(_DOT_A[k] * _DOT_B[k] for k in range(n)))
    hs = [_ordered_sum32(r) for r in _HSUM]
    assert hs[0] == 1.0      # a tree-shaped sum of [1e8, 1, -1e8, 1] gives 0 or 2
    hd = [0.0 + r[0] + r[1] for r in _HSUM_D]
    return [f32s(dots), f32s(hs), line(*(fmt64(v) for v in hd)),
            ints([wrap(sum(r), 32) for r in _ISUM]), ints([sum(r) % 256 for r in _BSUM]),
            ints([wrap(sum(r), 16) for r in _HSUM16])]


@needs_qemu
def test_dot_product_and_reduce_add(tmp_path):
    assert run_arm(tmp_path, DOT_EA, DOT_C) == dot_expected()


# ---------------------------------------------------------------------------
# 6. min / max: reductions (signed, unsigned, float) and element-wise
# ---------------------------------------------------------------------------

MINMAX_EA = """
export func f_red(p: *f32, out: *mut f32) {
    let v: f32x4 = load(p, 0)
    out[0] = reduce_max(v)
    out[1] = reduce_min(v)
}

export func i_red(p: *i32, out: *mut i32) {
    let v: i32x4 = load(p, 0)
    out[0] = reduce_max(v)
    out[1] = reduce_min(v)
}

export func u8_red(p: *u8, out: *mut u8) {
    let v: u8x16 = load(p, 0)
    out[0] = reduce_max(v)
    out[1] = reduce_min(v)
    out[2] = reduce_max(load_u8x16(p, 0))
}

export func i8_red(p: *i8, out: *mut i8) {
    let v: i8x16 = load(p, 0)
    out[0] = reduce_max(v)
    out[1] = reduce_min(v)
}

export func u16_red(p: *u16, out: *mut u16) {
    let v: u16x8 = load(p, 0)
    out[0] = reduce_max(v)
    out[1] = reduce_min(v)
}

export func vminmax(a: *f32, b: *f32, out: *mut f32) {
    let x: f32x4 = load(a, 0)
    let y: f32x4 = load(b, 0)
    store(out, 0, min(x, y))
    store(out, 4, max(x, y))
    out[8] = min(a[1], b[1])
    out[9] = max(a[2], b[2])
}

export func sminmax(a: i32, b: i32, out: *mut i32) {
    out[0] = min(a, b)
    out[1] = max(a, b)
    out[2] = max(a, 0)
}
"""

_MM_F = [1.5, -2.0, 7.25, 3.0]
_MM_I = [-5, 100, -200, 3]
_MM_U8 = [(k * 53 + 7) % 256 for k in range(16)]
_MM_I8 = [wrap(v, 8) for v in _MM_U8]
_MM_U16 = [65535, 1, 40000, 32768, 2, 32767, 100, 50000]
_VA = [1.0, float("nan"), -3.0, 0.5]
_VB = [2.0, 5.0, float("nan"), -0.5]

MINMAX_C = r"""
void f_red(const float*, float*);
void i_red(const int32_t*, int32_t*);
void u8_red(const uint8_t*, uint8_t*);
void i8_red(const int8_t*, int8_t*);
void u16_red(const uint16_t*, uint16_t*);
void vminmax(const float*, const float*, float*);
void sminmax(int32_t, int32_t, int32_t*);
""" + c_array("float", "F", _MM_F, c_float) + c_array("int32_t", "I", _MM_I) \
    + c_array("uint8_t", "U8", _MM_U8) + c_array("int8_t", "I8", _MM_I8) + c_array("uint16_t", "U16", _MM_U16) \
    + c_array("float", "VA", _VA, c_float) + c_array("float", "VB", _VB, c_float) + r"""
int main(void) {
    float f[10]; int32_t i[3]; uint8_t u8[3]; int8_t i8[2]; uint16_t u16[2];
    f_red(F, f); pf(f[0]); pf(f[1]); nl();
    i_red(I, i); pi(i[0]); pi(i[1]); nl();
    u8_red(U8, u8); pu(u8[0]); pu(u8[1]); pu(u8[2]); nl();
    i8_red(I8, i8); pi(i8[0]); pi(i8[1]); nl();
    u16_red(U16, u16); pu(u16[0]); pu(u16[1]); nl();
    vminmax(VA, VB, f); for (int k = 0; k < 10; k++) pf(f[k]); nl();
    sminmax(-3, 2, i); pi(i[0]); pi(i[1]); pi(i[2]); nl();
    sminmax(7, -9, i); pi(i[0]); pi(i[1]); pi(i[2]); nl();
    return 0;
}
"""


def _nanmin(a, b):
    return b if a != a else a if b != b else min(a, b)


def _nanmax(a, b):
    return b if a != a else a if b != b else max(a, b)


def minmax_expected() -> list[str]:
    mins = [_nanmin(a, b) for a, b in zip(_VA, _VB)]
    maxs = [_nanmax(a, b) for a, b in zip(_VA, _VB)]
    return [f32s([max(_MM_F), min(_MM_F)]), ints([max(_MM_I), min(_MM_I)]),
            ints([max(_MM_U8), min(_MM_U8), max(_MM_U8)]), ints([max(_MM_I8), min(_MM_I8)]),
            ints([max(_MM_U16), min(_MM_U16)]),
            f32s(mins + maxs + [_nanmin(_VA[1], _VB[1]), _nanmax(_VA[2], _VB[2])]),
            ints([-3, 2, 0]), ints([-9, 7, 7])]


@needs_qemu
def test_min_max_reductions(tmp_path):
    # unsigned and signed views of the same bytes disagree, so the signedness is observable
    assert max(_MM_U8) != wrap(max(_MM_I8), 8, signed=False)
    assert run_arm(tmp_path, MINMAX_EA, MINMAX_C) == minmax_expected()


# ---------------------------------------------------------------------------
