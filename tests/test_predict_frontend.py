"""The front end's share of a loop iteration (compiler/inspect/predict/frontend.py): op-cache
fetches from where the loop's instructions sit in 64-byte windows, times the machine's cycles
per fetch (calibrated, or the Zen 3 default). The rule is checked on placements made up here
and on kernels compiled for a pinned znver3 target; the cycles per fetch come from a fixed
memory model or a calibration file in a temporary cache folder, never this host's."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function, render_text, inspect
from ea_compiler.inspect.predict import DEFAULT, Limit, MemoryModel, load_calibration, mca
from ea_compiler.inspect.predict.frontend import DEFAULT_FETCH_CYCLES, fetches, objdump, wide_fields
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
STREAMING = ROOT / "bench" / "predict_kernels" / "streaming.ea"
MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed",
                  fetch_cycles=1.5)
ZEN3 = Options(target_cpu="znver3", stream_threshold=0)  # the code as written: no streaming copy of the main loop (codegen/ntauto.py)

_found = mca.available()
needs_tools = pytest.mark.skipif(_found is None or _found[1] not in ("llvm-mca 14", "llvm-mca 16") or objdump() is None,
                                 reason="needs llvm-mca 14/16 and a disassembler (apt-get install llvm-16)")

# (offset, size) and mnemonics of a made-up loop: load, store, add, cmp+jbe (4 ops after fusion).
COPY = ["vmovups", "vmovups", "addq", "cmpq", "jbe"]
SIZES = [5, 5, 4, 3, 2]


def _placed(start: int, sizes=SIZES) -> list[tuple[int, int]]:
    out, at = [], start
    for size in sizes:
        out.append((at, size))
        at += size
    return out


def test_a_loop_inside_one_window_is_one_fetch_and_one_that_crosses_is_two():
    # Measured on Zen 3: this 19-byte loop at 44 bytes past a window ran at 1.0 cycles, at 48 at 2.0.
    assert fetches(_placed(44), COPY, list(range(5))) == 1
    assert fetches(_placed(48), COPY, list(range(5))) == 2
    assert fetches(_placed(64 + 44), COPY, list(range(5))) == 1


def test_a_window_the_bytes_only_touch_is_a_fetch_too():
    # cmpq at 61..63 in the first window, the jbe fused with it at 64..65 in the next.
    assert fetches(_placed(47), COPY, list(range(5))) == 2
    # The first vmovups at 60..64 reaches into the next window (measured: 2.06 cycles at 60).
    assert fetches(_placed(60), COPY, list(range(5))) == 2
    # Without a compare before it the jump is an op of its own (here in the first window).
    assert fetches(_placed(0, [5, 5, 4, 3, 2]), ["vmovups", "vmovups", "addq", "decq", "jne"], list(range(5))) == 1


def test_more_than_eight_ops_in_a_window_take_a_second_fetch():
    mnemonics = ["vpaddd"] * 7 + ["cmpq", "jbe"]  # 8 ops: one fetch
    assert fetches(_placed(0, [4] * 7 + [3, 2]), mnemonics, list(range(9))) == 1
    mnemonics = ["vpaddd"] * 8 + ["cmpq", "jbe"]  # 9 ops
    assert fetches(_placed(0, [4] * 8 + [3, 2]), mnemonics, list(range(10))) == 2


def test_32_bit_displacements_after_the_first_take_a_slot():
    # LLVM's copy loop with two register ops added: 9 instructions, 8 ops (bench/opcache_bench.py, panel ops).
    mnemonics = ["vmovups", "vmovups", "vpaddd", "vpaddd", "movq", "addq", "addq", "cmpq", "jbe"]
    placed = _placed(0, [5, 5, 4, 4, 3, 4, 4, 3, 2])
    path = list(range(9))
    assert fetches(placed, mnemonics, path) == 1  # measured 1.42 cycles
    assert fetches(placed, mnemonics, path, [1] + [0] * 8) == 1  # one load with a 32-bit displacement: 1.42
    assert fetches(placed, mnemonics, path, [1, 1] + [0] * 7) == 2  # the load and the store: 2.05
    assert fetches(placed[1:], mnemonics[1:], path[:-1], [1, 1] + [0] * 6) == 1  # 7 ops and two: 1.26
    assert wide_fields(["-64(%rsi,%rcx,4)", "%ymm3"], "vpmovsxdq") == 0
    assert wide_fields(["512(%rsi,%rcx,4)", "%ymm3"], "vmovups") == 1
    assert wide_fields([".LCPI0_0(%rip)", "%ymm1", "%ymm2"], "vpmaxud") == 1
    assert wide_fields(["$16", "%r8"], "addq") == 0 and wide_fields(["$2147483640", "%edx"], "andl") == 1
    assert wide_fields(["$8", "%r8d"], "movl") == 1


def test_a_taken_jump_inside_the_body_starts_a_new_fetch():
    # The path skips instruction 2 (a block off the likely path): the jump to 3 is taken.
    mnemonics = ["vmovups", "jne", "vaddps", "vmovups", "cmpq", "jbe"]
    placed = _placed(0, [5, 2, 4, 5, 3, 2])
    assert fetches(placed, mnemonics, [0, 1, 3, 4, 5]) == 2
    assert fetches(placed, mnemonics, [0, 1, 2, 3, 4, 5]) == 1


@needs_tools
def test_a_store_loop_that_crosses_a_window_is_front_end_bound_at_the_models_cycles_per_fetch():
    analysis, module = compile_source(STREAMING.read_bytes(), str(STREAMING), ZEN3)
    add = predict_function(analysis, module, "add_f32", memory=MEM, alignment=64).main
    assert (add.fetches, add.front_end_cycles, add.cycles_per_iter, add.limit) == (2, 3.0, 3.0, Limit.FRONT_END)
    assert add.ports_cycles < 2  # what llvm-mca alone says
    assert add.ranges[0].limit is Limit.FRONT_END and add.to_json()["limit"] == "front end"
    # copy_f32's loop fits one window: one fetch, and its L1 traffic (64 bytes at this model's 48
    # a cycle for a copy) takes longer.
    copy = predict_function(analysis, module, "copy_f32", memory=dataclasses.replace(MEM, fetch_cycles=1.0),
                            alignment=64).main
    assert (copy.fetches, copy.front_end_cycles, copy.cycles_per_iter, copy.limit) == (1, 1.0, 1.33, Limit.L1)
    # Without the front end's share (cycles per fetch 0) add_f32 is bound by its L1 traffic (96 bytes).
    off = predict_function(analysis, module, "add_f32", memory=dataclasses.replace(MEM, fetch_cycles=0.0),
                           alignment=64).main
    assert (off.front_end_cycles, off.cycles_per_iter, off.limit) == (0.0, 2.0, Limit.L1)


@needs_tools
def test_the_report_names_the_front_end():
    text = render_text(inspect(STREAMING.read_bytes(), str(STREAMING), ZEN3, predict=True, memory=MEM, alignment=64))
    block = [ln for ln in text.splitlines() if ln.startswith("    loop 1 main")]
    assert block[2] == ("    loop 1 main (8 elements): front end 3 c/iter up to 32K, L2 bandwidth 4 to 512K, "
                        "L3 bandwidth 8.14 to 32M, DRAM bandwidth 32.01 beyond 32M")  # the core's 3 overlapped with the L3's and DRAM's


def test_other_cpus_have_no_front_end_share():
    # The rule is Zen's (64-byte op-cache windows); for Intel cores it is not applied.
    analysis, module = compile_source(STREAMING.read_bytes(), str(STREAMING), Options(target_cpu="haswell", stream_threshold=0))
    add = predict_function(analysis, module, "add_f32", memory=MEM, alignment=64).main
    assert add.fetches is None and add.front_end_cycles == 0.0 and add.limit is not Limit.FRONT_END


def test_the_default_and_a_calibration_without_the_figure_use_the_zen3_default(tmp_path, monkeypatch):
    assert DEFAULT.fetch_cycles == DEFAULT_FETCH_CYCLES == 1.0
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from ea_compiler.inspect.predict.memory import calibration_path, save_calibration
    old = {k: v for k, v in dataclasses.asdict(MEM).items() if k != "fetch_cycles"}  # written before the rule
    calibration_path().parent.mkdir(parents=True)
    calibration_path().write_text(json.dumps(old))
    assert load_calibration().fetch_cycles == DEFAULT_FETCH_CYCLES
    save_calibration(dataclasses.replace(MEM, fetch_cycles=2.0))
    assert load_calibration().fetch_cycles == 2.0


@needs_tools
def test_a_calibrated_figure_is_what_the_prediction_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from ea_compiler.inspect.predict.memory import save_calibration
    save_calibration(dataclasses.replace(MEM, fetch_cycles=2.0))  # a core whose other thread was busy
    analysis, module = compile_source(STREAMING.read_bytes(), str(STREAMING), ZEN3)
    add = predict_function(analysis, module, "add_f32", memory=load_calibration(), alignment=64).main
    assert (add.fetches, add.cycles_per_iter, add.limit) == (2, 4.0, Limit.FRONT_END)


def test_the_calibration_kernel_computes_what_it_says(tmp_path):
    # fetchloop ors each lane's elements together, `reps` times over (ea.load, this host).
    from ea_compiler.bench.calibrate import SOURCE
    from ea_compiler.loader import load
    source = tmp_path / "calibrate.ea"
    source.write_bytes(SOURCE.read_bytes())
    k = load(source)
    a = np.random.default_rng(3).integers(0, 1 << 20, 64, dtype=np.int32)
    lanes = np.bitwise_or.reduce(a.reshape(-1, 8), axis=0)
    assert k.fetchloop(a, 8) == int(lanes.astype(np.int64).sum().astype(np.int32))
    assert k.fetchloop(a, 0) == 0
