"""End to end: the CORE intrinsics (INTRINSICS.md §0.2) compiled with `ea`,
linked with C and run: load store splat fma sqrt rsqrt to_* reduce_* shuffle
select widen narrow maddubs_i16 prefetch gather scatter load_masked
store_masked. Expected values come from NumPy or by hand."""
from __future__ import annotations

import numpy as np
import pytest

from .harness import ea, run_c


def f32(x) -> float:
    return float(np.float32(x))


def test_float_intrinsics_and_reductions(tmp_path):
    src = """
export func fl(a: *f32, big: *f32, o: *mut f32) {
    let va: f32x4 = load(a, 0)
    store(o, 0, sqrt(va))
    store(o, 4, rsqrt(va))
    store(o, 8, fma(va, va, splat(1.0)))
    store(o, 12, shuffle(va, [3, 2, 1, 1]))
    store(o, 16, select(va .> splat(5.0), va, splat(0.0)))
    o[20] = reduce_add(va)
    o[21] = reduce_max(va)
    o[22] = reduce_min(va)
    let vb: f32x4 = load(big, 0)
    o[23] = reduce_add(vb)
    o[24] = sqrt(a[3]) + rsqrt(a[1])
    let w: f32x8 = splat(a[2])
    o[25] = reduce_add(w .+ load(big, 0))
}
"""
    c_main = r"""#include <stdio.h>
void fl(const float*, const float*, float*);
int main(void) {
    float a[4] = {1, 4, 9, 16}, big[8] = {1e8f, 1, -1e8f, 1, 2, 3, 4, 5}, o[26];
    fl(a, big, o);
    for (int k = 0; k < 26; k++) printf("%.9g ", o[k]);
    printf("\n");
    return 0;
}
"""
    a = np.array([1, 4, 9, 16], np.float32)
    big = np.array([1e8, 1, -1e8, 1, 2, 3, 4, 5], np.float32)
    ordered = np.float32(0)
    for v in big[:4]:  # strictly ordered ((0 + v0) + v1) + ...: 1e8 + 1 rounds back to 1e8
        ordered = np.float32(ordered + v)
    wide = np.float32(0)
    for v in big + np.float32(9):
        wide = np.float32(wide + v)
    ref = (list(np.sqrt(a)) + list(np.float32(1) / np.sqrt(a)) + list(a * a + np.float32(1))
           + [16, 9, 4, 4] + [0, 0, 9, 16] + [30, 16, 1, ordered, np.float32(4) + np.float32(0.5), wide])
    assert ordered == 1.0
    assert run_c(src, c_main, tmp_path) == "".join("%.9g " % f32(v) for v in ref) + "\n"


def test_conversions(tmp_path):
    src = """
export func conv(o: *mut f64, i: *mut i64) {
    let m: i32 = -3
    let u: u32 = 0xFFFFFFFF
    let b: u8 = 200
    let s: i8 = -56
    let x: f32 = -2.7
    let big: i64 = 0x100000005
    let h: i16 = -2
    o[0] = to_f64(to_f32(m))
    o[1] = to_f64(to_f32(u))
    o[2] = to_f64(b)
    o[3] = to_f64(s)
    o[4] = to_f64(x)
    o[5] = to_f64(to_f32(0.1))
    i[0] = to_i64(to_i32(x))
    i[1] = to_i64(to_i32(b))
    i[2] = to_i64(to_i32(s))
    i[3] = to_i64(u)
    i[4] = to_i64(m)
    i[5] = to_i64(to_i32(big))
    i[6] = to_i64(to_i16(70000))
    i[7] = to_i64(h)
    i[8] = to_i64(to_i32(to_f64(-1000000.9)))
    i[9] = to_i64(to_i32(b) + to_i32(to_i16(b)))
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void conv(double*, int64_t*);
int main(void) {
    double o[6]; int64_t i[10];
    conv(o, i);
    for (int k = 0; k < 6; k++) printf("%.17g ", o[k]);
    for (int k = 0; k < 10; k++) printf("%lld ", (long long)i[k]);
    printf("\n");
    return 0;
}
"""
    # to_f32 of an unsigned source uses uitofp (2^32 - 1 rounds to 2^32 in f32);
    # to_i32 truncates toward zero; narrowing keeps the low bits.
    doubles = [-3.0, 4294967296.0, 200.0, -56.0, f32(-2.7), f32(0.1)]
    ints = [-2, 200, -56, 4294967295, -3, 5, 70000 - 65536, -2, -1000000, 400]
    expected = "".join("%.17g " % v for v in doubles) + "".join(f"{v} " for v in ints) + "\n"
    assert run_c(src, c_main, tmp_path) == expected


def test_integer_vector_intrinsics(tmp_path):
    src = """
export func iv(bytes: *i8, ub: *u8, sb: *i8, of: *mut f32, on: *mut i8, oh: *mut i16, oi: *mut i32) {
    let sv: i8x16 = load(bytes, 0)
    let uv: u8x16 = load(ptr_u8(ub), 0)
    store(of, 0, widen_i8_f32x4(sv))
    store(of, 4, widen_u8_f32x4(sv))
    store(of, 8, widen_u8_f32x4(uv))
    let f: f32x4 = [1.9, -2.9, 300.0, -129.0]f32x4
    store(on, 0, narrow_f32x4_i8(f))
    let bv: i8x16 = load(sb, 0)
    store(oh, 0, maddubs_i16(uv, bv))
    let iv4: i32x4 = [5, -7, 2147483647, 10]i32x4
    oi[0] = reduce_add(iv4)
    oi[1] = reduce_max(iv4)
    oi[2] = reduce_min(iv4)
    oi[3] = to_i32(reduce_max(uv))
    oi[4] = to_i32(reduce_min(uv))
    oi[5] = to_i32(reduce_max(sv))
    oi[6] = to_i32(reduce_min(sv))
    store(oi, 7, shuffle(iv4, [0, 0, 3, 2]))
}
func ptr_u8(p: *u8) -> *u8 { return p }
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void iv(const int8_t*, const uint8_t*, const int8_t*, float*, int8_t*, int16_t*, int32_t*);
int main(void) {
    int8_t bytes[16] = {-1, -128, 127, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    uint8_t ub[16] = {255, 255, 1, 2, 255, 255, 200, 0, 3, 3, 10, 20, 7, 7, 128, 1};
    int8_t sb[16] = {127, 127, -3, 4, -128, -128, 1, 100, -1, -1, 5, -5, 0, 0, -1, 1};
    float of[12]; int8_t on[8]; int16_t oh[8]; int32_t oi[11];
    for (int k = 0; k < 8; k++) on[k] = 99;
    iv(bytes, ub, sb, of, on, oh, oi);
    for (int k = 0; k < 12; k++) printf("%g ", of[k]);
    printf("|");
    for (int k = 0; k < 8; k++) printf(" %d", on[k]);
    printf(" |");
    for (int k = 0; k < 8; k++) printf(" %d", oh[k]);
    printf(" |");
    for (int k = 0; k < 11; k++) printf(" %d", oi[k]);
    printf("\n");
    return 0;
}
"""
    ub = [255, 255, 1, 2, 255, 255, 200, 0, 3, 3, 10, 20, 7, 7, 128, 1]
    sb = [127, 127, -3, 4, -128, -128, 1, 100, -1, -1, 5, -5, 0, 0, -1, 1]
    mad = [max(-32768, min(32767, ub[2 * k] * sb[2 * k] + ub[2 * k + 1] * sb[2 * k + 1])) for k in range(8)]
    wrap_sum = (5 - 7 + 2147483647 + 10 + 2**31) % 2**32 - 2**31
    assert wrap_sum < 0
    # narrow: fptosi then keep the low 8 bits: 1, -2, 300 & 255 = 44, -129 & 255 = 127; 4 bytes only.
    expected = ("-1 -128 127 5 255 128 127 5 255 255 1 2 | 1 -2 44 127 99 99 99 99 | "
                + " ".join(map(str, mad)) + f" | {wrap_sum} 2147483647 -7 255 0 127 -128 5 5 10 2147483647\n")
    assert run_c(src, c_main, tmp_path) == expected


def test_memory_intrinsics_masked_and_prefetch(tmp_path):
    src = """
export func mem(p: *f32, o: *mut f32, count: i32) {
    prefetch(p, 8)
    let m: f32x4 = load_masked(p, 1, count)
    store(o, 0, m)
    store_masked(o, 4, splat(7.0), count)
    let m8: f32x8 = load_masked(p, 0, count)
    o[8] = reduce_add(m8)
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void mem(const float*, float*, int32_t);
int main(void) {
    float p[16];
    for (int k = 0; k < 16; k++) p[k] = 10 + k;
    int counts[4] = {0, 2, 4, -1};
    for (int c = 0; c < 4; c++) {
        float o[9];
        for (int k = 0; k < 9; k++) o[k] = -1;
        mem(p, o, counts[c]);
        for (int k = 0; k < 9; k++) printf("%g ", o[k]);
        printf("\n");
    }
    return 0;
}
"""
    p = [10 + k for k in range(16)]
    lines = []
    for c in (0, 2, 4, -1):
        lanes4 = 4 if c < 0 else min(c, 4)  # a negative count compares unsigned: every lane
        lanes8 = 8 if c < 0 else min(c, 8)
        o = [p[1 + k] if k < lanes4 else 0 for k in range(4)]  # masked-off lanes read as 0
        o += [7 if k < lanes4 else -1 for k in range(4)]
        o += [sum(p[:lanes8])]
        lines.append("".join(f"{v:g} " for v in o))
    assert run_c(src, c_main, tmp_path) == "\n".join(lines) + "\n"
    ll = ea("k.ea", "--emit-llvm", cwd=tmp_path)
    for name in ("@llvm.prefetch", "@llvm.masked.load", "@llvm.masked.store"):
        assert name in ll.stdout, name


def test_gather(tmp_path):
    src = """
export func ga(p: *f32, idx: *i32, o: *mut f32, oi: *mut i32, q: *i32) {
    let ix: i32x4 = load(idx, 0)
    store(o, 0, gather(p, ix))
    let ix8: i32x8 = load(idx, 4)
    store(oi, 0, gather(q, ix8))
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void ga(const float*, const int32_t*, float*, int32_t*, const int32_t*);
int main(void) {
    float p[16]; int32_t q[40]; int32_t idx[12] = {3, 0, 9, 9, 39, 1, 2, 30, 0, 17, 5, 5};
    for (int k = 0; k < 16; k++) p[k] = 10 + k;
    for (int k = 0; k < 40; k++) q[k] = -k * 100;
    float o[4]; int32_t oi[8];
    ga(p, idx, o, oi, q);
    for (int k = 0; k < 4; k++) printf("%g ", o[k]);
    for (int k = 0; k < 8; k++) printf("%d ", oi[k]);
    printf("\n");
    return 0;
}
"""
    idx = [3, 0, 9, 9, 39, 1, 2, 30, 0, 17, 5, 5]
    expected = "".join(f"{10 + i} " for i in idx[:4]) + "".join(f"{-i * 100} " for i in idx[4:]) + "\n"
    assert run_c(src, c_main, tmp_path) == expected


def test_masked_load_does_not_touch_memory_past_count(tmp_path):
    """load_masked/store_masked on the last bytes of a mapped page: the
    masked-off lanes lie on a PROT_NONE page and must not fault."""
    src = """
export func tail_copy(src: *i32, dst: *mut i32, left: i32) {
    let v: i32x8 = load_masked(src, 0, left)
    store_masked(dst, 0, v .+ splat(1), left)
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
void tail_copy(const int32_t*, int32_t*, int32_t);
int main(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char* base = mmap(0, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(base + pg, pg, PROT_NONE);
    mprotect(base + 3 * pg, pg, PROT_NONE);
    int32_t* src = (int32_t*)(base + pg) - 3;
    int32_t* dst = (int32_t*)(base + 3 * pg) - 3;
    src[0] = 10; src[1] = 20; src[2] = 30;
    tail_copy(src, dst, 3);
    printf("%d %d %d\n", dst[0], dst[1], dst[2]);
    return 0;
}
"""
    assert run_c(src, c_main, tmp_path) == "11 21 31\n"


@pytest.mark.needs_cpu("avx512f", "avx512bw", "avx512vl")  # scatter needs --avx512
def test_scatter_with_avx512(tmp_path):
    src = """
export func sc(p: *mut f32, idx: *i32, v: *f32) {
    let ix: i32x4 = load(idx, 0)
    scatter(p, ix, load(v, 0))
    let ix8: i32x8 = load(idx, 4)
    let v8: f32x8 = load(v, 4)
    scatter(p, ix8, v8 .* splat(10.0))
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void sc(float*, const int32_t*, const float*);
int main(void) {
    float p[24]; int32_t idx[12] = {5, 1, 7, 0, 10, 11, 12, 13, 20, 21, 22, 23};
    float v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (int k = 0; k < 24; k++) p[k] = -1;
    sc(p, idx, v);
    for (int k = 0; k < 24; k++) printf("%g ", p[k]);
    printf("\n");
    return 0;
}
"""
    p = [-1] * 24
    for i, v in zip([5, 1, 7, 0], [1, 2, 3, 4]):
        p[i] = v
    for i, v in zip([10, 11, 12, 13, 20, 21, 22, 23], range(5, 13)):
        p[i] = v * 10
    assert run_c(src, c_main, tmp_path, "--avx512") == "".join(f"{v:g} " for v in p) + "\n"


def test_scatter_without_avx512_is_a_codegen_error(tmp_path):
    (tmp_path / "k.ea").write_text("export func sc(p: *mut f32, idx: *i32, v: *f32) {\n"
                                   "    scatter(p, load(idx, 0), load(v, 0))\n}\n")
    proc = ea("k.ea", cwd=tmp_path)
    assert proc.returncode == 1
    assert ("error[codegen]: scatter requires AVX-512 for hardware support; "
            "compile with --avx512 or write a scalar loop explicitly") in proc.stderr
    assert not (tmp_path / "k.o").exists()
