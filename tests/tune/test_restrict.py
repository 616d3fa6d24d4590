"""`restrict`: mark the pointer parameters of a function that stores
through one of them `restrict`, with the promise the user must confirm."""
from __future__ import annotations

from pathlib import Path

from .rewrite_check import AXPY, assert_same_results, not_applicable, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
FMA = (ROOT / "examples" / "fma.ea").read_text()


AXPY_OUT = AXPY.replace("x: *f32, y: *mut f32", "x: *restrict f32, y: *restrict mut f32")


def test_golden_while_loop_function():
    site, rw = rewrite(AXPY, "restrict", True)
    assert rw.text == AXPY_OUT
    assert (site.ident, site.line, site.choices) == ("restrict:axpy:0", 2, (True,))
    assert site.note == "restrict promises that x and y never overlap: every caller must pass distinct arrays"
    assert rw.title == "Mark pointers restrict (confirm no overlap)"


def test_golden_kernel_keeps_existing_restrict_and_spacing():
    src = FMA.replace("a: *restrict f32, b: *restrict f32", "a: *f32, b: * f32")
    _, rw = rewrite(src, "restrict", True)
    assert rw.text == FMA
    assert [e.text for e in rw.edits] == ["restrict ", "restrict"]


def test_note_names_every_pointer():
    src = FMA.replace("*restrict mut", "*mut")
    (site,) = sites(src, "restrict")[1]
    assert site.note == ("restrict promises that a, b, c and out never overlap: "
                         "every caller must pass distinct arrays")
    _, rw = rewrite(src, "restrict", True)
    assert rw.text == FMA


def test_no_site_without_a_store_one_pointer_or_all_restrict():
    read_only = "export func dot(a: *f32, b: *f32, n: i32) -> f32 {\n    return a[0] * b[0]\n}\n"
    one = "export func f(y: *mut f32, n: i32) {\n    y[0] = 1.0\n}\n"
    assert sites(read_only, "restrict")[1] == []
    assert sites(one, "restrict")[1] == []
    assert sites(FMA, "restrict")[1] == []


def test_a_call_passing_one_array_twice_refuses():
    src = AXPY + "export func twice(v: *mut f32, n: i32) {\n    axpy(v, v, 2.0, n)\n}\n"
    src = src.replace("x: *f32, y: *mut f32", "x: *mut f32, y: *mut f32")
    reason = not_applicable(src, "restrict", True, "axpy")
    assert reason == "the call at line 15 passes v as two of axpy's pointers"


def test_equal_results(tmp_path):
    _, rw = rewrite(AXPY, "restrict", True)
    assert_same_results(tmp_path, AXPY, rw.text, "axpy", 4, scalars={"a": 1.5})
    src = FMA.replace("*restrict", "*")
    _, rw = rewrite(src, "restrict", True)
    assert_same_results(tmp_path, src, rw.text, "fma_kernel", 8)
