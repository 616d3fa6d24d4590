"""Plain stores that stream on calls too big for the cache
(compiler/codegen/ntauto.py): which stores qualify, the test once per call,
what `ea inspect` says, and the results bit for bit against the same kernel
never streaming, through `ea.load` on NumPy's arrays at every 4-byte offset
and at lengths around the step, on both sides of the threshold."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import Options
from ea_compiler.build import compile_source
from ea_compiler.codegen import ntauto
from ea_compiler.inspect import inspect
from ea_compiler.loader import load
from ea_compiler.target_flags import UsageError, parse_target_flag

from .placement import view_at

ROOT = Path(__file__).resolve().parents[2]
ZEN3 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver3", stream_threshold=16 << 20)
ARM = Options(target_triple="aarch64-unknown-linux-gnu", stream_threshold=16 << 20)

SCALE = """
export kernel scale(x: *f32, out: *mut f32, s: f32)
    over i in n step 8
    tail scalar { out[i] = x[i] * s }
{
    store(out, i, load_f32x8(x, i) .* splat(s))
}
"""
# Two outputs, one of them written twice a trip, a stencil read, u8 in and f32 out.
TWO = """
export kernel split(px: *u8, lo: *mut f32, hi: *mut f32, g: f32)
    over i in n step 16
    tail scalar { lo[i] = to_f32(px[i]) * g
                  hi[i] = to_f32(px[i + 1]) }
{
    let v: u8x16 = load(px, i)
    let w: u8x16 = load(px, i + 1)
    store(lo, i, widen_u8_f32x8(v) .* splat(g))
    store(lo, i + 8, widen_u8_f32x8(shuffle(v, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7])) .* splat(g))
    store(hi, i, widen_u8_f32x8(w))
    store(hi, i + 8, widen_u8_f32x8(shuffle(w, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7])))
}
"""
# No tail to peel with: the loop runs at the output's own misalignment (the 16-byte copy at NumPy's).
PAD = """
export kernel pad_scale(x: *f32, out: *mut f32, s: f32)
    over i in n step 8
    tail pad
{
    store(out, i, load_f32x8(x, i) .* splat(s))
}
"""
IN_PLACE = """
export kernel scale_in_place(x: *mut f32, s: f32)
    over i in n step 8
    tail scalar { x[i] = x[i] * s }
{
    store(x, i, load_f32x8(x, i) .* splat(s))
}
"""
CONDITIONAL = """
export kernel maybe(x: *f32, out: *mut f32, s: f32)
    over i in n step 8
    tail pad
{
    if s > 0.0 { store(out, i, load_f32x8(x, i)) }
}
"""


def paths(src: str, options: Options = ZEN3):
    (fr,) = inspect(textwrap.dedent(src), "k.ea", options).functions
    return [p for p in fr.runtime_paths if p.main_copy == "plain"], fr


def test_a_streaming_kernel_is_tested_once_per_call():
    (path,), fr = paths(SCALE)
    assert path.what == "store to out (main loop, lines 5-7)"
    assert path.condition == "the bytes the call's main loop stores, (n - i) / 8 trips x 32 bytes"
    assert path.paths == ((">= 16 MiB", "non-temporal stores to out (16-byte-aligned addresses), then sfence"),
                          ("< 16 MiB", "plain stores, as written"))
    assert path.decided == "once per call: 2 versions of the main loop"
    main = fr.main_loop
    assert main.role == "main" and main.per_iteration.stores == 1
    assert sum(lp.role == "copy" for lp in fr.loops) == 3  # streaming: 0 and 16 mod 32, the rest plain
    (nt,) = [p for p in fr.runtime_paths if p.what == "store (streaming) to out"]
    assert nt.paths == (("32-byte aligned", "one 32-byte non-temporal store"),
                        ("16 mod 32", "2 aligned 16-byte non-temporal stores"),
                        ("not 16-byte aligned", "a plain store (the loop as written)"))


def test_two_outputs_count_every_store_of_a_trip():
    (path,), _ = paths(TWO)
    assert path.what.startswith("store to lo, hi (")
    assert path.condition.endswith("(n - i) / 16 trips x 128 bytes")


@pytest.mark.parametrize("src", [IN_PLACE, CONDITIONAL], ids=["read-back", "under-an-if"])
def test_stores_that_do_not_qualify(src):
    assert paths(src)[0] == []


def test_arm_and_zero_threshold_never_stream():
    assert paths(SCALE, ARM)[0] == []
    off = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver3", stream_threshold=0)
    assert paths(SCALE, off)[0] == []
    _, module = compile_source(textwrap.dedent(SCALE), "k.ea", off)
    assert "nontemporal" not in module.ir() and "sfence" not in module.ir()


def test_the_machine_code_streams_then_fences():
    _, module = compile_source(textwrap.dedent(SCALE), "k.ea", ZEN3)
    asm = module.asm()
    assert "vmovntps" in asm and "sfence" in asm
    assert f"{(16 << 20) * 8 // 32 - 1}" in asm  # n - i > 4194303: 16 MiB at 32 bytes per 8 elements


def test_the_default_threshold():
    named = Options(target_cpu="znver3", target_triple="x86_64-unknown-linux-gnu")
    assert ntauto.threshold(named) == ntauto.DEFAULT_THRESHOLD == 16 << 20
    assert ntauto.threshold(Options(stream_threshold=4096)) == 4096


@pytest.mark.parametrize("text,value", [("16M", 16 << 20), ("512k", 512 << 10), ("0", 0), ("4096", 4096)])
def test_the_flag(text, value):
    assert parse_target_flag(f"--stream-threshold={text}", Options()).stream_threshold == value


def test_a_bad_flag_value():
    with pytest.raises(UsageError, match="--stream-threshold must be a size in bytes"):
        parse_target_flag("--stream-threshold=lots", Options())


LENGTHS = (0, 1, 7, 8, 9, 15, 16, 17, 33, 200, 1001)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Each kernel streaming from 64 bytes (from 16 elements on, the calls take
    the streaming copy) and never."""
    folder = tmp_path_factory.mktemp("autostream")
    out = {}
    for name, src in (("scale", SCALE), ("split", TWO), ("scale_in_place", IN_PLACE), ("pad_scale", PAD)):
        (folder / f"{name}.ea").write_text(textwrap.dedent(src), encoding="utf-8")
        out[name] = (getattr(load(folder / f"{name}.ea", stream_threshold=64), name),
                     getattr(load(folder / f"{name}.ea", stream_threshold=0), name))
    return out


@pytest.mark.parametrize("offset", range(0, 64, 4))
def test_results_bit_for_bit_at_every_offset(builds, offset):
    rng = np.random.default_rng(offset)
    for n in LENGTHS:
        x = view_at(rng.standard_normal(n + 64).astype(np.float32), offset, n)
        got, want = (view_at(np.full(n + 64, np.nan, np.float32), offset, n) for _ in range(2))
        streaming, plain = builds["scale"]
        streaming(x, got, 0.75)
        plain(x, want, 0.75)
        assert np.array_equal(got, want) and np.array_equal(want, x * np.float32(0.75)), (offset, n)

        whole = n // 8 * 8  # `tail pad`: the whole vectors only
        got, want = (view_at(np.full(n + 64, np.nan, np.float32), offset, whole) for _ in range(2))
        streaming, plain = builds["pad_scale"]
        streaming(x[:whole], got, 0.75)
        plain(x[:whole], want, 0.75)
        assert np.array_equal(got, want) and np.array_equal(want, x[:whole] * np.float32(0.75)), (offset, n)

        px = view_at(rng.integers(0, 256, n + 80).astype(np.uint8), offset, n + 16)
        outs = [tuple(view_at(np.full(n + 64, np.nan, np.float32), offset + k, n) for k in (0, 8)) for _ in range(2)]
        streaming, plain = builds["split"]
        streaming(px, *outs[0], 0.5)
        plain(px, *outs[1], 0.5)
        assert all(np.array_equal(a, b) for a, b in zip(*outs)), (offset, n)
        assert np.array_equal(outs[0][0], px[:n].astype(np.float32) * np.float32(0.5)), (offset, n)
        assert np.array_equal(outs[0][1], px[1:n + 1].astype(np.float32)), (offset, n)


def test_a_kernel_reading_its_output_is_left_as_written(builds):
    streaming, _ = builds["scale_in_place"]
    x = np.arange(1000, dtype=np.float32)
    streaming(x, 2.0)
    assert np.array_equal(x, np.arange(1000, dtype=np.float32) * 2)


@pytest.mark.parametrize("example,name", [("leaky_relu", "leaky_relu"), ("fma", "fma_kernel"),
                                          ("threshold_u8", "threshold"), ("clip_mask", "clip")])
def test_the_examples_stream_on_big_calls(example, name):
    src = (ROOT / "examples" / f"{example}.ea").read_text(encoding="utf-8")
    (fr,) = [f for f in inspect(src, f"{example}.ea", ZEN3).functions if f.name == name]
    assert any(p.main_copy == "plain" and p.paths[0][0] == ">= 16 MiB" for p in fr.runtime_paths)


def test_the_prediction_follows_the_copy_a_call_runs():
    from ea_compiler.bench.cycles import CycleMeasurement
    from ea_compiler.bench.predicted_side import running_loop
    src = (ROOT / "examples" / "leaky_relu.ea").read_text(encoding="utf-8")
    (fr,) = inspect(src, "leaky_relu.ea", ZEN3).functions
    main = fr.loops.index(fr.main_loop)

    def row(n: int, alignment: int) -> CycleMeasurement:
        return CycleMeasurement("leaky_relu", "DRAM", n, 8 * n, 8, 1.0, 3.0, "per-call", alignment=alignment)
    small, aligned, numpy = (running_loop(fr, main, row(n, a)) for n, a in ((1 << 20, 64), (4 << 20, 64), (4 << 20, 16)))
    assert small == main  # 4 MiB stored: below 16 MiB
    assert fr.loops[aligned].role == fr.loops[numpy].role == "copy"
    assert fr.loops[aligned].nontemporal and fr.loops[numpy].nontemporal
    assert (fr.loops[aligned].per_iteration.stores, fr.loops[numpy].per_iteration.stores) == (1, 2)


def test_no_store_reaches_past_an_array_that_ends_at_a_guard_page(builds):
    """Each array's last byte is the last before an inaccessible page, so its start moves through
    every 4-byte misalignment as the length does: a streaming store past the end faults."""
    from ea_compiler.tune.guard import guarded
    rng = np.random.default_rng(5)
    scale, scale_plain = builds["scale"]
    split, split_plain = builds["split"]
    for n in range(0, 72):
        x = guarded(rng.standard_normal(n).astype(np.float32))
        out, want = guarded(np.zeros(n, np.float32)), np.zeros(n, np.float32)
        scale(x, out, 1.5)
        scale_plain(x, want, 1.5)
        assert np.array_equal(out, want), n
        px = guarded(rng.integers(0, 256, n + 1).astype(np.uint8))
        lo, hi = guarded(np.zeros(n, np.float32)), guarded(np.zeros(n, np.float32))
        lo2, hi2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
        split(px, lo, hi, 0.5)
        split_plain(px, lo2, hi2, 0.5)
        assert np.array_equal(lo, lo2) and np.array_equal(hi, hi2), n
        # n = 4 mod 8: the output starts 16 bytes past a 32-byte boundary; `tail pad` leaves the last 4
        pad, pad_plain = builds["pad_scale"]
        out, want = guarded(np.zeros(n, np.float32)), np.zeros(n, np.float32)
        pad(x, out, 1.5)
        pad_plain(x, want, 1.5)
        assert np.array_equal(out, want), n


def test_the_json_report_carries_the_threshold():
    (path,), _ = paths(SCALE)
    data = path.to_json()
    assert data["main_copy"] == "plain"
    assert data["stream"] == {"threshold_bytes": 16 << 20, "trip_bytes": 32, "step": 8, "peeled": True}
