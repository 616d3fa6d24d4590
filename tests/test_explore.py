"""The compiler explorer API (compiler/explore.py), the tree printer and the
assembly listing (compiler/inspect/listing.py)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from ea_compiler import Options
from ea_compiler.explore import Stages, explore
from ea_compiler.inspect import AsmLine, listing
from ea_compiler.inspect.listing import KINDS
from ea_compiler.target_check import check_target
from ea_compiler.tree_dump import tree_dump

from inspect_support import ARM, AVX2, line_of, src

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FMA = (EXAMPLES / "fma.ea").read_text()


@pytest.fixture(scope="module")
def fma() -> Stages:
    return explore(FMA, "fma.ea", AVX2)


def test_every_stage_present(fma):
    assert fma.error is None and fma.analysis.ok
    assert 'Identifier("kernel") at 2:8' in fma.tokens and 'Export("export") at 2:1' in fma.tokens
    assert fma.ast.startswith("Program ") and 'Kernel 2:1 name="fma_kernel"' in fma.ast
    assert "While" in fma.desugared and "Kernel" not in fma.desugared  # the kernel loop is desugared
    assert fma.ir and fma.ir_opt and fma.asm
    assert fma.listing and fma.report is not None
    assert [f.name for f in fma.report.functions] == ["fma_kernel"]


def test_compiles_once_and_reports_what_inspect_reports(fma, monkeypatch):
    import ea_compiler.explore
    import ea_compiler.inspect
    from ea_compiler.inspect import inspect

    calls = []

    def counted(*args):
        calls.append(args[1])
        return compile_source(*args)

    def refuse(*args):
        raise AssertionError("inspect compiled the file again")

    compile_source = ea_compiler.explore.compile_source
    monkeypatch.setattr(ea_compiler.explore, "compile_source", counted)
    monkeypatch.setattr(ea_compiler.inspect, "compile_source", refuse)
    ea_compiler.inspect.clear_report_cache()  # a cached report would hide a second compile
    stages = explore(FMA, "fma.ea", AVX2)
    assert calls == ["fma.ea"]
    monkeypatch.undo()
    assert stages.report.to_json() == fma.report.to_json() == inspect(FMA, "fma.ea", AVX2).to_json()


def test_ir_before_and_after_optimisation_differ(fma):
    assert fma.ir != fma.ir_opt
    assert "alloca" in fma.ir and "alloca" not in fma.ir_opt  # mem2reg ran


def test_tree_dump_shows_nodes_fields_and_positions(fma):
    line = next(ln for ln in fma.ast.splitlines() if "name=\"va\"" in ln)
    assert line.strip() == 'stmts[0]: Let 6:5 name="va"'
    assert "span" not in fma.ast and "origin" not in fma.desugared
    assert 'Call 9:19 name="fma" : f32x8' in fma.desugared  # checked types in the desugared tree


def test_tree_dump_survives_deep_nesting():
    text = "export func f(a: i32) -> i32 { return " + " + ".join(["a"] * 5000) + " }\n"
    stages = explore(text, "deep.ea", AVX2)
    assert stages.ast.count("Binary") == 4999


def test_tree_dump_of_any_dataclass_tree():
    from ea_compiler import analyze
    program = analyze("const N: i32 = 4\n", "c.ea").ast
    assert tree_dump(program).splitlines() == [
        "Program 1:1", '  items[0]: ConstDecl 1:1 name="N"',
        '    type: NamedType 1:10 name="i32"', '    value: IntLit 1:16 value=4 text="4"']


def test_listing_kinds_and_source_lines(fma):
    rows = fma.listing
    assert all(isinstance(r, AsmLine) and r.kind in KINDS for r in rows)
    assert len(rows) == len(fma.asm.splitlines())
    fmas = [r for r in rows if r.text.strip().startswith("vfmadd")]
    assert fmas and all(r.kind == "fma" for r in fmas)
    store_line = line_of(FMA, "store(out, i, fma(va, vb, vc))")
    assert fmas[0].source_line == store_line and fmas[0].function == "fma_kernel"
    load_a = next(r for r in rows if r.text.strip().startswith("vmovups") and r.source_line == 6)
    assert load_a.kind == "vector"  # a vector load is "vector": vector beats memory
    kinds = {r.kind for r in rows}
    assert {"fma", "vector", "scalar", "branch", "label", "directive"} <= kinds
    assert all(r.source_line is None for r in rows if r.kind in ("label", "directive", "blank"))
    assert all(r.function is None for r in rows if "debug_abbrev" in r.text)


def test_listing_of_hand_written_assembly():
    asm = src("""
        \t.type\tf,@function
        f:
        \t.loc\t1 3 5
        \tmovl\t(%rdi), %eax
        \taddl\t$1, %eax
        # a comment

        \t.loc\t1 0 5
        \tretq
        .Lfunc_end0:
        \t.byte\t1
    """)
    rows = listing(asm, arm=False)
    assert [(r.kind, r.function, r.source_line) for r in rows] == [
        ("directive", None, None), ("label", "f", None), ("directive", "f", None),
        ("memory", "f", 3), ("scalar", "f", 3), ("comment", "f", None), ("blank", "f", None),
        ("directive", "f", None), ("branch", "f", None), ("label", None, None), ("directive", None, None)]


def test_listing_on_aarch64():
    text = src("""
        export kernel scale(x: *restrict f32, y: *restrict mut f32, a: f32)
            over i in n step 4
            tail scalar { y[i] = fma(a, x[i], y[i]) }
        {
            let va: f32x4 = splat(a)
            store(y, i, fma(va, load(x, i), load(y, i)))
        }
    """)
    stages = explore(text, "arm.ea", ARM)
    assert stages.error is None
    body = line_of(text, "store(y, i")
    assert any(r.kind == "fma" and r.source_line == body for r in stages.listing)
    assert any(r.kind == "branch" for r in stages.listing)


def test_type_error_gives_diagnostics_and_no_codegen(tmp_path):
    text = "export func f(a: f32) -> i32 {\n    return a\n}\n"
    stages = explore(text, str(tmp_path / "bad.ea"), AVX2)
    assert stages.analysis.errors and stages.analysis.errors[0].span.line == 2
    assert stages.error == "does not compile: 1 error"
    assert stages.ir is None and stages.ir_opt is None and stages.asm is None
    assert stages.listing == [] and stages.report is None
    assert "Return 2:5" in stages.ast  # the front-end stages are still there


def test_unknown_cpu_is_refused_not_fatal():
    stages = explore(FMA, "fma.ea", Options(target_cpu="no-such-cpu"))
    assert stages.asm is None and "no-such-cpu" in stages.error
    assert stages.analysis.ok
    assert check_target(Options(target_cpu="haswell")) is None


@pytest.mark.parametrize("seed", range(12))
def test_random_bytes_never_crash(seed):
    rng = random.Random(seed)
    pieces = [bytes(rng.randrange(256) for _ in range(rng.randrange(400))),
              FMA.encode()[: rng.randrange(len(FMA))], b"\x00\xff{(", "é中\t".encode()]
    rng.shuffle(pieces)
    stages = explore(b"".join(pieces), "random.ea", AVX2)
    assert isinstance(stages.tokens, str) and isinstance(stages.ast, str)
    assert (stages.asm is None) == (stages.error is not None) or stages.report is None
