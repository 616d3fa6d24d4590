"""`widen`: a function's vectors twice or four times as wide, and its vector
loops stepping as many more elements; refused (with the reason) wherever the
code depends on its lane count."""
from __future__ import annotations

from pathlib import Path

from ea_compiler.options import Options

from .rewrite_check import AXPY, assert_same_results, not_applicable, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
AVX512 = Options(avx512=True)


# Two vectors per step in a shared-nothing const, a bound one lane short of a
# vector, a default-width load, a for loop and a scalar remainder.
COPY = """\
const W: i32 = 4  // lanes per vector
static_assert(W > 0, "W must be positive")

export func copy2(x: *i32, out: *mut i32, n: i32) {
    let mut i: i32 = 0
    while i < n - 7 {
        store(out, i, load(x, i) .+ splat(1))
        store(out, i + W, load(x, i + W) .+ splat(1))
        i = i + 2 * W
    }
    for j in i..n {
        out[j] = x[j] + 1
    }
}
"""

COPY_256 = """\
const W: i32 = 8  // lanes per vector
static_assert(W > 0, "W must be positive")

export func copy2(x: *i32, out: *mut i32, n: i32) {
    let mut i: i32 = 0
    while i < n - 15 {
        store(out, i, load_i32x8(x, i) .+ splat(1))
        store(out, i + W, load_i32x8(x, i + W) .+ splat(1))
        i = i + 2 * W
    }
    for j in i..n {
        out[j] = x[j] + 1
    }
}
"""

NEIGHBOURS = """\
// out[i] = x[i + 1] + x[i + 2]: neighbour offsets are elements, not vectors
export kernel blur(x: *f32, out: *mut f32)
    over i in n step 4
    tail scalar { out[i] = x[i + 1] + x[i + 2] }
{
    let left: f32x4 = load(x, i + 1)
    let right: f32x4 = load(x, i + 2)
    store(out, i, left .+ right)
}
"""


def test_golden_while_loop_128_to_256_and_512():
    site, rw = rewrite(AXPY, "widen", 256, options=AVX512)
    assert rw.text == AXPY.replace("f32x4", "f32x8").replace("i + 4", "i + 8")
    assert (site.ident, site.choices, site.hint, site.vectors) == \
        ("widen:axpy:0", (256, 512), "narrow-vectors", ("f32x4",))
    assert rw.title == "Widen f32x4 \u2192 f32x8"
    _, rw = rewrite(AXPY, "widen", 512, options=AVX512)
    assert rw.text == AXPY.replace("f32x4", "f32x16").replace("i + 4", "i + 16")
    assert rw.title == "Widen f32x4 \u2192 f32x16"


def test_golden_const_step_bound_default_load_and_for_loop():
    _, rw = rewrite(COPY, "widen", 256)
    assert rw.text == COPY_256


def test_golden_examples():
    fma = (EXAMPLES / "fma.ea").read_text()
    _, rw = rewrite(fma, "widen", 512, options=AVX512)
    assert rw.text == fma.replace("step 8", "step 16").replace("f32x8", "f32x16")
    dot = (EXAMPLES / "dot.ea").read_text()
    _, rw = rewrite(dot, "widen", 512, options=AVX512)
    assert rw.text == dot.replace("f32x8", "f32x16").replace("i + 32", "i + 64").replace("i + 24", "i + 48") \
        .replace("i + 16", "i + 32").replace("i + 8", "i + 16")
    clip = (EXAMPLES / "clip_mask.ea").read_text()  # the masked tail takes the wider vectors too
    _, rw = rewrite(clip, "widen", 512, options=AVX512)
    assert rw.text == clip.replace("step 8", "step 16").replace("f32x8", "f32x16")


def test_element_offsets_stay():
    _, rw = rewrite(NEIGHBOURS, "widen", 256)
    assert rw.text == NEIGHBOURS.replace("step 4", "step 8").replace("f32x4", "f32x8")


def test_choices_follow_the_target():
    assert [s.choices for s in sites(AXPY, "widen")[1]] == [(256,)]
    assert sites((EXAMPLES / "fma.ea").read_text(), "widen")[1] == []  # 256 already; 512 needs --avx512
    assert sites(AXPY, "widen", options=Options(target_triple="aarch64-unknown-linux-gnu"))[1] == []
    reason = not_applicable(AXPY, "widen", 256, options=Options(target_cpu="nehalem"))
    assert reason.startswith("f32x8 is 256 bits wide, but --target=nehalem has no AVX")


def test_no_site_for_mixed_widths():
    for name in ("normalize_u8.ea", "preprocess.ea"):
        found = sites((EXAMPLES / name).read_text(), "widen", options=AVX512)[1]
        assert "normalize" not in [s.function for s in found] and "preprocess" not in [s.function for s in found]


def refused(src: str, choice: int = 256, options=AVX512) -> str:
    return not_applicable(src, "widen", choice, options=options)


KERNEL = """\
export kernel k(x: *f32, out: *mut f32)
    over i in n step 4
    tail scalar { out[i] = x[i] }
{
    let v: f32x4 = load(x, i)
    BODY
}
"""


def test_not_applicable_lane_structure():
    assert refused(KERNEL.replace("BODY", "store(out, i, shuffle(v, [3, 2, 1, 0]))")) == \
        "shuffle at line 6 picks lanes by position"
    assert refused(KERNEL.replace("BODY", "out[i] = v[0]")) == "the lane index v[0] at line 6 depends on the width"
    assert refused(KERNEL.replace("BODY", "store(out, i, v .+ [1.0, 2.0, 3.0, 4.0]f32x4)")) == \
        "the vector literal at line 6 spells out its lanes"
    assert refused(KERNEL.replace("BODY", "store(out, i, v)\n    out[i] = x[i] * 2.0")) == \
        "the scalar access out[i] at line 7 touches one element per step"
    bytes_ = KERNEL.replace("*f32", "*u8").replace("*mut f32", "*mut u8").replace("f32x4", "u8x16") \
        .replace("step 4", "step 16")
    assert refused(bytes_.replace("BODY", "store(out, i, sat_add_u8x16(v, v))")) == \
        "sat_add_u8x16 at line 6 has no wider form"
    mm = bytes_.replace("out: *mut u8", "out: *mut i32").replace("out[i] = x[i]", "out[i] = to_i32(x[i])")
    assert refused(mm.replace("BODY", "out[i] = movemask(v .> splat(3))")) == \
        "movemask at line 6 works on fixed lane counts"


def test_not_applicable_steps_and_tails():
    reductions = (EXAMPLES / "reductions.ea").read_text()
    assert not_applicable(reductions, "widen", 512, "max_f32", options=AVX512) == \
        "the step uses const LANES, which sum_f32, min_f32 also use"
    assert refused((EXAMPLES / "leaky_relu.ea").read_text(), 512) == \
        "kernel leaky_relu has tail pad: its callers pad n to a multiple of 8, not of 16"
    assert refused((EXAMPLES / "frame_rms.ea").read_text(), 512) == \
        "kernel frame_rms has no tail: with step 16 it would leave other elements unprocessed"
    mask = KERNEL.replace("tail scalar { out[i] = x[i] }", "tail mask {\n        let left: i32 = n - i\n"
                          "        let m: f32x4 = load_masked(x, i, left)\n"
                          "        store_masked(out, i, m, left)\n"
                          "        if left > 4 { out[i] = 0.0 }\n    }")
    assert refused(mask.replace("BODY", "store(out, i, v)")) == \
        "the tail mask depends on the step (the literal 4 at line 7)"
    defaulted = mask.replace("        let m: f32x4 = load_masked(x, i, left)\n", "") \
        .replace("store_masked(out, i, m, left)", "store_masked(out, i, load_masked(x, i, left), left)")
    assert refused(defaulted.replace("BODY", "store(out, i, v)")) == \
        "load_masked at line 5 takes the default 4 lanes (LANGUAGE.md \u00a75.6): give it a vector type first"
    over = AXPY.replace("while i + 4 <= n {", "while i < n {", 1)
    assert refused(over) == "the loop at line 5 runs while i < n: its last step reads past the bound, " \
        "further with a wider step"
    stray = AXPY.replace("    let mut i: i32 = 0\n", "    let mut i: i32 = 0\n    let full: i32 = n - n % 4\n")
    assert refused(stray) == "the literal 4 at line 5 may count lanes"
    step1 = KERNEL.replace("step 4", "step 1").replace("BODY", "store(out, i, v)")
    assert refused(step1) == "the loop at line 1 steps 1 elements, not whole 4-lane vectors"


def test_not_applicable_when_a_step_skips_vectors():
    # step 8 with one 4-lane vector: lanes 4..7 of every step are never touched
    src = KERNEL.replace("step 4", "step 8").replace("BODY", "store(out, i, v)")
    assert refused(src) == "the loop at line 1 steps 8 elements but no vector starts at offset 4"


def test_a_function_for_another_architecture_is_no_site():
    arm = AXPY.replace("export func axpy", "#[cfg(aarch64)]\nexport func axpy")
    x86 = AXPY.replace("f32x4", "f32x8").replace("i + 4", "i + 8").replace("export func", "#[cfg(x86_64)]\nexport func")
    found = sites(x86 + arm, "widen", options=AVX512)[1]
    assert [(s.function, s.line, s.vectors) for s in found] == [("axpy", 3, ("f32x8",))]


def test_not_applicable_calls_and_signatures():
    assert refused((EXAMPLES / "preprocess.ea").read_text(), 512).startswith("standardise takes or returns f32x8")
    particles = (EXAMPLES / "particles.ea").read_text()
    assert not_applicable(particles, "widen", 512, "step", options=AVX512) == \
        "the call to move2 at line 23 passes or returns vectors"


def lengths(*steps: int) -> list[int]:
    return sorted({0, 1, 1000, 1003} | {s + d for s in steps for d in (-1, 0, 1)})


def test_equal_results_while_loops(tmp_path):
    for choice in (256, 512):
        _, rw = rewrite(AXPY, "widen", choice, options=AVX512)
        assert_same_results(tmp_path, AXPY, rw.text, "axpy", 4, {"a": 0.75}, lengths(4, choice // 32),
                            avx512=True)
    _, rw = rewrite(COPY, "widen", 256)
    assert_same_results(tmp_path, COPY, rw.text, "copy2", 8, lengths=lengths(8, 16))


def test_equal_results_kernels(tmp_path):
    _, rw = rewrite(NEIGHBOURS, "widen", 256)
    assert_same_results(tmp_path, NEIGHBOURS, rw.text, "blur", 4, lengths=lengths(4, 8), pad=2, length_kw="n")
    for name, func, step, scalars, exact in [("fma.ea", "fma", 8, {}, True),
                                             ("clip_mask.ea", "clip", 8, {"hi": 1.0}, True),
                                             ("threshold_u8.ea", "threshold", 32, {"t": 7}, True),
                                             ("dot.ea", "dot", 32, {}, False)]:
        src = (EXAMPLES / name).read_text()
        site, rw = rewrite(src, "widen", 512, options=AVX512)
        assert_same_results(tmp_path, src, rw.text, site.function, step, scalars, lengths(step, 2 * step),
                            exact=exact, avx512=True)
