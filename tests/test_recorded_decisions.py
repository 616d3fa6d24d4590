"""The checker decides once what each call calls (intrinsic or user function)
and the type of each context-typed call (LANGUAGE.md §5.6), and records it;
codegen, the language server's navigation and width hints read that record
through the Analysis and never resolve a call again."""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import pytest
from lsprotocol import types as lsp

import ea_compiler.ide.hover
import ea_compiler.intrinsics
import ea_compiler.tooling
import ea_tui
import eals
from ea_tui.highlight import source_spans
from eals.features.tokens import classify
from ea_compiler import Options, analyze
from ea_compiler.codegen import generate
from ea_compiler.intrinsics import TABLE
from ea_compiler.symbols import Symbol
from ea_compiler.syntax import ast as A
from ea_compiler.typesys import model as T
from eals.features.inlay_widths import width_hints
from ea_compiler.ide.calls import signature_help
from ea_compiler.build import metadata
from ea_compiler.tune.transforms import find_sites
from eals.features.navigation import intrinsic_at, prepare_rename
from eals.support import request_failed

os.environ["EA_DEBUG"] = "1"
X86 = Options(target_cpu="haswell")
SOURCE = """\
func abs(x: f32) -> f32 {
    return x
}
func fma(a: f32, b: f32, c: f32) -> f32 {
    return a
}
export func f(p: *f32, q: *mut f32, x: f32) -> f32 {
    store(q, 0, load(p, 0) .+ splat(1.0))
    let w: f32x8 = load_f32x8(p, 8)
    let v: f32x8 = load(p, 16)
    store(q, 8, w .+ v)
    return abs(x) + fma(x, x, x) + sqrt(x)
}
"""
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=99, character=0))


def calls(analysis) -> dict[str, list[A.Call]]:
    """The calls of the user's tree by name, in source order."""
    found: dict[str, list[A.Call]] = {}
    for node in sorted((n for n in A.walk(i.body for i in analysis.ast.items if isinstance(i, A.Func))
                          if isinstance(n, A.Call)), key=lambda c: c.span.start):
        found.setdefault(node.name, []).append(node)
    return found


def test_the_callee_of_every_call_is_recorded():
    a = analyze(SOURCE, "k.ea", X86)
    by_name = calls(a)
    assert isinstance(a.callee_of(by_name["abs"][0]), Symbol)  # abs is shadowed by the user function
    assert a.callee_of(by_name["abs"][0]).span.line == 1
    assert a.callee_of(by_name["fma"][0]) is TABLE["fma"]  # any other intrinsic name calls the intrinsic
    assert a.callee_of(by_name["sqrt"][0]) is TABLE["sqrt"]
    wide = a.callee_of(by_name["load_f32x8"][0])
    assert wide.name == "load_f32x8" and ea_compiler.intrinsics.entry(wide) is TABLE["load"]
    undefined = analyze("export func f() -> i32 {\n    return nope(1)\n}\n", "k.ea", X86)
    assert undefined.callee_of(calls(undefined)["nope"][0]) is None


def test_context_typed_calls_record_their_type():
    a = analyze(SOURCE, "k.ea", X86)
    by_name = calls(a)
    defaulted, typed = by_name["load"]
    assert a.inferred_type(defaulted) == T.vector(T.F32, 4)  # the §5.6 default
    assert a.inferred_type(typed) == T.vector(T.F32, 8)  # from the `let` type
    assert a.inferred_type(by_name["splat"][0]) == T.vector(T.F32, 4)  # from its peer operand
    assert a.inferred_type(by_name["sqrt"][0]) is None  # not context-typed
    assert a.context_calls() == [defaulted, by_name["splat"][0], typed]


def _load_every_module() -> None:
    """Import every module of the toolchain, so that each one binding the
    resolvers by name (`from ...intrinsics import lookup`) is in sys.modules."""
    for package in (ea_compiler, eals, ea_tui):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)


def _forbid_resolving(monkeypatch, call_names: set[str]) -> list[str]:
    """Replace `lookup` and `resolve_call` wherever a module holds them (the
    package and every module that imported them by name, which a patch of
    the package alone never reaches) by a version that fails when asked for
    the name of a call of the file: the callee is recorded, so resolving it
    again is a second decision. Names no call has (a transformation asking
    for the wider form it would write) are table look-ups and pass.
    Returns the modules patched."""
    _load_every_module()
    originals = {"lookup": ea_compiler.intrinsics.lookup, "resolve_call": ea_compiler.intrinsics.resolve_call}
    guarded = {}
    for attr, original in originals.items():
        def guard(name, *args, _original=original, _attr=attr):
            if name in call_names:
                raise AssertionError(f"the call '{name}' was resolved again after checking ({_attr})")
            return _original(name, *args)
        guarded[attr] = guard
    patched = []
    for name, module in list(sys.modules.items()):
        if not name.startswith(("ea_compiler", "eals", "ea_tui")):
            continue
        for attr, original in originals.items():
            if getattr(module, attr, None) is original:
                monkeypatch.setattr(module, attr, guarded[attr])
                patched.append(f"{name}.{attr}")
    monkeypatch.setattr(ea_compiler.intrinsics, "SHADOWABLE", frozenset())
    return patched


def test_every_holder_of_the_resolvers_is_patched(monkeypatch):
    """The patch reaches the modules that bound `lookup` by name at import
    (the IDE layer that the language server and the TUI read, a transformation),
    not only the package: the test below can fail for each of them."""
    patched = _forbid_resolving(monkeypatch, {"sqrt"})
    assert "ea_compiler.intrinsics.lookup" in patched and "ea_compiler.intrinsics.resolve_call" in patched
    assert "ea_compiler.ide.hover.lookup" in patched  # the IDE layer: what eals/ and tui/ read
    assert "ea_compiler.tune.transforms.widen.lookup" in patched
    holders = [f"{n}.{attr}" for n, m in list(sys.modules.items()) if n.startswith(("ea_compiler", "eals", "ea_tui"))
               for attr in ("lookup", "resolve_call") if getattr(m, attr, None) in ORIGINALS]
    assert holders == []
    with pytest.raises(AssertionError, match="resolved again"):
        sys.modules["ea_compiler.ide.hover"].lookup("sqrt")  # (the package binds `hover`, the function)


ORIGINALS = (ea_compiler.intrinsics.lookup, ea_compiler.intrinsics.resolve_call)


def test_nothing_resolves_a_call_after_checking(monkeypatch):
    a = analyze(SOURCE, "k.ea", X86)
    _forbid_resolving(monkeypatch, set(calls(a)))
    ir = generate(a).ir(optimized=False)
    assert "call float @abs(" in ir  # the user's abs, as recorded
    assert "@llvm.fma.f32(" in ir and "call float @fma(" not in ir  # fma(x, x, x) is the intrinsic
    assert width_hints(a, EVERYTHING)
    assert intrinsic_at(a, lsp.Position(line=11, character=36)) == "sqrt"
    # The tools' colouring of calls reads the record too (Analysis.callee_at
    # would reach the patched resolve_call only for a call nobody decided).
    assert classify(a) and source_spans(a)
    # Signature help, the transformations (widen asks the table for the wider
    # forms it would write) and the metadata's bounds read it as well.
    inside = {c.name: signature_help(a, c.args[0].span.start).signatures[0].name
              for cs in calls(a).values() for c in cs if c.args}
    assert inside == {n: n for n in ("store", "load", "splat", "load_f32x8", "abs", "fma", "sqrt")}
    assert find_sites(a)
    assert '"extents"' in metadata(a, "k.so")


def test_codegen_follows_the_recorded_callee():
    """Swapping the record of `sqrt(x)` for rsqrt changes the code: codegen
    reads the decision instead of the call's name."""
    a = analyze("export func f(x: f32) -> f32 {\n    return sqrt(x)\n}\n", "k.ea", X86)
    assert "llvm.sqrt.f32" in generate(a).ir(optimized=False)
    call = calls(a)["sqrt"][0]
    a.decisions.record_callee(call, TABLE["rsqrt"])
    ir = generate(a).ir(optimized=False)
    assert "llvm.sqrt.f32" in ir and "fdiv" in ir  # rsqrt(x) = 1 / sqrt(x)


def test_navigation_and_hints_read_the_record():
    a = analyze(SOURCE, "k.ea", X86)
    by_name = calls(a)
    sqrt = by_name["sqrt"][0]
    a.decisions.record_callee(sqrt, TABLE["rsqrt"])
    assert intrinsic_at(a, lsp.Position(line=11, character=36)) == "rsqrt"
    with pytest.raises(type(request_failed(""))) as err:
        prepare_rename(a, lsp.Position(line=11, character=36))
    assert "cannot rename 'rsqrt': it is an intrinsic" in str(err.value)
    defaulted = by_name["load"][0]
    a.decisions.record_context(defaulted, T.vector(T.F32, 8), True)
    hints = [(h.position.line, h.label) for h in width_hints(a, EVERYTHING)]
    assert hints == [(7, ": f32x8"), (7, ": f32x4")]


def test_the_coverage_lint_reads_the_callee_not_the_name():
    """A user function whose name starts like `load` writes through the
    pointer it is given: the lint follows the recorded callee, so the store
    coverage of `out` is out of sight and nothing is reported."""
    kernel = """\
func {name}(q: *mut f32, i: i32) {{
    store(q, i + 4, splat(0.0))
}}
export kernel k(data: *f32, out: *mut f32)
    over i in n step 8
    tail scalar {{ out[i] = data[i] }}
{{
    store(out, i, load(data, i))
    {name}(out, i)
}}
"""
    for name in ("finish", "load_rest"):
        assert analyze(kernel.format(name=name), "k.ea", X86).diagnostics == [], name
    half = kernel.format(name="finish").replace("    finish(out, i)\n", "")
    assert [d.code for d in analyze(half, "k.ea", X86).diagnostics] == ["kernel-coverage"]


def test_the_tail_lint_counts_only_calls_of_the_kernel():
    """`fma(x, x, x)` calls the intrinsic (INTRINSICS.md §0.1), so it is no
    call of the kernel `fma` passing a bound that is not a multiple of 4;
    `abs` may be shadowed, so `abs(p, q, 7)` is one."""
    kernel = """\
kernel {name}(a: *f32, c: *mut f32)
    over i in n step 4
{{
    store(c, i, load(a, i))
}}
export func f(x: f32, p: *f32, q: *mut f32) -> f32 {{
    {call}
    return x
}}
"""
    intrinsic = analyze(kernel.format(name="fma", call="let y: f32 = fma(x, x, x)"), "k.ea", X86)
    assert [d.code for d in intrinsic.diagnostics] == ["intrinsic-call"]
    assert intrinsic.callee_of(calls(intrinsic)["fma"][0]) is TABLE["fma"]
    shadowed = analyze(kernel.format(name="abs", call="abs(p, q, 7)"), "k.ea", X86)
    assert [d.code for d in shadowed.diagnostics] == ["kernel-no-tail"]
