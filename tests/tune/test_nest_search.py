"""What the search sees of loop nests: `restrict` combined with the nest
transformations under --assume-noalias, the vectorised sum and the fast
reduction (with their tolerance notes), and `ea tune --explain`, the reasons
as data and as text."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune.explain import Reason, explain, explain_text
from ea_compiler.tune.space import build_space, render
from ea_compiler.tune.transforms import NotApplicable

from .rewrite_support import load_pair, random_f32, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
NEST = ROOT / "bench" / "tune_nest"
NAIVE = (NEST / "matmul_naive.ea").read_text()
SUM = (NEST / "sum_naive.ea").read_text()
DOT = (NEST / "dot_batch_naive.ea").read_text()
EA = str(ROOT / ".venv" / "bin" / "ea")


# ---- restrict combines with everything ---------------------------------------------------

def test_under_assume_noalias_the_tile_is_a_knob_that_brings_restrict_with_it(tmp_path):
    a = analyze(NAIVE, "k.ea")
    plain = build_space(a, "matmul", {}, {}, [], ("tile", "interchange", "unroll"))
    assert [k.name for k in plain.knobs] == ["unroll:matmul:0"]  # c may alias a and b: no nest transformation
    space = build_space(a, "matmul", {}, {}, [], ("restrict", "tile", "interchange", "unroll"))
    names = [k.name for k in space.knobs]
    assert names == ["restrict:matmul:0", "tile:matmul:0", "interchange:matmul:0", "unroll:matmul:0"]
    assert [k.needs_noalias for k in space.knobs] == [False, True, True, False]
    point = (None, (4, 2, 8, False), None, None)
    assert space.label(point) == "tile matmul#0 4×2×8 (with restrict)"
    text, after = render(a, space, point)
    assert "export func matmul(a: *restrict f32, b: *restrict f32, c: *restrict mut f32, n: i32) {" in text
    assert "                sum_3_1 = sum_3_1 .+ (a_3 .* b_1)\n" in text and after.ok
    # without a nest knob chosen, the original pointers stay as they were
    text, _ = render(a, space, (None, None, None, 4))
    assert "a: *f32, b: *f32, c: *mut f32" in text
    k0, k1 = load_pair(tmp_path, NAIVE, render(a, space, point)[0])
    for n in (0, 3, 9, 17, 40):
        x, y = random_f32(n * n, n), random_f32(n * n, n + 1)
        c0, c1 = np.zeros(max(n * n, 1), np.float32), np.zeros(max(n * n, 1), np.float32)
        k0.matmul(x, y, c0, n=n)
        k1.matmul(x, y, c1, n=n)
        assert np.array_equal(c0, c1), n


def test_a_sequence_restrict_then_tile_then_unroll_renders_in_that_order():
    a = analyze(NAIVE, "k.ea")
    space = build_space(a, "matmul", {}, {}, [], ("restrict", "tile", "unroll"))
    # the unroll knob meant the first `while k < n` loop: after the tile, that is the tile's k loop
    # (its 12 vector sums split in two)
    text, after = render(a, space, ((True, (6, 2, 8, True), 2)))
    assert after.ok and text.index("            while k + 2 <= n {\n") < text.index("store(c, i * n + j, sum_0_0)")
    assert "                sum_5_1_1 = fma(" in text


# ---- vectorise_sum and fast_reduce ---------------------------------------------------------

def test_a_naive_sum_is_vectorised_with_a_scalar_remainder(tmp_path):
    [site] = sites(SUM, "vectorise_sum")
    assert site.choices == ((8, 1, False), (8, 2, False), (8, 4, False))
    assert site.note == "reorders the sum (lanes, then their total in any order): kept only within the suite's float tolerance"
    rw = rewrite(SUM, "vectorise_sum", "sum_f32", (8, 2, False))
    assert rw.title == "Vectorise the sum: 2 × 8 lanes (reorders the sum)"
    assert """\
    let mut s_0: f32x8 = splat(0.0)
    let mut s_1: f32x8 = splat(0.0)
    while i + 16 <= n {
        let x_0: f32x8 = load_f32x8(x, i)
        let x_1: f32x8 = load_f32x8(x, i + 8)
        s_0 = s_0 .+ x_0
        s_1 = s_1 .+ x_1
        i = i + 16
    }
    s = s + reduce_add_fast(s_0 .+ s_1)
    while i < n {
""" in rw.text
    k0, k1 = load_pair(tmp_path, SUM, rw.text)
    for n in (0, 1, 7, 15, 16, 17, 33, 1000, 1003):
        x = random_f32(n, n)
        assert np.isclose(k1.sum_f32(x), k0.sum_f32(x), rtol=1e-5, atol=1e-3), n
    assert k1.sum_f32(np.ones(37, np.float32)) == 37.0


def test_a_batched_dot_gets_fma_lanes_and_the_fast_reduction(tmp_path):
    """The lanes' total is `reduce_add_fast`: the sum is reordered already, and the ordered
    reduce_add's chain of adds cost the batched dot 12-16 % (fast_reduce has nothing left to do)."""
    fast = rewrite(DOT, "vectorise_sum", "dot_batch", (8, 2, True))
    assert "            s_0 = fma(x_0, y_0, s_0)\n" in fast.text
    assert "        s = s + reduce_add_fast(s_0 .+ s_1)\n" in fast.text
    assert not sites(fast.text, "fast_reduce")
    k0, k1 = load_pair(tmp_path, DOT, fast.text)
    for batch, d in ((0, 5), (3, 0), (2, 15), (4, 16), (5, 17), (3, 64), (2, 67)):
        x, y = random_f32(batch * d, d), random_f32(batch * d, d + 1)
        outs = [np.zeros(max(batch, 1), np.float32) for _ in range(2)]
        k0.dot_batch(x, y, outs[0], batch=batch, d=d)
        k1.dot_batch(x, y, outs[1], batch=batch, d=d)
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-3, err_msg=str((batch, d)))


@pytest.mark.parametrize("old, new, reason", [
    ("s = s + x[i]", "s = s + x[2 * i]", "line 5: 'x' is not read at `... + i` (contiguous along 'i')"),
    ("s = s + x[i]", "s = fma(x[i], x[i], s)", "line 5: the update of 's' is an fma: use the fma form "
                                               "`s = s + a * b`"),
    ("s = s + x[i]", "s = s + x[i] * s", "line 5: 's' is read in its own term"),
    ("f32", "i32", "line 5: 's' is not an f32 or f64 sum (`s = s + ...`)"),
])
def test_sums_that_cannot_be_vectorised_say_why(old, new, reason):
    from ea_compiler.tune.transforms import vectorise_sum
    src = SUM.replace(old, new).replace("0.0", "0" if new == "i32" else "0.0").replace("sum_i32", "sum_f32")
    a = analyze(src, "k.ea")
    assert a.ok, a.errors
    assert not sites(src, "vectorise_sum")
    why = vectorise_sum.why_not(a, next(it for it in a.ast.items if getattr(it, "name", "") == "sum_f32"))
    assert why.startswith(reason), why


def test_a_sum_over_fewer_elements_than_a_vector_is_left_alone():
    conv = (NEST / "conv3_naive.ea").read_text()
    assert sites(conv, "vectorise_sum") == []
    rows = {r.transform: r for r in explain(analyze(conv, "k.ea"))["conv3"]}
    assert rows["vectorise_sum"].reason.endswith("line 12: the loop runs 3 times, fewer than a vector's lanes")


def test_fast_reduce_leaves_integer_reductions_alone():
    src = "export func f(x: *i32) -> i32 {\n    let v: i32x8 = load(x, 0)\n    return reduce_add(v)\n}\n"
    assert sites(src, "fast_reduce") == []
    with pytest.raises(NotApplicable, match="no reduce_add at line 1 of 'f'"):
        from ea_compiler.tune.transforms import fast_reduce
        from ea_compiler.tune.transforms.base import Site
        fast_reduce.edits(analyze(src, "k.ea"), Site("fast_reduce", "f", 0, 1, 0, 1, (True,)), True)


# ---- explain ---------------------------------------------------------------------------

WHY_ALIAS = ("`c` may alias `a`, `b` (not restrict): use --assume-noalias (Eä has no pointer comparison, "
             "so no runtime overlap check can be written)")


def test_explain_gives_each_transformation_with_a_reason_as_data():
    rows = explain(analyze(NAIVE, "k.ea"))["matmul"]
    by = {r.transform: r for r in rows}
    assert [r.transform for r in rows] == ["restrict", "tile", "panels", "kblock", "lines", "vectorise", "interchange", "vectorise_sum",
                                           "widen", "fma", "unroll", "prefetch", "prefetch_change", "stream_store",
                                           "fast_reduce"]
    assert by["tile"] == Reason("tile", False, WHY_ALIAS, 5)
    assert by["interchange"] == Reason("interchange", False, WHY_ALIAS, 7)
    assert by["vectorise_sum"].reason == ("line 5: the sum loop is not a step-1 loop `while i < n { ...; i = i + 1 }`"
                                          "; line 7: the sum loop is not a step-1 loop `while i < n { ...; i = i + 1 }`"
                                          ) or not by["vectorise_sum"].applies
    assert by["restrict"].applies and by["unroll"].applies
    noalias = {r.transform: r for r in explain(analyze(NAIVE, "k.ea"), assume_noalias=True)["matmul"]}
    assert noalias["tile"] == Reason("tile", True, "line 5: Register-tile 1×1 vectors of 8 lanes (16 choices), "
                                     "with `restrict` added (--assume-noalias)", 5)


def test_explain_on_the_command_line(tmp_path):
    kernel = tmp_path / "mm.ea"
    kernel.write_text(NAIVE)
    out = subprocess.run([EA, "tune", "--explain", str(kernel), "--target=znver3"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == explain_text(analyze(NAIVE, str(kernel)))
    assert f"  tile          no       {WHY_ALIAS}\n" in out.stdout
    assert out.stdout.startswith("matmul:\n  restrict      applies  line 3: Mark pointers restrict (confirm no overlap)\n")
    bad = tmp_path / "bad.ea"
    bad.write_text("export func f( {\n")
    out = subprocess.run([EA, "tune", "--explain", str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stderr.startswith(f"{bad}:1:") and "Traceback" not in out.stderr


# ---- through the engine: every tile verified at the suite's sizes and the edge lengths -------

SMALL_SUITE = """\
[tune]
transforms = ["tile"]

[[bench]]
function = "matmul"
sizes = [16, 37]
bytes_per_element = 1
reference = "(a.reshape(n, n) @ b.reshape(n, n)).ravel()"
check = "c"
rtol = 1e-4
[bench.args]
a = { dtype = "float32", dist = "uniform", low = 0, high = 1, length = "n * n" }
b = { dtype = "float32", dist = "uniform", low = 0, high = 1, length = "n * n" }
c = { dtype = "float32", dist = "zeros", length = "n * n" }
n = "n"
"""


def test_ea_tune_verifies_tiles_of_the_naive_matmul_and_needs_assume_noalias(tmp_path):
    import json
    kernel = tmp_path / "mm.ea"
    kernel.write_text(NAIVE)
    (tmp_path / "mm.bench.toml").write_text(SMALL_SUITE)
    run = lambda *extra: subprocess.run([EA, "tune", str(kernel), "--quick", "--json", "--strategy=exhaustive",  # noqa: E731
                                         "--budget=3", *extra], capture_output=True, text=True, timeout=900)
    out = run()
    assert out.returncode == 0, out.stderr
    assert "matmul: nothing to tune (no params it uses, no transformation applies)" in out.stderr
    out = run("--assume-noalias")
    assert out.returncode == 0, out.stderr
    history = json.loads(out.stdout)["history"]
    # the loop-nest knob first (one change at a time), restrict brought along
    assert [h["label"] for h in history[:2]] == ["tile matmul#0 1×1×8 (with restrict)",
                                                 "tile matmul#0 1×1×8 fma (with restrict)"]
    # verified at 16, 37 and the edge lengths (guarded arrays): none wrong, none crashed
    assert all(h["outcome"] not in ("wrong", "crashed", "compile-error") for h in history), history


def test_a_file_that_passes_one_array_twice_keeps_the_nest_transformations_out():
    src = NAIVE + "\nexport func square(x: *f32, y: *mut f32, n: i32) {\n    matmul(x, x, y, n)\n}\n"
    a = analyze(src, "k.ea")
    assert a.ok, a.errors
    space = build_space(a, "matmul", {}, {}, [], ("restrict", "tile", "unroll"))
    assert [k.name for k in space.knobs] == ["restrict:matmul:0", "unroll:matmul:0"] and space.restricted is None
    with pytest.raises(NotApplicable, match="the call at line 22 passes x as two of matmul's pointers"):
        render(a, space, (True, None))
