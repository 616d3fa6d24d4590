"""inspect per function (ea_compiler.inspect.incremental): the same report as
inspecting the whole file, compiled from just the function and its callees,
available while other functions have errors, and compiled again only when
its text, its callees' text, the declarations or the options change."""
from __future__ import annotations

import re

import pytest

from ea_compiler import Options, analyze
from ea_compiler.build import compile_functions, errors_blocking
from ea_compiler.codegen import generate
from ea_compiler.inspect import InspectError, inspect
from ea_compiler.inspect.incremental import inspect_function

HASWELL = Options(target_cpu="haswell", target_triple="x86_64-unknown-linux-gnu")
SRC = """\
const K: f32 = 2.0

func scale(v: f32x8) -> f32x8 {
    return v .* splat(K)
}

export func a(x: *restrict f32, y: *restrict mut f32, n: i32) {
    let mut i: i32 = 0
    while i + 8 <= n {
        store(y, i, scale(load(x, i)))
        i = i + 8
    }
}

export func b(x: *f32) -> f32 {
    return x[0] + 1.0
}

func never(v: i32) -> i32 {
    return v
}
"""


def defined(module) -> set[str]:
    return set(re.findall(r"^define .*@\"?([\w.]+)\"?\(", module.ir(optimized=False), re.M))


def test_same_report_as_the_whole_file():
    analysis = analyze(SRC, "k.ea", HASWELL)
    whole = {f.name: f for f in inspect(SRC, "k.ea", HASWELL).functions}
    for name in ("scale", "a", "b", "never"):
        assert inspect_function(analysis, name) == whole[name], name
    assert inspect_function(analysis, "missing") is None


def test_only_the_function_and_its_callees_are_generated():
    analysis = analyze(SRC, "k.ea", HASWELL)
    assert defined(generate(analysis, only=["a"])) == {"a", "scale"}
    assert defined(generate(analysis, only=["b"])) == {"b"}
    assert defined(generate(analysis)) == {"a", "b", "scale", "never"}


def test_errors_elsewhere_do_not_block():
    broken = SRC.replace("return x[0] + 1.0", "return x[0] + true")
    analysis = analyze(broken, "k.ea", HASWELL)
    assert [d.span.line for d in analysis.errors] == [16]
    module, blocking = compile_functions(analysis, ["a"])
    assert module is not None and blocking == []
    assert inspect_function(analysis, "a") == inspect_function(analyze(SRC, "k.ea", HASWELL), "a")
    with pytest.raises(InspectError) as err:
        inspect_function(analysis, "b")
    assert err.value.diagnostics == analysis.errors


def test_errors_in_a_callee_or_a_declaration_block():
    in_callee = analyze(SRC.replace("v .* splat(K)", "v * splat(K)"), "k.ea", HASWELL)
    assert [d.span.line for d in errors_blocking(in_callee, ["a"])] == [4]
    assert errors_blocking(in_callee, ["b"]) == []
    in_const = analyze(SRC.replace("const K: f32 = 2.0", "const K: f32 = true"), "k.ea", HASWELL)
    assert in_const.errors and errors_blocking(in_const, ["b"]) == in_const.errors


def test_compiled_again_only_when_it_or_its_callees_change():
    first = analyze(SRC, "k.ea", HASWELL)
    a, b = inspect_function(first, "a"), inspect_function(first, "b")
    edited_b = analyze(SRC.replace("x[0] + 1.0", "x[0] + 3.0"), "k.ea", HASWELL)
    assert inspect_function(edited_b, "a") is a  # cached: neither `a` nor `scale` changed
    assert inspect_function(edited_b, "b") is not b
    edited_callee = analyze(SRC.replace("v .* splat(K)", "v .+ splat(K)"), "k.ea", HASWELL)
    changed = inspect_function(edited_callee, "a")
    assert changed is not a and changed.counts != a.counts
    other_cpu = analyze(SRC, "k.ea", Options(target_cpu="skylake-avx512", target_triple="x86_64-unknown-linux-gnu",
                                             avx512=True))
    assert inspect_function(other_cpu, "a") is not a


def test_a_private_function_shows_its_code_in_the_callers_that_compile():
    two_callers = SRC + "\nexport func c(x: *f32) -> f32x8 {\n    return scale(load(x, 0)) + 1\n}\n"
    analysis = analyze(two_callers, "k.ea", HASWELL)
    assert [d.span.line for d in analysis.errors] == [24]
    assert inspect_function(analysis, "scale").inlined_into == ["a"]  # `c` has an error
    only_broken = analyze(SRC.replace("store(y, i, scale(load(x, i)))", "store(y, i, scale(load(x, i)) + 1)"),
                          "k.ea", HASWELL)
    with pytest.raises(InspectError) as err:
        inspect_function(only_broken, "scale")
    assert [d.span.line for d in err.value.diagnostics] == [10]


def test_a_moved_function_is_not_compiled_again(monkeypatch):
    from ea_compiler.inspect import incremental
    first = analyze(SRC, "k.ea", HASWELL)
    before = inspect_function(first, "a")
    compiled = []
    real = incremental.compile_functions
    monkeypatch.setattr(incremental, "compile_functions", lambda *args: compiled.append(args) or real(*args))
    moved_text = "// three new lines\n\n\n" + SRC.replace("x[0] + 1.0", "x[0]\n        + 1.0")
    moved = analyze(moved_text, "k.ea", HASWELL)
    fresh = {f.name: f for f in inspect(moved_text, "k.ea", HASWELL).functions}
    after = inspect_function(moved, "a")
    assert compiled == []  # `a` and `scale` only moved
    assert after == fresh["a"] and after != before
    assert sorted(after.lines) == [ln + 3 for ln in sorted(before.lines)]
    assert inspect_function(moved, "scale") == fresh["scale"]
    assert inspect_function(moved, "b") == fresh["b"] and len(compiled) == 1  # `b` changed


def test_a_syntax_error_in_another_function_does_not_block():
    typing = analyze(SRC.replace("    return x[0] + 1.0\n", "    if x[0] > 1.0 {\n    return x[0] + 1.0\n"),
                     "k.ea", HASWELL)
    assert [(d.kind, d.span.line) for d in typing.errors] == [("parse", 15)]  # `b`'s block never closes
    assert inspect_function(typing, "a") == inspect_function(analyze(SRC, "k.ea", HASWELL), "a")
    assert [d.span.line for d in errors_blocking(typing, ["b"])] == [15]
