"""Index limits (compiler/outputs/bounds/limits.py): a call that would make
an index wrap around its integer type is refused before it runs, by
`ea.load`'s fast entry points and by the generated binding behind them. The
extents alone let such a call through: with a long enough array `m * n`
passed the length check, the kernel's i32 index wrapped negative, and the
process died with SIGSEGV. Array sizes here are virtual: NumPy's zeros of
4 GiB are pages that nothing touches."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.bind.meta import BindError, parse_api
from ea_compiler.outputs.bounds import Poly, program_bounds
from ea_compiler.outputs.bounds.limits import IndexLimit, needed, poly_max
from ea_compiler.outputs.metadata import metadata_text

LASTCOL = """\
export func lastcol(a: *u8, m: i32, n: i32) -> i32 {
    let mut s: i32 = 0
    let mut i: i32 = 0
    while i < m {
        if n > 0 {
            s = s + to_i32(a[i * n + n - 1])
        }
        i = i + 1
    }
    return s
}
"""
I32 = 2**31 - 1


def limits(src: str) -> dict[str, dict[str, list[str]]]:
    a = analyze(src.encode(), "k.ea", Options(target_cpu="znver3"))
    assert a.errors == [], [d.message for d in a.errors]
    return {name: {p: [lim.text() for lim in found] for p, found in b.index_limits.items()}
            for name, b in program_bounds(a.desugared, a.decisions).items()}


def test_each_value_an_index_is_computed_from_gets_its_types_limit():
    assert limits(LASTCOL) == {"lastcol": {"a": [f"m * n <= {I32} (i32)", f"m * n - n <= {I32} (i32)"]}}


def test_a_local_holding_earlier_arithmetic_is_limited_too():
    src = """export func rows(a: *f32, out: *mut f32, m: i32, n: i32) {
    for i in 0..m {
        let row: i32 = i * n
        for j in 0..n { out[row + j] = a[row + j] }
    }
}
"""
    assert limits(src) == {"rows": {"a": [f"m * n - 1 <= {I32} (i32)", f"m * n - n <= {I32} (i32)"],
                                    "out": [f"m * n - 1 <= {I32} (i32)", f"m * n - n <= {I32} (i32)"]}}


def test_limits_the_parameters_types_keep_are_not_checked():
    src = """export func plain(a: *f32, n: i32) -> f32 {
    let mut t: f32 = 0.0
    for i in 0..n { t = t + a[i] }
    return t
}

export func wide(a: *f32, m: i32, n: i32) -> f32 {
    let mut t: f32 = 0.0
    for i in 0..m { for j in 0..n { t = t + a[to_i64(i) * to_i64(n) + to_i64(j)] } }
    return t
}

export func twice(a: *f32, n: i32) -> f32 {
    let mut t: f32 = 0.0
    for i in 0..n { t = t + a[2 * i + 1] }
    return t
}
"""
    # `a[i]` stays below the i32 n; i64 arithmetic on i32 values cannot wrap; 2i + 1 can
    assert limits(src) == {"plain": {}, "wide": {}, "twice": {"a": [f"2 * n - 1 <= {I32} (i32)"]}}


def test_poly_max_and_needed():
    ranges = {"m": (-2**31, I32), "n": (-2**31, I32), "k": (0, 255)}
    assert poly_max(Poly.name("n"), ranges) == I32
    assert poly_max(Poly.name("m") * Poly.name("n"), ranges) == 2**62
    assert poly_max(Poly.name("k") - Poly.const(1), ranges) == 254
    assert poly_max(Poly.name("x"), ranges) is None
    n1 = IndexLimit(Poly.name("n") - Poly.const(1), I32, "i32")
    mn = IndexLimit(Poly.name("m") * Poly.name("n"), I32, "i32")
    mn1 = IndexLimit(Poly.name("m") * Poly.name("n") - Poly.const(1), I32, "i32")
    assert needed([n1, mn1, mn, mn], ranges) == [mn]  # n - 1 fits; m * n - 1 is below m * n


def test_metadata_carries_the_limits_and_the_binding_reads_them():
    a = analyze(LASTCOL.encode(), "k.ea", Options(target_cpu="znver3"))
    text = metadata_text("k.so", a.desugared, a.decisions)
    assert ('"index_limits": {"a": [{"index": [[1, "m", "n"]], "max": 2147483647, "type": "i32"}, '
            '{"index": [[1, "m", "n"], [-1, "n"]], "max": 2147483647, "type": "i32"}]}') in text
    (export,) = parse_api(text, "k").exports
    assert [lim.text() for lim in export.index_limits["a"]] == [f"m * n <= {I32} (i32)", f"m * n - n <= {I32} (i32)"]
    assert export.length_notes()[-1] == (f"Index range checked before the call: m * n <= {I32} (i32) for a, "
                                         f"m * n - n <= {I32} (i32) for a")
    with pytest.raises(BindError, match='"index_limits": an index limit is'):
        parse_api(text.replace('"max": 2147483647', '"max": "big"', 1), "k")


CALLS = """
import numpy as np, ea
k = ea.load(KERNEL)
a = np.zeros(2**32 + 64, np.uint8)  # 4 GiB that no page of is touched
for call in (k.lastcol, k.lastcol.__self__.binding):  # the fast entry point, the binding behind it
    for m, n in ((65536, 65536), (32768, 65536)):
        try:
            call(a, m, n=n)
            print("ran", m, n)
        except ValueError as err:
            print(err)
    print(call(a, 3, n=4))
"""


def test_a_call_that_would_wrap_is_refused_not_run(tmp_path):
    (tmp_path / "k.ea").write_text(LASTCOL)
    proc = subprocess.run([sys.executable, "-c", CALLS.replace("KERNEL", repr(str(tmp_path / "k.ea")))],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])  # -11 (SIGSEGV) before the limits
    wrap = "is past the largest i32 (2147483647): an index of a is computed from it and would wrap around"
    assert proc.stdout.splitlines() == [f"a: m * n = 4294967296 {wrap}", f"a: m * n = 2147483648 {wrap}", "0"] * 2
