"""What the compiler does by itself to a kernel's loops (README "Generated
code performance"): the main loop keeps the shape written (`step` elements
per iteration, not unrolled, vector widths as written, even on an AVX-512
CPU whose cost model would pick 512-bit vectors), the `tail scalar` loop is
neither vectorised nor unrolled, and a step-1 kernel stays LLVM's to
vectorise."""
from __future__ import annotations

import re
from pathlib import Path

from ea_compiler.build import compile_source
from ea_compiler.inspect import inspect
from ea_compiler.options import Options
from inspect_support import ARM, AVX2, src

ROOT = Path(__file__).resolve().parent.parent
ZEN4 = Options(target_cpu="znver4", stream_threshold=0)  # the code as written: no streaming copy of the main loop (codegen/ntauto.py)
UNROLL_OFF = '!"llvm.loop.unroll.disable"'
VECTORIZE_OFF = '!"llvm.loop.vectorize.enable", i1 false'


def loop_properties(text: str, options: Options) -> list[set[str]]:
    """The properties of each `!llvm.loop` node of the unoptimised IR, in the
    order of the back edges that carry them."""
    ir = compile_source(text, "k.ea", options)[1].ir(optimized=False)
    nodes = dict(re.findall(r"^(!\d+) = (?:distinct )?!\{(.*)\}$", ir, re.M))
    out = []
    for loop_id in re.findall(r"!llvm\.loop (!\d+)", ir):
        out.append({nodes[ref] for ref in re.findall(r"!\d+", nodes[loop_id]) if ref != loop_id})
    return out


def function_report(path: str, options: Options):
    text = (ROOT / path).read_text(encoding="utf-8")
    (fr,) = inspect(text, path, options).functions
    return fr


def test_main_loop_is_not_unrolled_and_tail_is_not_vectorised():
    saxpy = (ROOT / "examples" / "saxpy.ea").read_text(encoding="utf-8")
    assert loop_properties(saxpy, AVX2) == [{UNROLL_OFF}, {VECTORIZE_OFF, UNROLL_OFF}]


def test_mask_tail_kernel_marks_only_its_main_loop():
    clip = (ROOT / "examples" / "clip_mask.ea").read_text(encoding="utf-8")
    assert loop_properties(clip, AVX2) == [{UNROLL_OFF}]


def test_step_one_kernel_loop_is_left_to_llvm():
    step1 = src("""
        export kernel k(x: *restrict f32, out: *restrict mut f32) over i in n step 1 {
            out[i] = x[i] * 2.0
        }
    """)
    assert loop_properties(step1, AVX2) == []


def test_widths_and_elements_per_iteration_are_as_written():
    """f32x8 saxpy on znver4 (512-bit registers available): one ymm FMA per
    main-loop iteration, 8 elements per iteration (step 8 x no unrolling), and
    no zmm register anywhere in the function."""
    for options, reg, lanes in ((ZEN4, "ymm", 8), (AVX2, "ymm", 8)):
        saxpy = (ROOT / "examples" / "saxpy.ea").read_text(encoding="utf-8")
        asm = compile_source(saxpy, "saxpy.ea", options)[1].asm()
        body = asm[asm.index("saxpy:"):asm.index(".Lfunc_end0")]
        assert re.findall(r"vfmadd\d+ps\s[^\n]*%(\w)mm", body) == [reg[0]]
        assert "zmm" not in body
        fr = function_report("examples/saxpy.ea", options)
        main = [lp for lp in fr.loops if lp.role == "main"]
        assert len(main) == 1 and main[0].elements_per_iteration == lanes
        assert main[0].per_iteration.fma == 1 and fr.vector_width == "256-bit (f32x8)"


def test_u8x16_kernel_keeps_16_elements_per_iteration_on_avx512():
    fr = function_report("examples/normalize_u8.ea", ZEN4)
    (main,) = [lp for lp in fr.loops if lp.role == "main"]
    assert main.elements_per_iteration == 16 and not fr.auto_vectorised


def test_aarch64_main_loop_is_not_unrolled():
    """One f32x4 step per iteration on AArch64 too (LLVM's runtime-unrolling
    heuristics differ per target; the metadata holds whatever they decide)."""
    text = src("""
        export kernel scale(x: *restrict f32, out: *restrict mut f32, f: f32)
            over i in n step 4
            tail scalar { out[i] = x[i] * f }
        {
            let v: f32x4 = load(x, i)
            let s: f32x4 = splat(f)
            store(out, i, v .* s)
        }
    """)
    (fr,) = inspect(text, "k.ea", ARM).functions
    (main,) = [lp for lp in fr.loops if lp.role == "main"]
    assert main.elements_per_iteration == 4 and main.per_iteration.stores == 1
