"""End to end: vector types, every dot-operator (signed vs unsigned), lane
reads, vector literals, and the four kernel tail strategies
(LANGUAGE.md §5.3-§5.7, §7). Expected values come from NumPy / by hand."""
from __future__ import annotations

import numpy as np

from .harness import run_c

OPS = [".+", ".-", ".*", "./"]
CMPS = [".==", ".!=", ".<", ".<=", ".>", ".>="]
BITS = [".&", ".|", ".^", ".<<", ".>>"]


def vec_fn(t: str, lanes: int, ops: list[str]) -> str:
    """One exported function: loads x, y, sh; stores x op y for each op, then
    select(x cmp y, 1, 0) for each comparison, then -x."""
    lines = [f"export func v_{t}(a: *{t}, b: *{t}, c: *{t}, o: *mut {t}) {{",
             f"    let x: {t}x{lanes} = load(a, 0)", f"    let y: {t}x{lanes} = load(b, 0)",
             f"    let sh: {t}x{lanes} = load(c, 0)",
             f"    let one: {t}x{lanes} = splat(1)" if not t.startswith("f") else f"    let one: {t}x{lanes} = splat(1.0)",
             f"    let zero: {t}x{lanes} = splat(0)" if not t.startswith("f") else f"    let zero: {t}x{lanes} = splat(0.0)"]
    k = 0
    for op in ops:
        rhs = "sh" if op in (".<<", ".>>") else "y"
        lines.append(f"    store(o, {k * lanes}, x {op} {rhs})")
        k += 1
    for op in CMPS:
        lines.append(f"    store(o, {k * lanes}, select(x {op} y, one, zero))")
        k += 1
    if t[0] in "if":
        lines.append(f"    store(o, {k * lanes}, -x)")
    lines.append("}")
    return "\n".join(lines)


def np_ref(t: str, x: np.ndarray, y: np.ndarray, sh: np.ndarray, ops: list[str]) -> list:
    out = []
    with np.errstate(all="ignore"):
        for op in ops:
            if op == "./" and t[0] != "f":  # truncating integer division
                q = np.abs(x.astype(object)) // np.abs(y.astype(object))
                out.append(np.array([qi if (xi >= 0) == (yi >= 0) else -qi for qi, xi, yi in zip(q, x, y)],
                                    dtype=object).astype(np.int64).astype(x.dtype))
                continue
            out.append({".+": np.add, ".-": np.subtract, ".*": np.multiply, "./": np.divide,
                        ".&": np.bitwise_and, ".|": np.bitwise_or, ".^": np.bitwise_xor,
                        ".<<": np.left_shift, ".>>": np.right_shift}[op](x, sh if op in (".<<", ".>>") else y))
        for op in CMPS:
            m = {".==": np.equal, ".!=": lambda p, q: (p != q) & ~np.isnan(p) & ~np.isnan(q)
                 if t[0] == "f" else p != q, ".<": np.less, ".<=": np.less_equal,
                 ".>": np.greater, ".>=": np.greater_equal}[op](x, y)
            out.append(m.astype(x.dtype))
        if t[0] in "if":
            out.append(-x)
    return [v for vec in out for v in vec.astype(x.dtype)]


CASES = {  # elem: (lanes, C type, printf format, x, y, sh)
    "f32": (4, "float", "%.9g", [1.0, 2.0, float("nan"), -4.0], [1.0, 3.0, 0.5, 5.0], [0, 0, 0, 0]),
    "i32": (4, "int32_t", "%d", [-100, 7, 2147483647, -8], [7, -3, 1, 3], [1, 2, 31, 3]),
    "u32": (4, "uint32_t", "%u", [4000000000, 7, 1, 2147483648], [3, 4000000000, 1, 5], [4, 1, 0, 31]),
    "i16": (8, "int16_t", "%d", [-300, 300, 32767, -32768, 5, -5, 0, 1], [7, 7, 1, 1, -5, 5, 3, -1],
            [2, 2, 1, 15, 1, 1, 0, 3]),
    "u16": (8, "uint16_t", "%u", [65000, 300, 32768, 1, 5, 65535, 0, 9], [7, 7, 1, 2, 65000, 1, 3, 9],
            [2, 2, 15, 0, 1, 4, 0, 3]),
    "i8": (16, "int8_t", "%d", [-100, 100, 127, -128, 5, -5, 0, 1, 64, -64, 3, -3, 9, 10, 11, 12],
           [7, -7, 1, 2, 5, 5, 3, -1, 64, 64, -3, 3, 1, 2, 3, 4],
           [1, 2, 0, 7, 1, 1, 0, 3, 1, 6, 0, 0, 1, 2, 3, 4]),
    "u8": (16, "uint8_t", "%u", [200, 100, 255, 128, 5, 250, 0, 1, 64, 192, 3, 253, 9, 10, 11, 12],
           [7, 7, 1, 1, 5, 5, 3, 255, 64, 64, 253, 3, 1, 2, 3, 4],
           [1, 2, 0, 7, 1, 1, 0, 3, 1, 6, 0, 0, 1, 2, 3, 4]),
}
NP = {"f32": np.float32, "i32": np.int32, "u32": np.uint32, "i16": np.int16, "u16": np.uint16,
      "i8": np.int8, "u8": np.uint8}


def test_vector_dot_operators_every_element_kind(tmp_path):
    """Wrapping integer vector arithmetic, truncating ./ (sdiv vs udiv),
    arithmetic vs logical .>>, signed vs unsigned comparisons, ordered float
    comparisons (.!= with NaN is false), unary minus."""
    ops_for = lambda t: OPS + (BITS if t[0] != "f" else [])
    src = "\n".join(vec_fn(t, CASES[t][0], ops_for(t)) for t in CASES)
    decls, body, expected = [], [], []
    for t, (lanes, ct, fmt, x, y, sh) in CASES.items():
        n_out = lanes * (len(ops_for(t)) + len(CMPS) + (1 if t[0] in "if" else 0))
        decls.append(f"void v_{t}(const {ct}*, const {ct}*, const {ct}*, {ct}*);")
        init = lambda v: ", ".join("NAN" if isinstance(e, float) and e != e else
                                   (f"{e}u" if ct[0] == "u" else str(e)) for e in v)
        body.append(f'{{ {ct} x[] = {{{init(x)}}}, y[] = {{{init(y)}}}, s[] = {{{init(sh)}}}, o[{n_out}];'
                    f' v_{t}(x, y, s, o); printf("{t}:"); for (int k = 0; k < {n_out}; k++)'
                    f' printf(" {fmt}", {"(double)" if t[0] == "f" else ""}o[k]); printf("\\n"); }}')
        dt = NP[t]
        ref = np_ref(t, np.array(x, dt), np.array(y, dt), np.array(sh, dt), ops_for(t))
        shown = [("%.9g" % float(v)) if t[0] == "f" else str(int(v)) for v in ref]
        expected.append(f"{t}: " + " ".join(shown) + "\n")
    c_main = ("#include <stdio.h>\n#include <stdint.h>\n#include <math.h>\n" + "\n".join(decls)
              + "\nint main(void) {\n" + "\n".join(body) + "\nreturn 0; }\n")
    out = run_c(src, c_main, tmp_path).replace("-nan", "nan")
    assert out.splitlines(keepends=True) == expected


def test_lane_reads_vector_literals_and_wide_vectors(tmp_path):
    src = """
export func lane_i32(a: *i32, k: i32) -> i32 {
    let v: i32x4 = load(a, 0)
    return v[k] + v[0] * 1000
}
export func lane_u8(a: *u8, k: i32) -> i32 {
    let v: u8x16 = load(a, 0)
    return to_i32(v[k])
}
export func literals(f: f32, o: *mut f32, oi: *mut i32, ob: *mut u8, oh: *mut u16) {
    store(o, 0, [f * 2.0, 1.5, -2.5, f]f32x4)
    store(oi, 0, [1, -2, 0x7FFFFFFF, -4]i32x4 .+ [1, 1, 1, 1]i32x4)
    store(ob, 0, [255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 128]u8x16)
    let lut: u16x8 = [1, 2, 4, 8, 16, 32, 64, 65535]
    store(oh, 0, lut)
}
export func wide(a: *f32, b: *f32, o: *mut f32, oi: *mut i32) {
    let x: f32x8 = load(a, 0)
    let y: f32x8 = load(b, 0)
    store(o, 0, (x .* y) .- x)
    let p: i32x8 = [1, 2, 3, 4, 5, 6, 7, 8]i32x8
    let q: i32x8 = splat(-3)
    store(oi, 0, select(p .> splat(4), p .* q, p))
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
int32_t lane_i32(const int32_t*, int32_t); int32_t lane_u8(const uint8_t*, int32_t);
void literals(float, float*, int32_t*, uint8_t*, uint16_t*);
void wide(const float*, const float*, float*, int32_t*);
int main(void) {
    int32_t a[4] = {7, -8, 9, -10}; uint8_t b[16] = {0};
    b[5] = 200;
    printf("%d %d %d %d\n", lane_i32(a, 0), lane_i32(a, 1), lane_i32(a, 3), lane_u8(b, 5));
    float o[4]; int32_t oi[4]; uint8_t ob[16]; uint16_t oh[8];
    literals(4.0f, o, oi, ob, oh);
    printf("%g %g %g %g | %d %d %d %d |", o[0], o[1], o[2], o[3], oi[0], oi[1], oi[2], oi[3]);
    for (int k = 0; k < 16; k++) printf(" %d", ob[k]);
    printf(" |");
    for (int k = 0; k < 8; k++) printf(" %d", oh[k]);
    printf("\n");
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8] = {2, 2, 2, 2, 3, 3, 3, 3}, w[8]; int32_t wi[8];
    wide(x, y, w, wi);
    for (int k = 0; k < 8; k++) printf("%g ", w[k]);
    for (int k = 0; k < 8; k++) printf("%d ", wi[k]);
    printf("\n");
    return 0;
}
"""
    expected = ("7007 6992 6990 200\n"
                "8 1.5 -2.5 4 | 2 -1 -2147483648 -3 | 255 1 2 3 4 5 6 7 8 9 10 11 12 13 14 128 |"
                " 1 2 4 8 16 32 64 65535\n"
                "1 2 3 4 10 12 14 16 1 2 3 4 -15 -18 -21 -24 \n")
    assert run_c(src, c_main, tmp_path) == expected


KERNELS = """
export kernel k_none(a: *i32, o: *mut i32, cnt: *mut i32) over i in n step 4 {
    let v: i32x4 = load(a, i)
    store(o, i, v .* splat(2))
    cnt[0] = cnt[0] + 1
}
export kernel k_pad(a: *i32, o: *mut i32, cnt: *mut i32) over i in n step 4 tail pad {
    let v: i32x4 = load(a, i)
    store(o, i, v .* splat(2))
    cnt[0] = cnt[0] + 1
}
export kernel k_scalar(a: *i32, o: *mut i32, cnt: *mut i32) over i in n step 4
    tail scalar {
        o[i] = a[i] * 3
        cnt[1] = cnt[1] + 1
    }
{
    let v: i32x4 = load(a, i)
    store(o, i, v .* splat(2))
    cnt[0] = cnt[0] + 1
}
export kernel k_mask(a: *i32, o: *mut i32, cnt: *mut i32) over i in n step 4
    tail mask {
        let left: i32 = n - i
        let v: i32x4 = load_masked(a, i, left)
        store_masked(o, i, v .* splat(3), left)
        cnt[1] = cnt[1] + 1
    }
{
    let v: i32x4 = load(a, i)
    store(o, i, v .* splat(2))
    cnt[0] = cnt[0] + 1
}
export kernel k_f8(x: *restrict f32, y: *restrict mut f32, g: f32) over j in len step 8
    tail scalar { y[j] = x[j] * g + 0.5 }
{
    let v: f32x8 = load(x, j)
    store(y, j, v .* splat(g))
}
"""


def kernel_ref(kind: str, n: int, size: int = 12) -> tuple[list[int], int, int]:
    o = [-1] * size
    full = (n // 4) * 4
    for k in range(full):
        o[k] = 2 * (k + 1)
    tails = 0
    if kind in ("scalar", "mask") and full < n:
        for k in range(full, n):
            o[k] = 3 * (k + 1)
        tails = n - full if kind == "scalar" else 1
    return o, n // 4, tails


def test_kernel_tail_strategies(tmp_path):
    c_main = r"""#include <stdio.h>
#include <stdint.h>
typedef void (*kfn)(const int32_t*, int32_t*, int32_t*, int32_t);
void k_none(const int32_t*, int32_t*, int32_t*, int32_t); void k_pad(const int32_t*, int32_t*, int32_t*, int32_t);
void k_scalar(const int32_t*, int32_t*, int32_t*, int32_t); void k_mask(const int32_t*, int32_t*, int32_t*, int32_t);
void k_f8(const float*, float*, float, int32_t);
int main(void) {
    kfn fns[4] = {k_none, k_pad, k_scalar, k_mask};
    int ns[4] = {10, 3, 8, 0};
    int32_t a[12];
    for (int k = 0; k < 12; k++) a[k] = k + 1;
    for (int f = 0; f < 4; f++) for (int t = 0; t < 4; t++) {
        int32_t o[12], cnt[2] = {0, 0};
        for (int k = 0; k < 12; k++) o[k] = -1;
        fns[f](a, o, cnt, ns[t]);
        for (int k = 0; k < 12; k++) printf("%d ", o[k]);
        printf("| %d %d\n", cnt[0], cnt[1]);
    }
    float x[16], y[16];
    for (int k = 0; k < 16; k++) { x[k] = k; y[k] = -1; }
    k_f8(x, y, 2.0f, 13);
    for (int k = 0; k < 16; k++) printf("%g ", y[k]);
    printf("\n");
    return 0;
}
"""
    expected = ""
    for kind in ("none", "pad", "scalar", "mask"):
        for n in (10, 3, 8, 0):
            o, body, tails = kernel_ref(kind, n)
            expected += "".join(f"{v} " for v in o) + f"| {body} {tails}\n"
    expected += "".join(f"{v:g} " for v in [2 * k for k in range(8)] + [k * 2 + 0.5 for k in range(8, 13)]
                        + [-1, -1, -1]) + "\n"
    assert run_c(KERNELS, c_main, tmp_path) == expected
