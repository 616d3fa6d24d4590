"""`ea inspect` reports what the user wrote and, apart, what LLVM did: the
vector width of the code written with vector types, elements per iteration
in the element type of the arrays the loop processes, folded-load FMAs as
compute, loops bound by a dependency chain as `latency-bound`, scalar tails
left scalar, and which store each `stream_store` compiled to."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from ea_compiler.build import compile_source
from ea_compiler.inspect import inspect, render_text
from ea_compiler.options import Options
from inspect_support import ARM, AVX2, AVX512, line_of, src

ROOT = Path(__file__).resolve().parent.parent
ZEN4 = Options(target_cpu="znver4", stream_threshold=0)  # no streaming copy (codegen/ntauto.py); AVX-512 CPU whose cost model picks 512-bit vectors for scalar loops


def only(text: str, options: Options, **kw):
    report = inspect(text, "k.ea", options, **kw)
    assert len(report.functions) == 1
    return report.functions[0]


def main_loop(fr):
    (lp,) = [lp for lp in fr.loops if lp.role == "main"]
    return lp


# ---- 1. element type of the data the loop processes --------------------------------

THRESHOLD = src("""
    export kernel threshold(px: *restrict u8, out: *restrict mut u8, t: u8)
        over i in len step 16
        tail scalar {
            if px[i] > t { out[i] = 255 } else { out[i] = 0 }
        }
    {
        let v: u8x16 = load(px, i)
        let hi: u8x16 = splat(255)
        let lo: u8x16 = splat(0)
        let limit: u8x16 = splat(t)
        store(out, i, select(v .> limit, hi, lo))
    }
""")


def test_u8_kernel_counts_u8_elements_and_its_own_width():
    """`vmovdqu` of the u8 array moves 16 elements (not 4 i32), and the width is
    the u8x16 the kernel is written with on every target."""
    for options in (AVX2, AVX512, ZEN4, ARM):
        fr = only(THRESHOLD, options)
        assert main_loop(fr).elements_per_iteration == 16, options
        assert fr.vector_width == "128-bit (u8x16)", (options, fr.vector_width)
        assert fr.auto_vectorised == []


def test_u8_narrow_hint_names_the_wider_u8_type():
    hints = [h.message for h in only(THRESHOLD, AVX2).hints if h.code == "narrow-vectors"]
    assert hints == ["using 128-bit vectors \u2014 u8x32 may double throughput on AVX2"]


WIDEN = src("""
    export kernel normalize(px: *restrict u8, out: *restrict mut f32)
        over i in n step 16
    {
        let bytes: u8x16 = load(px, i)
        let upper: u8x16 = shuffle(bytes, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7])
        store(out, i, widen_u8_f32x8(bytes))
        store(out, i + 8, widen_u8_f32x8(upper))
    }
""")


def test_mixed_element_types_count_each_array_in_its_own_elements():
    fr = only(WIDEN, AVX2)
    assert main_loop(fr).elements_per_iteration == 16
    assert fr.vector_width == "256-bit (f32x8)"


# ---- 2. the width written vs what LLVM did to scalar loops ------------------------

VMAX = src("""
    export func vmax(x: *restrict f32, n: i32) -> f32 {
        let mut best: f32x8 = splat(x[0])
        let mut i: i32 = 0
        while i + 8 <= n {
            best = max(best, load_f32x8(x, i))
            i = i + 8
        }
        let mut m: f32 = reduce_max(best)
        while i < n {
            m = max(m, x[i])
            i = i + 1
        }
        return m
    }
""")


def test_width_written_and_llvm_vectorised_remainder_reported_apart():
    """On znver4 LLVM turns the scalar remainder loop into 4 x zmm; the
    function is still written with f32x8, and its main loop is the f32x8 one."""
    report = inspect(VMAX, "k.ea", ZEN4)
    fr = report.functions[0]
    assert fr.vector_width == "256-bit (f32x8)"
    main = main_loop(fr)
    assert main.first_line <= line_of(VMAX, "best = max") <= main.last_line
    rest = line_of(VMAX, "m = max(m")
    (auto,) = fr.auto_vectorised
    assert (auto.role, auto.width_bits, auto.width_type) == ("tail", 512, "f32x16")
    assert auto.first_line <= rest <= auto.last_line
    text = render_text(report)
    assert re.search(r"^  vector width:         256-bit \(f32x8\)$", text, re.M)
    assert re.search(rf"^  scalar code:          tail at lines \d+-{rest} vectorised by LLVM to 512-bit \(f32x16\)$",
                     text, re.M)
    data = report.to_json()["functions"][0]
    assert data["vector_width"] == "256-bit (f32x8)" and "512-bit (f32x16)" in data["llvm_vectorised"]


FMA8 = src("""
    export kernel fma_kernel(a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32)
        over i in n step 8
        tail scalar { out[i] = fma(a[i], b[i], c[i]) }
    {
        let va: f32x8 = load(a, i)
        let vb: f32x8 = load(b, i)
        let vc: f32x8 = load(c, i)
        store(out, i, fma(va, vb, vc))
    }
""")


def test_f32x8_kernel_on_avx512_is_256_bit():
    fr = only(FMA8, ZEN4)
    assert fr.vector_width == "256-bit (f32x8)"
    assert "zmm" not in " ".join(fr.registers)


# ---- 3. an FMA with a folded load is a load and a compute op -----------------------

def test_folded_load_fma_counts_as_compute():
    """Main loop: vmovups a, vmovups b, vfmadd213ps (c), %ymm, %ymm, vmovups store:
    3 loads and 1 store; the FMA is also the one compute op."""
    fr = only(FMA8, AVX2)
    main = main_loop(fr)
    assert (main.per_iteration.loads, main.per_iteration.stores, main.per_iteration.fma) == (3, 1, 1)
    heavy = [h.message for h in fr.hints if h.code == "memory-heavy"]
    assert heavy == ["memory-heavy: 4 memory ops vs 1 compute ops \u2014 kernel may be bandwidth-bound"]
    line = fr.lines[line_of(FMA8, "store(out")]
    assert line.counts.fma == 1


# ---- 4. latency-bound --------------------------------------------------------------

REDUCTIONS = (ROOT / "examples" / "reductions.ea").read_text(encoding="utf-8")


def _mains(options: Options, **kw) -> dict:
    report = inspect(REDUCTIONS, "reductions.ea", options, **kw)
    return {fr.name: main_loop(fr) for fr in report.functions}


def test_one_accumulator_max_is_latency_bound():
    """max_f32's f32x8 loop: vmaxps and the NaN blend, 5 cycles a turn, carried
    through ymm0, against 32 bytes (4 cycles at 8 bytes per cycle)."""
    for options in (AVX2, AVX512, ZEN4):
        mains = _mains(options)
        mx = mains["max_f32"]
        assert mx.bottleneck == "latency-bound", options
        assert mx.chain.startswith("ymm0: vmaxps -> ") and mx.cycles["latency"] == 5.0
        assert mx.cycles["memory"] == 4.0
        assert mains["min_f32"].bottleneck == "latency-bound"
        # two accumulators: 4 cycles of vaddps per 64 bytes
        assert mains["sum_f32"].bottleneck == "memory-bound"
        assert mains["sum_f32"].cycles["latency"] == 4.0


def test_latency_against_measured_bandwidth():
    """The class compares the chain with the memory time at the bandwidth
    `ea bench` measures: a slow memory system makes the same loop memory-bound."""
    assert _mains(AVX2, bandwidth_gbs=45.0)["max_f32"].bottleneck == "latency-bound"
    assert _mains(AVX2, bandwidth_gbs=25.0)["max_f32"].bottleneck == "latency-bound"
    assert _mains(AVX2, bandwidth_gbs=5.0)["max_f32"].bottleneck == "memory-bound"


def test_latency_hint_and_text():
    report = inspect(REDUCTIONS, "reductions.ea", AVX2)
    fr = next(f for f in report.functions if f.name == "max_f32")
    (hint,) = [h for h in fr.hints if h.code == "latency-chain"]
    assert hint.message.startswith("the loop at lines 26-27 waits on a chain through ymm0: vmaxps -> vblendvps "
                                   "(about 5 cycles per iteration; its memory traffic needs about 4)")
    assert re.search(r"^  1     main  26-27 .* latency-bound$", render_text(report), re.M)


def test_latency_bound_in_cli_json(tmp_path):
    path = tmp_path / "reductions.ea"
    path.write_text(REDUCTIONS, encoding="utf-8")
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "ea"), "inspect", str(path), "--target=haswell", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    fns = {f["name"]: f for f in json.loads(out.stdout)["functions"]}
    loop = next(lp for lp in fns["max_f32"]["loops"] if lp["role"] == "main")
    assert loop["bottleneck"] == "latency-bound" and loop["cycles"] == {"memory": 4.0, "compute": 0.25,
                                                                         "latency": 5.0}
    assert loop["chain"] == "ymm0: vmaxps -> vblendvps"


ONE_ACC_DOT = src("""
    export func dot1(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
        let mut acc: f32x8 = splat(0.0)
        let mut i: i32 = 0
        while i + 8 <= n {
            acc = fma(load_f32x8(a, i), load_f32x8(b, i), acc)
            i = i + 8
        }
        return reduce_add(acc)
    }
""")


def test_fma_chain_and_independent_accumulators():
    """One fma accumulator: 4 cycles per 64 bytes is less than memory's 8,
    so memory-bound at the default bandwidth, latency-bound at 50 GB/s."""
    lp = main_loop(only(ONE_ACC_DOT, AVX2))
    assert lp.chain == "ymm0: vfmadd231ps" and lp.cycles["latency"] == 4.0 and lp.bottleneck == "memory-bound"
    assert main_loop(only(ONE_ACC_DOT, AVX2, bandwidth_gbs=50.0)).bottleneck == "latency-bound"
    dot = (ROOT / "examples" / "dot.ea").read_text(encoding="utf-8")
    assert main_loop(only(dot, AVX2, bandwidth_gbs=50.0)).bottleneck == "memory-bound"  # four accumulators


def test_aarch64_chain():
    text = ONE_ACC_DOT.replace("f32x8", "f32x4").replace("8", "4")
    lp = main_loop(only(text, ARM, bandwidth_gbs=50.0))
    assert lp.chain == "v0: fmla" and lp.bottleneck == "latency-bound"


# ---- 5. scalar tails stay scalar ----------------------------------------------------------

def test_scalar_tail_is_neither_vectorised_nor_unrolled():
    for options in (AVX2, ZEN4, ARM):
        text = FMA8.replace("f32x8", "f32x4").replace("step 8", "step 4") if options is ARM else FMA8
        fr = only(text, options)
        assert [lp.role for lp in fr.loops] == ["main", "tail"], options
        tail = fr.loops[1]
        assert tail.per_iteration.vector == 0 and tail.per_iteration.fma == 1 and tail.per_iteration.stores == 1


def test_only_the_tail_loop_is_kept_from_vectorising():
    """Two marked loops: the main loop (not unrolled, tests/test_kernel_loop_shape.py)
    and the tail (neither vectorised nor unrolled); `vectorize.enable false` once."""
    analysis, module = compile_source(FMA8, "k.ea", AVX2)
    ir = module.ir(optimized=False)
    assert len(re.findall(r"!llvm\.loop !\d+", ir)) == 2
    assert ir.count('!{!"llvm.loop.vectorize.enable", i1 false}') == 1 and '!{!"llvm.loop.unroll.disable"}' in ir


def test_user_scalar_loops_are_still_vectorised():
    """Only desugared `tail scalar` loops are marked: a scalar loop the user
    wrote (a step-1 kernel body, a remainder `while`) is LLVM's to vectorise."""
    step1 = src("""
        export kernel k(x: *restrict f32, out: *restrict mut f32) over i in n step 1 {
            out[i] = x[i] * 2.0
        }
    """)
    fr = only(step1, AVX2)
    assert fr.vector_width is None  # no vector type written
    # 4 x ymm for the body, and an xmm epilogue LLVM adds for its own remainder
    assert [(a.role, a.width_bits) for a in fr.auto_vectorised] == [("main", 256), ("tail", 128)]
    assert main_loop(fr).elements_per_iteration == 32


# ---- stream_store: which store each line compiled to ---------------------------------------

STREAM = src("""
    export kernel scale(x: *f32, out: *mut f32, f: f32)
        over i in n step 8
        tail scalar { out[i] = x[i] * f }
    {
        let v: f32x8 = load(x, i)
        let ff: f32x8 = splat(f)
        stream_store(out, i, v .* ff)
    }
""")


def test_stream_store_hint_names_the_paths():
    fr = only(STREAM, AVX2)
    (hint,) = [h for h in fr.hints if h.code == "stream-store"]
    assert hint.line == line_of(STREAM, "stream_store(")
    assert hint.message.startswith(
        "stream_store: non-temporal at every 4-byte-aligned address: 32-byte stores when aligned, else realigned "
        "32-byte blocks; a plain store when not 4-byte aligned (movntil, movntiq, ")
    assert hint.message.endswith("; plain: vmovups); the alignment is tested once, before the loop "
                                 "(9 versions of the main loop)")


def test_stream_store_hint_scalar_and_arm():
    scalar = src("""
        export func f(p: *mut i32, x: i32, i: i32) {
            stream_store(p, i, x)
        }
    """)
    (hint,) = [h for h in only(scalar, AVX2).hints if h.code == "stream-store"]
    assert hint.message == "stream_store: non-temporal (movntil) at any address"
    arm = STREAM.replace("f32x8", "f32x4").replace("step 8", "step 4")
    (hint,) = [h for h in only(arm, ARM).hints if h.code == "stream-store"]
    assert hint.message.startswith("stream_store: plain store (str) \u2014 LLVM emitted no non-temporal store")


STREAM2 = src("""
    export kernel fma_stream(a: *f32, b: *f32, c: *f32, out: *mut f32)
        over i in n step 16
        tail scalar { out[i] = fma(a[i], b[i], c[i]) }
    {
        stream_store(out, i, fma(load_f32x8(a, i), load_f32x8(b, i), load_f32x8(c, i)))
        stream_store(out, i + 8, fma(load_f32x8(a, i + 8), load_f32x8(b, i + 8), load_f32x8(c, i + 8)))
    }
""")


def test_per_iteration_follows_the_likely_path():
    """The loop holds both sides of the alignment test (vmovntps inline, the
    vmovups copy out of line); one iteration runs one of them: 6 loads and 2
    stores, not 4. LLVM counts with a copy (`leaq 16(%r9), %r10; addq $32, %r9;
    ...; movq %r10, %r9`): 16 elements per iteration, the kernel's step."""
    lp = main_loop(only(STREAM2, AVX2))
    p = lp.per_iteration
    assert (p.loads, p.stores, p.fma) == (6, 2, 2)
    assert mnemonics_of(lp.mix) == {"vector store": 2}
    assert lp.elements_per_iteration == 16


def mnemonics_of(mix: dict) -> dict:
    return {k: n for k, n in mix.items() if "store" in k}
