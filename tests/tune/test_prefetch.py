"""`prefetch`: one `prefetch(p, I + D)` per loaded pointer at the top of a
main loop, D = the chosen distance in bytes over the element size."""
from __future__ import annotations

from pathlib import Path

from .rewrite_check import assert_same_results, not_applicable, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
SAXPY = (ROOT / "examples" / "saxpy.ea").read_text()
REDUCTIONS = (ROOT / "examples" / "reductions.ea").read_text()
FRAME_RMS = (ROOT / "examples" / "frame_rms.ea").read_text()

SAXPY_OUT = SAXPY.replace("""{
    let va""", """{
    prefetch(x, i + 256)
    prefetch(y, i + 256)
    let va""")

SCALE_F64 = """\
// out = k * x in doubles; a scalar loop finishes the rest
export func scale(x: *f64, out: *mut f64, k: f64, n: i32) {
    let vk: f64x4 = splat(k)
    let mut i: i32 = 0
    while i + 4 <= n { store(out, i, load(x, i) .* vk)  i = i + 4 }  // one line
    while i < n {
        out[i] = x[i] * k
        i = i + 1
    }
}
"""

BYTES = """\
export kernel bump(px: *u8, out: *mut u8)
    over i in n step 16
    tail scalar { out[i] = px[i] }
{
    // the loop body starts with a comment
    let v: u8x16 = load(px, i + 16 - 16)
    store(out, i, v)
}
"""


def test_golden_kernel():
    site, rw = rewrite(SAXPY, "prefetch", 1024)
    assert rw.text == SAXPY_OUT
    assert (site.ident, site.line, site.choices, site.hint) == \
        ("prefetch:saxpy:0", 2, (256, 512, 1024, 2048), "memory-bound")
    assert rw.title == "Prefetch 1024 bytes ahead"


def test_golden_while_loop_with_const_offsets():
    site, rw = rewrite(REDUCTIONS, "prefetch", 512, "sum_f32")
    assert rw.text == REDUCTIONS.replace("""    while i + 2 * LANES <= n {
""", """    while i + 2 * LANES <= n {
        prefetch(x, i + 128)
""")
    assert site.line == 11
    # one site per function with a main loop; the remainder loops are not main loops
    assert [s.ident for s in sites(REDUCTIONS, "prefetch")[1]] == \
        ["prefetch:sum_f32:0", "prefetch:max_f32:0", "prefetch:min_f32:0"]


def test_golden_one_line_body_and_element_size():
    _, rw = rewrite(SCALE_F64, "prefetch", 256)
    assert rw.text == SCALE_F64.replace("{ store(out", "{ prefetch(x, i + 32) store(out")
    _, rw = rewrite(BYTES, "prefetch", 2048)
    assert rw.text == BYTES.replace("    // the loop body", "    prefetch(px, i + 2048)\n    // the loop body")


def test_golden_index_expression_kept():
    _, rw = rewrite(FRAME_RMS, "prefetch", 512)
    assert rw.text == FRAME_RMS.replace("{\n    let v", "{\n    prefetch(x, f * 8 + 128)\n    let v")


def test_not_applicable_when_the_loop_already_prefetches():
    _, rw = rewrite(SAXPY, "prefetch", 512)
    assert not_applicable(rw.text, "prefetch", 256) == "the loop at line 2 already prefetches (line 6)"


def test_not_applicable_when_the_index_changes_in_the_loop():
    src = """\
export kernel shifted(x: *f32, out: *mut f32, w: i32)
    over i in n step 8
    tail pad
{
    let k: i32 = i + w
    store(out, i, load_f32x8(x, k))
}
"""
    assert not_applicable(src, "prefetch", 512) == \
        "no load in the loop at line 1 is indexed by i and names the loop does not change"


def test_no_site_for_loops_without_loads_or_step_one_loops():
    fill = "export kernel fill(out: *mut f32, v: f32)\n    over i in n step 8\n    tail pad\n{\n" \
           "    store(out, i, splat(v))\n}\n"
    scalar = "export func total(x: *f32, n: i32) -> f32 {\n    let mut s: f32 = 0.0\n    let mut i: i32 = 0\n" \
             "    while i < n {\n        s = s + x[i]\n        i = i + 1\n    }\n    return s\n}\n"
    assert sites(fill, "prefetch")[1] == []
    assert sites(scalar, "prefetch")[1] == []


def test_equal_results(tmp_path):
    for src, func, step, choice, scalars in [(SAXPY, "saxpy", 8, 2048, {"a": 0.5}),
                                              (SCALE_F64, "scale", 4, 256, {"k": -1.25}),
                                              (BYTES, "bump", 16, 1024, {})]:
        _, rw = rewrite(src, "prefetch", choice)
        assert_same_results(tmp_path, src, rw.text, func, step, scalars)
    _, rw = rewrite(REDUCTIONS, "prefetch", 512, "max_f32")
    assert_same_results(tmp_path, REDUCTIONS, rw.text, "max_f32", 8, lengths=[1, 7, 8, 9, 1000, 1003])


def test_crlf_file_stays_crlf():
    src = SAXPY.replace("\n", "\r\n")
    _, rw = rewrite(src, "prefetch", 1024)
    assert rw.text == SAXPY_OUT.replace("\n", "\r\n")
