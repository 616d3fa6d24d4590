"""The peeled prologue of a streaming kernel (compiler/codegen/ntpeel.py):
the tail runs first up to the output's next vector boundary when the tail
computes what the body does, element by element (check/tail_match.py), and
the arrays are apart at run time. Its decisions with their reasons; the
results, bit for bit, through `ea.load` on NumPy's own arrays at every
offset and at lengths around the step (in place, a stencil, two outputs);
arrays that overlap keep the order of the kernel as written; the machine
code has the peel exactly when the decision says so."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import Options
from ea_compiler.analysis import analyze
from ea_compiler.build import compile_source
from ea_compiler.check.tail_match import match
from ea_compiler.inspect import inspect
from ea_compiler.loader import load

from .placement import view_at

ROOT = Path(__file__).resolve().parents[2]
ZEN3 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver3")

SCALE = """
export kernel scale(x: *f32, out: *mut f32, s: f32)
    over i in n step 8
    tail scalar { out[i] = x[i] * s }
{
    stream_store(out, i, load_f32x8(x, i) .* splat(s))
}
"""
SAXPY = """
export kernel saxpy(x: *f32, y: *mut f32, a: f32)
    over i in n step 8
    tail scalar { y[i] = fma(splat_a(a), x[i], y[i]) }
{
    stream_store(y, i, fma(splat(a), load_f32x8(x, i), load_f32x8(y, i)))
}
""".replace("splat_a(a)", "a")
STENCIL = """
const W: i32 = 2
export kernel smooth(x: *f32, out: *mut f32)
    over i in n step 16
    tail scalar { out[i] = (x[i] + x[i + 1]) + x[i + W] }
{
    let a: f32x8 = load(x, i) .+ load(x, i + 1)
    let b: f32x8 = load(x, i + 8) .+ load(x, i + 9)
    stream_store(out, i, a .+ load(x, i + W))
    stream_store(out, i + 8, b .+ load(x, i + 10))
}
"""
WIDEN = """
export kernel brighten(px: *u8, out: *mut f32, g: f32)
    over i in n step 8
    tail scalar { out[i] = to_f32(px[i]) * g }
{
    let v: u8x16 = load(px, i)
    stream_store(out, i, widen_u8_f32x8(v) .* splat(g))
}
"""


def decision(src: str, name: str):
    analysis = analyze(textwrap.dedent(src), "k.ea", ZEN3)
    assert not analysis.errors, analysis.errors
    func = next(f for f in analysis.live_functions if f.name == name)
    consts = {s.name: s.value for s in analysis.symbols.symbols if s.kind == "const"}
    return match(func, analysis.decisions, consts)


@pytest.mark.parametrize("src,name,arrays", [
    (SCALE, "scale", {"x": (0, 7), "out": (0, 7)}),
    (SAXPY, "saxpy", {"x": (0, 7), "y": (0, 7)}),
    (STENCIL, "smooth", {"x": (0, 17), "out": (0, 15)}),
], ids=["scale", "saxpy-in-place", "stencil"])
def test_tails_that_compute_what_the_body_does(src, name, arrays):
    found = decision(src, name)
    assert found.ok, found.why
    assert found.arrays == arrays


@pytest.mark.parametrize("example,name", [("fma", "fma_kernel"), ("saxpy", "saxpy"), ("threshold_u8", "threshold"),
                                          ("normalize_u8", "normalize")])
def test_the_examples_tails(example, name):
    """An `if`/`else` tail storing either value is a select; a shuffle with
    literal indices moves lanes; widened bytes are converted bytes."""
    src = (ROOT / "examples" / f"{example}.ea").read_text(encoding="utf-8")
    found = decision(src, name)
    assert found.ok, found.why


def test_a_widened_byte_is_the_tail_s_converted_byte():
    # the body loads 16 bytes and uses 8: the extra bytes are read, not stored from
    found = decision(WIDEN, "brighten")
    assert found.ok, found.why
    assert found.arrays == {"px": (0, 15), "out": (0, 7)}


@pytest.mark.parametrize("body,tail,why", [
    ("stream_store(out, i, load_f32x8(x, i) .* splat(s))", "out[i] = x[i] * s + 1.0",
     "the tail does not compute what the body stores to `out`, element by element"),
    ("stream_store(out, i, load_f32x8(x, i + 1) .* splat(s))", "out[i] = x[i] * s",
     "the tail does not compute what the body stores to `out`, element by element"),
    ("stream_store(out, i, fma(load_f32x8(x, i), splat(s), splat(s)))", "out[i] = x[i] * s + s",
     "the tail does not compute what the body stores to `out`, element by element"),
    ("stream_store(out, i, load_f32x8(x, i) .* splat(s))", "out[i + 1] = x[i + 1] * s",
     "the body does not store the 8 elements of `out` the tail would"),
    ("stream_store(out, i, load_f32x8(x, i) .* splat(s))", "if s > 0.0 { out[i] = x[i] * s }",
     "the tail has control flow (an `if`, a loop or a `return`)"),
    ("stream_store(out, i, load_f32x8(x, i) .* splat(to_f32(i)))", "out[i] = x[i] * to_f32(i)",
     "the tail does not compute what the body stores to `out`, element by element"),
    ("stream_store(out, i, load_f32x8(x, i) .* splat(s))\n    let w: f32x8 = load(out, i)",
     "out[i] = x[i] * s", "the body reads `out` after storing to it"),
    ("stream_store(out, i, shuffle(load_f32x8(x, i), [1, 0, 3, 2, 5, 4, 7, 6]))", "out[i] = x[i]",
     "the tail does not compute what the body stores to `out`, element by element"),
    ("stream_store(out, i, load_f32x8(x, i) .* splat(reduce_add(load_f32x8(x, i))))", "out[i] = x[i]",
     "the body calls `reduce_add`, which is not lane by lane"),
    ("stream_store(out, i, load_f32x8(x, i))", "if s > 0.0 { out[i] = x[i] } else { out[i + 1] = x[i] }",
     "the tail's branches store to different elements"),
])
def test_tails_that_do_not(body, tail, why):
    src = f"""
export kernel k(x: *f32, out: *mut f32, s: f32)
    over i in n step 8
    tail scalar {{ {tail} }}
{{
    {body}
}}
"""
    found = decision(src, "k")
    assert (found.ok, found.why) == (False, why)


def test_no_tail_scalar_no_peel():
    src = SCALE.replace("tail scalar { out[i] = x[i] * s }", "tail pad")
    assert decision(src, "scale").why == "the kernel has no `tail scalar`"


def test_inspect_says_peeled_or_why_not():
    (fr,) = inspect(textwrap.dedent(SCALE), "k.ea", ZEN3).functions
    assert "(peeled: the tail computes what the body does, element by element)" in fr.runtime_paths[0].decided
    other = SCALE.replace("out[i] = x[i] * s", "out[i] = x[i] * s + 0.0")
    (fr,) = inspect(textwrap.dedent(other), "k.ea", ZEN3).functions
    assert fr.runtime_paths[0].decided.endswith(
        "; not peeled to alignment: the tail does not compute what the body stores to `out`, element by element")


def test_the_machine_code_has_the_peel_only_when_decided():
    _, module = compile_source(textwrap.dedent(SCALE), "k.ea", ZEN3)
    assert "ntpeel.body" in module.ir()
    other = SCALE.replace("out[i] = x[i] * s", "out[i] = x[i] * s + 0.0")
    _, module = compile_source(textwrap.dedent(other), "k.ea", ZEN3)
    assert "ntpeel" not in module.ir()


LENGTHS = (0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 40, 1000, 4099)


# The tail differs in form (not peeled): its realigned runs must keep the order too.
UNPEELED = SCALE.replace("scale(", "scale_copy(").replace("out[i] = x[i] * s", "out[i] = x[i] * s + 0.0")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("peel")
    out = {}
    for name, src in (("scale", SCALE), ("saxpy", SAXPY), ("smooth", STENCIL), ("brighten", WIDEN),
                      ("scale_copy", UNPEELED)):
        (folder / f"{name}.ea").write_text(textwrap.dedent(src), encoding="utf-8")
        out[name] = getattr(load(folder / f"{name}.ea"), name)
    return out


@pytest.mark.parametrize("offset", range(0, 64, 4))
def test_results_bit_for_bit_at_every_offset(kernels, offset):
    rng = np.random.default_rng(offset)
    for n in LENGTHS:
        xb = (rng.integers(-400, 400, n + 64) / 4).astype(np.float32)  # sums and products exact
        x = view_at(xb, offset, n + 16)  # the stencil reads 2 past the last element
        out = view_at(np.zeros(n + 64, np.float32), offset, n)
        kernels["scale"](x[:n], out, 0.75)
        assert np.array_equal(out, x[:n] * np.float32(0.75)), (offset, n)
        y = view_at((rng.integers(-400, 400, n + 64) / 4).astype(np.float32), offset, n)
        want = np.float32(1.5) * x[:n] + y
        kernels["saxpy"](x[:n], y, 1.5)  # y in place
        assert np.array_equal(y, want), (offset, n)
        kernels["smooth"](x, out)
        assert np.array_equal(out, (x[:n] + x[1:n + 1]) + x[2:n + 2]), (offset, n)
        px = view_at(rng.integers(0, 256, n + 80).astype(np.uint8), offset, n + 16)
        kernels["brighten"](px, out, 0.5)
        assert np.array_equal(out, px[:n].astype(np.float32) * np.float32(0.5)), (offset, n)


def _as_written(x: np.ndarray, out_start: int, n: int, s: float) -> np.ndarray:
    """The scale kernel run as written on one buffer whose output starts
    `out_start` elements into it: 8 elements read then 8 written, then the tail."""
    buf = x.copy()
    i = 0
    while i + 8 <= n:
        buf[out_start + i:out_start + i + 8] = buf[i:i + 8] * np.float32(s)
        i += 8
    while i < n:
        buf[out_start + i] = buf[i] * np.float32(s)
        i += 1
    return buf


@pytest.mark.parametrize("kernel", ["scale", "scale_copy"])
@pytest.mark.parametrize("shift", [1, 3, 5])
def test_overlapping_arrays_keep_the_kernel_s_order(kernels, kernel, shift):
    """out = x shifted by a few elements: peeling, or a realigned run (part of
    each vector stored on the next trip, after its loads), would read values
    the kernel as written had already overwritten; the run-time test keeps
    the order (plain stores for this call)."""
    n = 1000
    for offset in (4, 16, 28):
        buf = view_at(np.arange(n + 80, dtype=np.float32), offset, n + shift)
        want = _as_written(buf, shift, n, 0.5)
        kernels[kernel](buf[:n], buf[shift:shift + n], 0.5)
        assert np.array_equal(buf, want), (shift, offset)
