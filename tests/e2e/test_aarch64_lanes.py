"""AArch64/NEON end to end (select with dotted comparisons, u8 threshold, widening, shuffles): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations


from .aarch64_harness import (c_array, c_float, f32, f32s, ints, needs_qemu, run_arm, wrap)


# 7. select with dotted comparisons (float ordered, signed, unsigned)
# ---------------------------------------------------------------------------

SELECT_EA = """
export func fcmp(a: *f32, b: *f32, out: *mut i32) {
    let x: f32x4 = load(a, 0)
    let y: f32x4 = load(b, 0)
    let one: i32x4 = splat(1)
    let zero: i32x4 = splat(0)
    store(out, 0, select(x .== y, one, zero))
    store(out, 4, select(x .!= y, one, zero))
    store(out, 8, select(x .< y, one, zero))
    store(out, 12, select(x .<= y, one, zero))
    store(out, 16, select(x .> y, one, zero))
    store(out, 20, select(x .>= y, one, zero))
}

export func fsel(a: *f32, b: *f32, out: *mut f32) {
    let x: f32x4 = load(a, 0)
    let y: f32x4 = load(b, 0)
    store(out, 0, select(x .> y, x .- y, y .- x))
}

export func icmp(a: *i32, b: *i32, out: *mut i32) {
    let x: i32x4 = load(a, 0)
    let y: i32x4 = load(b, 0)
    store(out, 0, select(x .> y, x, y))
    store(out, 4, select(x .<= y, x .- y, splat(100)))
}

export func ucmp(a: *u32, b: *u32, out: *mut u32) {
    let x: u32x4 = load(a, 0)
    let y: u32x4 = load(b, 0)
    store(out, 0, select(x .> y, x, y))
    store(out, 4, select(x .< y, x, y))
}

export func scalar_nan(x: f32, y: f32) -> i32 {
    let mut r: i32 = 0
    if x != y {
        r = r + 1
    }
    if x == y {
        r = r + 10
    }
    if x < y || x >= y {
        r = r + 100
    }
    return r
}
"""

_SA = [1.0, 2.0, float("nan"), -0.0, 5.0, -3.0, float("nan"), 0.5]
_SB = [2.0, 2.0, 1.0, 0.0, 4.0, -3.5, float("nan"), 0.75]
_SI_A = [5, -7, 2 ** 31 - 1, 0]
_SI_B = [-5, -7, -(2 ** 31), 1]
_SU_A = [0x80000000, 1, 0xFFFFFFFF, 5]
_SU_B = [1, 0x80000000, 0, 5]

SELECT_C = r"""
void fcmp(const float*, const float*, int32_t*);
void fsel(const float*, const float*, float*);
void icmp(const int32_t*, const int32_t*, int32_t*);
void ucmp(const uint32_t*, const uint32_t*, uint32_t*);
int32_t scalar_nan(float, float);
""" + c_array("float", "A", _SA, c_float) + c_array("float", "B", _SB, c_float) \
    + c_array("int32_t", "IA", [wrap(v, 32) for v in _SI_A]) + c_array("int32_t", "IB", [wrap(v, 32) for v in _SI_B]) \
    + c_array("uint32_t", "UA", _SU_A, lambda v: f"{v}u") + c_array("uint32_t", "UB", _SU_B, lambda v: f"{v}u") + r"""
int main(void) {
    int32_t o[24]; float f[4]; uint32_t u[8];
    for (int h = 0; h < 8; h += 4) {
        fcmp(A + h, B + h, o);
        for (int k = 0; k < 24; k++) pi(o[k]);
        nl();
        fsel(A + h, B + h, f);
        for (int k = 0; k < 4; k++) pf(f[k]);
        nl();
    }
    icmp(IA, IB, o); for (int k = 0; k < 8; k++) pi(o[k]); nl();
    ucmp(UA, UB, u); for (int k = 0; k < 8; k++) pu(u[k]); nl();
    pi(scalar_nan(1.0f, 2.0f)); pi(scalar_nan(2.0f, 2.0f)); pi(scalar_nan(NAN, 2.0f)); pi(scalar_nan(NAN, NAN));
    nl();
    return 0;
}
"""


def select_expected() -> list[str]:
    out = []
    ops = (lambda a, b: a == b, lambda a, b: a != b and a == a and b == b,   # ordered: NaN gives false
           lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b)
    for h in (0, 4):
        xs, ys = _SA[h:h + 4], _SB[h:h + 4]
        out.append(ints([int(op(a, b)) for op in ops for a, b in zip(xs, ys)]))
        out.append(f32s([f32(a) - f32(b) if a > b else f32(b) - f32(a) for a, b in zip(xs, ys)]))
    out.append(ints([max(a, b) for a, b in zip(_SI_A, _SI_B)]
                    + [wrap(a - b, 32) if a <= b else 100 for a, b in zip(_SI_A, _SI_B)]))
    out.append(ints([max(a, b) for a, b in zip(_SU_A, _SU_B)] + [min(a, b) for a, b in zip(_SU_A, _SU_B)]))

    def scalar(x, y):
        ordered = x == x and y == y
        return (1 if (x != y and ordered) else 0) + (10 if x == y else 0) + (100 if ordered else 0)
    nan = float("nan")
    out.append(ints([scalar(1.0, 2.0), scalar(2.0, 2.0), scalar(nan, 2.0), scalar(nan, nan)]))
    return out


@needs_qemu
def test_select_with_dotted_comparisons(tmp_path):
    assert run_arm(tmp_path, SELECT_EA, SELECT_C) == select_expected()


# ---------------------------------------------------------------------------
# 8. u8x16 threshold (unsigned compare, step 16, scalar tail)
# ---------------------------------------------------------------------------

THRESHOLD_EA = """
export kernel threshold(px: *restrict u8, out: *restrict mut u8, t: u8)
    over i in len step 16
    tail scalar {
        if px[i] > t { out[i] = 255 } else { out[i] = 0 }
    }
{
    let v: u8x16 = load(px, i)
    let hi: u8x16 = splat(255)
    let lo: u8x16 = splat(0)
    store(out, i, select(v .> splat(t), hi, lo))
}
"""

_PX = [(k * 37 + 11) % 256 for k in range(48)]
_TH_CASES = ((37, 130), (48, 0), (16, 254), (5, 100))

THRESHOLD_C = r"""
void threshold(const uint8_t*, uint8_t*, uint8_t, int32_t);
""" + c_array("uint8_t", "PX", _PX) + r"""
int main(void) {
    static const int cases[][2] = {%s};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t out[48];
        memset(out, 7, sizeof out);
        threshold(PX, out, (uint8_t)cases[c][1], cases[c][0]);
        for (int k = 0; k < 48; k++) pu(out[k]);
        nl();
    }
    return 0;
}
""" % ", ".join(f"{{{n}, {t}}}" for n, t in _TH_CASES)


@needs_qemu
def test_u8x16_threshold(tmp_path):
    expected = [ints([(255 if _PX[k] > t else 0) if k < n else 7 for k in range(48)]) for n, t in _TH_CASES]
    assert run_arm(tmp_path, THRESHOLD_EA, THRESHOLD_C) == expected


# ---------------------------------------------------------------------------
# 9. widen_u8_f32x4 normalisation (and widen_i8_f32x4 sign extension)
# ---------------------------------------------------------------------------

WIDEN_EA = """
export kernel normalize(px: *restrict u8, out: *restrict mut f32)
    over i in n step 4
    tail scalar { out[i] = to_f32(px[i]) / 255.0 }
{
    let bytes: u8x16 = load_u8x16(px, i)
    store(out, i, widen_u8_f32x4(bytes) ./ splat(255.0))
}

export func widen_both(p: *i8, q: *u8, out: *mut f32) {
    let b: i8x16 = load(p, 0)
    store(out, 0, widen_i8_f32x4(b))
    store(out, 4, widen_u8_f32x4(b))
    let u: u8x16 = load(q, 0)
    store(out, 8, widen_i8_f32x4(u))
    store(out, 12, widen_u8_f32x4(u))
}
"""

_NPX = [0, 255, 128, 1, 17, 254, 100, 3, 77, 200, 51, 250, 9, 127, 129, 64, 33, 99, 180, 5, 2, 222, 13]
_WB = [-128, -1, 127, 5] + [0] * 12

WIDEN_C = r"""
void normalize(const uint8_t*, float*, int32_t);
void widen_both(const int8_t*, const uint8_t*, float*);
int main(void) {
    static uint8_t px[64];   /* the vector body reads 16 bytes at every step of 4: pad the buffer */
    static const uint8_t src[] = {%(px)s};
    memcpy(px, src, sizeof src);
    float out[32];
    for (int k = 0; k < 32; k++) out[k] = -1.0f;
    normalize(px, out, %(n)d);
    for (int k = 0; k < 24; k++) pf(out[k]);
    nl();
    static const int8_t wb[16] = {%(wb)s};
    static const uint8_t ub[16] = {%(ub)s};
    widen_both(wb, ub, out);
    for (int k = 0; k < 16; k++) pf(out[k]);
    nl();
    return 0;
}
""" % {"px": ", ".join(map(str, _NPX)), "n": len(_NPX), "wb": ", ".join(map(str, _WB)),
       "ub": ", ".join(str(v & 0xFF) for v in _WB)}


@needs_qemu
def test_widen_u8_normalisation(tmp_path):
    norm = [f32(v) / f32(255.0) for v in _NPX] + [f32(-1.0)]
    signed = [f32(v) for v in _WB[:4]]
    unsigned = [f32(v & 0xFF) for v in _WB[:4]]
    expected = [f32s(norm), f32s(signed + unsigned + signed + unsigned)]
    assert run_arm(tmp_path, WIDEN_EA, WIDEN_C) == expected


# ---------------------------------------------------------------------------
# 10. shuffle (one and two sources) and shuffle_bytes (NEON tbl)
# ---------------------------------------------------------------------------

SHUFFLE_EA = """
export func shuf(a: *f32, b: *f32, out: *mut f32) {
    let x: f32x4 = load(a, 0)
    let y: f32x4 = load(b, 0)
    store(out, 0, shuffle(x, [3, 2, 1, 0]))
    store(out, 4, shuffle(x, [0, 0, 2, 2]))
    store(out, 8, shuffle(x, y, [0, 4, 1, 5]))
    store(out, 12, shuffle(x, y, [7, 6, 1, 0]))
}

export func shuf_int(p: *u8, q: *i32, out: *mut u8, iout: *mut i32) {
    let v: u8x16 = load(p, 0)
    store(out, 0, shuffle(v, [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]))
    store(out, 16, shuffle(v, v, [0, 16, 1, 17, 2, 18, 3, 19, 31, 30, 29, 28, 8, 8, 8, 8]))
    let w: i32x4 = load(q, 0)
    store(iout, 0, shuffle(w, [1, 1, 3, 0]))
}

export func tbl(p: *u8, idx: *u8, out: *mut u8) {
    let t: u8x16 = load(p, 0)
    let i: u8x16 = load(idx, 0)
    store(out, 0, shuffle_bytes(t, i))
}
"""

_SH_A = [1.0, 2.0, 3.0, 4.0]
_SH_B = [-5.0, -6.0, -7.0, -8.0]
_SH_U8 = [(k * 29 + 3) % 256 for k in range(16)]
_SH_I32 = [10, -20, 30, -40]
_TBL_IDX = [0, 15, 3, 16, 255, 7, 128, 31, 1, 2, 17, 14, 8, 9, 200, 5]

SHUFFLE_C = r"""
void shuf(const float*, const float*, float*);
void shuf_int(const uint8_t*, const int32_t*, uint8_t*, int32_t*);
void tbl(const uint8_t*, const uint8_t*, uint8_t*);
""" + c_array("float", "A", _SH_A, c_float) + c_array("float", "B", _SH_B, c_float) \
    + c_array("uint8_t", "U", _SH_U8) + c_array("int32_t", "W", _SH_I32) + c_array("uint8_t", "IDX", _TBL_IDX) + r"""
int main(void) {
    float f[16]; uint8_t u[32]; int32_t w[4];
    shuf(A, B, f); for (int k = 0; k < 16; k++) pf(f[k]); nl();
    shuf_int(U, W, u, w);
    for (int k = 0; k < 32; k++) pu(u[k]);
    nl();
    for (int k = 0; k < 4; k++) pi(w[k]);
    nl();
    tbl(U, IDX, u); for (int k = 0; k < 16; k++) pu(u[k]); nl();
    return 0;
}
"""


def shuffle_expected() -> list[str]:
    a, b = _SH_A, _SH_B
    ab = a + b
    v = _SH_U8
    vv = v + v
    return [f32s([a[i] for i in (3, 2, 1, 0)] + [a[i] for i in (0, 0, 2, 2)]
                 + [ab[i] for i in (0, 4, 1, 5)] + [ab[i] for i in (7, 6, 1, 0)]),
            ints(v[::-1] + [vv[i] for i in (0, 16, 1, 17, 2, 18, 3, 19, 31, 30, 29, 28, 8, 8, 8, 8)]),
            ints([_SH_I32[i] for i in (1, 1, 3, 0)]),
            # ARM semantics: any index >= 16 selects 0
            ints([v[i] if i < 16 else 0 for i in _TBL_IDX])]


@needs_qemu
def test_shuffle(tmp_path):
    assert run_arm(tmp_path, SHUFFLE_EA, SHUFFLE_C) == shuffle_expected()


# ---------------------------------------------------------------------------
