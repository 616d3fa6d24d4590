"""The memory side of the prediction (compiler/inspect/predict/traffic.py,
loop.memory_cycles, MemoryModel.patterns): traffic counted per stream, the
bandwidth of the loop's access pattern, stores, gathers, non-temporal
stores, loops deep in a nest; and the calibration kernels those bandwidths
are measured with (compiler/bench/calibrate.ea), run and checked."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import MemoryModel
from ea_compiler.inspect.predict.loop import memory_cycles, overlapped
from ea_compiler.inspect.predict.memory import RATIOS, load_calibration, save_calibration
from ea_compiler.inspect.predict.traffic import Traffic, _address, _covered
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed")
ZEN3 = Options(target_cpu="znver3")


def test_addresses_group_by_all_but_the_displacement():
    assert _address(["-8(%rdi,%rcx,4)", "%ymm0"], False) == ("%rdi,%rcx,4", -8)
    assert _address(["%ymm1", "(%rsi,%rax)"], False) == ("%rsi,%rax", 0)
    assert _address(["%ymm0", "%ymm1"], False) is None
    assert _address(["q0", "[x1, #32]"], True) == ("x1", 32)
    assert _address(["q0", "[x1, x8, lsl #2]"], True) == ("x1,x8,lsl #2", 0)


def test_covered_bytes_are_the_union():
    assert _covered([(-8, 24), (0, 32), (8, 40)]) == 48  # neighbour loads: 48 bytes, not 96
    assert _covered([(0, 32), (64, 96)]) == 64


def _main(source: str, name: str, ws: int, memory=MEM):
    analysis, module = compile_source((ROOT / source).read_bytes(), source, ZEN3)
    return predict_function(analysis, module, name, working_set_bytes=ws, memory=memory)


def test_stencil_neighbours_are_one_stream_beyond_l1():
    lp = _main("bench/predict_kernels/gather_stencil.ea", "stencil5", 1 << 28).main
    # Five 32-byte loads at x[i-2..i+2] (160 bytes) cover 48; the store adds 32: a read and a write
    # stream at the copy pattern's DRAM bandwidth (4 B/cycle x RATIOS), with the core's time (overlapped).
    assert lp.bytes_per_iter == 192
    assert lp.by_level["DRAM"] == pytest.approx(
        overlapped(lp.latency_cycles, (48 + 32) / (4.0 * RATIOS["copy"]["DRAM"]), "DRAM"), abs=0.01)


def test_written_out_gather_reads_its_table_from_the_cache():
    lp = _main("bench/predict_kernels/gather_stencil.ea", "gather_f32", 1 << 28).main
    # idx (32 bytes) and out (32) at DRAM; the eight scalar table loads (32 bytes) at L2.
    want = (32 + 32) / (4.0 * RATIOS["copy"]["DRAM"]) + 32 / 32.0
    assert lp.by_level["DRAM"] == pytest.approx(overlapped(lp.latency_cycles, want, "DRAM"), abs=0.01)


def test_inner_loop_of_a_three_deep_nest_works_on_rows():
    fp = _main("bench/predict_kernels/calls_matmul.ea", "matmul_ikj", 3 * 4 * 1024 * 1024)
    levels = {lp.level.value for lp in fp.loops}
    assert "L3" in levels  # the outer loops: the matrices
    inner = [lp for lp in fp.loops if lp.elements_per_iter == 8]
    assert inner and all(lp.level.value == "L1" for lp in inner)  # sqrt(2 streams x 12 MiB x 4) = 10 KiB


def test_pattern_bandwidths():
    reads = Traffic(loaded=64, unique_loaded=64, read_streams=1)
    assert memory_cycles(reads, "DRAM", MEM) == 16.0
    calibrated = MemoryModel(MEM.cache_bytes, MEM.bytes_per_cycle, 3.0, 12.0,
                             patterns={"read2": {"DRAM": 8.0}, "copy": {"L1": 48.0}})
    two = Traffic(loaded=64, unique_loaded=64, read_streams=2)
    assert memory_cycles(two, "DRAM", calibrated) == 8.0  # the calibrated figure
    assert memory_cycles(two, "L3", calibrated) == 64 / (16.0 * RATIOS["read2"]["L3"])  # estimated
    # In L1 a loop storing more than it reads is bound by the store port: 2 x stores / copy.
    widen = Traffic(loaded=16, unique_loaded=16, read_streams=1, stored=64, streams=2)
    assert memory_cycles(widen, "L1", calibrated) == 2 * 64 / 48.0
    assert memory_cycles(widen, "DRAM", calibrated) == 80 / (4.0 * RATIOS["copy"]["DRAM"])


def test_gathers_and_nontemporal_stores():
    t = Traffic(loaded=32, unique_loaded=32, read_streams=1, stored_nt=32, gathered=32, streams=2)
    # The gathered table from L1 at L1 sizes, else L2; a non-temporal store goes to DRAM at every size.
    assert memory_cycles(t, "L1", MEM) == pytest.approx(32 / 64 + 32 / 64 + 32 / 4)
    assert memory_cycles(t, "L3", MEM) == pytest.approx(32 / 16 + 32 / 32 + 32 / 4)


def test_a_streaming_copy_from_memory_moves_at_its_measured_rate():
    t = Traffic(loaded=32, unique_loaded=32, read_streams=1, stored_nt=32, streams=2)
    calibrated = MemoryModel(MEM.cache_bytes, MEM.bytes_per_cycle, 3.0, 12.0, patterns={"copy_nt": {"DRAM": 8.0}})
    assert memory_cycles(t, "DRAM", calibrated) == 64 / 8.0  # read and non-temporal write share the bus
    assert memory_cycles(t, "DRAM", MEM) == 32 / 4 + 32 / 4  # not calibrated: the read figure for both
    assert memory_cycles(t, "L3", calibrated) == pytest.approx(32 / 16 + 32 / 4)  # reads from L3, stores to DRAM


def test_calibration_without_patterns_still_loads(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    save_calibration(MEM)
    loaded = load_calibration()
    assert loaded.patterns == {} and loaded.bandwidth("copy", "L2") == 32.0 * RATIOS["copy"]["L2"]


def test_given_dram_bandwidth_drops_calibrated_dram_patterns():
    from unittest import mock
    from ea_compiler.inspect.predict import memory_for
    calibrated = MemoryModel(MEM.cache_bytes, MEM.bytes_per_cycle, 3.0, 12.0,
                             patterns={"copy": {"L2": 20.0, "DRAM": 5.0}})
    with mock.patch("ea_compiler.inspect.predict.load_calibration", return_value=calibrated):
        given = memory_for(Options(), bandwidth_gbs=12.0)
    assert given.bandwidth("copy", "L2") == 20.0
    assert given.bandwidth("copy", "DRAM") == pytest.approx(4.0 * RATIOS["copy"]["DRAM"])


def test_calibration_kernels_compute_what_they_say():
    import ea
    k = ea.load(ROOT / "compiler/bench/calibrate.ea")
    rng = np.random.default_rng(3)
    a, b = (rng.integers(0, 1 << 20, 64, dtype=np.int32) for _ in range(2))
    dst = np.zeros(64, np.int32)
    k.copy1(a, dst, 2)
    assert (dst == a).all()
    k.or2(a, b, dst, 1)
    assert (dst == (a | b)).all()
    lanes = np.bitwise_or.reduce((a | b).reshape(-1, 8), axis=0)  # eight i32 lanes of ors, then summed
    assert k.read2(a, b, 1) == int(lanes.astype(np.int64).sum().astype(np.int32))
    x = np.linspace(-5, 5, 37, dtype=np.float32)
    out = np.zeros_like(x)
    k.expmap(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-6)


def test_rows_of_a_2d_stencil_come_from_memory_once():
    from ea_compiler.inspect.asm import parse
    from ea_compiler.inspect.classify import classifier
    from ea_compiler.inspect.predict.origin import origins
    analysis, module = compile_source((ROOT / "examples/sobel.ea").read_bytes(), "sobel.ea", ZEN3)
    fp = predict_function(analysis, module, "sobel", working_set_bytes=1 << 28, memory=MEM, alignment=64)
    main = next(lp for lp in fp.loops if lp.elements_per_iter == 8)
    # Rows y-1, y, y+1 of img (three base registers, all from the first argument) at -8..+32 bytes
    # each: one row (40 bytes) is new from memory; the store (32) makes a read and a write stream.
    assert main.by_level["DRAM"] == pytest.approx(
        overlapped(main.latency_cycles, (40 + 32) / (4.0 * RATIOS["copy"]["DRAM"]), "DRAM"), abs=0.01)
    fn = next(f for f in parse(module.asm(), False) if f.name == "sobel")
    infos = [classifier(False)(ins) for ins in fn.instrs]
    bases = origins(fn, infos, fn.labels[main.label])
    assert {bases[r] for r in ("r12", "r14", "r15")} == {"rdi"} and bases["r13"] == "rsi"


def test_origins_follow_copies_and_forget_other_writes():
    from ea_compiler.inspect.asm import parse
    from ea_compiler.inspect.classify import classifier
    from ea_compiler.inspect.predict.origin import origins
    text = "\n".join(["\t.type\tf,@function", "f:", "\tleaq\t64(%rdi,%rdx,4), %r8", "\tmovq\t%r8, -16(%rsp)", "\tmovq\t-16(%rsp), %r9",
                      "\tmovq\t%rsi, %r10", "\timulq\t%rdx, %r10", "\tmovl\t%ecx, %edi", "\taddq\t$32, %rsi",
                      ".LBB0_1:", "\tvmovups\t(%r9), %ymm0", "\tjmp\t.LBB0_1", ""])
    fn = parse(text, False)[0]
    got = origins(fn, [classifier(False)(ins) for ins in fn.instrs], fn.labels[".LBB0_1"])
    assert got == {"rsi": "rsi", "rdx": "rdx", "rcx": "rcx", "r8": "rdi", "r9": "rdi", "-16(%rsp)": "rdi"}


def test_a_row_the_enclosing_loop_moves_on_comes_from_the_whole_working_set():
    slow_l3 = MemoryModel(MEM.cache_bytes, {**MEM.bytes_per_cycle, "L3": 8.0}, 3.0, 12.0, source="fixed")
    analysis, module = compile_source((ROOT / "bench/predict_kernels/calls_matmul.ea").read_bytes(), "mm.ea", ZEN3)
    ws = 3 * 4 * 1024 * 1024  # three 1024 x 1024 f32 matrices: L3
    ikj = predict_function(analysis, module, "matmul_ikj", working_set_bytes=ws, memory=slow_l3, alignment=64)
    inner = [lp for lp in ikj.loops if lp.elements_per_iter == 8]
    # The row of C stays in L1 (rows' working set); B's row is a new one every k: its 32 bytes an
    # iteration come from L3, whole B being read once per i.
    assert inner and all((lp.level.value, lp.limit.value, lp.cycles_per_iter) == ("L3", "L3", 32 / 8.0)
                         for lp in inner)
    assert all(lp.by_level["L1"] < 32 / 8.0 for lp in inner)
    small = predict_function(analysis, module, "matmul_ikj", working_set_bytes=3 * 4 * 64 * 64, memory=slow_l3,
                             alignment=64)
    assert all(lp.level.value == "L1" for lp in small.loops if lp.elements_per_iter == 8)  # all of it in L1


def test_a_store_into_the_bytes_the_loop_reads_needs_no_read_for_ownership():
    """saxpy's `y = a*x + y`: the store goes to the line its load brought in. The calibrated
    patterns write arrays of their own (each line read for ownership, then written back), so
    beyond L1 a store in place saves a third of a copy's transfers (13.1 -> 9.86 cycles at
    DRAM on the Zen 3 host); in L1 nothing changes."""
    lp = _main("examples/saxpy.ea", "saxpy", 1 << 28).main
    reads, stored = 64, 32  # x and y read, y written
    share = (reads + 2 * stored - stored) / (reads + 2 * stored)
    plain = (reads + stored) / (4.0 * RATIOS["read2_write"]["DRAM"])
    assert lp.by_level["DRAM"] == pytest.approx(overlapped(lp.latency_cycles, plain * share, "DRAM"), abs=0.01)
    assert lp.by_level["L1"] == _main("examples/saxpy.ea", "saxpy", 1 << 12).main.by_level["L1"]
    copy = _main("bench/predict_kernels/gather_stencil.ea", "stencil5", 1 << 28).main  # out apart from x
    assert copy.by_level["DRAM"] == pytest.approx(
        overlapped(copy.latency_cycles, (48 + 32) / (4.0 * RATIOS["copy"]["DRAM"]), "DRAM"), abs=0.01)
