"""Every kernel in the tree that compiles can be inspected, with its predictions: `ea inspect`
and the editor's hover never fail on a program the compiler accepts. (An array of structs,
`ps[i]` of tests/fuzz_kernels/shapes.ea, once ended `ea inspect` in a traceback: its element
was taken for a lane type.)"""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import inspect_module
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
KERNELS = sorted({*ROOT.glob("examples/*.ea"), *ROOT.glob("bench/**/*.ea"), *ROOT.glob("tests/**/*.ea")}
                 - {*ROOT.glob("tests/**/bad*.ea")})
TARGETS = {"znver3": Options(target_cpu="znver3"), "znver4": Options(target_cpu="znver4", avx512=True)}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_kernel_that_compiles_inspects(path, target):
    try:
        analysis, module = compile_source(path.read_bytes(), path.name, TARGETS[target])
    except Exception:  # noqa: BLE001 - kernels written for one target, or to fail: not this test's subject
        pytest.skip("does not compile for this target")
    if module is None or analysis.errors:
        pytest.skip("does not compile for this target")
    report = inspect_module(analysis, module, predict=True, working_set_bytes=16 << 10, alignment=64)
    assert [f.name for f in report.functions]
    assert all(lp.cycles_per_iter > 0 for f in report.functions if f.prediction for lp in f.prediction.loops)
