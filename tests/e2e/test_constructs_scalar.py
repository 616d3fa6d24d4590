"""End to end: scalar CORE constructs compiled with `ea`, linked with a C
driver, run; stdout compared with values computed here in Python from the
language rules (LANGUAGE.md §4, §5.5, §5.7, §6), never from the compiler.

Topics: integer/float arithmetic for every scalar type, signed vs unsigned
division / remainder / shifts, literal truncation, comparisons incl. NaN,
short-circuit logic, control flow, loops, returns, println formats."""
from __future__ import annotations

import math
import subprocess

import numpy as np

from .harness import compile_ea, ea, run_c

# ---- Python reference semantics ---------------------------------------------

INT_TYPES = {  # name: (bits, signed, C type)
    "i8": (8, True, "int8_t"), "u8": (8, False, "uint8_t"),
    "i16": (16, True, "int16_t"), "u16": (16, False, "uint16_t"),
    "i32": (32, True, "int32_t"), "u32": (32, False, "uint32_t"),
    "i64": (64, True, "int64_t"), "u64": (64, False, "uint64_t"),
}


def wrap(x: int, bits: int, signed: bool) -> int:
    x &= (1 << bits) - 1
    if signed and x >> (bits - 1):
        x -= 1 << bits
    return x


def tdiv(a: int, b: int) -> int:
    """C truncating division."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def int_ops_ref(t: str, a: int, b: int, s: int, c: int, d: int) -> list[int]:
    bits, signed, _ = INT_TYPES[t]
    w = lambda x: wrap(x, bits, signed)
    out = [a + b, a - b, c * d, tdiv(a, b), a - b * tdiv(a, b), a >> s, w(a << s), w(a & b), w(a | b), w(a ^ b)]
    for x in out[:5]:
        assert x == w(x), "test values must not overflow (nsw/nuw)"
    return [w(x) for x in out]


# (a, b, s, c, d): a+b, a-b and c*d stay in range; a is large/negative so that
# a signed/unsigned mix-up in / % >> changes the result.
INT_CASES = {
    "i8": (-100, 13, 3, -11, 11),
    "u8": (235, 13, 3, 15, 17),
    "i16": (-30001, 45, 5, -181, 181),
    "u16": (65001, 45, 4, 255, 257),
    "i32": (-2000000001, 4519, 9, -46340, 46340),
    "u32": (4000000001, 4519, 5, 65535, 65537),
    "i64": (-9000000000000000001, 1000003, 13, -3037000499, 3037000499),
    "u64": (18000000000000000001, 1000003, 7, 4294967295, 4294967297),
}


def c_lit(t: str, v: int) -> str:
    return f"{v}{'ULL' if t.startswith('u') else 'LL'}"


def test_integer_arithmetic_every_type(tmp_path):
    src, decls, calls = [], [], []
    for t, (bits, signed, ct) in INT_TYPES.items():
        src.append(f"""
export func ops_{t}(a: {t}, b: {t}, s: {t}, c: {t}, d: {t}, o: *mut {t}) {{
    o[0] = a + b
    o[1] = a - b
    o[2] = c * d
    o[3] = a / b
    o[4] = a % b
    o[5] = a >> s
    o[6] = a << s
    o[7] = a & b
    o[8] = a | b
    o[9] = a ^ b
}}""")
        decls.append(f"void ops_{t}({ct}, {ct}, {ct}, {ct}, {ct}, {ct}*);")
        args = ", ".join(c_lit(t, v) for v in INT_CASES[t])
        fmt = '"%lld "' if signed else '"%llu "'
        cast = "(long long)" if signed else "(unsigned long long)"
        calls.append(f'{{ {ct} o[10]; ops_{t}({args}, o); printf("{t}: ");'
                     f' for (int k = 0; k < 10; k++) printf({fmt}, {cast}o[k]); printf("\\n"); }}')
    c_main = ("#include <stdio.h>\n#include <stdint.h>\n" + "\n".join(decls)
              + "\nint main(void) {\n" + "\n".join(calls) + "\nreturn 0; }\n")
    out = run_c("\n".join(src), c_main, tmp_path)
    expected = "".join(f"{t}: " + "".join(f"{v} " for v in int_ops_ref(t, *INT_CASES[t])) + "\n"
                       for t in INT_TYPES)
    assert out == expected


def test_float_arithmetic_f32_f64(tmp_path):
    src = """
export func fops32(a: f32, b: f32, o: *mut f32) {
    o[0] = a + b  o[1] = a - b  o[2] = a * b  o[3] = a / b  o[4] = a % b  o[5] = -a
}
export func fops64(a: f64, b: f64, o: *mut f64) {
    o[0] = a + b  o[1] = a - b  o[2] = a * b  o[3] = a / b  o[4] = a % b  o[5] = -a
}
"""
    c_main = r"""#include <stdio.h>
void fops32(float, float, float*); void fops64(double, double, double*);
int main(void) {
    float f[6]; double d[6];
    fops32(-7.25f, 3.0f, f); for (int k = 0; k < 6; k++) printf("%.9g ", f[k]); printf("\n");
    fops64(-7.25, 3.0, d); for (int k = 0; k < 6; k++) printf("%.17g ", d[k]); printf("\n");
    fops64(5.5, -2.0, d); printf("%.17g\n", d[4]);
    return 0;
}
"""
    a, b = np.float32(-7.25), np.float32(3.0)
    f32 = [a + b, a - b, a * b, a / b, np.float32(math.fmod(a, b)), -a]
    f64 = [-7.25 + 3.0, -7.25 - 3.0, -7.25 * 3.0, -7.25 / 3.0, math.fmod(-7.25, 3.0), 7.25]
    expected = ("".join("%.9g " % float(x) for x in f32) + "\n"
                + "".join("%.17g " % x for x in f64) + "\n"
                + "%.17g\n" % math.fmod(5.5, -2.0))
    assert run_c(src, c_main, tmp_path) == expected


def test_literal_truncation_and_bases(tmp_path):
    src = """
export func lit_i32() -> i32 { let x: i32 = 0xFFFFFFFF  return x }
export func lit_u8() -> u8 { return 0x1FF }
export func lit_i8() -> i8 { let x: i8 = 0x80  return x }
export func lit_i16(a: i16) -> i16 { return a + 0xFFFF }
export func lit_u32() -> u32 { let x: u32 = 0x1FFFFFFFF  return x }
export func lit_u64() -> u64 { let x: u64 = -1  return x }
export func lit_bin() -> i32 { return 0b1011 + -3 }
export func lit_i64() -> i64 { return 0x7FFFFFFFFFFFFFFF }
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
int32_t lit_i32(void); uint8_t lit_u8(void); int8_t lit_i8(void); int16_t lit_i16(int16_t);
uint32_t lit_u32(void); uint64_t lit_u64(void); int32_t lit_bin(void); int64_t lit_i64(void);
int main(void) {
    printf("%d %d %d %d %u %llu %d %lld\n", lit_i32(), lit_u8(), lit_i8(), lit_i16(100), lit_u32(),
           (unsigned long long)lit_u64(), lit_bin(), (long long)lit_i64());
    return 0;
}
"""
    assert run_c(src, c_main, tmp_path) == (
        f"-1 255 -128 99 4294967295 {2**64 - 1} 8 {2**63 - 1}\n")


CMP_BODY = """
    let mut r: i32 = 0
    if a == b { r = r | 1 }
    if a != b { r = r | 2 }
    if a < b { r = r | 4 }
    if a <= b { r = r | 8 }
    if a > b { r = r | 16 }
    if a >= b { r = r | 32 }
    return r
"""


def cmp_ref(a, b) -> int:
    return sum(bit for bit, ok in ((1, a == b), (2, a != b and not (a != a or b != b)), (4, a < b),
                                   (8, a <= b), (16, a > b), (32, a >= b)) if ok)


def test_comparisons_signed_unsigned_and_nan(tmp_path):
    types = {**{t: v[2] for t, v in INT_TYPES.items()}, "f32": "float", "f64": "double"}
    src = "".join(f"export func cmp_{t}(a: {t}, b: {t}) -> i32 {{{CMP_BODY}}}\n" for t in types)
    src += """
export func beq(a: bool, b: bool) -> i32 {
    let mut r: i32 = 0
    if a == b { r = r | 1 }
    if a != b { r = r | 2 }
    if !a { r = r | 4 }
    return r
}
"""
    cases = []
    for t, (bits, signed, ct) in INT_TYPES.items():
        big = (1 << (bits - 1)) if not signed else -1
        cases += [(t, big, 1), (t, 1, big), (t, 5, 5)]
    nan = float("nan")
    for t in ("f32", "f64"):
        cases += [(t, nan, 1.0), (t, 1.0, nan), (t, nan, nan), (t, -0.0, 0.0), (t, 1.0, 2.0)]

    def lit(t, v):
        if isinstance(v, float):
            return "NAN" if v != v else repr(v)
        return c_lit(t, v)
    decls = "".join(f"int32_t cmp_{t}({ct}, {ct});\n" for t, ct in types.items())
    body = "".join(f'printf("%d ", cmp_{t}({lit(t, a)}, {lit(t, b)}));\n' for t, a, b in cases)
    c_main = ("#include <stdio.h>\n#include <stdint.h>\n#include <math.h>\n" + decls
              + "int32_t beq(_Bool, _Bool);\nint main(void) {\n" + body
              + 'printf("| %d %d %d\\n", beq(1, 1), beq(1, 0), beq(0, 0));\nreturn 0; }\n')
    expected = "".join(f"{cmp_ref(a, b)} " for _, a, b in cases) + "| 1 2 5\n"
    assert run_c(src, c_main, tmp_path) == expected


def test_short_circuit_logic(tmp_path):
    src = """
func touch(p: *mut i32, v: bool) -> bool {
    p[0] = p[0] + 1
    return v
}
export func sc_and(p: *mut i32, a: bool) -> bool { return a && touch(p, true) }
export func sc_or(p: *mut i32, a: bool) -> bool { return a || touch(p, false) }
export func sc_chain(p: *mut i32, a: bool, b: bool) -> i32 {
    if (a || touch(p, true)) && (b && touch(p, true)) { return 1 }
    return 0
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
_Bool sc_and(int32_t*, _Bool); _Bool sc_or(int32_t*, _Bool); int32_t sc_chain(int32_t*, _Bool, _Bool);
int main(void) {
    int32_t c = 0; int r;
    r = sc_and(&c, 0); printf("%d %d\n", r, c);
    r = sc_and(&c, 1); printf("%d %d\n", r, c);
    r = sc_or(&c, 1); printf("%d %d\n", r, c);
    r = sc_or(&c, 0); printf("%d %d\n", r, c);
    c = 0; r = sc_chain(&c, 1, 0); printf("%d %d\n", r, c);
    c = 0; r = sc_chain(&c, 0, 1); printf("%d %d\n", r, c);
    return 0;
}
"""
    # sc_chain(1, 0): a true skips the first touch; b false skips the second -> 0 touches.
    # sc_chain(0, 1): first touch runs, b true -> second touch runs -> 2 touches.
    assert run_c(src, c_main, tmp_path) == "0 0\n1 1\n1 1\n0 2\n0 0\n1 2\n"


def test_control_flow_and_loops(tmp_path):
    src = """
export func classify(x: i32) -> i32 {
    if x < 0 { return -1 } else if x == 0 { return 0 } else if x < 10 { return 1 } else { return 2 }
}
export func collatz(n0: i32) -> i32 {
    let mut n: i32 = n0
    let mut steps: i32 = 0
    while n != 1 {
        if n % 2 == 0 { n = n / 2 } else { n = 3 * n + 1 }
        steps = steps + 1
    }
    return steps
}
func bump(p: *mut i32) -> i32 {
    p[0] = p[0] + 1
    return p[0]
}
export func foreach_once(c: *mut i32) -> i32 {
    let mut s: i32 = 0
    foreach (i in 0..bump(c) + 4) { s = s + i }
    return s
}
export func foreach_range(a: i32, b: i32) -> i32 {
    let mut s: i32 = 0
    foreach (i in a..b) { s = s * 3 + i }
    return s
}
export func for_step() -> i32 {
    let mut s: i32 = 0
    for i in 1..20 step 4 { s = s + i }
    return s * 100 + i
}
export func for_bound_reevaluated() -> i32 {
    let mut n: i32 = 10
    let mut s: i32 = 0
    for i in 0..n { n = n - 1  s = s + 1 }
    return s
}
export func for_body_assigns_index() -> i32 {
    let mut s: i32 = 0
    for i in 0..10 { i = i + 2  s = s + 1 }
    return s * 100 + i
}
export func unrolled(n: i32) -> i32 {
    let mut a: i32 = 0
    let mut i: i32 = 0
    unroll(4) while i < n { a = a + i * i  i = i + 1 }
    let mut b: i32 = 0
    unroll(2) foreach (j in 0..n) { b = b + 2 * j + 1 }
    let mut c: i32 = 0
    unroll(3) for k in 0..n step 3 { c = c + k }
    return a * 1000000 + b * 1000 + c
}
export func find(p: *i32, n: i32, v: i32) -> i32 {
    foreach (i in 0..n) {
        if p[i] == v { return i }
    }
    return -1
}
export func fall_i32(x: i32) -> i32 { if x > 0 { return 7 } }
export func fall_f64(x: i32) -> f64 { if x > 0 { return 2.5 } }
export func fall_bool(x: i32) -> bool { if x > 0 { return true } }
export func after_return(x: i32) -> i32 {
    return x + 1
    let y: i32 = 5
}
"""
    c_main = r"""#include <stdio.h>
#include <stdint.h>
int32_t classify(int32_t); int32_t collatz(int32_t); int32_t foreach_once(int32_t*);
int32_t foreach_range(int32_t, int32_t); int32_t for_step(void); int32_t for_bound_reevaluated(void);
int32_t for_body_assigns_index(void); int32_t unrolled(int32_t); int32_t find(const int32_t*, int32_t, int32_t);
int32_t fall_i32(int32_t); double fall_f64(int32_t); _Bool fall_bool(int32_t); int32_t after_return(int32_t);
int main(void) {
    printf("%d %d %d %d\n", classify(-5), classify(0), classify(5), classify(50));
    printf("%d %d\n", collatz(27), collatz(1));
    int32_t c = 0; int32_t s = foreach_once(&c); printf("%d %d\n", s, c);
    printf("%d %d %d\n", foreach_range(-3, 2), foreach_range(4, 4), foreach_range(5, 1));
    printf("%d %d %d\n", for_step(), for_bound_reevaluated(), for_body_assigns_index());
    printf("%d %d %d\n", unrolled(0), unrolled(1), unrolled(13));
    int32_t arr[6] = {4, 8, 15, 16, 23, 42};
    printf("%d %d %d\n", find(arr, 6, 15), find(arr, 6, 42), find(arr, 6, 7));
    printf("%d %d %g %g %d %d\n", fall_i32(1), fall_i32(-1), fall_f64(1), fall_f64(-1), fall_bool(1), fall_bool(0));
    printf("%d\n", after_return(41));
    return 0;
}
"""

    def collatz(n):
        k = 0
        while n != 1:
            n, k = (n // 2 if n % 2 == 0 else 3 * n + 1), k + 1
        return k

    def frange(a, b):
        s = 0
        for i in range(a, b):
            s = s * 3 + i
        return s

    def unrolled(n):
        return (sum(i * i for i in range(n)) * 1000000 + sum(2 * j + 1 for j in range(n)) * 1000
                + sum(range(0, n, 3)))

    # for_step: 1+5+9+13+17 = 45, i = 21 after the loop (i stays visible).
    # for_bound_reevaluated: n shrinks while i grows: 5 iterations.
    # for_body_assigns_index: i = 0, 3, 6, 9 -> 4 iterations, i = 12 afterwards.
    expected = (f"-1 0 1 2\n{collatz(27)} 0\n10 1\n"
                f"{frange(-3, 2)} 0 0\n4521 5 412\n"
                f"{unrolled(0)} {unrolled(1)} {unrolled(13)}\n2 5 -1\n7 0 2.5 0 1 0\n42\n")
    assert run_c(src, c_main, tmp_path) == expected


def test_println_every_type_in_main_executable(tmp_path):
    """`func main()` without a return type, linked with `-o`: exit status 0;
    println formats of §6 (`%d`, `%u`, `%ld`, `%lu`, `%g`, `%s`)."""
    src = """
func main() {
    let a: i8 = -5
    let b: u8 = 200
    let c: i16 = -300
    let d: u16 = 65000
    let e: i32 = -7
    let f: u32 = 0xFFFFFFFF
    let g: i64 = -9000000000
    let h: u64 = -1
    let x: f32 = 0.1
    let y: f64 = 1234567.0
    let v: u8x16 = splat(b)
    let w: i32x4 = [1, -2, 3, -4]i32x4
    println(a) println(b) println(c) println(d) println(e) println(f) println(g) println(h)
    println(x) println(y) println(-0.5) println(to_f32(1) / 3.0) println(0.0001)
    println("hello, world")
    println(v[3]) println(w[1]) println(42)
}
"""
    (tmp_path / "k.ea").write_text(src)
    proc = ea("k.ea", "-o", "prog", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=30)
    third = float(np.float32(1) / np.float32(3))
    expected = ["-5", "200", "-300", "65000", "-7", "4294967295", "-9000000000", str(2**64 - 1),
                "%g" % float(np.float32(0.1)), "%g" % 1234567.0, "-0.5", "%g" % third, "0.0001",
                "hello, world", "200", "-2", "42"]
    assert (run.returncode, run.stdout) == (0, "\n".join(expected) + "\n")


def test_main_with_return_type_sets_exit_status(tmp_path):
    (tmp_path / "k.ea").write_text("func main() -> i32 {\n    println(1)\n    return 3\n}\n")
    proc = ea("k.ea", "-o", "prog", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=30)
    assert (run.returncode, run.stdout) == (3, "1\n")


def test_object_links_without_libc_calls(tmp_path):
    """A kernel without println must not need anything from libc: the object's
    undefined symbols are empty (loop idioms are not turned into memset)."""
    src = """
export func zero(p: *mut i32, n: i32) { foreach (i in 0..n) { p[i] = 0 } }
export func copy(d: *mut u8, s: *u8, n: i32) { foreach (i in 0..n) { d[i] = s[i] } }
"""
    obj = compile_ea(src, tmp_path)
    nm = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True)
    assert nm.returncode == 0 and nm.stdout.strip() == ""
