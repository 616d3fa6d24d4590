"""`stream_store`: the main loop's stores through a pointer it stores whole
vectors to become non-temporal; tails and remainder loops keep plain stores."""
from __future__ import annotations

from pathlib import Path

from .rewrite_check import assert_same_results, not_applicable, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
FMA = (ROOT / "examples" / "fma.ea").read_text()
NORMALIZE = (ROOT / "examples" / "normalize_u8.ea").read_text()
FRAME_RMS = (ROOT / "examples" / "frame_rms.ea").read_text()

# Vector stores and a scalar i32 store to the same output in the main loop.
COUNTS = """\
// out[i] = x[i] + 1, and every fourth element again as a marker
export func bump(x: *i32, out: *mut i32, n: i32) {
    let one: i32x4 = splat(1)
    let mut i: i32 = 0
    while i + 8 <= n {
        store(out, i, load(x, i) .+ one)      // first half
        store(out, i + 4, load(x, i + 4) .+ one)
        out[i] = x[i] + 1
        i = i + 8
    }
    while i < n {
        out[i] = x[i] + 1
        i = i + 1
    }
}
"""

COUNTS_OUT = COUNTS.replace("        store(out, i, load", "        stream_store(out, i, load") \
    .replace("        store(out, i + 4", "        stream_store(out, i + 4") \
    .replace("        out[i] = x[i] + 1\n        i = i + 8",
             "        stream_store(out, i, x[i] + 1)\n        i = i + 8")


def test_golden_kernel():
    site, rw = rewrite(FMA, "stream_store", "out")
    assert rw.text == FMA.replace("    store(out, i, fma", "    stream_store(out, i, fma")
    assert (site.ident, site.line, site.choices) == ("stream_store:fma_kernel:0", 2, ("out",))
    assert rw.title == "Use non-temporal stores (stream_store) for out"


def test_golden_two_stores_per_step():
    _, rw = rewrite(NORMALIZE, "stream_store", "out")
    assert rw.text == NORMALIZE.replace("    store(out, i", "    stream_store(out, i")


def test_golden_while_loop_with_a_scalar_store_of_an_integer():
    _, rw = rewrite(COUNTS, "stream_store", "out")
    assert rw.text == COUNTS_OUT  # the remainder loop's store stays plain


def test_not_applicable_for_a_scalar_store_stream_store_does_not_take():
    src = COUNTS.replace("i32", "f32").replace("splat(1)", "splat(1.0)").replace("x[i] + 1", "x[i] + 1.0") \
        .replace("let mut i: f32 = 0", "let mut i: i32 = 0").replace("n: f32", "n: i32")
    assert sites(src, "stream_store")[1] != []
    assert not_applicable(src, "stream_store", "out") == (
        "the scalar store at line 8 cannot be non-temporal: stream_store expects a vector or a typed "
        "i16, u16, i32, u32, i64 or u64 value, got f32")


def test_no_site_without_vector_stores_in_a_main_loop():
    assert sites(FRAME_RMS, "stream_store")[1] == []  # scalar stores only
    tail_only = "export func f(out: *mut f32, n: i32) {\n    let mut i: i32 = 0\n    while i < n {\n" \
                "        store(out, i, splat(1.0))\n        i = i + 1\n    }\n}\n"
    assert sites(tail_only, "stream_store")[1] == []  # a step-1 loop is not a main loop


def test_equal_results(tmp_path):
    _, rw = rewrite(FMA, "stream_store", "out")
    assert_same_results(tmp_path, FMA, rw.text, "fma_kernel", 8)
    _, rw = rewrite(NORMALIZE, "stream_store", "out")
    assert_same_results(tmp_path, NORMALIZE, rw.text, "normalize", 16)
    _, rw = rewrite(COUNTS, "stream_store", "out")
    assert_same_results(tmp_path, COUNTS, rw.text, "bump", 8)


SPLIT = """\
export kernel split(x: *f32, lo: *mut f32, hi: *mut f32)
    over i in n step 4
    tail scalar { lo[i] = x[i] hi[i] = x[i] }
{
    let v: f32x4 = load(x, i)
    store(lo, i, min(v, splat(0.0)))
    store(hi, i, max(v, splat(0.0)))
}
"""


def test_two_outputs_one_site_and_a_subset():
    (site,) = sites(SPLIT, "stream_store")[1]
    assert site.choices == ("lo, hi",)
    _, rw = rewrite(SPLIT, "stream_store", "lo, hi")
    assert rw.title == "Use non-temporal stores (stream_store) for lo, hi"
    assert rw.text == SPLIT.replace("    store(", "    stream_store(")
    _, rw = rewrite(SPLIT, "stream_store", "hi")
    assert rw.text == SPLIT.replace("    store(hi", "    stream_store(hi")
    assert not_applicable(SPLIT, "stream_store", "x") == "split's main loops store no vectors through x"
