"""Where the arrays start in a cache line, an input of the prediction
(compiler/inspect/predict: traffic.split_fraction, MemoryModel.split_ratio,
loop.memory_cycles) and of the measurement (bench.inputs.place): NumPy's
arrays start 16 bytes past a line and half of their 32-byte accesses cross one."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.bench.inputs import place
from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import NUMPY_ALIGNMENT, MemoryModel, line_offset
from ea_compiler.inspect.predict.loop import memory_cycles
from ea_compiler.inspect.predict.memory import SPLIT_RATIOS
from ea_compiler.inspect.predict.traffic import Traffic, split_fraction
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed")
ZEN3 = Options(target_cpu="znver3")


def test_split_fraction_of_a_stream_of_vectors():
    assert split_fraction(0, 32) == 0.0  # on a line: 0, 32, 64, ... never cross
    assert split_fraction(16, 32) == 0.5  # 16, 48: the second crosses
    assert split_fraction(32, 32) == 0.0
    assert split_fraction(16, 16) == 0.0  # 16-byte vectors 16-byte aligned never cross
    assert split_fraction(16, 64) == 1.0  # a 64-byte vector off a line always crosses
    assert split_fraction(-4, 32) == 0.5  # a stencil's x[i-1] on aligned data: 60, 28
    assert split_fraction(16, 4) == 0.0 and split_fraction(3, 1) == 0.0


def test_line_offset_of_an_alignment():
    assert NUMPY_ALIGNMENT == 16
    assert [line_offset(a) for a in (16, 32, 64, 4096)] == [16, 32, 0, 0]
    with pytest.raises(ValueError, match="power of two"):
        line_offset(24)


def _main(source: str, name: str, alignment: int, ws: int = 16 << 10):
    analysis, module = compile_source((ROOT / source).read_bytes(), source, ZEN3)
    return predict_function(analysis, module, name, working_set_bytes=ws, memory=MEM, alignment=alignment).main


def test_copy_at_numpy_placement_splits_loads_and_stores():
    on_line = _main("bench/predict_kernels/streaming.ea", "copy_f32", 64)
    numpy = _main("bench/predict_kernels/streaming.ea", "copy_f32", 16)
    # One 32-byte load and store an iteration at the copy pattern's L1 bandwidth (64 x RATIOS 0.75),
    # the store port (2 x 32 / 48) binding; at NumPy's placement both stretched by SPLIT_RATIOS.
    assert on_line.by_level["L1"] == max(on_line.latency_cycles, round(64 / 48, 2))
    assert numpy.by_level["L1"] == round(64 / 48 * SPLIT_RATIOS["copy"]["L1"], 2)
    assert numpy.by_level["DRAM"] == on_line.by_level["DRAM"]  # beyond L1 a line moves whole


def test_stencil_neighbours_cross_lines_whatever_the_alignment():
    aligned = _main("bench/predict_kernels/gather_stencil.ea", "stencil5", 64)
    # x[i-2..i+2] on a line: the loads at -8, -4, +4, +8 bytes cross a line every other iteration,
    # 64 of the 192 bytes loaded and stored; one read and one write stream: the copy pattern.
    stretch = 1 + (SPLIT_RATIOS["copy"]["L1"] - 1) * (64 / 192) / 0.5
    assert aligned.by_level["L1"] == round(max(aligned.latency_cycles, 192 / 48 * stretch), 2)
    assert aligned.by_level["L1"] > aligned.latency_cycles


def test_calibrated_split_bandwidth_is_used():
    t = Traffic(loaded=64, unique_loaded=64, read_streams=1, split_loaded=32)  # half the bytes cross
    assert memory_cycles(t, "L1", MEM) == pytest.approx(64 / 64 * SPLIT_RATIOS["read"]["L1"])
    measured = MemoryModel(MEM.cache_bytes, MEM.bytes_per_cycle, 3.0, 12.0,
                           patterns={"read@16": {"L1": 40.0, "L2": 40.0}})
    assert measured.split_ratio("read", "L1") == 64 / 40
    assert measured.split_ratio("read", "L2") == 1.0  # never below 1: faster off a line is noise
    assert memory_cycles(t, "L1", measured) == pytest.approx(64 / 40)
    quarter = Traffic(loaded=64, unique_loaded=64, read_streams=1, split_loaded=16)
    assert memory_cycles(quarter, "L1", measured) == pytest.approx(1 + (64 / 40 - 1) / 2)


def test_place_puts_arrays_past_a_line():
    arrays = [np.arange(100, dtype=np.float32), np.arange(7, dtype=np.uint8)]
    for offset in (0, 16, 32, 48):
        placed = place(arrays, offset)
        assert [a.ctypes.data % 64 for a in placed] == [offset, offset]
        assert all((p == a).all() for p, a in zip(placed, arrays))
    with pytest.raises(ValueError, match="line_offset"):
        place(arrays, 8)
