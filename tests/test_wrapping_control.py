"""The arithmetic that decides which elements a loop reaches must stay in its
type too (compiler/outputs/bounds/wraps.py), not only an index's own: a
counter's last step, a guard's comparison, a value computed before the guard
that tests it, a kernel loop's `i + S <= n`. Each passed the bindings' checks
and then read or wrote before the array (SIGSEGV), with an array no longer
than 2 GiB of u8 or with none at all. Array sizes here are virtual: NumPy's
zeros are pages nothing touches."""
from __future__ import annotations

import subprocess
import sys

from ea_compiler import Options, analyze
from ea_compiler.outputs.bounds import program_bounds

KERNELS = """\
export func every_other(x: *u8, n: i32) -> i32 {
    let mut s: i32 = 0
    let mut i: i32 = 0
    while i < n {
        s = s + to_i32(x[i])
        i = i + 2
    }
    return s
}

export func shifted(x: *u8, m: i32, k: i32, n: i32) -> i32 {
    let mut s: i32 = 0
    for i in 0..m {
        if i + k < n {
            if k >= 0 { s = s + to_i32(x[i + k]) }
        }
    }
    return s
}

export func held(x: *u8, m: i32, k: i32, n: i32) -> i32 {
    let mut s: i32 = 0
    for i in 0..m {
        let t: i32 = i + k
        if t < n {
            if t >= 0 { s = s + to_i32(x[t]) }
        }
    }
    return s
}

export func inner(x: *u8, out: *mut u8, n: i32) {
    let mut i: i32 = 1
    while i < n - 1 {
        out[i] = x[i - 1] + x[i + 1]
        i = i + 1
    }
}

export func last(x: *u8, n: i32) -> i32 {
    if n - 1 >= 0 { return to_i32(x[n - 1]) }
    return 0
}

export kernel twice(x: *u8, out: *mut u8) over i in n step 32 tail scalar {
    out[i] = x[i] + x[i]
} {
    let v: u8x32 = load_u8x32(x, i)
    store(out, i, v .+ v)
}

export func after(x: *mut u8, n: i32) {
    let mut i: i32 = 0
    while i + 4 <= n {
        x[i] = 1
        i = i + 4
    }
    if i + 2 <= n {
        x[i + 1] = 2
    }
}
"""
I32, LEAST = 2**31 - 1, -(2**31)


def bounds(src: str) -> dict:
    a = analyze(src.encode(), "k.ea", Options(target_cpu="znver3"))
    assert a.errors == [], [d.message for d in a.errors]
    return {name: ({p: e.text() for p, e in b.extents.items()}, b.unchecked,
                   sorted({lim.text() for found in b.index_limits.values() for lim in found}))
            for name, b in program_bounds(a.desugared, a.decisions).items()}


def test_the_arithmetic_a_loop_reaches_its_elements_by_gets_limits():
    assert bounds(KERNELS) == {
        # i = i + 2 after i = n - 1 makes n + 1
        "every_other": ({"x": "n"}, {}, [f"n + 1 <= {I32} (i32)"]),
        # the guard's own i + k, with i up to m - 1, before the guard narrows it
        "shifted": ({"x": "n"}, {}, [f"k + m - 1 <= {I32} (i32)"]),
        # t is i + k where it was computed, not the t < n the guard makes of it
        "held": ({"x": "n"}, {}, [f"k + m - 1 <= {I32} (i32)"]),
        # n - 1 at i32's smallest n is its largest: a limit below
        "inner": ({"x": "n", "out": "n - 1"}, {}, [f"n - 1 >= {LEAST} (i32)"]),
        # judged by what was known before the guard, not by the n >= 1 it teaches
        "last": ({"x": "n"}, {}, [f"n - 1 >= {LEAST} (i32)"]),
        # the kernel loop's i + 32 <= n, with i up to n (its last step's value)
        "twice": ({"x": "n", "out": "n"}, {}, [f"n + 32 <= {I32} (i32)"]),
        # after the loop i is 0 or up to n: its i + 2 needs n + 2, which n + 4 (the loop's) covers
        "after": ({"x": "n"}, {}, [f"n + 4 <= {I32} (i32)"]),
    }


def test_a_counter_whose_steps_are_not_bounded_leaves_its_pointer_unchecked():
    """`j` counts hits: nothing bounds it, so a step past i32 may make it negative, and `j < m`
    then holds: out is unchecked, where it was claimed checked (as m)."""
    src = """export func compact(x: *i32, out: *mut i32, n: i32, m: i32) {
    let mut j: i32 = 0
    for i in 0..n {
        if x[i] > 0 {
            if j < m { out[j] = x[i] }
            j = j + 1
        }
    }
}
"""
    wraps = "its index is computed from a value that may wrap around its integer type"
    assert bounds(src) == {"compact": ({"x": "n"}, {"out": wraps}, [])}


CALLS = """
import numpy as np, ea
k = ea.load(KERNEL)
big = np.zeros(2**31 - 1, np.uint8)  # 2 GiB that no page of is touched
one, none = np.zeros(1, np.uint8), np.zeros(0, np.uint8)
for fast in (True, False):  # the fast entry point, the binding behind it
    f = (lambda name: getattr(k, name)) if fast else (lambda name: getattr(k, name).__self__.binding)
    for name, args, n in (("every_other", (big,), 2**31 - 1), ("shifted", (one, 2, 2**31 - 1), 1),
                          ("held", (one, 2, 2**31 - 1), 1), ("inner", (none, none), -2**31),
                          ("last", (none,), -2**31),
                          ("twice", (big, big), 2**31 - 4), ("every_other", (big,), 5)):
        try:
            print(name, f(name)(*args, n=n))  # n: else the length of the first array
        except ValueError as err:
            print(name, err)
"""


def test_such_calls_are_refused_not_run(tmp_path):
    (tmp_path / "k.ea").write_text(KERNELS)
    proc = subprocess.run([sys.executable, "-c", CALLS.replace("KERNEL", repr(str(tmp_path / "k.ea")))],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])  # -11 (SIGSEGV) before wraps.py
    past, below = f"is past the largest i32 ({I32})", f"is below the smallest i32 ({LEAST})"
    then = "an index of {} is computed from it and would wrap around"
    assert proc.stdout.splitlines() == [
        f"every_other x: n + 1 = 2147483648 {past}: {then.format('x')}",
        f"shifted x: k + m - 1 = 2147483648 {past}: {then.format('x')}",
        f"held x: k + m - 1 = 2147483648 {past}: {then.format('x')}",
        f"inner x: n - 1 = -2147483649 {below}: {then.format('x')}",
        f"last x: n - 1 = -2147483649 {below}: {then.format('x')}",
        f"twice x: n + 32 = 2147483676 {past}: {then.format('x')}",
        "every_other 0",
    ] * 2
