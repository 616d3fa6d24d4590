"""A loop whose carried vector values alone fill the vector registers is not
unrolled (compiler/codegen/emit_stmts.py `_saturated_loop_md`): LLVM's
runtime unrolling of such a loop only adds spills. The 16-accumulator k loop
of bench/tune_nest/matmul_blocked.ea, unrolled 2x on znver3, spilled 25 ymm per
32 FMAs and took 1.3-1.4x the reference compiler's time (bench/reference_bench.py);
left alone it is 0.90-0.93x. Loops with registers to spare stay LLVM's."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ea_compiler.build import compile_source
from ea_compiler.loader import load
from ea_compiler.options import Options
from inspect_support import ARM, AVX2, src
from test_kernel_loop_shape import UNROLL_OFF, ZEN4, loop_properties

ROOT = Path(__file__).resolve().parent.parent
ZEN3 = Options(target_cpu="znver3")
MATMUL = (ROOT / "bench" / "tune_nest" / "matmul_blocked.ea").read_text(encoding="utf-8")


def accumulators(count: int, ty: str, lanes: int) -> str:
    """A loop carrying `count` vector sums of type `ty` (and a scalar counter)."""
    lets = "\n".join(f"    let mut s{j}: {ty} = splat(0.0)" for j in range(count))
    adds = "\n".join(f"        s{j} = s{j} .+ load(x, i + {j * lanes})" for j in range(count))
    total = " .+ ".join(f"s{j}" for j in range(count))
    return (f"export func f(x: *restrict f32, out: *restrict mut f32, n: i32) {{\n{lets}\n"
            f"    let mut i: i32 = 0\n    while i < n {{\n{adds}\n        i = i + {count * lanes}\n    }}\n"
            f"    store(out, 0, {total})\n}}\n")


def test_sixteen_ymm_accumulators_fill_avx2_but_not_avx512():
    assert loop_properties(MATMUL, AVX2) == [{UNROLL_OFF}]
    assert loop_properties(MATMUL, ZEN4) == []  # 32 registers: LLVM decides


def test_registers_are_counted_by_width():
    assert loop_properties(accumulators(8, "f32x16", 16), AVX2) == [{UNROLL_OFF}]  # 16 ymm
    assert loop_properties(accumulators(8, "f32x8", 8), AVX2) == []
    assert loop_properties(accumulators(15, "f32x8", 8), AVX2) == []
    assert loop_properties(accumulators(16, "f32x8", 8), AVX2) == [{UNROLL_OFF}]
    assert loop_properties(accumulators(16, "f32x4", 4), ARM) == []  # 32 q registers
    assert loop_properties(accumulators(32, "f32x4", 4), ARM) == [{UNROLL_OFF}]


def test_a_value_declared_in_the_loop_is_not_carried():
    body = src("""
        export func f(x: *restrict f32, out: *restrict mut f32, n: i32) {
            let mut i: i32 = 0
            while i < n {
                let mut v: f32x8 = load(x, i)
                v = v .+ v
                store(out, i, v)
                i = i + 8
            }
        }
    """)
    assert loop_properties(body, AVX2) == []


def test_matmul_k_loop_keeps_its_16_fmas_on_znver3():
    """Unrolled, the function had 48 ymm FMAs (the loop twice, plus the odd
    iteration); now the 16 written."""
    asm = compile_source(MATMUL, "matmul_blocked.ea", ZEN3)[1].asm()
    body = asm[asm.index("matmul:"):asm.index(".Lfunc_end0")]
    assert len(re.findall(r"vfmadd\w+\s[^\n]*%ymm", body)) == 16


@pytest.mark.needs_cpu("avx2", "fma")
def test_matmul_blocked_still_computes_the_product(tmp_path):
    (tmp_path / "m.ea").write_text(MATMUL)
    k = load(tmp_path / "m.ea", target="haswell")
    rng = np.random.default_rng(3)
    for n in (37, 64):  # 37: the 4-row and 32-column remainders too
        a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
        c = np.zeros(n * n, np.float32)
        k.matmul(a.ravel(), b.ravel(), c, n=n)  # n is the order, not c.size
        np.testing.assert_allclose(c.reshape(n, n), a @ b, rtol=1e-4)
