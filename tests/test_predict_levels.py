"""What a loop's prediction takes from the level its data lives in
(compiler/inspect/predict/loop.py, memory.py): spills and reloads add their
L1 time with the data in L2 or the L3, and the L3's figure at a working set
lies between its near and far calibrations."""
from __future__ import annotations

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import MemoryModel
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
    for level in ("L2", "L3"):  # both memory-bound there: the stack's time on top of the kernel's bytes
        assert spilled.by_level[level] == pytest.approx(per_4 * plain.by_level[level] + stack, abs=0.05)
    # From DRAM the stack's accesses hide in the waits: the same time per element as without them.
    assert spilled.by_level["DRAM"] == pytest.approx(per_4 * plain.by_level["DRAM"], abs=0.05)


def test_the_l3_figure_lies_between_its_near_and_far_calibration():
    far_ws = CACHES["L3"] // 4
    near, middle, far = (main_loop(dot(4), ws, NEAR).cycles_per_iter for ws in (2 << 20, 4 << 20, far_ws))
    assert near == pytest.approx(256 / 24.0, abs=0.01)  # 256 bytes an iteration from two streams
    assert far == pytest.approx(256 / 16.0, abs=0.01)
    assert middle == pytest.approx((near + far) / 2, abs=0.01)  # halfway in log2 of the set
    assert main_loop(dot(4), 1 << 20, NEAR).cycles_per_iter == near  # below the near set: its figure
    # Without the near calibration (one taken before it existed) the far figure serves every set.
    assert main_loop(dot(4), 2 << 20, MEM).cycles_per_iter == far


def test_the_near_figure_is_saved_and_a_model_without_it_uses_the_far_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    save_calibration(NEAR)
    assert load_calibration() == NEAR
    assert NEAR.bandwidth("copy", NEAR_L3) == MEM.bandwidth("copy", "L3") * 24.0 / 16.0
    assert MEM.bandwidth("read", NEAR_L3) == MEM.bandwidth("read", "L3")
    assert MEM.l3_far_weight(2 << 20) == 1.0 and NEAR.l3_far_weight(2 << 20) == 0.0
