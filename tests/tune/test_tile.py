"""Register tiling and vectorisation of reduction nests
(compiler/tune/transforms/tile.py, tile_shape.py, tile_emit.py, vectorise.py):
exact output, the choices each target's registers allow, refusals with their
reasons, results equal bit for bit (and within rounding with fma) through
`ea.load` at every edge of the tile."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.analysis import analyze
from ea_compiler.options import Options
from ea_compiler.tune.transforms import MODULES, NotApplicable, apply, find_sites, tile

from .rewrite_support import load_pair, random_f32, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "bench" / "tune_nest" / "matmul_naive.ea").read_text()
RESTRICTED = NAIVE.replace("a: *f32, b: *f32, c: *mut f32", "a: *restrict f32, b: *restrict f32, c: *restrict mut f32")

# m x q times q x p, a bias as each sum's start, the update an fma already.
RECT = """\
export func mm(a: *restrict f32, b: *restrict f32, bias: *restrict f32, c: *restrict mut f32, m: i32, q: i32, p: i32) {
    let mut i: i32 = 0
    while i < m {
        let mut j: i32 = 0
        while j < p {
            let mut acc: f32 = bias[j]
            let mut kk: i32 = 0
            while kk < q {
                acc = fma(a[i * q + kk], b[kk * p + j], acc)
                kk = kk + 1
            }
            c[i * p + j] = acc
            j = j + 1
        }
        i = i + 1
    }
}
"""

RECT_TILED = """\
    while i + 2 <= m {
        let mut j: i32 = 0
        while j + 16 <= p {
            let bias_0: f32x8 = load_f32x8(bias, j)
            let bias_1: f32x8 = load_f32x8(bias, j + 8)
            let mut acc_0_0: f32x8 = bias_0
            let mut acc_0_1: f32x8 = bias_1
            let mut acc_1_0: f32x8 = bias_0
            let mut acc_1_1: f32x8 = bias_1
            let mut kk: i32 = 0
            while kk < q {
                let a_0: f32x8 = splat(a[i * q + kk])
                let b_0: f32x8 = load_f32x8(b, kk * p + j)
                let b_1: f32x8 = load_f32x8(b, kk * p + j + 8)
                let a_1: f32x8 = splat(a[(i + 1) * q + kk])
                acc_0_0 = fma(a_0, b_0, acc_0_0)
                acc_0_1 = fma(a_0, b_1, acc_0_1)
                acc_1_0 = fma(a_1, b_0, acc_1_0)
                acc_1_1 = fma(a_1, b_1, acc_1_1)
                kk = kk + 1
            }
            store(c, i * p + j, acc_0_0)
            store(c, i * p + j + 8, acc_0_1)
            store(c, (i + 1) * p + j, acc_1_0)
            store(c, (i + 1) * p + j + 8, acc_1_1)
            j = j + 16
        }
        let j_16: i32 = j
        let mut i_2: i32 = i
        while i_2 < i + 2 {
            j = j_16
            while j < p {
                let mut acc: f32 = bias[j]
                let mut kk: i32 = 0
                while kk < q {
                    acc = fma(a[i_2 * q + kk], b[kk * p + j], acc)
                    kk = kk + 1
                }
                c[i_2 * p + j] = acc
                j = j + 1
            }
            i_2 = i_2 + 1
        }
        i = i + 2
    }
"""


def test_rect_exact_and_the_rows_left_run_the_original_loop():
    [site] = sites(RECT, "tile")
    assert (site.function, site.line, site.rows_var, site.cols_var) == ("mm", 3, "i", "j")
    # the update is an fma already: no separate fused choice
    assert site.choices == tuple((mr, nr, 8, False) for mr, nr in
                                 ((1, 1), (1, 2), (2, 2), (4, 1), (4, 2), (3, 3), (6, 2), (4, 3)))
    rw = rewrite(RECT, "tile", "mm", (2, 2, 8, False))
    assert rw.title == "Register-tile 2×2 vectors of 8 lanes"
    head = RECT.split("    while i < m {")[0]
    assert rw.text == head + RECT_TILED + RECT[len(head):]


def test_the_naive_matmul_tiled_with_fma():
    rw = rewrite(RESTRICTED, "tile", "matmul", (4, 3, 8, True))
    assert rw.title == "Register-tile 4×3 vectors of 8 lanes with fma"
    for line in ("    while i + 4 <= n {\n", "        while j + 24 <= n {\n",
                 "                let b_2: f32x8 = load_f32x8(b, k * n + j + 16)\n",
                 "                let a_3: f32x8 = splat(a[(i + 3) * n + k])\n",
                 "                sum_3_2 = fma(a_3, b_2, sum_3_2)\n",
                 "            store(c, (i + 3) * n + j + 16, sum_3_2)\n"):
        assert line in rw.text, line
    plain = rewrite(RESTRICTED, "tile", "matmul", (4, 3, 8, False)).text
    assert "                sum_3_2 = sum_3_2 .+ (a_3 .* b_2)\n" in plain


def test_vectorise_is_the_one_row_one_vector_tile():
    [site] = sites(RESTRICTED, "vectorise")
    assert site.choices == ((1, 1, 8, False), (1, 1, 8, True))
    rw = rewrite(RESTRICTED, "vectorise", "matmul", (1, 1, 8, False))
    assert rw.title == "Vectorise 'j' by 8 lanes (scalar remainder)"
    assert "    while i < n {\n        let mut j: i32 = 0\n        while j + 8 <= n {\n" in rw.text
    assert "                sum_0_0 = sum_0_0 .+ (a_0 .* b_0)\n" in rw.text
    # the columns left: the original j loop, continuing from j
    assert "            j = j + 8\n        }\n        while j < n {\n            let mut sum: f32 = 0.0\n" in rw.text


@pytest.mark.parametrize("options, width, largest", [
    (Options(target_cpu="znver3"), 8, (4, 3)),
    (Options(target_cpu="skylake-avx512", avx512=True), 16, (6, 4)),
    (Options(target_cpu="generic", target_triple="aarch64-unknown-linux-gnu"), 4, (6, 4)),
])
def test_choices_are_bounded_by_the_target_registers(options, width, largest):
    a = analyze(RESTRICTED, "t.ea", options)
    [site] = find_sites(a, "matmul", only=("tile",))
    shapes = [(mr, nr) for mr, nr, w, _ in site.choices]
    assert {w for _, _, w, _ in site.choices} == {width}
    count = 16 if width == 8 else 32
    assert all(mr * nr + nr + 1 <= count for mr, nr in shapes) and shapes[-1] == largest
    assert analyze(apply(a, site, site.choices[-1]).text, "t.ea", options).ok


# ---- equal results ----------------------------------------------------------------

def _run_rect(k, m, q, p):
    a, b, bias = random_f32(m * q, m + 1), random_f32(q * p, q + 2), random_f32(max(p, 1), p + 3)
    c = np.full(max(m * p, 1), np.nan, np.float32)
    k.mm(a, b, bias, c, m=m, q=q, p=p)
    return c


# every edge: fewer rows than a tile, a tile and one, columns around 8 and 16, no k at all
EDGES = ((0, 3, 3), (1, 1, 1), (2, 5, 0), (3, 0, 17), (2, 4, 16), (3, 7, 17), (5, 9, 33), (6, 2, 15),
         (7, 16, 31), (13, 11, 40))


@pytest.mark.parametrize("choice", [(2, 2, 8, False), (4, 3, 8, False), (1, 1, 8, False), (6, 2, 8, False)])
def test_tiles_give_equal_results_bit_for_bit(tmp_path, choice):
    k0, k1 = load_pair(tmp_path, RECT, rewrite(RECT, "tile", "mm", choice).text)
    for m, q, p in EDGES:
        assert np.array_equal(_run_rect(k0, m, q, p), _run_rect(k1, m, q, p), equal_nan=True), (m, q, p)


def _run_square(k, n):
    a, b = random_f32(n * n, n), random_f32(n * n, n + 1)
    c = np.full(max(n * n, 1), np.nan, np.float32)
    k.matmul(a, b, c, n=n)
    return c


def test_the_naive_matmul_tiled_is_bit_identical_without_fma_and_close_with_it(tmp_path):
    plain = rewrite(RESTRICTED, "tile", "matmul", (4, 2, 8, False)).text
    fused = rewrite(RESTRICTED, "tile", "matmul", (6, 2, 8, True)).text
    k0, k1 = load_pair(tmp_path, RESTRICTED, plain)
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "k.ea").write_text(fused)
    import ea
    k2 = ea.load(str(tmp_path / "f" / "k.ea"))
    for n in (0, 1, 3, 4, 5, 15, 16, 17, 23, 33, 64):
        c0 = _run_square(k0, n)
        assert np.array_equal(c0, _run_square(k1, n), equal_nan=True), n
        np.testing.assert_allclose(_run_square(k2, n), c0, rtol=1e-5, atol=1e-4, err_msg=str(n))


# ---- not applicable ------------------------------------------------------------------

def _why(src: str) -> str:
    a = analyze(src, "t.ea")
    assert a.ok, a.errors
    assert not find_sites(a, only=("tile", "vectorise"))
    item = next(it for it in a.ast.items if getattr(it, "name", None) == "matmul")
    return tile.why_not(a, item)


@pytest.mark.parametrize("old, new, reason", [
    ("a: *restrict f32, b: *restrict f32, c: *restrict mut f32", "a: *f32, b: *f32, c: *mut f32",
     "line 5: 'c' is not a `restrict` pointer parameter: what the loop reads could overlap it"),
    ("b[k * n + j]", "b[j * n + k]", "line 5: 'b' is not read at `... + j` (contiguous along 'j')"),
    ("while j < n", "while j < i", "line 5: a bound or start of the inner loops depends on 'i' "
                                   "(the rows of a tile share them)"),
    ("a[i * n + k] * b[k * n + j]", "a[i * n + k] * to_f32(j)",
     "line 5: the sum's term uses 'j' in a way that has no vector form (only `+ - * /`, `fma` and "
     "contiguous reads)"),
    ("let mut sum: f32 = 0.0", "let mut sum: f32 = 0.0\n            c[0] = 1.0",
     "line 5: the loop body is not `let mut s = ...; let mut k = ...; while k < n { s = s + ...; k = k + 1 }; "
     "x[...] = s; j = j + 1`"),
])
def test_nests_that_cannot_be_tiled_say_why(old, new, reason):
    assert old in RESTRICTED
    why = _why(RESTRICTED.replace(old, new))
    assert why.startswith(reason), why


def test_an_integer_sum_is_refused():
    src = RESTRICTED.replace("f32", "i32").replace("0.0", "0")
    assert _why(src).startswith("line 5: the sum 'sum' is not f32 or f64")


def test_a_choice_not_offered_is_refused():
    a = analyze(RESTRICTED, "t.ea")
    [site] = find_sites(a, "matmul", only=("tile",))
    with pytest.raises(NotApplicable, match=r"tile \(8, 8, 8, False\) is not one of this site's choices"):
        apply(a, site, (8, 8, 8, False))
    assert "tile" in MODULES and "vectorise" in MODULES


# ---- panels: the cache-blocked order -----------------------------------------------------

def test_panels_put_the_column_blocks_outside_the_row_tiles():
    [site] = sites(RESTRICTED, "panels")
    assert site.choices == ((4, 2, 8, False), (4, 2, 8, True), (6, 2, 8, False), (6, 2, 8, True),
                            (4, 3, 8, False), (4, 3, 8, True))
    rw = rewrite(RESTRICTED, "panels", "matmul", (6, 2, 8, True))
    assert rw.title == "Cache-block: panels of 16 columns, register tiles 6×2 with fma"
    assert """\
    let mut i: i32 = 0
    let i_0: i32 = i
    while i + 6 <= n {
        i = i + 6
    }
    let i_6: i32 = i
    while i < n {
        i = i + 1
    }
    let i_3: i32 = i
    let mut j: i32 = 0
    while j + 16 <= n {
        let mut i_1: i32 = i_0
        while i_1 < i_6 {
""" in rw.text
    assert "                let a_5: f32x8 = splat(a[(i_1 + 5) * n + k])\n" in rw.text
    assert "            store(c, (i_1 + 5) * n + j + 8, sum_5_1)\n            i_1 = i_1 + 6\n" in rw.text
    # the rows left: one-row tiles of the same 16 columns, not the scalar loop
    assert """\
        while i_1 < i_3 {
            let v_0_2: f32x8 = splat(0.0)
            let mut sum_0_0_2: f32x8 = v_0_2
            let mut sum_0_1_2: f32x8 = v_0_2
            let mut k: i32 = 0
            while k < n {
                let a_0_2: f32x8 = splat(a[i_1 * n + k])
                let b_0_2: f32x8 = load_f32x8(b, k * n + j)
                let b_1_2: f32x8 = load_f32x8(b, k * n + j + 8)
                sum_0_0_2 = fma(a_0_2, b_0_2, sum_0_0_2)
                sum_0_1_2 = fma(a_0_2, b_1_2, sum_0_1_2)
                k = k + 1
            }
            store(c, i_1 * n + j, sum_0_0_2)
            store(c, i_1 * n + j + 8, sum_0_1_2)
            i_1 = i_1 + 1
        }
        j = j + 16
    }
    let j_16: i32 = j
    let mut i_2: i32 = i_0
    while i_2 < i_3 {
        j = j_16
""" in rw.text
    assert rw.text.endswith("        i_2 = i_2 + 1\n    }\n}\n")  # the original row loop is gone


@pytest.mark.parametrize("choice", [(4, 2, 8, False), (6, 2, 8, False)])
def test_panels_give_equal_results_bit_for_bit(tmp_path, choice):
    k0, k1 = load_pair(tmp_path, RECT, rewrite(RECT, "panels", "mm", choice).text)
    for m, q, p in EDGES + ((0, 4, 40), (4, 3, 0), (11, 5, 33)):
        assert np.array_equal(_run_rect(k0, m, q, p), _run_rect(k1, m, q, p), equal_nan=True), (m, q, p)


def test_panels_refuse_a_column_index_read_after_the_nest():
    src = RECT.replace("        let mut j: i32 = 0\n", "        j = 0\n").replace(
        "    let mut i: i32 = 0\n", "    let mut i: i32 = 0\n    let mut j: i32 = 0\n").replace(
        "        i = i + 1\n    }\n", "        i = i + 1\n    }\n    c[0] = to_f32(j)\n")
    assert analyze(src, "t.ea").ok
    assert sites(src, "tile") and not sites(src, "panels")


def test_panels_with_fma_stay_within_rounding_at_every_count_of_rows_left(tmp_path):
    k0, k1 = load_pair(tmp_path, RESTRICTED, rewrite(RESTRICTED, "panels", "matmul", (6, 2, 8, True)).text)
    for n in (0, 1, 5, 6, 7, 11, 16, 17, 23, 31, 33, 40):  # 0..5 rows left after the 6-row tiles
        np.testing.assert_allclose(_run_square(k1, n), _run_square(k0, n), rtol=1e-5, atol=1e-4, err_msg=str(n))
