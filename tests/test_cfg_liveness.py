"""Which items a target compiles (LANGUAGE.md §3.6), decided once in
compiler/check/liveness.py: a function's `#[cfg]` keeps it only for its
architecture; on a kernel, struct, const or static_assert the attribute is
ignored, with the warning `cfg-ignored`. The checker, codegen, inspect, the
tuner, the language server and the TUI all follow that one decision."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402
from lsprotocol import types as lsp  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402
from ea_compiler.build import compile_functions, compile_source, exported_names, header, metadata  # noqa: E402
from ea_compiler.inspect import inspect_module  # noqa: E402
from ea_compiler.inspect.incremental import inspect_function  # noqa: E402
from ea_compiler.syntax import ast as A  # noqa: E402
from ea_compiler.tune.transforms import find_sites  # noqa: E402
from ea_compiler.tune.transforms.base import functions as tune_functions  # noqa: E402
from ea_tui.functions import function_at  # noqa: E402
from eals.features.inlay import visible_functions  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")
ARM = Options(target_triple="aarch64-unknown-linux-gnu", target_cpu="generic")
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=999, character=0))

# A kernel with an aarch64 `#[cfg]`, and a same-named pair of functions.
KERNEL = """\
#[cfg(aarch64)]
export kernel twice(x: *f32, y: *mut f32) over i in n step 4
    tail scalar { y[i] = x[i] * 2.0 }
{
    store(y, i, load_f32x4(x, i) .* splat(2.0))
}
"""
PAIR = """\
#[cfg(aarch64)]
func lanes() -> i32 {
    return 4
}
#[cfg(x86_64)]
func lanes() -> i32 {
    return 8
}
export func width() -> i32 {
    return lanes()
}
"""


def text(src: str, opts: Options = X86) -> str:
    a = analyze(src, "k.ea", opts)
    return render_all(a.diagnostics, a.source, "k.ea")


# ---- the rule ----

def test_a_kernels_cfg_is_ignored_and_a_functions_is_not():
    a = analyze(KERNEL + PAIR, "k.ea", X86)
    assert a.errors == []
    assert [f.name for f in a.live_functions] == ["twice", "lanes", "width"]
    assert [f.span.line for f in a.live_functions] == [2, 12, 15]  # the x86 `lanes`
    kernel, arm_lanes, x86_lanes, _ = [i for i in a.ast.items]
    assert a.is_live(kernel) and isinstance(kernel, A.Kernel)
    assert not a.is_live(arm_lanes) and a.is_live(x86_lanes)
    arm = analyze(KERNEL + PAIR, "k.ea", ARM)
    assert [f.span.line for f in arm.live_functions] == [2, 8, 15]
    assert arm.is_live(arm.ast.items[1]) and not arm.is_live(arm.ast.items[2])


def test_structs_consts_and_static_asserts_are_kept_for_every_target():
    src = ("#[cfg(aarch64)]\nstruct S { a: i32 }\n#[cfg(aarch64)]\nconst N: i32 = 1\n"
           "#[cfg(aarch64)]\nstatic_assert(N == 2, \"n\")\nexport func f(s: S) -> i32 {\n    return s.a + N\n}\n")
    a = analyze(src, "k.ea", X86)
    assert all(a.is_live(i) for i in a.ast.items)
    # the static_assert is checked on x86 too: it fails
    assert [(d.code, d.span.line) for d in a.diagnostics] == \
        [("cfg-ignored", 1), ("cfg-ignored", 3), ("cfg-ignored", 5), ("static-assert", 6)]
    ok = analyze(src.replace("N == 2", "N == 1"), "k.ea", X86)
    assert [d.code for d in ok.diagnostics] == ["cfg-ignored"] * 3


def test_the_call_reaches_the_variant_of_the_target():
    for opts, lanes in ((X86, "8"), (ARM, "4")):
        _, module = compile_source(PAIR, "k.ea", opts)
        assert f"ret i32 {lanes}" in module.ir(), opts.arch


def test_a_kernel_with_a_cfg_collides_with_a_function_of_its_name():
    """The kernel is compiled for every target, so no `#[cfg]` lets a function share its name."""
    src = KERNEL + "#[cfg(x86_64)]\nfunc twice() {\n}\n"
    a = analyze(src, "k.ea", X86)
    assert [(d.code, d.message, d.span.line) for d in a.errors] == \
        [("duplicate", "duplicate function 'twice'", 8)]


def test_a_function_of_the_other_architecture_is_checked_for_it():
    """Its vectors follow that architecture's rules, and only its: f32x8
    is an AArch64 error wherever it is compiled from, and gives no x86 width
    warning when compiling for AArch64 (no x86 CPU is compiled for)."""
    arm_wide = ("#[cfg(aarch64)]\nexport func f(p: *f32) -> f32 {\n    let v: f32x8 = load(p, 0)\n"
                "    return reduce_add(v)\n}\n")
    assert [d.code for d in analyze(arm_wide, "k.ea", X86).errors] == ["target"]
    x86_wide = arm_wide.replace("aarch64", "x86_64")
    assert analyze(x86_wide, "k.ea", ARM).diagnostics == []
    generic = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="x86-64")
    assert [d.code for d in analyze(x86_wide, "k.ea", generic).diagnostics] == ["vector-too-wide"]


# ---- the warning: exact text, span and quick fix ----

GOLDEN = [
    ("kernel", KERNEL, 1, 1,
     "k.ea:1:1  warning[type]: '#[cfg(aarch64)]' is ignored on a kernel: only a function can be limited to "
     "one architecture, so this kernel is kept for every target\n"
     "    #[cfg(aarch64)]\n"
     "    ^^^^^^^^^^^^^^^\n"
     "  = help: remove the attribute\n"),
    ("struct", "func f() {\n}\n  #[cfg(x86_64)] struct S { a: i32 }\n", 3, 3,
     "k.ea:3:3  warning[type]: '#[cfg(x86_64)]' is ignored on a struct: only a function can be limited to "
     "one architecture, so this struct is kept for every target\n"
     "      #[cfg(x86_64)] struct S { a: i32 }\n"
     "      ^^^^^^^^^^^^^^\n"
     "  = help: remove the attribute\n"),
    ("const", "#[cfg(aarch64)]\nconst N: i32 = 1\n", 1, 1,
     "k.ea:1:1  warning[type]: '#[cfg(aarch64)]' is ignored on a const: only a function can be limited to "
     "one architecture, so this const is kept for every target\n"
     "    #[cfg(aarch64)]\n"
     "    ^^^^^^^^^^^^^^^\n"
     "  = help: remove the attribute\n"),
    ("static_assert", "#[cfg(aarch64)]\nstatic_assert(1 == 1, \"one\")\n", 1, 1,
     "k.ea:1:1  warning[type]: '#[cfg(aarch64)]' is ignored on a static_assert: only a function can be "
     "limited to one architecture, so this static_assert is kept for every target\n"
     "    #[cfg(aarch64)]\n"
     "    ^^^^^^^^^^^^^^^\n"
     "  = help: remove the attribute\n"),
]


@pytest.mark.parametrize("src,line,col,expected", [g[1:] for g in GOLDEN], ids=[g[0] for g in GOLDEN])
def test_cfg_ignored_golden(src, line, col, expected):
    for opts in (X86, ARM):  # the same on every target
        assert text(src, opts) == expected
    (d,) = analyze(src, "k.ea", X86).diagnostics
    assert (d.severity, d.code, d.span.line, d.span.col) == ("warning", "cfg-ignored", line, col)
    (fix,) = d.suggestions
    fixed = src.encode()[:fix.span.start] + fix.replacement.encode() + src.encode()[fix.span.end:]
    # the attribute goes up to the item keyword, the item's indentation stays
    assert fixed.decode() == src.replace("#[cfg(aarch64)]\n", "").replace("#[cfg(x86_64)] ", "")
    assert analyze(fixed, "k.ea", X86).diagnostics == []


def test_no_warning_on_a_functions_cfg():
    assert text(PAIR) == "" and text(PAIR, ARM) == ""


# ---- every stage reads the decision ----

def test_codegen_header_and_metadata():
    a, module = compile_source(KERNEL + PAIR, "k.ea", X86)
    assert module is not None
    ir = module.ir(optimized=False)
    assert "define void @twice(" in ir and "define i32 @width(" in ir
    assert ir.count("@lanes(") == 2  # one definition (inlined private), one call
    # the header lists every item, both `lanes` variants included (TOOLCHAIN §2); the exports and the
    # metadata are what the code defines (a deliberate departure from §1.2: the library has one `lanes`)
    assert exported_names(a, module) == ["twice", "width"]
    assert "void twice(const float* x, float* y, int32_t n);" in header(a, "k")
    pair = PAIR.replace("func lanes", "export func lanes")
    b, pair_module = compile_source(pair, "k.ea", X86)
    assert header(b, "k").count(" lanes(") == 2
    names = exported_names(b, pair_module)
    assert names == ["lanes", "width"]
    live = metadata(b, "k.so", names)
    assert live.count('"name": "lanes"') == 1 and '"name": "width"' in live


def test_inspect_reports_the_cfg_kernel_and_the_live_variant():
    a, module = compile_source(KERNEL + PAIR, "k.ea", X86)
    report = inspect_module(a, module)
    assert sorted(f.name for f in report.functions) == ["lanes", "twice", "width"]
    assert inspect_function(a, "twice").name == "twice"
    one, blocking = compile_functions(a, ["twice"])
    assert blocking == [] and "define void @twice(" in one.ir()


def test_errors_in_the_other_variant_do_not_block_this_one():
    broken = PAIR.replace("return 4", "return nope")
    a = analyze(broken, "k.ea", X86)
    assert [d.code for d in a.errors] == ["undefined-variable"]
    module, blocking = compile_functions(a, ["width"])
    assert blocking == [] and module is not None


def test_tuner_language_server_and_tui():
    a = analyze(KERNEL + PAIR, "k.ea", X86)
    assert [(type(i).__name__, i.span.line) for i in tune_functions(a)] == \
        [("Kernel", 2), ("Func", 12), ("Func", 15)]
    assert [s.function for s in find_sites(a, "twice", only=("unroll",))] == ["twice"]
    assert [(i.name, i.span.line) for i in visible_functions(a, EVERYTHING)] == \
        [("twice", 2), ("lanes", 12), ("width", 15)]
    assert function_at(a, 3) == "twice"
    assert function_at(a, 9) is None  # the body of the aarch64 `lanes`: no code on x86
    assert function_at(a, 13) == "lanes"
