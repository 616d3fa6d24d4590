"""Corrections to llvm-mca's model where measurements disagree (compiler/inspect/predict/pipes.py):
on znver3 the FP load pipes and the vector-to-integer moves are two resources, not the one pair
Zn3FPP45 the model shares, and every FMA takes half a cycle of the store-data pipe Zn3FPSt.
Checked on made-up timings, on the written-out gather of bench/predict_kernels/gather_stencil.ea
and on y = x * a + b with and without `fma`, compiled for a pinned znver3 target."""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import MemoryModel, mca
from ea_compiler.inspect.predict.mca import BlockTiming
from ea_compiler.inspect.predict.pipes import SHARED, STORE_DATA, corrected_ports, is_fma, is_move_to_integer
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed")
_found = mca.available()
needs_mca = pytest.mark.skipif(_found is None or _found[1] not in ("llvm-mca 14", "llvm-mca 16"),
                               reason="needs llvm-mca 14 or 16 (apt-get install llvm-16)")


def _timing(usage: list[dict[str, float]], rthroughput: float) -> BlockTiming:
    ports: dict[str, float] = {}
    for u in usage:
        for name, busy in u.items():
            ports[name] = ports.get(name, 0.0) + busy
    return BlockTiming(rthroughput, rthroughput, ports, [], {SHARED: 2, "Zn3FPP1": 1, "Zn3Load": 3}, usage, 1.0)


def test_moves_and_loads_no_longer_add_up_on_the_shared_pair():
    # 8 moves (2 cycles of the pair each) and 8 loads (1 each): the model's 24 / 2 = 12 cycles;
    # measured like 8 moves alone (one a cycle): 8.
    usage = [{SHARED: 2.0}] * 8 + [{SHARED: 1.0, "Zn3Load": 1.0}] * 8
    moves = [True] * 8 + [False] * 8
    assert corrected_ports(_timing(usage, 12.0), moves) == 8.0
    # Another resource still binds where it takes longer.
    busy = usage + [{"Zn3FPP1": 10.0}]
    assert corrected_ports(_timing(busy, 12.0), moves + [False]) == 10.0
    # Without moves nothing changes: loads alone run two a cycle on the pair, as the model says.
    assert corrected_ports(_timing(usage[8:], 4.0), moves[8:]) == 4.0


def test_what_counts_as_a_move_to_an_integer_register():
    assert is_move_to_integer("vmovq", ["%xmm3", "%rdi"], loads=False)
    assert is_move_to_integer("vpextrq", ["$1", "%xmm3", "%rdx"], loads=False)
    assert not is_move_to_integer("vmovq", ["%rdi", "%xmm3"], loads=False)  # the other way
    assert not is_move_to_integer("vmovss", ["(%rdi)", "%xmm4"], loads=True)
    assert not is_move_to_integer("movq", ["%rcx", "%r8"], loads=False)


@needs_mca
def test_the_written_out_gather_is_bound_by_its_moves_not_the_models_shared_pipes():
    path = ROOT / "bench" / "predict_kernels" / "gather_stencil.ea"
    analysis, module = compile_source(path.read_bytes(), str(path), Options(target_cpu="znver3"))
    lp = predict_function(analysis, module, "gather_sum", memory=MEM, alignment=64).main
    # 16 vmovq/vpextrq a trip (16 elements): 16 cycles; the model alone said 26 (its pair: 52 cycles of
    # moves and loads), its simulation 32.1 of which 6.1 beyond the pair stay. Measured: 20.1-21.3.
    assert lp.ports_cycles == 16.0
    assert lp.latency_cycles == lp.cycles_per_iter == pytest.approx(22.1, abs=0.1)


def test_fmas_take_half_a_cycle_of_the_store_data_pipe():
    # Four loads, four FMAs, four stores (y = x * a + b, 128-bit, unrolled x4): the model's pair
    # 8 / 2 = 4 cycles and store data 4; measured 5.6-6.1 (bench/opcache_bench.py, panel fma).
    loads, fmas, stores = [{SHARED: 1.0}] * 4, [{"Zn3FPP1": 0.5}] * 4, [{SHARED: 1.0, STORE_DATA: 1.0}] * 4
    timing = _timing(loads + fmas + stores, 4.0)
    timing.units[STORE_DATA] = 1
    kinds = [False] * 4 + [True] * 4 + [False] * 4
    assert corrected_ports(timing, [False] * 12, kinds) == 6.0
    # Without stores the FMAs have the pipe to themselves: eight of them take 4 cycles of it, no more
    # than the loads beside them (measured 4.0-4.2).
    alone = _timing(loads * 2 + fmas * 2, 4.0)
    alone.units[STORE_DATA] = 1
    assert corrected_ports(alone, [False] * 16, [False] * 8 + [True] * 8) == 4.0
    # A model without the pipe (another CPU) is left as it is.
    other = BlockTiming(4.0, 4.0, {"Zn4FPSt": 4.0}, [], {"Zn4FPSt": 1}, [{"Zn4FPSt": 1.0}] * 12, 1.0)
    assert corrected_ports(other, [False] * 12, kinds) == 4.0


def test_what_counts_as_an_fma():
    assert all(map(is_fma, ("vfmadd132ps", "vfmadd231ss", "vfnmadd213pd", "vfmsubadd231ps", "vfnmsub132ps")))
    assert not any(map(is_fma, ("vmulps", "vaddps", "vpmaddwd", "vpmaddubsw", "vfpclassps")))


SCALE_SHIFT = """
export func {name}(x: *restrict f32, y: *restrict mut f32, n: i32) {{
    let va: f32x4 = splat(1.5)
    let vb: f32x4 = splat(-0.25)
    let mut i: i32 = 0
    while i + 16 <= n {{
        store(y, i, {op0})
        store(y, i + 4, {op4})
        store(y, i + 8, {op8})
        store(y, i + 12, {op12})
        i = i + 16
    }}
}}
"""


@needs_mca
@pytest.mark.parametrize("form, cycles", [("fma(load_f32x4(x, i{k}), va, vb)", 6.0),
                                          ("load_f32x4(x, i{k}) .* va .+ vb", 4.0)])
def test_scale_shift_with_fma_is_bound_by_its_store_data_in_l1(form, cycles):
    # Measured (the same loops through ea.load, 2 x 4 KiB in L1, AMD EPYC Zen 3): 5.9 with fma, 4.0
    # with the multiply and the add; the model alone said 4 for both.
    ops = {f"op{k}": form.format(k=f" + {k}" if k else "") for k in (0, 4, 8, 12)}
    source = SCALE_SHIFT.format(name="k", **ops)
    analysis, module = compile_source(source.encode(), "k.ea", Options(target_cpu="znver3"))
    lp = predict_function(analysis, module, "k", working_set_bytes=8 << 10, memory=MEM, alignment=64).main
    assert lp.ports_cycles == pytest.approx(cycles, abs=0.1)
    assert lp.ports[STORE_DATA] == cycles  # the report's (and --json's) resource figures say which pipe


@needs_mca
def test_the_report_says_when_the_fmas_bind_the_store_data_pipe():
    from ea_compiler.inspect import inspect
    from ea_compiler.inspect.render import render_text
    lines = {}
    for name, form in (("fused", "fma(load_f32x4(x, i{k}), va, vb)"), ("apart", "load_f32x4(x, i{k}) .* va .+ vb")):
        ops = {f"op{k}": form.format(k=f" + {k}" if k else "") for k in (0, 4, 8, 12)}
        report = inspect(SCALE_SHIFT.format(name=name, **ops), f"{name}.ea", Options(target_cpu="znver3"),
                         predict=True, memory=MEM, alignment=64)
        lines[name] = [ln for ln in render_text(report).splitlines() if "per iteration:" in ln]
        assert report.functions[0].prediction.main.store_data_fmas == (4 if name == "fused" else 0)
    assert lines["fused"] == ["      per iteration: 4 FMAs beside the stores bind the store-data pipe "
                              "(6 cycles: an FMA takes half a cycle of it on Zen 3)"]
    assert lines["apart"] == []
