"""Which items the target compiles is decided in one place,
compiler/check/liveness.py; every other module asks the analysis
(`is_live`, `live_functions`) and never reads an item's `#[cfg]`.

Statically: no module of the toolchain reads an attribute named `cfg`
outside the allowed ones. Dynamically: running every stage and tool on a
file with `#[cfg]` items, only the allowed modules read it; and with the two
variants of a function in either order, every stage reports the live one
(a stage choosing by another rule, "the first of that name", fails)."""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from ea_compiler import Options, analyze
from ea_compiler.build import compile_functions, compile_source, exported_names, header, metadata
from ea_compiler.inspect import inspect_module
from ea_compiler.inspect.incremental import inspect_function
from ea_compiler.syntax import ast as A
from ea_compiler.tune.transforms import find_sites
from ea_tui.functions import function_at
from eals.features.inlay import visible_functions

os.environ["EA_DEBUG"] = "1"
ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("compiler", "eals", "tui", "ea")
# Where an item's `cfg` may be read, and why.
ALLOWED = {
    "compiler/check/liveness.py": "the decision",
    "compiler/desugar.py": "copies the attribute into the nodes it builds (a kernel's function, a function)",
    "compiler/ast_outline.py": "prints the attribute as written (--emit-ast)",
}
# `self.cfg` / `run.cfg` there are the tuner's TuneConfig, not an item's attribute.
TUNE_CONFIG = {("compiler/tune/engine.py", "self"), ("compiler/tune/agent.py", "run")}


def _reads(path: Path, rel: str) -> list[int]:
    """Lines of `path` (`rel` in the repository) reading an attribute `cfg`
    (`x.cfg`, `getattr(x, "cfg")`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr == "cfg":
            receiver = node.value.id if isinstance(node.value, ast.Name) else None
            if (rel, receiver) not in TUNE_CONFIG:
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "cfg":
            found.append(node.lineno)
    return sorted(found)


def test_no_module_outside_the_decision_reads_cfg():
    readers = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            lines = _reads(path, rel)
            if lines:
                readers[rel] = lines
    outside = {p: lines for p, lines in readers.items() if p not in ALLOWED}
    assert outside == {}, "read the analysis' decision (Analysis.is_live / live_functions) instead"
    assert sorted(readers) == sorted(ALLOWED)  # each allowance is still needed


def test_the_static_check_sees_a_read(tmp_path):
    """The check above can fail: each way of reading is found."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f(item, self):\n    return item.cfg, self.cfg\n\n\n"
                     "def g(item):\n    return getattr(item, 'cfg', None)\n")
    assert _reads(probe, "compiler/eals_probe.py") == [2, 2, 6]
    assert _reads(probe, "compiler/tune/engine.py") == [2, 6]  # only `self.cfg` is the tuner's


SRC = """\
#[cfg(aarch64)]
struct S { a: i32 }
#[cfg(aarch64)]
export kernel twice(x: *f32, y: *mut f32) over i in n step 4 tail scalar { y[i] = x[i] * 2.0 }
{
    store(y, i, load_f32x4(x, i) .* splat(2.0))
}
#[cfg(aarch64)]
func lanes() -> i32 {
    return 4
}
#[cfg(x86_64)]
func lanes() -> i32 {
    return 8
}
export func width(s: S) -> i32 {
    return lanes() + s.a
}
"""


class _Watch:
    """Records the module of every read of a `cfg` field of an item."""

    def __init__(self, monkeypatch):
        self.readers: set[str] = set()
        for cls in (A.Func, A.Kernel, A.StructDecl, A.ConstDecl, A.StaticAssert):
            slot = cls.__dict__["cfg"]
            monkeypatch.setattr(cls, "cfg", property(self._getter(slot), slot.__set__))

    def _getter(self, slot):
        def get(obj):
            self.readers.add(sys._getframe(1).f_globals["__name__"])
            return slot.__get__(obj, type(obj))
        return get


@pytest.mark.parametrize("triple", ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"])
def test_only_the_decision_reads_cfg_while_the_stages_run(monkeypatch, triple):
    watch = _Watch(monkeypatch)
    opts = Options(target_triple=triple, target_cpu="generic")
    a, module = compile_source(SRC, "k.ea", opts)
    assert module is not None, [d.message for d in a.diagnostics]
    report = inspect_module(a, module)
    assert sorted(f.name for f in report.functions) == ["lanes", "twice", "width"]
    assert inspect_function(a, "width") is not None
    assert compile_functions(a, ["twice"])[1] == []
    header(a, "k"), metadata(a, "k.so", exported_names(a, module))
    find_sites(a)
    everything = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=99, character=0))
    assert [i.name for i in visible_functions(a, everything)] == ["twice", "lanes", "width"]
    assert function_at(a, 17) == "width"
    assert watch.readers == {"ea_compiler.check.liveness", "ea_compiler.desugar"}
    analyze(SRC, "k.ea", opts)  # a fresh analysis reads it the same way
    assert watch.readers == {"ea_compiler.check.liveness", "ea_compiler.desugar"}


# The two variants differ in everything a stage reports (parameter names,
# extents, loops), and each order is tried: a stage that re-decided by
# another rule ("the first of a name", "the last") reads the wrong variant
# for one of the two orders and fails here.
X86_FILL = """\
#[cfg(x86_64)]
export func fill(p: *mut f32, n: i32) {
    let mut k: i32 = 0
    while k < n {
        p[k] = 1.0
        k = k + 1
    }
}
"""
ARM_FILL = """\
#[cfg(aarch64)]
export func fill(q: *mut f32, m: i32) {
    let mut j: i32 = 0
    while j < 2 * m {
        q[j] = 0.0
        j = j + 1
    }
}
"""
TRIPLES = {"x86_64": "x86_64-unknown-linux-gnu", "aarch64": "aarch64-unknown-linux-gnu"}


@pytest.mark.parametrize("order", ["x86-first", "arm-first"])
@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_every_stage_reports_the_live_variant(arch, order):
    import json
    src = X86_FILL + ARM_FILL if order == "x86-first" else ARM_FILL + X86_FILL
    live_line = src.splitlines().index(f"#[cfg({arch})]") + 2  # the `export func` line
    params, extent = (["p", "n"], {"p": "n"}) if arch == "x86_64" else (["q", "m"], {"q": "2 * m"})
    a, module = compile_source(src, "k.ea", Options(target_triple=TRIPLES[arch], target_cpu="generic"))
    assert module is not None, [d.message for d in a.diagnostics]
    assert [f.name_span.line for f in a.live_functions] == [live_line]
    assert [p.name for p in a.live_functions[0].params] == params
    # the metadata of the library: the live variant's arguments and extents
    (export,) = json.loads(metadata(a, "k.so", exported_names(a, module)))["exports"]
    assert [arg["name"] for arg in export["args"]] == params and export["extents"] == extent
    # the metadata of every item (TOOLCHAIN §1.2): both, each with its own extents
    every = json.loads(metadata(a, "k.so"))["exports"]
    assert sorted(json.dumps(e["extents"]) for e in every) == sorted(['{"p": "n"}', '{"q": "2 * m"}'])
    # inspect: the live variant's loops
    (fr,) = inspect_module(a, module).functions
    assert fr.loops and all(live_line <= lp.first_line <= live_line + 6 for lp in fr.loops if lp.first_line)
    # the tuner's sites, the inlay hints, the TUI's function at a line
    assert {s.line for s in find_sites(a)} <= set(range(live_line, live_line + 7))
    assert [i.name_span.line for i in visible_functions(a, everything_range())] == [live_line]
    assert function_at(a, live_line) == "fill"


def everything_range():
    return lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=99, character=0))


def test_bounds_by_name_refuse_to_choose_between_variants():
    from ea_compiler.outputs.bounds import export_bounds, program_bounds
    a = analyze(X86_FILL + ARM_FILL, "k.ea", Options(target_triple=TRIPLES["x86_64"], target_cpu="generic"))
    assert [b.extents["p" if f.params[0].name == "p" else "q"].text() for f, b in export_bounds(a.desugared, a.decisions)] \
        == ["n", "2 * m"]
    with pytest.raises(ValueError, match="two exported functions named 'fill'"):
        program_bounds(a.desugared, a.decisions)
