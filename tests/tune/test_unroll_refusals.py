"""The unroll transformation: the loops it refuses, each with its reason (exact output and
equal results are in test_unroll.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune.transforms import MODULES, NotApplicable, Site

from .rewrite_support import sites, variant

ROOT = Path(__file__).resolve().parents[2]
REDUCTIONS = (ROOT / "examples" / "reductions.ea").read_text()
SAXPY = (ROOT / "examples" / "saxpy.ea").read_text()


# ---- not applicable ---------------------------------------------------------------

def _loop_site(src: str, function: str, marker: str = "while") -> Site:
    start = src.index(marker)
    return Site("unroll", function, 0, src[:start].count("\n") + 1, start, start + 1, (2, 4, 8))


def _reason(src: str, function: str, choice=4, marker: str = "while") -> str:
    a = analyze(src, "t.ea")
    assert a.ok, a.errors
    assert sites(src, "unroll", function) == []
    with pytest.raises(NotApplicable) as err:
        MODULES["unroll"].edits(a, _loop_site(src, function, marker), choice)
    return str(err.value)



@pytest.mark.parametrize("src, reason", [
    (variant("while i < n {\n        acc = acc .+ load(x, i)\n        i = i + 8\n    }"),
     "the loop tests `i < n` but advances 'i' by more than 1 (its last step may be partial)"),
    (variant("while i != n {\n        acc = acc .+ splat(x[i])\n        i = i + 1\n    }"),
     "the loop condition is not of the form `i + step <= n` (or `i < n` with step 1)"),
    (variant("while i + 8 <= n {\n        acc = acc .+ load(x, i)\n        if acc[0] > 1.0 {\n"
              "            i = i + 1\n        }\n        i = i + 8\n    }"),
     "the loop body assigns or redeclares 'i' besides advancing it"),
    (variant("while i + s <= n {\n        acc = acc .+ load(x, i)\n        i = i + s\n    }",
              params="x: *restrict f32, s: i32, n: i32"),
     "the step is not a positive constant"),
    (variant("while i + 8 <= n {\n        acc = acc .+ load(x, i)\n        i = i + 4\n    }"),
     "the loop advances 'i' by a different step than its condition tests"),
    (variant("while i + 8 <= n {\n        acc = acc .+ load(x, i)\n        if acc[0] > 1.0 {\n"
              "            return 0.0\n        }\n        i = i + 8\n    }"),
     "the loop body returns"),
    (variant("while i + 8 <= m {\n        acc = acc .+ load(x, i)\n        m = m - 1\n        i = i + 8\n    }",
              before="\n    let mut m: i32 = n"),
     "the loop body changes the loop bound"),
    (variant("while i + 8 <= n - i {\n        acc = acc .+ load(x, i)\n        i = i + 8\n    }"),
     "the loop bound depends on 'i'"),
    (variant("while i + 8 <= n {\n        let v: f32x8 = load(x, i)\n        acc = acc .+ v\n        i = i + 8\n    }",
              after="\n    acc = acc .+ v"),
     "'v', declared in the loop, is used outside it"),
    (variant("while i + 8 <= n {\n        acc = acc .+ load(x, i) i = i + 8\n    }"),
     "the loop is not written one statement per line"),
    (variant("while i + 8 <= n {\n        i = i + 8\n    }"),
     "the loop body does nothing but advance the index"),
    (variant("while i + 8 <= n {\n        let v: f32x8 = load(x, i)\n        acc = acc .+ v\n        i = i + 8\n"
              "    }", before="\n    let mut v: f32x8 = splat(1.0)\n    acc = acc .+ v"),
     "'v', declared in the loop, is used outside it"),
])
def test_loops_that_cannot_be_unrolled_say_why(src, reason):
    assert _reason(src, "f") == reason


def test_an_outer_loop_is_not_unrolled_its_inner_loop_is():
    src = variant("while i + 8 <= n {\n        let mut j: i32 = 0\n        while j < 8 {\n"
                   "            acc = acc .+ splat(x[i + j])\n            j = j + 1\n        }\n"
                   "        i = i + 8\n    }")
    assert [s.line for s in sites(src, "unroll", "f")] == [6]
    a = analyze(src, "t.ea")
    with pytest.raises(NotApplicable) as err:
        MODULES["unroll"].edits(a, _loop_site(src, "f"), 4)
    assert str(err.value) == "the loop body holds a loop (unroll the inner loop instead)"


def test_a_remainder_loop_is_not_unrolled():
    main = "\n    while i + 8 <= n {\n        acc = acc .+ load(x, i)\n        i = i + 8\n    }"
    rest = "while i < n {\n        acc = acc .+ splat(x[i])\n        i = i + 1\n    }"
    src = variant(rest, before=main)
    assert [s.line for s in sites(src, "unroll", "f")] == [4]
    a = analyze(src, "t.ea")
    with pytest.raises(NotApplicable) as err:
        MODULES["unroll"].edits(a, _loop_site(src, "f", marker="while i < n"), 4)
    assert str(err.value) == "the loop runs what the loop at line 4 leaves (fewer iterations than its step)"
    # with the index reset in between, or up to another bound, the second loop is a loop of its own
    reset = variant(rest, before=main + "\n    i = 0")
    assert [s.line for s in sites(reset, "unroll", "f")] == [4, 9]
    other = variant(rest.replace("i < n", "i < 2 * n"), before=main)
    assert [s.line for s in sites(other, "unroll", "f")] == [4, 8]
    # the examples' scalar remainder loops are not offered
    for name in ("dot.ea", "dot_i8.ea"):
        src = (ROOT / "examples" / name).read_text()
        lines = [s.line for s in sites(src, "unroll")]
        assert not any(src.splitlines()[n - 1].strip() == "while i < n {" for n in lines), (name, lines)


def test_kernels_without_a_scalar_tail_are_not_unrolled():
    clip = (ROOT / "examples" / "clip_mask.ea").read_text()
    assert _reason(clip, "clip", marker="export kernel") == (
        "kernel 'clip' has `tail mask`: only a `tail scalar` handles the remainder of a larger step")
    pad = SAXPY.replace("tail scalar { y[i] = fma(a, x[i], y[i]) }", "tail pad")
    assert _reason(pad, "saxpy", marker="export kernel") == (
        "kernel 'saxpy' has `tail pad`: only a `tail scalar` handles the remainder of a larger step")



def test_a_kernel_body_that_shadows_its_index_is_not_unrolled():
    src = """\
export kernel add1(x: *restrict f32, y: *restrict mut f32)
    over i in n step 1
    tail scalar { y[i] = x[i] + 1.0 }
{
    foreach (i in 0..1) {
        y[i] = x[i] + 1.0
    }
}
"""
    assert _reason(src, "add1", marker="export kernel") == "the kernel body redeclares 'i'"

def test_bad_factors_and_broken_files():
    a = analyze(REDUCTIONS, "t.ea")
    site = sites(REDUCTIONS, "unroll", "max_f32")[0]
    for bad in (1, 0, True, "4"):
        with pytest.raises(NotApplicable, match="unroll needs a factor of 2 or more"):
            MODULES["unroll"].edits(a, site, bad)
    assert sites(REDUCTIONS + "\nexport func broken() -> i32 { return 1.0 }\n", "unroll") == []
    with pytest.raises(NotApplicable, match="no while loop at line 1 of 'max_f32'"):
        MODULES["unroll"].edits(a, Site("unroll", "max_f32", 0, 1, 0, 1), 4)
    with pytest.raises(NotApplicable, match="no function 'nope'"):
        MODULES["unroll"].edits(a, Site("unroll", "nope", 0, 1, 0, 1), 4)

