"""What a loop's prediction takes from the level its data lives in
(compiler/inspect/predict/loop.py, memory.py): spills and reloads add their
L1 time with the data in L2 or the L3, the L3's figure at a working set
lies between its near and far calibrations, and a port-bound core's time
overlaps the L3's only in part, unless a chain binds it."""
from __future__ import annotations

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import MemoryModel
from ea_compiler.inspect.predict.loop import overlapped
from ea_compiler.inspect.predict.memory import NEAR_L3, load_calibration, save_calibration
from ea_compiler.options import Options

from inspect_support import dot_source as dot

ZEN3 = Options(target_cpu="znver3")
CACHES = {"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20}
READS = {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}
MEM = MemoryModel(CACHES, READS, ghz=3.0, call_cycles=12.0, source="fixed")
NEAR = MemoryModel(CACHES, {**READS, NEAR_L3: 24.0}, ghz=3.0, call_cycles=12.0, source="fixed",
                   l3_near_bytes=2 << 20)


def main_loop(source: str, ws: int, memory: MemoryModel):
    analysis, module = compile_source(source.encode(), "dot.ea", ZEN3)
    fp = predict_function(analysis, module, "dot", working_set_bytes=ws, memory=memory)
    return max(fp.loops, key=lambda lp: lp.elements_per_iter or 0)


def test_spills_and_reloads_add_their_l1_time_in_l2_and_l3_only():
    plain, spilled = (main_loop(dot(k), 256 << 10, MEM) for k in (4, 24))
    assert plain.spills == 0 and spilled.spills > 0 and spilled.reloads > 0
    stack = 32 * (spilled.spills + spilled.reloads) / MEM.bandwidth("copy", "L1")
    per_4 = spilled.elements_per_iter / plain.elements_per_iter  # iterations of the 4-accumulator loop
    # Both memory-bound there: the stack's time on top of the kernel's bytes (256 an iteration of the
    # 4-accumulator loop: 8 cycles in L2, 16 in the L3, where the port-bound core overlaps it).
    assert spilled.by_level["L2"] == pytest.approx(per_4 * 8.0 + stack, abs=0.05)
    assert spilled.by_level["L3"] == pytest.approx(overlapped(spilled.latency_cycles, per_4 * 16.0 + stack, "L3"),
                                                   abs=0.05)
    # From DRAM the stack's accesses hide in the waits: the same time per element as without them.
    assert spilled.by_level["DRAM"] == pytest.approx(per_4 * plain.by_level["DRAM"], abs=0.05)


def test_the_l3_figure_lies_between_its_near_and_far_calibration():
    far_ws = CACHES["L3"] // 4
    near, middle, far = (main_loop(dot(4), ws, NEAR).cycles_per_iter for ws in (2 << 20, 4 << 20, far_ws))
    core = main_loop(dot(4), far_ws, NEAR).latency_cycles  # bound by its load ports: it overlaps the L3's time
    assert near == pytest.approx(overlapped(core, 256 / 24.0, NEAR_L3), abs=0.01)  # 256 bytes from two streams
    assert far == pytest.approx(overlapped(core, 256 / 16.0, "L3"), abs=0.01)
    assert middle == pytest.approx((near + far) / 2, abs=0.01)  # halfway in log2 of the set
    assert main_loop(dot(4), 1 << 20, NEAR).cycles_per_iter == near  # below the near set: its figure
    # Without the near calibration (one taken before it existed) the far figure serves every set.
    assert main_loop(dot(4), 2 << 20, MEM).cycles_per_iter == far


def test_in_the_l3_a_core_bound_by_a_chain_does_not_overlap_the_memory_time():
    # Two accumulators: the fma chain (4.05 cycles) binds the core, and the loads run ahead of it:
    # the larger of core and memory (128 bytes at 24 a cycle: 5.33). Four: the load ports (4.0) bind,
    # and they are what moves the bytes: the two overlap less (10.67 -> 10.86).
    chain, ports = main_loop(dot(2), 2 << 20, NEAR), main_loop(dot(4), 2 << 20, NEAR)
    assert chain.latency_cycles > chain.ports_cycles * 1.1 and chain.cycles_per_iter == round(128 / 24.0, 2)
    assert ports.latency_cycles < ports.ports_cycles * 1.1
    assert ports.cycles_per_iter == pytest.approx(overlapped(ports.latency_cycles, 256 / 24.0, NEAR_L3), abs=0.01)
    assert ports.cycles_per_iter > round(256 / 24.0, 2) + 0.15


def test_the_near_figure_is_saved_and_a_model_without_it_uses_the_far_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    save_calibration(NEAR)
    assert load_calibration() == NEAR
    assert NEAR.bandwidth("copy", NEAR_L3) == MEM.bandwidth("copy", "L3") * 24.0 / 16.0
    assert MEM.bandwidth("read", NEAR_L3) == MEM.bandwidth("read", "L3")
    assert MEM.l3_far_weight(2 << 20) == 1.0 and NEAR.l3_far_weight(2 << 20) == 0.0
