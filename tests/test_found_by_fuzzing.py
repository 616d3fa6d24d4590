"""Defects a seeded mutation fuzzer found (mutants of every kernel in the
tree, through analysis, codegen for three targets, inspect and the
bindings), each pinned by its reproducer: a traceback, an "internal"
diagnostic, or memory and time growing with a number the user wrote."""
from __future__ import annotations

import resource
import subprocess
import sys
import textwrap

from ea_compiler import Options, analyze
from ea_compiler.codegen import generate

X86 = Options(target_cpu="znver3")
ARM_FP16 = Options(target_triple="aarch64-unknown-linux-gnu", target_cpu="neoverse-n1", fp16=True)


def messages(src: str, options: Options = X86) -> list[str]:
    a = analyze(src, "k.ea", options)
    return [f"{d.severity}[{d.kind}] {d.span.line}:{d.span.col}: {d.message}" if d.span else d.message
            for d in a.diagnostics]


def test_an_f16_literal_past_its_range_is_infinity_as_an_f32_one_is():
    """`return 70000.0` from an f16 function: llvmlite could not print the half constant, and
    `ea` printed a Python traceback. It is infinity now, as 1e51 is in an f32."""
    src = "export func g() -> f16 {\n    return 70000.0\n}\n"
    a = analyze(src, "k.ea", X86)
    assert a.errors == []
    assert "ret half 0xH7C00" in str(generate(a).module)
    vec = "export func v(out: *mut f16) {\n    let v: f16x8 = splat(-70000.0)\n    store(out, 0, v)\n}\n"
    a = analyze(vec, "k.ea", ARM_FP16)
    assert a.errors == [] and generate(a).object()


def test_a_float_literal_its_type_cannot_hold_is_named():
    """It becomes infinity, silently until now; a literal that rounds to the largest value does not."""
    src = ("export func g() -> f16 {\n    return 70000.0\n}\n"
           "export func h(x: f32) -> f32 {\n    let big: f32 = 500000000000000000000000000000000000000000.0\n"
           "    return x * big\n}\n"
           "export func fits() -> f16 {\n    return 65519.0\n}\n")
    assert messages(src) == [
        "warning[type] 2:12: 70000.0 is past the largest f16 (65504): it is infinity",
        "warning[type] 5:20: 500000000000000000000000000000000000000000.0 is past the largest f32 (3.4028235e38): "
        "it is infinity"]
    a = analyze(src, "k.ea", X86)
    assert [d.span.end - d.span.start for d in a.diagnostics] == [7, 44]  # the whole literal


def test_bitwise_constants_do_not_compute_the_shifts_too():
    """`5 & -1` evaluated `5 << -1` as well (a ValueError: an internal error in the editor on
    every keystroke); `1 | 9223372036854775807` shifted by 2^63 (a MemoryError)."""
    assert messages('static_assert((5 & -1) == 5, "m")\nstatic_assert((1 | 9223372036854775807) > 0, "m")\n') == []


def test_a_constant_too_large_for_a_float_is_an_error_with_its_span():
    big = " * ".join(["9223372036854775807"] * 17)
    assert messages(f'static_assert(1.0 + {big} > 0.0, "m")\n') == [
        "error[type] 1:15: constant expression out of range"]


def test_a_step_past_i32_is_refused():
    src = ("export kernel k(x: *f32, o: *mut f32)\n    over i in n step 2147483648\n{\n"
           "    store(o, i, load_f32x8(x, i))\n}\n")
    assert messages(src)[0] == "error[parse] 2:22: step must be at most 2147483647: the loop variable is an i32"


def test_a_store_index_with_a_huge_coefficient_is_linted_without_listing_its_elements():
    """The coverage lint listed every element of `coefficient x step` (8 * 10^9 here) in memory."""
    src = ("export kernel k(x: *f32, o: *mut f32)\n    over i in n step 8\n{\n"
           "    store(o, i * 1000000000, load_f32x8(x, i))\n}\n")
    assert "warning[type] 4:5: this store writes 8 lanes (f32x8) at (i * 1000000000), but each step covers " \
           "8000000000 elements of 'o' (1000000000 per step of 8): elements (i * 1000000000) + 8..(i * " \
           "1000000000) + 7999999999 are never written" in messages(src)


BIG_STEP = """
import sys
from ea_compiler import Options, analyze
from ea_compiler.codegen import generate
src = '''export kernel k(x: *f32, o: *mut f32)
    over i in n step 1073741824
    tail scalar { o[i] = x[i] }
{
    stream_store(o, i, load_f32x8(x, i))
}
'''
a = analyze(src, "k.ea", Options(target_cpu="znver3"))
print(len(a.errors), len(generate(a).object()) > 0)
"""


def test_a_tail_matched_against_a_huge_step_takes_no_memory_for_it():
    """Matching the scalar tail to the body for a streaming store built a list of `step`
    integers: `step 2^30` took tens of GB (and minutes). Here under a 2 GiB address-space limit."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(BIG_STEP)], capture_output=True, text=True,
                          timeout=120, preexec_fn=limit)
    assert (done.returncode, done.stdout) == (0, "0 True\n"), done.stderr[-2000:]


MASKED = """export func mconst(x: *f32, out: *mut f32, n: i32) {
    let v: f32x8 = load_masked(x, 0, -1)
    out[0] = reduce_add(v)
}
export func mtail(x: *f32, out: *mut f32, n: i32, m: i32) {
    for i in 0..m step 8 {
        let v: f32x8 = load_masked(x, i, n - i)
        store_masked(out, i, v, n - i)
    }
}
export func tail(x: *f32, out: *mut f32, n: i32) {
    for i in 0..n step 8 {
        let v: f32x8 = load_masked(x, i, n - i)
        store_masked(out, i, v, n - i)
    }
}
"""
MASKED_CALLS = """
import numpy as np, ea
from ea_compiler.tune.guard import guarded
k = ea.load(KERNEL)
for call in (lambda: k.mconst(guarded(np.ones(1, np.float32)), guarded(np.zeros(1, np.float32)), n=0),
             lambda: k.mtail(guarded(np.ones(4, np.float32)), guarded(np.zeros(4, np.float32)), 16, n=4)):
    try:
        call()
        print("ran")
    except ValueError as err:
        print(err)
x = guarded(np.ones(11, np.float32)); out = guarded(np.zeros(11, np.float32))
k.tail(x, out)
print(out.sum())
"""


def test_a_negative_mask_count_enables_every_lane_and_the_extent_says_so(tmp_path):
    """`load_masked`'s count is compared unsigned (INTRINSICS.md §11): -1, or `n - i` past n,
    loads all eight lanes. The bounds took a negative count for none (mconst: `x` needed 0) and
    `n - i` for the lanes left (mtail: `x` needed n whatever m), and the calls read past `x`
    (SIGSEGV at the guard page). A count provably >= 0 (`tail`, i < n) keeps the tight extent."""
    (tmp_path / "k.ea").write_text(MASKED)
    done = subprocess.run([sys.executable, "-c", MASKED_CALLS.replace("KERNEL", repr(str(tmp_path / "k.ea")))],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.splitlines() == ["x: needs at least 8 elements, got 1",
                                        "x: needs at least 23 elements (m + 7), got 4", "11.0"]


WRAPPING = """export func uwidx(x: *f32, out: *mut f32, n: u32) {
    let mut i: u32 = 0
    while i < n {
        out[0] = x[to_i64(i - 1) + 1]
        i = i + 1
    }
}
export func swrap(x: *f32, out: *mut f32, n: i32, m: i32) {
    for i in 0..n {
        out[i] = x[to_i64(i - m - m) + to_i64(m) + to_i64(m)]
    }
}
export func ucond(x: *f32, out: *mut f32, n: u32, k: u32) {
    let mut i: u32 = 0
    while i < n {
        if i - k >= 0 {
            out[i] = x[i - k]
        }
        i = i + 1
    }
}
"""


def test_an_index_computed_through_a_value_that_wraps_below_its_type_is_not_claimed_checked():
    """The proof took `i - 1` (u32, i = 0) as -1, so `x[to_i64(i - 1) + 1]` as x[0]: it reads
    x[2^32] (SIGSEGV with a checked length), and `i - k >= 0` in u32 always holds, so it says
    nothing of i and k. Such a pointer is unchecked, with the reason, like a lookup table's: no
    check is claimed that the code does not keep. `i - m - m` in i32 wraps below for large m: it
    was unchecked too, and has limits now, a lower one among them."""
    from ea_compiler.outputs.bounds import program_bounds
    a = analyze(WRAPPING, "k.ea", X86)
    found = {name: ({p: e.text() for p, e in b.extents.items()}, b.unchecked)
             for name, b in program_bounds(a.desugared, a.decisions).items()}
    wraps = "its index is computed from a value that may wrap around its integer type"
    assert found == {"uwidx": ({"out": "1"}, {"x": wraps}), "swrap": ({"out": "n", "x": "n"}, {}),
                     "ucond": ({"out": "n"}, {"x": "its index may be negative"})}
    # i - m - m is checked now (wraps.py): a limit each way, refused at the binding
    limits = {lim.text() for lim in program_bounds(a.desugared, a.decisions)["swrap"].index_limits["x"]}
    assert limits == {"-2 * m + n - 1 <= 2147483647 (i32)", "-m + n - 1 <= 2147483647 (i32)",
                      "-2 * m >= -2147483648 (i32)"}


def test_a_literal_is_the_value_its_type_holds():
    """`let i: i8 = 200` is -56 in the machine code; the proof took 200 (x needed 201 elements,
    and the call read x[-56]). `K + K` for an i8 K of 100 always wraps."""
    from ea_compiler.outputs.bounds import program_bounds
    src = """const K: i8 = 100
export func cadd(x: *f32, out: *mut f32) {
    out[0] = x[K + K]
}
export func lit_let(x: *f32, out: *mut f32) {
    let i: i8 = 200
    out[0] = x[i]
}
export func fits(x: *f32, out: *mut f32) {
    let i: i8 = 100
    out[0] = x[i]
}
"""
    a = analyze(src, "k.ea", X86)
    found = {name: ({p: e.text() for p, e in b.extents.items()}, b.unchecked)
             for name, b in program_bounds(a.desugared, a.decisions).items()}
    assert found == {
        "cadd": ({"out": "1"}, {"x": "its index is computed from a value that may wrap around its integer type"}),
        "lit_let": ({"out": "1"}, {"x": "its index may be negative"}),
        "fits": ({"x": "101", "out": "1"}, {})}


def test_a_cache_entry_does_not_outlive_the_compiler_that_made_it(tmp_path, monkeypatch):
    """The version string stayed 0.1.0 while the bounds analysis changed, so `ea.load` kept
    serving entries whose metadata lacked the new checks. The key now covers the compiler's files."""
    from ea_compiler import loader
    (tmp_path / "k.ea").write_text("export func f(x: *f32, n: i32) -> f32 {\n    return x[0]\n}\n")
    first = loader._entry(tmp_path / "k.ea", X86)[0]
    assert loader._entry(tmp_path / "k.ea", X86)[0] == first
    monkeypatch.setattr(loader, "compiler_fingerprint", lambda: b"another compiler")
    assert loader._entry(tmp_path / "k.ea", X86)[0] != first


LENGTH_CALLS = """
import numpy as np, ea
from ea_compiler.tune.guard import guarded
k = ea.load(KERNEL)
x = np.zeros(2**32 + 1, np.uint8)  # 4 GiB, virtual: only x[0] would be read
for call in (k.f, k.f.__self__.binding):
    try:
        call(x, guarded(np.zeros(0, np.uint8)), 100)
        print("ran")
    except ValueError as err:
        print(err)
"""


def test_a_length_filled_from_an_array_past_its_type_is_refused(tmp_path):
    """`n` filled from `x.size` (2^32 + 1) was checked as such, then passed as an i32 (1): the
    kernel wrote y[0..99) into an empty array. The Rust and C++ wrappers cut it short the same way."""
    (tmp_path / "k.ea").write_text("export func f(x: *u8, n: i32, y: *mut u8, k: i32) {\n    if k >= n {\n"
                                   "        for i in 0..k - n {\n            y[i] = x[0]\n        }\n    }\n}\n")
    done = subprocess.run([sys.executable, "-c", LENGTH_CALLS.replace("KERNEL", repr(str(tmp_path / "k.ea")))],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.splitlines() == [
        "x: 4294967297 elements do not fit the kernel's length argument (at most 2147483647)"] * 2


def test_a_loop_bounded_by_a_narrow_length_loads(tmp_path):
    """A splittable loop bounded by a u8 `n` got a "parallel" plan the bindings refuse (their
    lengths are 32 or 64 bits): `ea.load` raised BindError for the whole file."""
    from ea_compiler import load
    (tmp_path / "k.ea").write_text("export func f(x: *f32, out: *mut f32, n: u8) {\n    let mut i: u8 = 0\n"
                                   "    while i < n {\n        out[i] = x[i] * 2.0\n        i = i + 1\n    }\n}\n")
    import numpy as np
    x, out = np.ones(5, np.float32), np.zeros(5, np.float32)
    load(tmp_path / "k.ea").f(x, out, 5)
    assert out.tolist() == [2.0] * 5
