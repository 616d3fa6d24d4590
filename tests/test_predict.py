"""Predicted cycles per loop iteration (compiler/inspect/predict/, issue 23 §1):
llvm-mca's model of the pinned target for the core, a fixed memory model
(not this machine's calibration) for the cache levels, so the text is the
same on every host. Exact figures need llvm-mca 14 or 16 (.ci/system-deps.sh
installs llvm-16); without it those tests skip and the rough fallback is tested."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import clear_report_cache, inspect, predict_function, render_text
from ea_compiler.inspect.predict import Limit, MemoryModel, mca
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed")
ZEN3 = Options(target_cpu="znver3")

_found = mca.available()
# LLVM 14 and 16 give these loops the same figures on znver3 (the model did not change between them).
needs_mca = pytest.mark.skipif(_found is None or _found[1] not in ("llvm-mca 14", "llvm-mca 16"),
                               reason="exact figures are llvm-mca 14's and 16's (apt-get install llvm-16; found "
                                      f"{_found[1] if _found else 'no llvm-mca'})")
MODEL = _found[1] if _found else None

SOFTMAX = textwrap.dedent("""\
    // exp(x - max) of each element and their sum, as softmax does.
    export func softmax_exp(x: *restrict f32, out: *restrict mut f32, m: f32, n: i32) -> f32 {
        let mut s: f32 = 0.0
        let mut i: i32 = 0
        while i + 8 <= n {
            let e: f32x8 = exp(load_f32x8(x, i) .- splat(m))
            store(out, i, e)
            s = s + reduce_add(e)
            i = i + 8
        }
        while i < n {
            let e: f32 = exp(x[i] - m)
            out[i] = e
            s = s + e
            i = i + 1
        }
        return s
    }
""")


def _prediction_block(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("  predicted"))
    return [ln for ln in lines[start:] if ln.strip()]


@needs_mca
def test_softmax_names_the_calls_not_vectorisation_or_memory():
    report = inspect(SOFTMAX, "softmax.ea", ZEN3, predict=True, memory=MEM)
    text = render_text(report)
    assert _prediction_block(text) == [
        f"  predicted: {MODEL} znver3; memory fixed; arrays 16-byte aligned (NumPy)",
        "    loop 1 main (8 elements): calls 114.36 c/iter at every size",
        "      per iteration: calls expf x8 (96 cycles); 11 spills and 17 reloads (stack traffic, not the kernel's)",
        "    loop 2 tail (1 element): calls 15.55 c/iter at every size",
        "      per iteration: calls expf x1 (12 cycles); 2 spills and 3 reloads (stack traffic, not the kernel's)",
        "    loop 3 tail (8 elements): calls 116.05 c/iter at every size",
        "      per iteration: calls expf x8 (96 cycles); 8 spills and 16 reloads (stack traffic, not the kernel's)",
    ]
    # The xmm reloads of the tail are spills, not LLVM vectorising it; spill traffic is not the kernel's.
    assert "vectorised by LLVM" not in text and "memory-bound" not in text and "memory-heavy" not in text
    assert "  1     main  5-8           66      36     18      13    0          64           8  call-bound" in text
    hints = [h.message for h in report.functions[0].hints]
    assert hints[0] == ("the loop at lines 5-8 calls expf 8 times per iteration: the calls, not memory, bound it; "
                        "its 28 spill/reload instruction(s) keep values across the calls (a call clobbers every "
                        "vector register)")
    assert not any("fewer live vectors" in h for h in hints)
    main = report.functions[0].loops[0]
    assert main.calls == {"expf": 8} and (main.spills, main.reloads) == (11, 17)


def test_softmax_runs(tmp_path):
    import ea
    path = tmp_path / "softmax.ea"
    path.write_text(SOFTMAX)
    k = ea.load(path)
    x = np.linspace(-3, 3, 21, dtype=np.float32)  # 2 vector iterations and a tail of 5
    out = np.zeros_like(x)
    s = k.softmax_exp(x, out, 3.0)
    want = np.exp(x - np.float32(3.0))
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert s == pytest.approx(float(want.sum()), rel=1e-5)


@needs_mca
def test_dot_binding_limit_depends_on_the_working_set():
    analysis, module = compile_source((ROOT / "examples/dot.ea").read_bytes(), "dot.ea", ZEN3)
    l1 = predict_function(analysis, module, "dot", working_set_bytes=16 << 10, memory=MEM, alignment=64).main
    dram = predict_function(analysis, module, "dot", working_set_bytes=128 << 20, memory=MEM, alignment=64).main
    assert (l1.limit, l1.level, l1.cycles_per_iter) == (Limit.PORTS, Limit.L1, 4.07)
    # 256 bytes at 4 a cycle, the core's 4.07 overlapped with them (loop.overlapped): 64.01; in the L3
    # the port-bound core overlaps its 16 cycles too: 16.09
    assert (dram.limit, dram.level, dram.cycles_per_iter) == (Limit.DRAM, Limit.DRAM, 64.01)
    assert l1.elements_per_iter == 32 and l1.bytes_per_iter == 256 and l1.label == ".LBB0_2"
    assert (l1.first_line, l1.last_line, l1.role, l1.rough) == (8, 12, "main", False)
    assert [(r.limit.value, r.low, r.high, r.cycles_per_iter) for r in dram.ranges] == [
        ("ports", 0, 32 << 10, 4.07), ("L2", (32 << 10) + 1, 512 << 10, 8.0),
        ("L3", (512 << 10) + 1, 32 << 20, 16.09), ("DRAM", (32 << 20) + 1, None, 64.01)]
    assert l1.ports["Zn3Load"] == 8.0  # eight 32-byte loads per iteration on Zen 3's load pipes
    report = inspect((ROOT / "examples/dot.ea").read_text(), "dot.ea", ZEN3, predict=True,
                     working_set_bytes=128 << 20, memory=MEM, alignment=64)
    assert _prediction_block(render_text(report))[1] == (
        "    loop 1 main (32 elements): 64.01 c/iter at 128M (DRAM bandwidth); ports 4.07 c/iter up to 32K, "
        "L2 bandwidth 8 to 512K, L3 bandwidth 16.09 to 32M, DRAM bandwidth 64.01 beyond 32M")


@needs_mca
def test_numpy_placement_splits_half_the_loads_of_dot():
    analysis, module = compile_source((ROOT / "examples/dot.ea").read_bytes(), "dot.ea", ZEN3)
    numpy = predict_function(analysis, module, "dot", working_set_bytes=16 << 10, memory=MEM).main
    # Arrays 16 bytes past a line: half of the eight 32-byte loads cross a line; two read streams in
    # L1 take SPLIT_RATIOS["read2"]["L1"] (1.5) times as long as on a line: 256 / 64 x 1.5.
    assert (numpy.limit, numpy.cycles_per_iter) == (Limit.L1, 6.0)
    assert numpy.by_level["L2"] == 8.0  # a line moves whole beyond L1
    on32 = predict_function(analysis, module, "dot", working_set_bytes=16 << 10, memory=MEM, alignment=32).main
    assert on32.cycles_per_iter == 4.07  # 32-byte loads 32 bytes past a line cross none
    report = inspect((ROOT / "examples/dot.ea").read_text(), "dot.ea", ZEN3, predict=True, memory=MEM)
    assert report.functions[0].prediction.to_json()["alignment"] == 16


@needs_mca
def test_carried_chain_is_latency_bound():
    analysis, module = compile_source((ROOT / "examples/dot.ea").read_bytes(), "dot.ea", ZEN3)
    tail = predict_function(analysis, module, "dot", memory=MEM).loops[1]
    # one scalar FMA per iteration into one accumulator: Zen 3's FMA latency, 4 cycles
    assert (tail.role, tail.limit, tail.ports_cycles, tail.latency_cycles) == ("tail", Limit.LATENCY, 1.0, 4.05)


def test_maddubs_and_madd_count_as_operations():
    report = inspect((ROOT / "examples/dot_i8.ea").read_text(), "dot_i8.ea", ZEN3)
    fr = report.functions[0]
    main = fr.main_loop
    assert main.mix["vpmaddubsw ymm"] == 4 and main.mix["vpmaddwd ymm"] == 4
    # vpmaddubsw ymm: 16 i16 lanes x 2 multiply-adds x 2 ops; vpmaddwd ymm: 8 i32 lanes x 2 x 2
    assert main.per_iteration.flops == 4 * 64 + 4 * 32
    assert fr.counts.flops == 560


@pytest.mark.parametrize("mnemonic, operands, ops", [
    ("vpmaddubsw", ["%xmm1", "%xmm2", "%xmm3"], 32),
    ("vpmaddubsw", ["%zmm1", "%zmm2", "%zmm3"], 128),
    ("vpmaddwd", ["%xmm1", "%xmm2", "%xmm3"], 16),
    ("pmaddwd", ["%xmm1", "%xmm2"], 16),
    ("vpmaddwd", ["(%rdi)", "%ymm2", "%ymm3"], 32),
])
def test_x86_integer_multiply_adds(mnemonic, operands, ops):
    from ea_compiler.inspect.asm import Instr
    from ea_compiler.inspect.classify import classify_x86
    assert classify_x86(Instr(0, mnemonic, operands, None)).flops == ops


def test_arm_dot_products_count_as_operations():
    from ea_compiler.inspect.asm import Instr
    from ea_compiler.inspect.classify import classify_arm
    assert classify_arm(Instr(0, "sdot", ["v0.4s", "v1.16b", "v2.16b"], None)).flops == 32
    assert classify_arm(Instr(0, "mla", ["v0.8h", "v1.8h", "v2.8h"], None)).flops == 16


def test_calls_are_named_by_the_classifier():
    from ea_compiler.inspect.asm import Instr
    from ea_compiler.inspect.classify import classify_arm, classify_x86
    assert classify_x86(Instr(0, "callq", ["expf@PLT"], None)).call == "expf"
    assert classify_arm(Instr(0, "bl", ["expf"], None)).call == "expf"


def test_rough_fallback_without_llvm_mca(monkeypatch):
    monkeypatch.setenv("EA_LLVM_MCA", "none")
    clear_report_cache()  # a report of the same text made with llvm-mca may be cached
    report = inspect((ROOT / "examples/dot.ea").read_text(), "dot.ea", ZEN3, predict=True, memory=MEM)
    fp = report.functions[0].prediction
    assert fp.rough and all(lp.rough for lp in fp.loops)
    block = _prediction_block(render_text(report))
    assert block[0] == ("  predicted (rough): machine.py estimate, llvm-mca disabled by EA_LLVM_MCA=none; memory fixed; "
                        "arrays 16-byte aligned (NumPy)")
    assert block[1] == ("    loop 1 main (32 elements): L1 bandwidth 6 c/iter up to 32K, L2 bandwidth 8 to 512K, "
                        "L3 bandwidth 16.08 to 32M, DRAM bandwidth 64.01 beyond 32M (rough)")
    assert all(ln.endswith("(rough)") for ln in block[1:])


@pytest.mark.skipif(_found is None, reason="llvm-mca not installed (apt-get install llvm-16)")
def test_rough_for_a_cpu_without_a_model():
    report = inspect((ROOT / "examples/dot.ea").read_text(), "dot.ea", Options(target_cpu="generic"),
                     predict=True, memory=MEM)
    fp = report.functions[0].prediction
    assert fp.rough and fp.model == "machine.py estimate, no scheduling model for 'generic'"
    assert "predicted (rough)" in render_text(report)


def test_calibration_cached_per_cpu(tmp_path, monkeypatch):
    from ea_compiler.inspect.predict import DEFAULT, load_calibration, memory_for
    from ea_compiler.inspect.predict.memory import calibration_path, save_calibration
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert load_calibration() is None and memory_for(Options()) is DEFAULT
    save_calibration(MEM)
    assert calibration_path().parent == tmp_path / "ea-bench"
    assert load_calibration() == MEM and memory_for(Options()) == MEM  # the host: its calibration
    assert memory_for(Options(target_cpu="x86-64-v2")) is DEFAULT  # another CPU: not this machine's figures
    given = memory_for(Options(), bandwidth_gbs=12.0)
    assert given.bytes_per_cycle["DRAM"] == 4.0 and given.bytes_per_cycle["L2"] == 32.0


def test_memory_levels_by_working_set():
    assert [MEM.level(ws).value for ws in (None, 1, 32 << 10, (32 << 10) + 1, 512 << 10, 32 << 20, 1 << 30)] == \
        ["L1", "L1", "L1", "L2", "L2", "L3", "DRAM"]


def test_the_l3_serves_less_as_the_working_set_nears_its_size():
    shares = [MEM.last_level_share(ws) for ws in (None, 4 << 20, 12 << 20, 16 << 20, 32 << 20, 40 << 20, 1 << 30)]
    assert shares[:3] == [1.0, 1.0, 1.0] and shares[5:] == [0.0, 0.0]  # up to 0.4 of the L3; from 1.2 times it
    assert shares[3] == pytest.approx(0.797, abs=1e-3) and shares[4] == pytest.approx(0.166, abs=1e-3)


@needs_mca
def test_dot_at_the_l3_size_takes_most_of_its_bytes_from_dram():
    analysis, module = compile_source((ROOT / "examples/dot.ea").read_bytes(), "dot.ea", ZEN3)
    at = {ws: predict_function(analysis, module, "dot", working_set_bytes=ws, memory=MEM, alignment=64).main
          for ws in (8 << 20, 32 << 20, 48 << 20, 128 << 20)}
    # L3 16.09, DRAM 64.01 (the port-bound core's time overlapped with both): share 1, 0.17, 0
    assert [at[ws].cycles_per_iter for ws in sorted(at)] == [16.09, 56.06, 64.01, 64.01]
    assert [at[ws].level for ws in sorted(at)] == [Limit.L3, Limit.L3, Limit.DRAM, Limit.DRAM]
    assert at[32 << 20].limit is Limit.DRAM  # most of its bytes: what binds is DRAM's bandwidth


@needs_mca
def test_a_nested_loops_ranges_say_what_its_figure_at_each_size_says():
    """matmul ikj's j loop reads rows of C (kept close) and a row of B the k loop moves on: its
    figure at a size follows the rows' level and B's walk, and so do the ranges it prints."""
    src = (ROOT / "bench/predict_kernels/calls_matmul.ea").read_bytes()
    analysis, module = compile_source(src, "calls_matmul.ea", ZEN3)
    at = {}
    for ws in (16 << 10, 192 << 10, 8 << 20, 128 << 20):
        fp = predict_function(analysis, module, "matmul_ikj", working_set_bytes=ws, memory=MEM, alignment=64)
        at[ws] = next(lp for lp in fp.loops if lp.elements_per_iter == 8)
    ranges = {(r.limit.value, r.low, r.high, r.cycles_per_iter) for ws in at for r in at[ws].ranges}
    assert sorted(ranges, key=lambda r: r[1]) == [("L1", 0, 32 << 20, 2.0), ("DRAM", (32 << 20) + 1, None, 8.0)]
    assert [(at[ws].limit, at[ws].cycles_per_iter) for ws in at] == [(Limit.L1, 2.0)] * 3 + [(Limit.DRAM, 8.0)]

def test_incremental_inspect_predicts_too(monkeypatch):
    from ea_compiler import analyze
    from ea_compiler.inspect.incremental import inspect_function
    monkeypatch.setenv("EA_LLVM_MCA", "none")  # the same with or without llvm-mca
    analysis = analyze((ROOT / "examples/dot.ea").read_text(), "dot.ea", ZEN3)
    assert inspect_function(analysis, "dot").prediction is None
    fp = inspect_function(analysis, "dot", predict=True).prediction
    assert fp.main.role == "main" and fp.main.elements_per_iter == 32 and fp.rough
