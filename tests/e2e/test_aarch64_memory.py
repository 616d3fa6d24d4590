"""AArch64/NEON end to end (masked loads/stores against a guard page, and structs): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations


from .aarch64_harness import (f32s, fmt32, fmt64, ints, line, needs_qemu, run_arm)


# 11. load_masked / store_masked: masked lanes never touch memory
# ---------------------------------------------------------------------------

MASKED_EA = """
export func lm(p: *f32, i: i32, count: i32, out: *mut f32) {
    let v: f32x4 = load_masked(p, i, count)
    store(out, 0, v)
}

export func sm(p: *mut f32, i: i32, count: i32, src: *f32) {
    let v: f32x4 = load(src, 0)
    store_masked(p, i, v .* splat(10.0), count)
}

export func lm_i32(p: *i32, count: i32, out: *mut i32) {
    let v: i32x4 = load_masked(p, 0, count)
    store(out, 0, v .+ splat(1))
}
"""

MASKED_C = r"""
#include <sys/mman.h>
#include <unistd.h>
void lm(const float*, int32_t, int32_t, float*);
void sm(float*, int32_t, int32_t, const float*);
void lm_i32(const int32_t*, int32_t, int32_t*);
int main(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *base = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || mprotect(base + pg, pg, PROT_NONE) != 0) { printf("mmap failed\n"); return 2; }
    float *end = (float *)(base + pg);          /* first float of the inaccessible page */
    const float src[4] = {1.5f, -2.0f, 3.25f, 4.0f};
    float out[4];
    /* count lanes placed right before the guard page: a full-width access would fault */
    for (int c = 0; c <= 4; c++) {
        float *p = end - c;
        for (int k = 0; k < c; k++) p[k] = 100.0f + k;
        lm(p, 0, c, out);
        for (int k = 0; k < 4; k++) pf(out[k]);
        nl();
    }
    for (int c = 0; c <= 4; c++) {
        float *p = end - c;
        for (int k = 0; k < c; k++) p[k] = -1.0f;
        sm(p, 0, c, src);
        for (int k = 0; k < c; k++) pf(p[k]);
        nl();
    }
    /* offset index and out-of-range counts: count is compared unsigned, negative means all lanes */
    float buf[12];
    for (int k = 0; k < 12; k++) buf[k] = (float)k;
    lm(buf, 2, 3, out); for (int k = 0; k < 4; k++) pf(out[k]); nl();
    lm(buf, 5, -1, out); for (int k = 0; k < 4; k++) pf(out[k]); nl();
    lm(buf, 1, 9, out); for (int k = 0; k < 4; k++) pf(out[k]); nl();
    sm(buf, 6, 2, src); for (int k = 0; k < 12; k++) pf(buf[k]); nl();
    sm(buf, 0, -5, src); for (int k = 0; k < 12; k++) pf(buf[k]); nl();
    int32_t ib[4] = {7, 8, 9, 10}, io[4];
    lm_i32(ib, 2, io); for (int k = 0; k < 4; k++) pi(io[k]); nl();
    return 0;
}
"""


def masked_expected() -> list[str]:
    src = [1.5, -2.0, 3.25, 4.0]
    out = [f32s([100.0 + k if k < c else 0.0 for k in range(4)]) for c in range(5)]
    out += [f32s([src[k] * 10 for k in range(c)]) for c in range(5)]
    buf = [float(k) for k in range(12)]
    out.append(f32s([buf[2], buf[3], buf[4], 0.0]))
    out.append(f32s(buf[5:9]))
    out.append(f32s(buf[1:5]))
    buf[6:8] = [src[0] * 10, src[1] * 10]
    out.append(f32s(buf))
    buf[0:4] = [v * 10 for v in src]
    out.append(f32s(buf))
    out.append(ints([8, 9, 1, 1]))
    return out


@needs_qemu
def test_load_store_masked(tmp_path):
    assert run_arm(tmp_path, MASKED_EA, MASKED_C) == masked_expected()


# ---------------------------------------------------------------------------
# 12. Structs: C layout, field access through pointers, struct values
# ---------------------------------------------------------------------------

STRUCT_EA = """
struct Particle {
    x: f32, y: f32
    vx: f32, vy: f32
}

struct Rec { tag: u8, id: i32, w: f64, k: i16 }

struct Lane {
    scale: f32
    v: f32x4
}

func moved(p: Particle, dt: f32) -> Particle {
    return Particle { x: p.x + p.vx * dt, y: p.y + p.vy * dt, vx: p.vx, vy: p.vy }
}

export func step(ps: *mut Particle, n: i32, dt: f32) {
    foreach (i in 0..n) {
        let p: Particle = ps[i]
        ps[i] = Particle { x: p.x + p.vx * dt, y: p.y + p.vy * dt, vx: p.vx, vy: p.vy }
    }
}

export func step_twice(ps: *mut Particle, i: i32, dt: f32) {
    let p: Particle = ps[i]
    let q: Particle = moved(p, dt)
    ps[i] = moved(q, dt)
    ps[i].vx = -q.vx
}

export func rec_total(rs: *Rec, n: i32) -> f64 {
    let mut t: f64 = 0.0
    foreach (i in 0..n) {
        t = t + rs[i].w * to_f64(rs[i].id) + to_f64(rs[i].k) + to_f64(rs[i].tag)
    }
    return t
}

export func rec_bump(r: *mut Rec) {
    r.id = r.id + 1
    r.tag = 7
    r.k = r.k - 1000
}

export func lane_apply(l: *Lane, out: *mut f32) {
    let s: Lane = l[0]
    store(out, 0, s.v .* splat(s.scale))
    out[4] = l.scale
}
"""

STRUCT_C = r"""
struct Particle { float x, y, vx, vy; };
struct Rec { uint8_t tag; int32_t id; double w; int16_t k; };
typedef float v4sf __attribute__((vector_size(16)));
struct Lane { float scale; v4sf v; };
void step(struct Particle*, int32_t, float);
void step_twice(struct Particle*, int32_t, float);
double rec_total(const struct Rec*, int32_t);
void rec_bump(struct Rec*);
void lane_apply(const struct Lane*, float*);
int main(void) {
    struct Particle ps[3] = {{0.0f, 1.0f, 2.0f, -4.0f}, {10.0f, -3.5f, 0.5f, 0.25f}, {-1.0f, -1.0f, 8.0f, 8.0f}};
    step(ps, 2, 0.5f);
    for (int k = 0; k < 3; k++) { pf(ps[k].x); pf(ps[k].y); pf(ps[k].vx); pf(ps[k].vy); }
    nl();
    step_twice(ps, 2, 0.25f);
    pf(ps[2].x); pf(ps[2].y); pf(ps[2].vx); pf(ps[2].vy);
    nl();
    struct Rec rs[2] = {{200, 3, 1.25, -40}, {1, -2, 0.5, 300}};
    pd(rec_total(rs, 2));
    nl();
    rec_bump(&rs[1]);
    pu(rs[1].tag); pi(rs[1].id); pd(rs[1].w); pi(rs[1].k);
    pu(rs[0].tag); pi(rs[0].id); pd(rs[0].w); pi(rs[0].k);
    nl();
    struct Lane ln = {2.5f, {1.0f, -2.0f, 0.5f, 4.0f}};
    float o[5];
    lane_apply(&ln, o);
    for (int k = 0; k < 5; k++) pf(o[k]);
    nl();
    return 0;
}
"""


def struct_expected() -> list[str]:
    ps = [[0.0, 1.0, 2.0, -4.0], [10.0, -3.5, 0.5, 0.25], [-1.0, -1.0, 8.0, 8.0]]
    for p in ps[:2]:
        p[0] += p[2] * 0.5
        p[1] += p[3] * 0.5
    out = [f32s([v for p in ps for v in p])]
    x, y, vx, vy = ps[2]
    out.append(f32s([x + 2 * vx * 0.25, y + 2 * vy * 0.25, -vx, vy]))
    rs = [[200, 3, 1.25, -40], [1, -2, 0.5, 300]]
    out.append(line(fmt64(sum(w * i + k + t for t, i, w, k in rs))))
    out.append(line(7, -1, fmt64(0.5), 300 - 1000, 200, 3, fmt64(1.25), -40))
    out.append(f32s([1.0 * 2.5, -2.0 * 2.5, 0.5 * 2.5, 4.0 * 2.5, 2.5]))
    return out


@needs_qemu
def test_structs(tmp_path):
    assert run_arm(tmp_path, STRUCT_EA, STRUCT_C) == struct_expected()


# §3.3: field assignment `x.f = v` is allowed on struct *variables* as well as
# through `*mut Struct` pointers.
STRUCT_VAR_EA = """
struct Pt { x: f32, y: i32 }

func swapped(p: Pt) -> Pt {
    let mut q: Pt = p
    q.x = to_f32(p.y)
    q.y = to_i32(p.x)
    return q
}

export func swap_fields(ps: *mut Pt, n: i32) {
    foreach (i in 0..n) {
        ps[i] = swapped(ps[i])
    }
}

export func literal_then_assign(out: *mut Pt) {
    let mut q: Pt = Pt { x: 1.5, y: 2 }
    q.y = q.y * 10
    out[0] = q
}
"""

STRUCT_VAR_C = r"""
struct Pt { float x; int32_t y; };
void swap_fields(struct Pt*, int32_t);
void literal_then_assign(struct Pt*);
int main(void) {
    struct Pt ps[3] = {{7.0f, -3}, {-2.0f, 40}, {0.5f, 9}};
    swap_fields(ps, 2);
    for (int k = 0; k < 3; k++) { pf(ps[k].x); pi(ps[k].y); }
    nl();
    literal_then_assign(ps);
    pf(ps[0].x); pi(ps[0].y);
    nl();
    return 0;
}
"""


@needs_qemu
def test_struct_variable_field_assignment(tmp_path):
    expected = [line(fmt32(-3.0), 7, fmt32(40.0), -2, fmt32(0.5), 9), line(fmt32(1.5), 20)]
    assert run_arm(tmp_path, STRUCT_VAR_EA, STRUCT_VAR_C) == expected


# ---------------------------------------------------------------------------
