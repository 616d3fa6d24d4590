"""The unroll transformation (compiler/tune/transforms/unroll.py): exact
output, clean checks, untouched lines, refusals with their reasons, and
equal results through `ea.load` at the edge lengths."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.analysis import analyze

from .rewrite_support import (changed_lines, load_pair, lengths, random_f32, random_i32, rewrite, rewrite_each,
                              sites, variant)

ROOT = Path(__file__).resolve().parents[2]
REDUCTIONS = (ROOT / "examples" / "reductions.ea").read_text()
SAXPY = (ROOT / "examples" / "saxpy.ea").read_text()

DOT = """\
// One accumulator fed by fma: every step waits for the previous one.
export func dot(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        acc = fma(load_f32x8(a, i), load_f32x8(b, i), acc)
        i = i + 8
    }
    let mut total: f32 = reduce_add(acc)
    while i < n {
        total = fma(a[i], b[i], total)
        i = i + 1
    }
    return total
}
"""

ISUM = """\
export func isum(x: *restrict i32, n: i32) -> i32 {
    let mut acc: i32x8 = splat(0)
    let mut i: i32 = 0
    while i + 8 <= n {
        acc = load(x, i) .+ acc
        i = i + 8
    }
    let mut total: i32 = reduce_add(acc)
    while i < n {
        total = total + x[i]
        i = i + 1
    }
    return total
}
"""

SCALAR_SUM = """\
export func ssum(x: *f32, n: i32) -> f32 {
    let mut s: f32 = 0.0
    let mut i: i32 = 0
    while i + 1 <= n {
        s = s + x[i] * x[i]
        i = i + 1
    }
    return s
}
"""

ELEMENTWISE = """\
export func scale_add(x: *restrict f32, y: *restrict mut f32, a: f32, n: i32) {
    let va: f32x8 = splat(a)
    let mut i: i32 = 0
    while i + 8 <= n {
        let vx: f32x8 = load_f32x8(x, i)
        store(y, i, vx .* va .+ load(y, i))
        i = i + 8
    }
    while i < n {
        y[i] = a * x[i] + y[i]
        i = i + 1
    }
}
"""

LAYOUT = """\
// a header comment that must survive
export func f(x: *restrict f32, n: i32) -> f32 {
\tlet mut best: f32x8 = splat(x[0])   // tab-indented
\tlet mut i: i32 = 0
\twhile i + 8 <= n {   // main loop
\t\t// the max of eight lanes
\t\tbest = max(best, load_f32x8(x, i))  // trailing

\t\ti = i + 8
\t}  // end of the loop
\treturn reduce_max(best)   // lanes
}
"""


def _insertion(before: str, after: str) -> str:
    """The one block of lines inserted (and nothing else changed)."""
    changes = changed_lines(before, after)
    assert [kind for kind, _, _ in changes] == ["insert"], changes
    return "".join(changes[0][2])


# ---- exact output -------------------------------------------------------------

def test_max_f32_x4_exact():
    rw = rewrite(REDUCTIONS, "unroll", "max_f32", 4)
    assert rw.title == "Unroll \u00d74 with 4 accumulators"
    assert _insertion(REDUCTIONS, rw.text) == """\
    let mut best_1: f32x8 = best
    let mut best_2: f32x8 = best
    let mut best_3: f32x8 = best
    while i + 4 * LANES <= n {
        best = max(best, load_f32x8(x, i))
        best_1 = max(best_1, load_f32x8(x, i + LANES))
        best_2 = max(best_2, load_f32x8(x, i + 2 * LANES))
        best_3 = max(best_3, load_f32x8(x, i + 3 * LANES))
        i = i + 4 * LANES
    }
    best = max(max(best, best_1), max(best_2, best_3))
"""
    # inserted right above the original loop, which stays as the remainder loop
    assert "best = max(max(best, best_1), max(best_2, best_3))\n    while i + LANES <= n {\n" \
        "        best = max(best, load_f32x8(x, i))\n        i = i + LANES\n    }\n" in rw.text
    assert analyze(rw.text, "t.ea").ok


def test_sum_f32_two_accumulators_x2_exact():
    rw = rewrite(REDUCTIONS, "unroll", "sum_f32", 2)
    assert rw.title == "Unroll \u00d72 with 4 accumulators"
    assert _insertion(REDUCTIONS, rw.text) == """\
    let mut acc0_1: f32x8 = splat(0.0)
    let mut acc1_1: f32x8 = splat(0.0)
    while i + 4 * LANES <= n {
        acc0 = acc0 .+ load(x, i)
        acc1 = acc1 .+ load(x, i + LANES)
        acc0_1 = acc0_1 .+ load(x, i + 2 * LANES)
        acc1_1 = acc1_1 .+ load(x, i + 3 * LANES)
        i = i + 4 * LANES
    }
    acc0 = acc0 .+ acc0_1
    acc1 = acc1 .+ acc1_1
"""


def test_fma_accumulator_literal_step_x8_exact():
    rw = rewrite(DOT, "unroll", "dot", 8)
    block = _insertion(DOT, rw.text)
    assert block.splitlines()[:8] == [f"    let mut acc_{j}: f32x8 = splat(0.0)" for j in range(1, 8)] + \
        ["    while i + 64 <= n {"]
    assert "        acc_3 = fma(load_f32x8(a, i + 24), load_f32x8(b, i + 24), acc_3)\n" in block
    assert block.endswith("        i = i + 64\n    }\n"
                          "    acc = ((acc .+ acc_1) .+ (acc_2 .+ acc_3)) .+ ((acc_4 .+ acc_5) .+ (acc_6 .+ acc_7))\n")


def test_a_rewrite_carries_the_analysis_of_its_text():
    rw = rewrite(DOT, "unroll", "dot", 4)
    assert rw.text != DOT
    assert rw.analysis.ok and rw.analysis.source.data.decode() == rw.text
    assert rw.analysis.options == analyze(DOT, "t.ea").options


def test_integer_and_scalar_accumulators_start_at_the_identity():
    block = _insertion(ISUM, rewrite(ISUM, "unroll", "isum", 2).text)
    assert block == """\
    let mut acc_1: i32x8 = splat(0)
    while i + 16 <= n {
        acc = load(x, i) .+ acc
        acc_1 = load(x, i + 8) .+ acc_1
        i = i + 16
    }
    acc = acc .+ acc_1
"""
    block = _insertion(SCALAR_SUM, rewrite(SCALAR_SUM, "unroll", "ssum", 4).text)
    assert block.startswith("    let mut s_1: f32 = 0.0\n")
    assert "        s_3 = s_3 + x[i + 3] * x[i + 3]\n" in block
    assert block.endswith("    s = (s + s_1) + (s_2 + s_3)\n")


STRICT = """\
export func ssum_lt(x: *f32, n: i32) -> f32 {
    let mut s: f32 = 0.0
    let mut i: i32 = 0
    while i < n {
        s = s + x[i] * x[i]
        i = i + 1
    }
    return s
}

export func diff_lt(x: *restrict f32, y: *restrict mut f32, n: i32) {
    let mut i: i32 = 0
    while i < n - 1 {
        y[i] = x[i + 1] - x[i]
        i = i + 1
    }
}
"""


def test_a_step_1_loop_written_i_lt_n_is_unrolled():
    rw = rewrite(STRICT, "unroll", "ssum_lt", 4)
    assert rw.title == "Unroll \u00d74 with 4 accumulators"
    assert _insertion(STRICT, rw.text) == """\
    let mut s_1: f32 = 0.0
    let mut s_2: f32 = 0.0
    let mut s_3: f32 = 0.0
    while i + 4 <= n {
        s = s + x[i] * x[i]
        s_1 = s_1 + x[i + 1] * x[i + 1]
        s_2 = s_2 + x[i + 2] * x[i + 2]
        s_3 = s_3 + x[i + 3] * x[i + 3]
        i = i + 4
    }
    s = (s + s_1) + (s_2 + s_3)
"""
    # the original loop stays as written, for the remainder
    assert "    s = (s + s_1) + (s_2 + s_3)\n    while i < n {\n" in rw.text
    rw = rewrite(STRICT, "unroll", "diff_lt", 2)
    assert _insertion(STRICT, rw.text) == """\
    while i + 2 <= n - 1 {
        y[i] = x[i + 1] - x[i]
        y[i + 1] = x[i + 2] - x[i + 1]
        i = i + 2
    }
"""


def test_a_step_1_loop_written_i_lt_n_gives_equal_results(tmp_path):
    after = rewrite_each(rewrite_each(STRICT, "unroll", ["ssum_lt"], 4), "unroll", ["diff_lt"], 8)
    k0, k1 = load_pair(tmp_path, STRICT, after)
    for n in lengths(8) + [2, 3, 5]:
        x = random_f32(n, n)
        assert np.isclose(k1.ssum_lt(x), k0.ssum_lt(x), rtol=1e-5), n
        y0, y1 = np.zeros(n, np.float32), np.zeros(n, np.float32)
        k0.diff_lt(x, y0)
        k1.diff_lt(x, y1)
        assert np.array_equal(y0, y1), n


def test_elementwise_loop_renames_its_locals():
    rw = rewrite(ELEMENTWISE, "unroll", "scale_add", 2)
    assert rw.title == "Unroll \u00d72"
    assert _insertion(ELEMENTWISE, rw.text) == """\
    while i + 16 <= n {
        let vx: f32x8 = load_f32x8(x, i)
        store(y, i, vx .* va .+ load(y, i))
        let vx_1: f32x8 = load_f32x8(x, i + 8)
        store(y, i + 8, vx_1 .* va .+ load(y, i + 8))
        i = i + 16
    }
"""


def test_kernel_with_scalar_tail_x4_exact():
    rw = rewrite(SAXPY, "unroll", "saxpy", 4)
    assert rw.title == "Unroll \u00d74"
    changes = changed_lines(SAXPY, rw.text)
    assert [kind for kind, _, _ in changes] == ["replace", "insert"]
    assert changes[0][1:] == (["    over i in n step 8\n"], ["    over i in n step 32\n"])
    assert "".join(changes[1][2]) == """\
    let va_1: f32x8 = splat(a)
    store(y, i + 8, fma(va_1, load(x, i + 8), load(y, i + 8)))
    let va_2: f32x8 = splat(a)
    store(y, i + 16, fma(va_2, load(x, i + 16), load(y, i + 16)))
    let va_3: f32x8 = splat(a)
    store(y, i + 24, fma(va_3, load(x, i + 24), load(y, i + 24)))
"""


def test_comments_and_layout_outside_the_inserted_lines_stay():
    rw = rewrite(LAYOUT, "unroll", "f", 2)
    # copy 0 is the body as written (its comment and blank line too); the copy drops them
    assert _insertion(LAYOUT, rw.text) == (
        "\tlet mut best_1: f32x8 = best\n"
        "\twhile i + 16 <= n {\n"
        "\t\t// the max of eight lanes\n"
        "\t\tbest = max(best, load_f32x8(x, i))  // trailing\n"
        "\n"
        "\t\tbest_1 = max(best_1, load_f32x8(x, i + 8))\n"
        "\t\ti = i + 16\n"
        "\t}\n"
        "\tbest = max(best, best_1)\n")
    assert analyze(rw.text, "t.ea").ok



def test_a_crlf_file_gets_crlf_lines():
    src = LAYOUT.replace("\n", "\r\n")
    rw = rewrite(src, "unroll", "f", 2)
    assert rw.text.count("\n") == rw.text.count("\r\n") == LAYOUT.count("\n") + 9
    assert rw.text.replace("\r\n", "\n") == rewrite(LAYOUT, "unroll", "f", 2).text
    kernel = rewrite(SAXPY.replace("\n", "\r\n"), "unroll", "saxpy", 2).text
    assert kernel.replace("\r\n", "\n") == rewrite(SAXPY, "unroll", "saxpy", 2).text
    assert "\n" not in kernel.replace("\r\n", "")

def test_fresh_names_avoid_every_existing_name():
    src = REDUCTIONS.replace("let mut m: f32 = reduce_max(best)",
                             "let best_1: i32 = 1\n    let mut m: f32 = reduce_max(best)")
    rw = rewrite(src, "unroll", "max_f32", 2)
    assert "    let mut best_1_2: f32x8 = best\n" in rw.text
    assert "    best = max(best, best_1_2)\n" in rw.text
    assert analyze(rw.text, "t.ea").ok


def test_a_loop_under_an_unroll_hint_keeps_it_on_the_original():
    src = variant("unroll(2) while i + 8 <= n {\n        acc = acc .+ load(x, i)\n        i = i + 8\n    }")
    rw = rewrite(src, "unroll", "f", 2)
    assert _insertion(src, rw.text) == """\
    let mut acc_1: f32x8 = splat(0.0)
    while i + 16 <= n {
        acc = acc .+ load(x, i)
        acc_1 = acc_1 .+ load(x, i + 8)
        i = i + 16
    }
    acc = acc .+ acc_1
"""
    assert "    acc = acc .+ acc_1\n    unroll(2) while i + 8 <= n {\n" in rw.text


MATMUL = """\
// Naive ijk matrix product of n x n matrices; the k loop keeps one scalar sum.
export func matmul(a: *restrict f32, b: *restrict f32, c: *restrict mut f32, dim: i32) {
    let n: i32 = dim
    let mut i: i32 = 0
    while i < n {
        let mut j: i32 = 0
        while j < n {
            let mut s: f32 = 0.0
            let mut k: i32 = 0
            while k + 1 <= n {
                s = s + a[i * n + k] * b[k * n + j]
                k = k + 1
            }
            c[i * n + j] = s
            j = j + 1
        }
        i = i + 1
    }
}
"""


def test_an_inner_loop_is_unrolled_in_place():
    rw = rewrite(MATMUL, "unroll", "matmul", 4)
    block = _insertion(MATMUL, rw.text)
    assert block.startswith("            let mut s_1: f32 = 0.0\n")
    assert "                s_2 = s_2 + a[i * n + k + 2] * b[(k + 2) * n + j]\n" in block
    assert block.endswith("            s = (s + s_1) + (s_2 + s_3)\n")

# ---- sites and hints ------------------------------------------------------------

def test_sites_hints_and_choices():
    found = sites(REDUCTIONS, "unroll")
    assert [(s.function, s.index, s.line, s.hint, s.choices) for s in found] == [
        ("sum_f32", 0, 11, "one-accumulator", (2, 4, 8)),
        ("max_f32", 0, 26, "one-accumulator", (2, 4, 8)),
        ("min_f32", 0, 40, "one-accumulator", (2, 4, 8))]
    assert [s.hint for s in sites(ELEMENTWISE, "unroll")] == [None]
    assert sites(REDUCTIONS, "unroll", "max_f32")[0].ident == "unroll:max_f32:0"


def test_a_small_step_kernel_answers_small_step():
    src = """\
export kernel add1(x: *restrict f32, y: *restrict mut f32)
    over i in n step 1
    tail scalar { y[i] = x[i] + 1.0 }
{
    y[i] = x[i] + 1.0
}
"""
    [site] = sites(src, "unroll")
    assert (site.hint, site.line) == ("small-step", 2)
    assert "    over i in n step 4\n" in rewrite(src, "unroll", "add1", 4).text


def test_the_unrolled_file_can_be_unrolled_again_elsewhere():
    text = rewrite_each(REDUCTIONS, "unroll", ["sum_f32", "max_f32", "min_f32"], 4)
    assert analyze(text, "t.ea").ok
    assert text.count("while i + 4 * LANES <= n {") == 2


# ---- equal results ------------------------------------------------------------------

def test_reductions_give_equal_results(tmp_path):
    after = rewrite_each(REDUCTIONS, "unroll", ["sum_f32", "max_f32", "min_f32"], 4)
    k0, k1 = load_pair(tmp_path, REDUCTIONS, after)
    for n in lengths(16):
        x = random_f32(n, n)
        assert np.isclose(k1.sum_f32(x), k0.sum_f32(x), rtol=1e-5, atol=1e-3), n
        if n:
            assert k1.max_f32(x) == k0.max_f32(x) == x.max(), n
            assert k1.min_f32(x) == k0.min_f32(x) == x.min(), n


@pytest.mark.parametrize("factor", [2, 8])
def test_max_at_other_factors_gives_equal_results(tmp_path, factor):
    k0, k1 = load_pair(tmp_path, REDUCTIONS, rewrite(REDUCTIONS, "unroll", "max_f32", factor).text)
    for n in lengths(8, zero=False) + [8 * factor - 1, 8 * factor, 8 * factor + 1]:
        x = random_f32(n, n + 7)
        assert k1.max_f32(x) == k0.max_f32(x) == x.max(), n


def test_dot_and_integer_and_scalar_sums_give_equal_results(tmp_path):
    before = DOT + ISUM + SCALAR_SUM
    after = rewrite_each(before, "unroll", ["dot"], 4)
    after = rewrite_each(after, "unroll", ["isum"], 4)
    after = rewrite_each(after, "unroll", ["ssum"], 4)
    k0, k1 = load_pair(tmp_path, before, after)
    for n in lengths(8):
        a, b, ints = random_f32(n, n), random_f32(n, n + 1), random_i32(n, n)
        assert np.isclose(k1.dot(a, b), k0.dot(a, b), rtol=1e-5, atol=1e-2), n
        assert k1.isum(ints) == k0.isum(ints) == int(ints.sum()), n
        assert np.isclose(k1.ssum(a), k0.ssum(a), rtol=1e-5), n


def test_elementwise_loop_and_kernel_give_equal_results(tmp_path):
    before = ELEMENTWISE + SAXPY
    after = rewrite_each(rewrite_each(before, "unroll", ["scale_add"], 4), "unroll", ["saxpy"], 8)
    k0, k1 = load_pair(tmp_path, before, after)
    for n in lengths(8) + [63, 64, 65]:
        x, y = random_f32(n, n), random_f32(n, n + 1)
        y0, y1 = y.copy(), y.copy()
        k0.scale_add(x, y0, 1.5)
        k1.scale_add(x, y1, 1.5)
        assert np.array_equal(y0, y1), n
        y0, y1 = y.copy(), y.copy()
        k0.saxpy(x, y0, -0.5)
        k1.saxpy(x, y1, -0.5)
        assert np.array_equal(y0, y1), n


def test_matmul_inner_unroll_gives_equal_results(tmp_path):
    k0, k1 = load_pair(tmp_path, MATMUL, rewrite(MATMUL, "unroll", "matmul", 4).text)
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 33):
        a, b = random_f32(n * n, n).reshape(n, n), random_f32(n * n, n + 1).reshape(n, n)
        c0, c1 = np.zeros(n * n, np.float32), np.zeros(n * n, np.float32)
        k0.matmul(a.ravel(), b.ravel(), c0, n)
        k1.matmul(a.ravel(), b.ravel(), c1, n)
        np.testing.assert_allclose(c1, c0, rtol=1e-5, atol=1e-3, err_msg=str(n))
        np.testing.assert_allclose(c1.reshape(n, n), a @ b, rtol=1e-4, atol=1e-3, err_msg=str(n))
