"""End to end: pointers, structs, constants, static_assert and private
helpers (LANGUAGE.md §3.2-§3.5, §5.2, §10), compiled with `ea`, linked with a
C driver and run; expected values computed by hand."""
from __future__ import annotations

import re

import numpy as np

from .harness import ea, run_c


def test_pointers_restrict_double_pointers_and_index_types(tmp_path):
    src = """
export func add_restrict(a: *restrict f32, b: *restrict f32, o: *restrict mut f32, n: i32) {
    foreach (i in 0..n) { o[i] = a[i] + b[i] }
}
export func sum_rows(rows: **f32, nr: i32, nc: i32) -> f32 {
    let mut s: f32 = 0.0
    foreach (r in 0..nr) {
        let row: *f32 = rows[r]
        foreach (c in 0..nc) { s = s + row[c] * to_f32(r + 1) }
    }
    return s
}
export func fill_rows(rows: **mut i32, nr: i32, nc: i32) {
    foreach (r in 0..nr) {
        let row: *mut i32 = rows[r]
        foreach (c in 0..nc) { row[c] = r * 10 + c }
    }
}
export func at_u8(p: *i32, k: u8) -> i32 { return p[k] }
export func at_i8(p: *i32, k: i8) -> i32 { return p[k] }
export func at_i64(p: *i32, k: i64) -> i32 { return p[k] }
export func at_u16(p: *i32, k: u16) -> i32 { return p[k] }
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
void add_restrict(const float*, const float*, float*, int32_t);
float sum_rows(const float* const*, int32_t, int32_t);
void fill_rows(int32_t* const*, int32_t, int32_t);
int32_t at_u8(const int32_t*, uint8_t); int32_t at_i8(const int32_t*, int8_t);
int32_t at_i64(const int32_t*, int64_t); int32_t at_u16(const int32_t*, uint16_t);
int main(void) {
    float a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50}, o[6] = {0, 0, 0, 0, 0, -1};
    add_restrict(a, b, o, 5);
    for (int k = 0; k < 6; k++) printf("%g ", o[k]);
    printf("\n");
    float r0[3] = {1, 2, 3}, r1[3] = {4, 5, 6};
    const float* rows[2] = {r0, r1};
    printf("%g\n", sum_rows(rows, 2, 3));
    int32_t m0[3], m1[3], m2[3] = {-1, -1, -1};
    int32_t* mr[3] = {m0, m1, m2};
    fill_rows(mr, 2, 3);
    for (int k = 0; k < 3; k++) printf("%d %d %d ", m0[k], m1[k], m2[k]);
    printf("\n");
    static int32_t big[70000];
    for (int k = 0; k < 70000; k++) big[k] = k * 3;
    printf("%d %d %d %d\n", at_u8(big, 200), at_i8(big + 10, -3), at_i64(big, 65600), at_u16(big, 65535));
    return 0;
}
"""
    # sum_rows: (1+2+3)*1 + (4+5+6)*2 = 36.  Index types: u8 200 and u16 65535
    # zero-extend, i8 -3 sign-extends (big[7]), i64 65600 keeps all bits.
    expected = ("11 22 33 44 55 -1 \n36\n0 10 -1 1 11 -1 2 12 -1 \n"
                f"{200 * 3} {7 * 3} {65600 * 3} {65535 * 3}\n")
    assert run_c(src, c_main, tmp_path) == expected
    ll = ea("k.ea", "--emit-llvm", cwd=tmp_path)
    assert ll.returncode == 0, ll.stderr
    define = next(line for line in ll.stdout.splitlines() if "@add_restrict" in line or '@"add_restrict"' in line)
    assert define.count("noalias") == 3, define
    rows_def = next(line for line in ll.stdout.splitlines() if "define" in line and "sum_rows" in line)
    assert "noalias" not in rows_def


def test_structs_by_pointer_arrays_literals_and_returns(tmp_path):
    src = """
struct Vec2 { x: f32, y: f32 }
struct Rec {
    id: i32
    w: f64
    tag: u8
    p: *mut i32
}

func mk(a: f32, b: f32) -> Vec2 { return Vec2 { y: b, x: a } }
func swapped(v: Vec2) -> Vec2 { return Vec2 { x: v.y, y: v.x } }

export func norm2(p: *Vec2) -> f32 { return p.x * p.x + p.y * p.y }
export func sum_x(ps: *Vec2, n: i32) -> f32 {
    let mut s: f32 = 0.0
    foreach (i in 0..n) { s = s + ps[i].x - ps[i].y }
    return s
}
export func scale(ps: *mut Vec2, n: i32, k: f32) {
    foreach (i in 0..n) {
        let v: Vec2 = ps[i]
        ps[i] = Vec2 { x: v.x * k, y: v.y + k }
    }
}
export func set_y(p: *mut Vec2, y: f32) { p.y = y }
export func by_value(a: f32, b: f32) -> f32 {
    let v: Vec2 = swapped(mk(a, b))
    let w: Vec2 = Vec2 { x: v.x + 100.0, y: 0.0 }
    return w.x * 10.0 + v.y
}
export func rec_sum(r: *Rec) -> f64 { return to_f64(r.id) + r.w + to_f64(r.tag) }
export func rec_update(r: *mut Rec) {
    r.id = r.id * 2
    r.tag = r.tag + 1
    let q: *mut i32 = r.p
    q[0] = 77
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
struct Vec2 { float x, y; };
struct Rec { int32_t id; double w; uint8_t tag; int32_t* p; };
float norm2(const struct Vec2*); float sum_x(const struct Vec2*, int32_t);
void scale(struct Vec2*, int32_t, float); void set_y(struct Vec2*, float);
float by_value(float, float); double rec_sum(const struct Rec*); void rec_update(struct Rec*);
int main(void) {
    struct Vec2 v = {3, 4};
    printf("%g\n", norm2(&v));
    struct Vec2 ps[4] = {{1, 10}, {2, 20}, {3, 30}, {99, 99}};
    printf("%g\n", sum_x(ps, 3));
    scale(ps, 3, 2);
    for (int k = 0; k < 4; k++) printf("%g,%g ", ps[k].x, ps[k].y);
    printf("\n");
    set_y(&ps[3], -1.5f); printf("%g %g\n", ps[3].x, ps[3].y);
    printf("%g\n", by_value(1.0f, 2.0f));
    int32_t cell = 0;
    struct Rec r = {5, 0.25, 250, &cell};
    printf("%g\n", rec_sum(&r));
    rec_update(&r); printf("%d %g %d %d\n", r.id, r.w, r.tag, cell);
    return 0;
}
"""
    # by_value: swapped(mk(1, 2)) = {x: 2, y: 1}; w.x = 102 -> 1020 + 1.
    expected = ("25\n-54\n2,12 4,22 6,32 99,99 \n99 -1.5\n1021\n255.25\n10 0.25 251 77\n")
    assert run_c(src, c_main, tmp_path) == expected


def test_struct_variable_field_assignment(tmp_path):
    """§3.3: `x.f = v` on a struct *variable* (not only through a pointer)."""
    src = """
struct Vec2 { x: f32, y: f32 }
export func bump(a: f32, b: f32) -> f32 {
    let mut w: Vec2 = Vec2 { x: a, y: b }
    w.x = w.x + 100.0
    w.y = w.x * 2.0
    return w.x * 10.0 + w.y
}
"""
    c_main = r"""#include <stdio.h>
float bump(float, float);
int main(void) { printf("%g\n", bump(1.0f, 2.0f)); return 0; }
"""
    assert run_c(src, c_main, tmp_path) == "1212\n"  # w.x = 101, w.y = 202


def test_constants_and_static_assert(tmp_path):
    src = """
const N: i32 = 8
const HALF: f32 = 0.5
const BIG: u8 = 200
const NEG: i64 = -5
const MASK: u32 = 0xF0F0F0F0
const W: f64 = 3
static_assert(N * 2 == 16, "N")
static_assert(N % 3 == 2 && N / 3 == 2, "integer arithmetic")
static_assert(HALF < 1.0, "float")
export func use_consts(x: i32) -> i32 { return x * N + 1 }
export func use_f(x: f32) -> f32 { return x * HALF }
export func use_u(x: u8) -> u8 { return x / BIG }
export func use_i(x: i64) -> i64 { return x * NEG }
export func use_m(x: u32) -> u32 { return x & MASK }
export func use_w() -> f64 { return W / 2.0 }
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
int32_t use_consts(int32_t); float use_f(float); uint8_t use_u(uint8_t); int64_t use_i(int64_t);
uint32_t use_m(uint32_t); double use_w(void);
int main(void) {
    printf("%d %g %d %d %lld %u %g\n", use_consts(3), use_f(5), use_u(250), use_u(199),
           (long long)use_i(-7), use_m(0x12345678u), use_w());
    return 0;
}
"""
    assert run_c(src, c_main, tmp_path) == f"25 2.5 1 0 35 {0x12345678 & 0xF0F0F0F0} 1.5\n"


def test_static_assert_failure_is_a_type_error(tmp_path):
    (tmp_path / "k.ea").write_text('const N: i32 = 8\nstatic_assert(N == 9, "N must be nine")\n'
                                   'export func f() -> i32 { return N }\n')
    proc = ea("k.ea", cwd=tmp_path)
    assert proc.returncode == 1
    assert "error[type]: static assertion failed: N must be nine" in proc.stderr
    assert not (tmp_path / "k.o").exists()


def test_nested_private_helpers_are_inlined(tmp_path):
    src = """
func add1(x: i32) -> i32 { return x + 1 }
func sq(x: i32) -> i32 { return x * x }
func poly(x: i32) -> i32 { return sq(add1(x)) + add1(sq(x)) }
func vmax(a: f32x4, b: f32x4) -> f32x4 { return select(a .> b, a, b) }
export func outer(x: i32) -> i32 { return poly(poly(x)) - add1(x) }
export func vouter(p: *f32, o: *mut f32) { store(o, 0, vmax(load(p, 0), load(p, 4))) }
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
int32_t outer(int32_t); void vouter(const float*, float*);
int main(void) {
    float p[8] = {1, 9, -3, 4, 2, 8, -2, 4}, o[4];
    vouter(p, o);
    printf("%d %d %g %g %g %g\n", outer(2), outer(-1), o[0], o[1], o[2], o[3]);
    return 0;
}
"""

    def poly(x):
        return (x + 1) ** 2 + x * x + 1

    assert run_c(src, c_main, tmp_path) == f"{poly(poly(2)) - 3} {poly(poly(-1))} 2 9 -2 4\n"
    ll = ea("k.ea", "--emit-llvm", cwd=tmp_path)
    assert ll.returncode == 0, ll.stderr
    for helper in ("add1", "sq", "poly", "vmax"):
        assert not re.search(rf'@"?{helper}"?\b', ll.stdout), f"helper {helper} survives at -O3"
    assert not re.search(r"^\s*(%\S+ = )?(tail )?call\b(?!.*@llvm\.)", ll.stdout, re.M)
    # At -O0 the helpers exist (private, alwaysinline) and are called.
    ll0 = ea("k.ea", "--emit-llvm", "--opt-level=0", cwd=tmp_path)
    assert re.search(r'define private .*@"?poly"?\(', ll0.stdout)
    assert re.search(r'call .*@"?poly"?\(', ll0.stdout)


def test_struct_field_layout_matches_c(tmp_path):
    """Natural alignment, fields in declaration order (§3.3): C reads what Eä wrote."""
    src = """
struct Mixed { a: u8, b: i64, c: i16, d: f32, e: u8 }
export func fill(m: *mut Mixed) {
    m.a = 250
    m.b = -1234567890123
    m.c = -300
    m.d = 0.25
    m.e = 7
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
#include <string.h>
struct Mixed { uint8_t a; int64_t b; int16_t c; float d; uint8_t e; };
void fill(struct Mixed*);
int main(void) {
    struct Mixed m[2];
    memset(m, 0x55, sizeof m);
    fill(&m[0]);
    printf("%d %lld %d %g %d %d %d\n", m[0].a, (long long)m[0].b, m[0].c, m[0].d, m[0].e, m[1].a,
           (int)sizeof(struct Mixed));
    return 0;
}
"""
    assert run_c(src, c_main, tmp_path) == f"250 -1234567890123 -300 0.25 7 85 {np.dtype('u1,i8,i2,f4,u1', align=True).itemsize}\n"
