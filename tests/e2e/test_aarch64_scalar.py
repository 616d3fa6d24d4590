"""AArch64/NEON end to end (scalar arithmetic, control flow and println): Eä cross-compiled with
`ea --target-triple=aarch64-unknown-linux-gnu`, linked by `aarch64-linux-gnu-gcc`, run under
`qemu-aarch64 -cpu max`. Expected values are computed here in Python, never by the compiler."""
from __future__ import annotations

import math

import numpy as np

from .aarch64_harness import (fmt64, ints, line, needs_qemu, run_arm, wrap)


# ---------------------------------------------------------------------------
# 1. Scalar arithmetic and control flow
# ---------------------------------------------------------------------------

SCALAR_EA = """
func touch(log: *mut i32, v: bool) -> bool {
    log[0] = log[0] + 1
    return v
}

export func gcd(a: i32, b: i32) -> i32 {
    let mut x: i32 = a
    let mut y: i32 = b
    while y != 0 {
        let t: i32 = x % y
        x = y
        y = t
    }
    return x
}

export func collatz(n: i64) -> i32 {
    let mut v: i64 = n
    let mut steps: i32 = 0
    while v != 1 {
        if v % 2 == 0 {
            v = v / 2
        } else {
            v = 3 * v + 1
        }
        steps = steps + 1
    }
    return steps
}

export func classify(x: f32) -> i32 {
    if x < -1.0 {
        return -2
    } else if x < 0.0 {
        return -1
    } else if x == 0.0 {
        return 0
    }
    return 1
}

export func int_ops(a: i32, b: i32, out: *mut i32) {
    out[0] = a / b
    out[1] = a % b
    out[2] = a >> 2
    out[3] = a << 3
    out[4] = (a & 0xFF) | (b ^ 0b1010)
    out[5] = -a * b - 7
}

export func uint_ops(a: u32, b: u32, out: *mut u32) {
    out[0] = a / b
    out[1] = a % b
    out[2] = a >> 4
    if a > b {
        out[3] = 1
    } else {
        out[3] = 0
    }
}

export func conv(x: f32, u: u32, s: i32, out: *mut f64) {
    out[0] = to_f64(to_i32(x))
    out[1] = to_f64(to_f32(u))
    out[2] = to_f64(to_i64(s))
    out[3] = to_f64(to_i64(u))
    out[4] = sqrt(to_f64(s) * to_f64(s) + 2.0)
    out[5] = to_f64(x) % 2.0
}

export func loops(p: *i32, n: i32, log: *mut i32) -> i64 {
    let mut s: i64 = 0
    foreach (i in 0..n) {
        s = s + to_i64(p[i]) * to_i64(p[i])
    }
    for j in 0..n step 3 {
        s = s + to_i64(j) * 1000
    }
    unroll(4) for k in 0..n {
        s = s + to_i64(p[k]) * 1000000
    }
    if touch(log, false) && touch(log, true) {
        s = s + 1
    }
    if touch(log, true) || touch(log, false) {
        s = s + 2
    }
    return s
}
"""

SCALAR_C = r"""
int32_t gcd(int32_t, int32_t);
int32_t collatz(int64_t);
int32_t classify(float);
void int_ops(int32_t, int32_t, int32_t*);
void uint_ops(uint32_t, uint32_t, uint32_t*);
void conv(float, uint32_t, int32_t, double*);
int64_t loops(const int32_t*, int32_t, int32_t*);
int main(void) {
    pi(gcd(1071, 462)); pi(gcd(17, 5)); pi(gcd(0, 9)); pi(gcd(-12, 18)); nl();
    pi(collatz(27)); pi(collatz(1)); pi(collatz(837799)); nl();
    float cs[] = {-3.5f, -1.0f, -0.25f, 0.0f, -0.0f, 2.0f, NAN};
    for (int k = 0; k < 7; k++) pi(classify(cs[k]));
    nl();
    int32_t ia[][2] = {{-7, 2}, {100, -9}, {12345, 77}, {-1000, -3}};
    for (int k = 0; k < 4; k++) {
        int32_t o[6]; int_ops(ia[k][0], ia[k][1], o);
        for (int j = 0; j < 6; j++) pi(o[j]);
        nl();
    }
    uint32_t ua[][2] = {{4000000000u, 3u}, {7u, 4000000000u}, {0xFFFFFFFFu, 16u}};
    for (int k = 0; k < 3; k++) {
        uint32_t o[4]; uint_ops(ua[k][0], ua[k][1], o);
        for (int j = 0; j < 4; j++) pu(o[j]);
        nl();
    }
    double d[6];
    conv(-3.75f, 4000000000u, -5, d); for (int j = 0; j < 6; j++) pd(d[j]); nl();
    conv(7.5f, 3000000001u, 3, d); for (int j = 0; j < 6; j++) pd(d[j]); nl();
    int32_t p[] = {3, -4, 5, 10, 2, -1, 7};
    int32_t log = 0;
    pi(loops(p, 7, &log)); pi(log); nl();
    log = 0;
    pi(loops(p, 0, &log)); pi(log); nl();
    return 0;
}
"""


def _tdiv(a: int, b: int) -> tuple[int, int]:
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return q, a - b * q


def _collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def _loops(p: list[int], n: int) -> int:
    s = sum(v * v for v in p[:n]) + sum(j * 1000 for j in range(0, n, 3)) + sum(p[:n]) * 1000000
    return s + 2      # `false && ...` adds nothing, `true || ...` adds 2


def scalar_expected() -> list[str]:
    out = [ints([math.gcd(1071, 462), math.gcd(17, 5), 9, _gcd_c(-12, 18)]),
           ints([_collatz(27), 0, _collatz(837799)])]
    cls = []
    for x in (-3.5, -1.0, -0.25, 0.0, -0.0, 2.0, float("nan")):
        cls.append(-2 if x < -1 else -1 if x < 0 else 0 if x == 0 else 1)
    out.append(ints(cls))
    for a, b in ((-7, 2), (100, -9), (12345, 77), (-1000, -3)):
        q, r = _tdiv(a, b)
        out.append(ints([q, r, a >> 2, wrap(a << 3, 32), wrap((a & 0xFF) | (b ^ 0b1010), 32),
                         wrap(-a * b - 7, 32)]))
    for a, b in ((4000000000, 3), (7, 4000000000), (0xFFFFFFFF, 16)):
        out.append(ints([a // b, a % b, a >> 4, int(a > b)]))
    for x, u, s in ((-3.75, 4000000000, -5), (7.5, 3000000001, 3)):
        out.append(line(*(fmt64(v) for v in (float(int(x)), float(np.float32(u)), float(s), float(u),
                                              math.sqrt(s * s + 2.0), math.fmod(x, 2.0)))))
    p = [3, -4, 5, 10, 2, -1, 7]
    out.append(ints([_loops(p, 7), 2]))
    out.append(ints([2, 2]))   # n = 0: loops do nothing, `true || ...` still adds 2
    return out


def _gcd_c(a: int, b: int) -> int:
    """Euclid with C's truncating remainder (the sign follows the dividend)."""
    while b != 0:
        a, b = b, _tdiv(a, b)[1]
    return a


@needs_qemu
def test_scalar_arithmetic_and_control_flow(tmp_path):
    assert run_arm(tmp_path, SCALAR_EA, SCALAR_C) == scalar_expected()


# ---------------------------------------------------------------------------
# 2. println (LANGUAGE.md §6): %d / %u / %ld / %lu / %g / %s
# ---------------------------------------------------------------------------

PRINTLN_EA = """
export func show(a: i32, b: u32, c: i64, d: u64, e: f32, f: f64, g: u8, h: i8, k: i16, m: u16, v: *u8) {
    println("start of show")
    println(a)
    println(b)
    println(c)
    println(d)
    println(e)
    println(f)
    println(g)
    println(h)
    println(k)
    println(m)
    let bytes: u8x16 = load(v, 0)
    println(bytes[3])
    let w: i32x4 = [1, -2, 3, -4]
    println(w[1])
    println(3 + 4)
    println(2.5)
    println("done: 100%")
}
"""

PRINTLN_C = r"""
void show(int32_t, uint32_t, int64_t, uint64_t, float, double, uint8_t, int8_t, int16_t, uint16_t,
          const uint8_t*);
int main(void) {
    uint8_t bytes[16];
    for (int k = 0; k < 16; k++) bytes[k] = (uint8_t)(247 + k);
    printf("C before\n");
    show(-42, 4000000000u, -9000000000LL, 18000000000000000000ULL, 0.1f, 1234567.0, 200, -5, -300,
         65535, bytes);
    printf("C after\n");
    return 0;
}
"""


@needs_qemu
def test_println_formats(tmp_path):
    expected = ["C before", "start of show", "-42", "4000000000", "-9000000000", "18000000000000000000",
                "%g" % float(np.float32(0.1)), "%g" % 1234567.0, "200", "-5", "-300", "65535",
                str(247 + 3), "-2", "7", "2.5", "done: 100%", "C after"]
    assert run_arm(tmp_path, PRINTLN_EA, PRINTLN_C) == expected
