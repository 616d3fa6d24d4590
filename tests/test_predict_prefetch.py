"""Software prefetches in a loop's prediction (compiler/inspect/predict/traffic.py,
memory.py, loop.py): which stream a prefetch runs ahead of and by how much,
and the time the calibration measured streams so prefetched take, beyond L2.
The figures here are the L3's (from DRAM the core's time is overlapped with the
memory's, loop.overlapped, and the ratios would not show whole)."""
from __future__ import annotations

import numpy as np
import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import MemoryModel
from ea_compiler.inspect.predict.memory import (NEAR_L3, PREFETCH_DISTANCES, PREFETCH_SPACINGS,
                                                load_calibration, prefetch_pattern, save_calibration)
from ea_compiler.options import Options

from inspect_support import dot_source as dot

ZEN3 = Options(target_cpu="znver3")
CACHES = {"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20}
READS = {"L1": 64.0, "L2": 32.0, "L3": 4.0, "DRAM": 2.0}  # a slow L3: every loop here bound by it
# Bytes per cycle of two streams from the L3: not prefetched 8; prefetched 256 .. 2048 bytes ahead.
FROM_L3 = {32: (8.0, 8.0, 8.0, 6.4, 5.0), 128: (8.0, 8.0, 8.0, 4.0, 4.0)}
PATTERNS = {prefetch_pattern(s, d): {"L3": v}
            for s, (base, *got) in FROM_L3.items()
            for d, v in ((None, base), *zip(PREFETCH_DISTANCES, got))}
MEM = MemoryModel(CACHES, READS, ghz=3.0, call_cycles=12.0, source="fixed", patterns=PATTERNS)


def main_loop(source: str, memory: MemoryModel = MEM):
    analysis, module = compile_source(source.encode(), "dot.ea", ZEN3)
    fp = predict_function(analysis, module, "dot", working_set_bytes=1 << 28, memory=memory)
    return max(fp.loops, key=lambda lp: lp.elements_per_iter or 0)


@pytest.mark.parametrize("accumulators, ahead, ratio", [
    (1, 256, 8.0 / 6.4),  # 1024 bytes ahead, a prefetch every 32 bytes of each array
    (4, 256, 2.0),  # every 128 bytes
    (1, 512, 8.0 / 5.0),  # 2048 bytes ahead
    (1, 1024, 8.0 / 5.0),  # beyond the calibrated distances: the farthest's figure
    (4, 64, 1.0),  # 256 bytes ahead: as fast as not prefetched
])
def test_streams_prefetched_ahead_take_the_time_measured_for_their_distance_and_spacing(accumulators, ahead, ratio):
    plain = main_loop(dot(accumulators, [None, None]))
    hinted = main_loop(dot(accumulators, [ahead, ahead]))
    assert hinted.by_level["L3"] == pytest.approx(plain.by_level["L3"] * ratio, rel=1e-3)
    # Nothing measured for L2 and DRAM in MEM: no change there.
    for level in ("L2", "DRAM"):
        assert hinted.by_level[level] == pytest.approx(plain.by_level[level], abs=0.02)


def test_one_prefetched_stream_of_two_takes_half_the_difference():
    plain, one = main_loop(dot(4, [None, None])), main_loop(dot(4, [256, None]))
    assert one.by_level["L3"] == pytest.approx(plain.by_level["L3"] * 1.5, rel=1e-3)


def test_a_prefetch_at_or_behind_its_loads_is_not_ahead():
    plain = main_loop(dot(1, [None, None]))
    for behind in (0, -64):
        assert main_loop(dot(1, [behind, behind])).by_level["L3"] == pytest.approx(plain.by_level["L3"], rel=1e-3)


def test_the_ratio_between_calibrated_points_is_linear_in_log2():
    assert MEM.prefetch_ratio("L3", 1024, 32) == pytest.approx(1.25)
    assert MEM.prefetch_ratio("L3", 724, 128) == pytest.approx(1.5, abs=0.01)  # halfway from 512 to 1024
    assert MEM.prefetch_ratio("L3", 1024, 64) == pytest.approx((1.25 + 2.0) / 2)  # halfway from 32 to 128
    assert MEM.prefetch_ratio("L3", 64, 16) == 1.0 and MEM.prefetch_ratio("L3", 8192, 512) == 2.0
    assert MEM.prefetch_ratio("DRAM", 1024, 32) == 1.0  # not measured
    near = MemoryModel(CACHES, {**READS, NEAR_L3: 24.0}, 3.0, 12.0, patterns={
        name: {"L3": v, NEAR_L3: v / 2} for name, by_level in PATTERNS.items() for v in by_level.values()},
        l3_near_bytes=2 << 20)
    assert near.prefetch_ratio("L3", 2048, 128) == 2.0 and near.prefetch_ratio(NEAR_L3, 2048, 128) == 2.0
    older = MemoryModel(CACHES, {**READS, NEAR_L3: 24.0}, 3.0, 12.0, patterns={
        name: {"L3": by_level["L3"]} for name, by_level in PATTERNS.items()}, l3_near_bytes=2 << 20)
    assert older.prefetch_ratio(NEAR_L3, 2048, 128) == 2.0  # no near figures: the L3's


def test_the_prefetch_figures_are_saved(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    save_calibration(MEM)
    assert load_calibration().prefetch_ratio("L3", 2048, 32) == 8.0 / 5.0
    assert sorted(PREFETCH_SPACINGS) == list(PREFETCH_SPACINGS)  # the interpolation needs them ascending
    assert sorted(PREFETCH_DISTANCES) == list(PREFETCH_DISTANCES)


def test_the_prefetch_calibration_kernels_compute_what_they_say():
    import ea
    from pathlib import Path
    k = ea.load(Path(__file__).resolve().parent.parent / "compiler/bench/calibrate.ea")
    rng = np.random.default_rng(5)
    a, b = (rng.integers(0, 1 << 20, 256, dtype=np.int32) for _ in range(2))
    lanes = np.bitwise_or.reduce((a | b).reshape(-1, 8), axis=0)
    want = int(lanes.astype(np.int64).sum().astype(np.int32))
    assert k.read2s8(a, b, 2) == k.read2s32(a, b, 2) == want
    assert k.read2s8pf(a, b, 2, 64) == k.read2s32pf(a, b, 2, 512) == want  # prefetches past the end: hints


def test_the_report_names_the_prefetches_and_what_they_cost():
    from ea_compiler.inspect.render import prediction_lines
    analysis, module = compile_source(dot(4, [256, 512]).encode(), "dot.ea", ZEN3)
    fp = predict_function(analysis, module, "dot", working_set_bytes=1 << 28, memory=MEM)
    main = max(fp.loops, key=lambda lp: lp.elements_per_iter or 0)
    assert main.prefetch_ahead == [1024, 2048] and main.prefetch_slowdown == {"L3": 2.0}
    assert ("      per iteration: prefetches 1024 B and 2048 B ahead of 2 streams: their bytes take x2 the time "
            "from the L3 (measured)") in prediction_lines(fp)
    bare = MemoryModel(CACHES, READS, ghz=3.0, call_cycles=12.0, source="fixed")
    fp = predict_function(analysis, module, "dot", working_set_bytes=1 << 28, memory=bare)
    assert ("      per iteration: prefetches 1024 B and 2048 B ahead of 2 streams (not calibrated: no time "
            "counted for them)") in prediction_lines(fp)
