"""k blocks inside the column panels (compiler/tune/transforms/kblock.py): exact
output, the choices, results equal bit for bit to the original without fma and to
`panels` with fma (the partial sums go through c exactly), at every edge: fewer k
than a block, a block and one, no k at all, rows and columns left over."""
from __future__ import annotations

import numpy as np
import pytest

from .rewrite_support import load_pair, rewrite, sites
from .test_tile import EDGES, RECT, RESTRICTED, _run_rect, _run_square


def test_kblock_offers_each_panel_shape_with_each_block_size():
    [site] = sites(RESTRICTED, "kblock")
    [panels] = sites(RESTRICTED, "panels")
    assert site.choices == tuple((*c, kc) for c in panels.choices for kc in (64, 128, 256))
    rw = rewrite(RESTRICTED, "kblock", "matmul", (6, 2, 8, True, 128))
    assert rw.title == "Cache-block: panels of 16 columns, k in blocks of 128, register tiles 6×2 with fma"


def test_kblock_runs_the_row_tiles_of_a_panel_through_one_block_of_k_at_a_time():
    text = rewrite(RESTRICTED, "kblock", "matmul", (6, 2, 8, True, 128)).text
    assert """\
    while j + 16 <= n {
        let mut k_0: i32 = 0
        let mut k_first: bool = true
        while k_first || k_0 < n {
            let mut k_128: i32 = k_0 + 128
            if k_128 > n {
                k_128 = n
            }
            let mut i_1: i32 = i_0
            while i_1 < i_6 {
                let v_0: f32x8 = splat(0.0)
""" in text
    assert """\
                let mut sum_5_1: f32x8 = v_0
                if !k_first {
                    sum_0_0 = load_f32x8(c, i_1 * n + j)
""" in text
    assert """\
                    sum_5_1 = load_f32x8(c, (i_1 + 5) * n + j + 8)
                }
                let mut k: i32 = k_0
                while k < k_128 {
""" in text
    assert """\
                i_1 = i_1 + 1
            }
            k_0 = k_128
            k_first = false
        }
        j = j + 16
    }
""" in text


@pytest.mark.parametrize("choice", [(4, 2, 8, False, 64), (6, 2, 8, False, 128)])
def test_kblock_gives_equal_results_bit_for_bit(tmp_path, choice):
    k0, k1 = load_pair(tmp_path, RECT, rewrite(RECT, "kblock", "mm", choice).text)
    # q around the block: fewer k than a block, one block, a block and one, several
    for m, q, p in EDGES + ((7, 64, 17), (6, 65, 16), (13, 129, 40), (3, 200, 33), (8, 0, 16)):
        assert np.array_equal(_run_rect(k0, m, q, p), _run_rect(k1, m, q, p), equal_nan=True), (m, q, p)


def test_kblock_with_fma_equals_panels_with_fma_bit_for_bit(tmp_path):
    panels = rewrite(RESTRICTED, "panels", "matmul", (6, 2, 8, True)).text
    k0, k1 = load_pair(tmp_path, panels, rewrite(RESTRICTED, "kblock", "matmul", (6, 2, 8, True, 64)).text)
    for n in (0, 1, 7, 16, 17, 63, 64, 65, 130):
        assert np.array_equal(_run_square(k0, n), _run_square(k1, n), equal_nan=True), n


def test_kblock_refuses_what_panels_refuse():
    src = RECT.replace("        let mut j: i32 = 0\n", "        j = 0\n").replace(
        "    let mut i: i32 = 0\n", "    let mut i: i32 = 0\n    let mut j: i32 = 0\n").replace(
        "        i = i + 1\n    }\n", "        i = i + 1\n    }\n    c[0] = to_f32(j)\n")
    assert sites(src, "tile") and not sites(src, "kblock")
