"""A user function may take an intrinsic's name (INTRINSICS.md §0.1, LANGUAGE.md
§3.1): it compiles and is exported under that name, calls by the name still
resolve to the intrinsic (only `abs` is shadowed), and checker, codegen and the
language server's navigation agree on that rule."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler import Options, analyze, render_all
from ea_compiler.intrinsics import SHADOWABLE, TABLE, resolve_call
from ea_compiler.tooling import refusal
from eals.features.navigation import definition

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide

SOURCE = """export func max(a: i32, b: i32) -> i32 {
    if a > b { return a }
    return b
}
export func abs(a: i32) -> i32 {
    return a
}
export func both(a: i32, b: i32) -> i32 {
    return max(a, b) + abs(a)
}
"""


def test_rule_every_intrinsic_name():
    """Every intrinsic name resolves to the intrinsic even when the file declares a
    function of that name, except the shadowable ones; without a user function the
    intrinsic is always meant."""
    assert SHADOWABLE == {"abs"}
    for name, intr in TABLE.items():
        assert resolve_call(name, False) is intr
        assert resolve_call(name, True) is (None if name == "abs" else intr)
    assert resolve_call("load_f32x8", True).name == "load_f32x8"
    assert resolve_call("my_func", True) is None


def test_functions_with_intrinsic_names_check_with_one_warning_per_shadowed_call():
    a = analyze(SOURCE, "k.ea", X86)
    assert a.errors == []
    assert render_all(a.diagnostics, a.source, "k.ea") == (
        "k.ea:9:12  warning[type]: this calls the intrinsic 'max', not the function 'max' declared at "
        "line 1: calls resolve to intrinsics before user functions\n"
        "        return max(a, b) + abs(a)\n"
        "               ^^^\n"
        "  k.ea:1:13: not called by this name\n"
        "      export func max(a: i32, b: i32) -> i32 {\n"
        "                  ^^^\n"
        "  = note: only 'abs' can be shadowed by a user function; to call yours, rename it (it stays "
        "exported as 'max' until you do)\n")


def test_intrinsic_names_without_calls_are_silent():
    src = "export func sqrt(x: f32) -> f32 {\n    return x\n}\nexport func fma(a: i32) -> i32 {\n    return a\n}\n"
    assert analyze(src, "k.ea", X86).diagnostics == []


def _pos(src: str, needle: str, nth: int = 0) -> lsp.Position:
    at = -1
    for _ in range(nth + 1):
        at = src.index(needle, at + 1)
    line = src.count("\n", 0, at)
    return lsp.Position(line=line, character=at - (src.rfind("\n", 0, at) + 1))


def test_navigation_follows_the_rule():
    a = analyze(SOURCE, "k.ea", X86)
    # `abs(a)` calls the user's abs: definition goes there.
    loc = definition(a, "file:///k.ea", _pos(SOURCE, "abs(a)"))
    assert loc is not None and loc.range.start == lsp.Position(line=4, character=12)
    # `max(a, b)` calls the intrinsic: no user definition to go to.
    assert definition(a, "file:///k.ea", _pos(SOURCE, "max(a, b)")) is None
    # Renaming a function to an intrinsic's name would turn its calls into intrinsic calls.
    sym = next(s for s in a.symbols.symbols if s.name == "both")
    assert refusal(a, sym, "min") == "'min' is an intrinsic; calls to 'min' would call the intrinsic, not this function"
    # `abs` may be shadowed: only the clash with the existing user abs stops this rename.
    assert refusal(a, sym, "abs") == "'abs' is already a function"
    alone = analyze("export func f(x: f32) -> f32 {\n    return x\n}\n", "k.ea", X86)
    assert refusal(alone, alone.symbols.symbols[0], "abs") is None
