"""Panels started on a cache line of the right-hand array
(compiler/tune/transforms/panel_lines.py): the choices and the text, results
equal bit for bit to the original without fma and within rounding with it,
wherever B starts in a line and at every edge of the tiles, and refusals."""
from __future__ import annotations

import numpy as np
import pytest

from .rewrite_support import load_pair, random_f32, rewrite, sites
from .test_tile import EDGES, RECT, RESTRICTED

OFFSETS = (0, 4, 16, 32, 48, 60)  # B's first byte past a 64-byte line (NumPy: 0, 16, 32, 48)


def placed(values: np.ndarray, offset: int) -> np.ndarray:
    """`values` copied into an array starting `offset` bytes past a 64-byte line."""
    raw = np.zeros(values.size + 32, np.float32)
    start = ((-raw.ctypes.data % 64) + offset) // 4
    out = raw[start:start + values.size]
    out[:] = values
    assert out.size == 0 or out.ctypes.data % 64 == offset
    return out


def run_rect(k, m, q, p, offset):
    a, bias = random_f32(m * q, m + 1), random_f32(max(p, 1), p + 3)
    b = placed(random_f32(q * p, q + 2), offset)
    c = np.full(max(m * p, 1), np.nan, np.float32)
    k.mm(a, b, bias, c, m=m, q=q, p=p)
    return c


def run_square(k, n, offset):
    a, b = random_f32(n * n, n), placed(random_f32(n * n, n + 1), offset)
    c = np.full(max(n * n, 1), np.nan, np.float32)
    k.matmul(a, b, c, n=n)
    return c


def test_each_panel_shape_with_each_block_size_or_none():
    [site] = sites(RESTRICTED, "lines")
    [panels] = sites(RESTRICTED, "panels")
    assert site.choices == tuple((*c, kc) for c in panels.choices for kc in (0, 64, 128, 256))
    assert rewrite(RESTRICTED, "lines", "matmul", (6, 2, 8, True, 0)).title == \
        "Cache-block: panels of 16 columns from the right-hand array's first cache line, register tiles 6×2 with fma"
    assert rewrite(RESTRICTED, "lines", "matmul", (4, 2, 8, False, 128)).title == ("Cache-block: panels of 16 "
        "columns from the right-hand array's first cache line, k in blocks of 128, register tiles 4×2")


def test_the_panels_start_where_b_meets_a_line():
    text = rewrite(RESTRICTED, "lines", "matmul", (6, 2, 8, True, 0)).text
    assert """\
    let mut j: i32 = 0
    let j_line: i32 = min(align_offset(b, 64) / 4 * 4, n)
    while j + 8 <= j_line {
        let mut i_1: i32 = i_0
        while i_1 < i_6 {
""" in text
    assert "    while j + 4 <= j_line {\n" in text
    assert "    while j + 16 <= n {\n" in text
    assert text.index("while j + 16 <= n {") < text.index("    while j + 8 <= n {\n") < \
        text.index("    while j + 4 <= n {\n")  # the columns after the last panel, before the scalar loop


@pytest.mark.parametrize("choice", [(4, 2, 8, False, 0), (6, 2, 8, False, 64)])
def test_equal_to_the_original_bit_for_bit(tmp_path, choice):
    k0, k1 = load_pair(tmp_path, RECT, rewrite(RECT, "lines", "mm", choice).text)
    for offset in OFFSETS:
        for m, q, p in EDGES + ((7, 64, 17), (6, 65, 40), (13, 129, 45)):
            assert np.array_equal(run_rect(k0, m, q, p, offset), run_rect(k1, m, q, p, offset), equal_nan=True), \
                (offset, m, q, p)


@pytest.mark.parametrize("kc", [0, 64])
def test_with_fma_within_rounding_of_the_original(tmp_path, kc):
    """With fma the tiles round once per term (the columns left to the original loop do not, as with
    `panels`, so the two differ in the columns the start moves to the edges)."""
    k0, k1 = load_pair(tmp_path, RESTRICTED, rewrite(RESTRICTED, "lines", "matmul", (6, 2, 8, True, kc)).text)
    for offset in OFFSETS:
        for n in (0, 1, 7, 12, 16, 17, 28, 63, 65, 130):
            want, got = run_square(k0, n, offset), run_square(k1, n, offset)
            assert np.allclose(got, want, rtol=1e-5, atol=1e-3 * max(n, 1), equal_nan=True), (offset, n)


def test_refused_where_the_columns_do_not_start_at_0_or_nothing_is_read_along_j_alone():
    assert not sites(RECT.replace("let mut j: i32 = 0", "let mut j: i32 = 1"), "lines")
    assert sites(RECT.replace("let mut j: i32 = 0", "let mut j: i32 = 1"), "panels")
    row_only = RECT.replace("b[kk * p + j]", "b[i * p + j + kk]")  # B read along j and i: no panel start fits
    assert sites(row_only, "panels") and not sites(row_only, "lines")
