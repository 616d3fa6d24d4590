"""The fma transformation (compiler/tune/transforms/fma.py): exact output,
clean checks, untouched lines, refusals with their reasons, and equal
results through `ea.load` at the edge lengths."""
from __future__ import annotations

import numpy as np
import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune.transforms import MODULES, NotApplicable, Site

from .rewrite_support import changed_lines, lengths, load_pair, random_f32, rewrite, rewrite_each, sites

MULADD = """\
// Both forms of a multiply-add: c + a*b in the body, a*b + c in the tail.
export kernel muladd(a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32)
    over i in n step 8
    tail scalar { out[i] = a[i] * b[i] + c[i] }   // scalar tail
{
    let va: f32x8 = load(a, i)
    let vb: f32x8 = load(b, i)
    store(out, i, load_f32x8(c, i) .+ va .* vb)   // c + a*b
}
"""

SCALARS = """\
export func axpb(x: *restrict f32, y: *restrict mut f32, a: f32, b: f32, n: i32) {
    let mut i: i32 = 0
    while i < n {
        y[i] = a * x[i] + b
        i = i + 1
    }
}

export func poly(x: *restrict f64, y: *restrict mut f64, n: i32) {
    let mut i: i32 = 0
    while i < n {
        let t: f64 = x[i]
        y[i] = 0.5 + t * (1.5 + t * 2.5)   // Horner
        i = i + 1
    }
}
"""

DOT = """\
export func dot(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        acc = acc .+ load(a, i) .* load(b, i)
        i = i + 8
    }
    let mut total: f32 = reduce_add(acc)
    while i < n {
        total = total + a[i] * b[i]
        i = i + 1
    }
    return total
}
"""


def _one_line_changed(before: str, after: str) -> tuple[str, str]:
    changes = changed_lines(before, after)
    assert len(changes) == 1 and changes[0][0] == "replace", changes
    (old,), (new,) = changes[0][1], changes[0][2]
    return old, new


# ---- exact output -------------------------------------------------------------

def test_vector_and_tail_sites_exact():
    found = sites(MULADD, "fma")
    assert [(s.function, s.index, s.line, s.hint, s.choices) for s in found] == [
        ("muladd", 0, 4, "mul-add", (True,)), ("muladd", 1, 8, "mul-add", (True,))]
    rw = rewrite(MULADD, "fma", "muladd", True, index=1)
    assert rw.title == "Use fma(va, vb, load_f32x8(c, i))"
    assert _one_line_changed(MULADD, rw.text) == (
        "    store(out, i, load_f32x8(c, i) .+ va .* vb)   // c + a*b\n",
        "    store(out, i, fma(va, vb, load_f32x8(c, i)))   // c + a*b\n")
    rw = rewrite(MULADD, "fma", "muladd", True, index=0)
    assert rw.title == "Use fma(a[i], b[i], c[i])"
    assert _one_line_changed(MULADD, rw.text) == (
        "    tail scalar { out[i] = a[i] * b[i] + c[i] }   // scalar tail\n",
        "    tail scalar { out[i] = fma(a[i], b[i], c[i]) }   // scalar tail\n")
    assert analyze(rw.text, "t.ea").ok


def test_nested_scalar_sites_and_parentheses():
    found = sites(SCALARS, "fma", "poly")
    assert [(s.index, s.line) for s in found] == [(0, 13), (1, 13)]
    once = rewrite(SCALARS, "fma", "poly", True)
    assert once.title == "Use fma(t, 1.5 + t * 2.5, 0.5)"
    twice = rewrite(once.text, "fma", "poly", True)  # the inner site, now the only one
    assert _one_line_changed(SCALARS, twice.text) == (
        "        y[i] = 0.5 + t * (1.5 + t * 2.5)   // Horner\n",
        "        y[i] = fma(t, fma(t, 2.5, 1.5), 0.5)   // Horner\n")
    assert _one_line_changed(SCALARS, rewrite(SCALARS, "fma", "axpb", True).text) == (
        "        y[i] = a * x[i] + b\n", "        y[i] = fma(a, x[i], b)\n")


def test_a_long_call_gets_a_short_title():
    src = DOT.replace("acc .+ load(a, i) .* load(b, i)", "acc .+ load_f32x8(a, i + 0) .* load_f32x8(b, i + 0)")
    rw = rewrite(src, "fma", "dot", True)
    assert rw.title == "Use fma(a, b, c)"
    assert "        acc = fma(load_f32x8(a, i + 0), load_f32x8(b, i + 0), acc)\n" in rw.text


def test_the_fused_accumulator_is_then_unrolled():
    fused = rewrite(DOT, "fma", "dot", True).text
    assert "        acc = fma(load(a, i), load(b, i), acc)\n" in fused
    unrolled = rewrite(fused, "unroll", "dot", 2)
    assert unrolled.title == "Unroll \u00d72 with 2 accumulators"
    assert "        acc_1 = fma(load(a, i + 8), load(b, i + 8), acc_1)\n" in unrolled.text
    assert "    acc = acc .+ acc_1\n" in unrolled.text


# ---- not applicable ---------------------------------------------------------------

def _reason(src: str, function: str, marker: str, choice=True) -> str:
    a = analyze(src, "t.ea")
    assert a.ok, a.errors
    start = src.index(marker)
    site = Site("fma", function, 0, src[:start].count("\n") + 1, start, start + len(marker), (True,))
    assert all((s.start, s.end) != (site.start, site.end) for s in sites(src, "fma", function))
    with pytest.raises(NotApplicable) as err:
        MODULES["fma"].edits(a, site, choice)
    return str(err.value)


def _func(body: str, params: str = "x: f32, n: i32") -> str:
    return f"export func f({params}) {{\n    {body}\n    println(1)\n}}\n"


@pytest.mark.parametrize("src, marker, reason", [
    (_func("let k: i32 = n * 2 + n"), "n * 2 + n", "fma takes f32, f64 or float vectors, not i32"),
    (_func("let v: i32x8 = splat(n) .* splat(2) .+ splat(n)"), "splat(n) .* splat(2) .+ splat(n)",
     "fma takes float vectors, not i32x8"),
    (_func("let q: f64 = 2.0 * 3.0 + 1.0"), "2.0 * 3.0 + 1.0",
     "fma of three literals would be f32 where the expression is f64"),
    (_func("let q: f32 = x * x - 1.0"), "x * x - 1.0", "no multiply-add at line 2 of 'f'"),
])
def test_expressions_fma_cannot_take_say_why(src, marker, reason):
    assert _reason(src, "f", marker) == reason


def test_bad_choices_and_broken_files():
    a = analyze(SCALARS, "t.ea")
    site = sites(SCALARS, "fma", "axpb")[0]
    for bad in (False, 1, "yes"):
        with pytest.raises(NotApplicable, match="fma has one choice, True"):
            MODULES["fma"].edits(a, site, bad)
    assert sites(SCALARS + "\nexport func broken() -> i32 { return 1.0 }\n", "fma") == []


# ---- equal results ------------------------------------------------------------------

def test_vector_and_tail_give_equal_results(tmp_path):
    after = rewrite(rewrite(MULADD, "fma", "muladd", True, index=1).text, "fma", "muladd", True).text
    assert "fma(" in after and " .* " not in after and " * " not in after.split("\n", 1)[1]
    k0, k1 = load_pair(tmp_path, MULADD, after)
    for n in lengths(8):
        a, b, c = random_f32(n, n), random_f32(n, n + 1), random_f32(n, n + 2)
        o0, o1 = np.zeros(n, np.float32), np.zeros(n, np.float32)
        k0.muladd(a, b, c, o0)
        k1.muladd(a, b, c, o1)
        np.testing.assert_allclose(o1, o0, rtol=1e-5, atol=1e-4, err_msg=str(n))
        np.testing.assert_allclose(o1, a * b + c, rtol=1e-5, atol=1e-4, err_msg=str(n))


def test_scalars_and_dot_give_equal_results(tmp_path):
    before = SCALARS + DOT
    after = rewrite_each(before, "fma", ["axpb", "poly", "poly", "dot", "dot"], True)
    assert after.count("fma(") == 5
    k0, k1 = load_pair(tmp_path, before, after)
    for n in lengths(8):
        x, y = random_f32(n, n), random_f32(n, n + 1)
        y0, y1 = y.copy(), y.copy()
        k0.axpb(x, y0, 1.25, -3.0)
        k1.axpb(x, y1, 1.25, -3.0)
        np.testing.assert_allclose(y1, y0, rtol=1e-5, atol=1e-4, err_msg=str(n))
        x64 = x.astype(np.float64)
        p0, p1 = np.zeros(n), np.zeros(n)
        k0.poly(x64, p0)
        k1.poly(x64, p1)
        np.testing.assert_allclose(p1, p0, rtol=1e-12, err_msg=str(n))
        np.testing.assert_allclose(p1, 0.5 + x64 * (1.5 + x64 * 2.5), rtol=1e-12, err_msg=str(n))
        assert np.isclose(k1.dot(x, y), k0.dot(x, y), rtol=1e-5, atol=1e-2), n
