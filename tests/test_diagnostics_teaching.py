"""Golden tests of the diagnostics a new user met that now teach (issue 21
§4): the exponent form Eä lacks, compound assignment, a name from another
SIMD library, an f64 splatted where f32 lanes are wanted, a kernel step
wider than its one store. Exact text and span, one diagnostic each (no
cascade), and the quick fix that, applied, leaves a clean file."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")  # pinned: the host must not decide


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


CASES = [
    ("exponent-in-expression",
     lines("export func f(x: f32) -> f32 {",
           "    return x * 1e-6",
           "}"),
     lines("k.ea:2:16  error[lex]: float literals have no exponent in Eä: '1e-6' is not a literal",
           "        return x * 1e-6",
           "                   ^^^^",
           "  = note: write the value out with a decimal point (LANGUAGE.md §1.5)",
           "  = help: write 0.000001"),
     ("0.000001", (2, 16, 2, 20))),
    ("exponent-in-const",
     lines("const EPS: f64 = 2.5E-3",
           "export func f(x: f64) -> f64 {",
           "    return x * EPS",
           "}"),
     lines("k.ea:1:18  error[lex]: float literals have no exponent in Eä: '2.5E-3' is not a literal",
           "    const EPS: f64 = 2.5E-3",
           "                     ^^^^^^",
           "  = note: write the value out with a decimal point (LANGUAGE.md §1.5)",
           "  = help: write 0.0025"),
     ("0.0025", (1, 18, 1, 24))),
    ("compound-assignment",
     lines("export func f(x: *f32, n: i32) -> f32 {",
           "    let mut s: f32 = 0.0",
           "    let mut i: i32 = 0",
           "    while i < n {",
           "        s += x[i]",
           "        i = i + 1",
           "    }",
           "    return s",
           "}"),
     lines("k.ea:5:9  error[parse]: Eä has no compound assignment '+='",
           "            s += x[i]",
           "            ^^^^^^^^^",
           "  = help: write s = s + x[i]"),
     ("s = s + x[i]", (5, 9, 5, 18))),
    ("compound-assignment-keeps-precedence",
     lines("export func f(a: f32, b: f32) -> f32 {",
           "    let mut s: f32 = 1.0",
           "    s *= a + b",
           "    return s",
           "}"),
     lines("k.ea:3:5  error[parse]: Eä has no compound assignment '*='",
           "        s *= a + b",
           "        ^^^^^^^^^^",
           "  = help: write s = s * (a + b)"),
     ("s = s * (a + b)", (3, 5, 3, 15))),
    ("compound-assignment-vector",
     lines("export func f(p: *mut f32, v: f32x8) {",
           "    let mut acc: f32x8 = splat(0.0)",
           "    acc .+= v",
           "    store(p, 0, acc)",
           "}"),
     lines("k.ea:3:5  error[parse]: Eä has no compound assignment '.+='",
           "        acc .+= v",
           "        ^^^^^^^^^",
           "  = help: write acc = acc .+ v"),
     ("acc = acc .+ v", (3, 5, 3, 14))),
    ("name-from-another-library",
     lines("export func f(x: *f32) -> f32 {",
           "    let v: f32x8 = load(x, 0)",
           "    return reduce_sum(v)",
           "}"),
     lines("k.ea:3:12  error[type]: undefined function 'reduce_sum'. Did you mean 'reduce_add'?",
           "        return reduce_sum(v)",
           "               ^^^^^^^^^^",
           "  = help: rename to 'reduce_add'"),
     ("reduce_add", (3, 12, 3, 22))),
    ("f64-splatted-into-f32-lanes",
     lines("export func f(x: *mut f32, s: f64) {",
           "    let v: f32x8 = splat(s)",
           "    store(x, 0, v)",
           "}"),
     lines("k.ea:2:20  error[type]: cannot initialize 'v' of type f32x8 with f64x8",
           "        let v: f32x8 = splat(s)",
           "                       ^^^^^^^^",
           "  = note: `splat(s)` is f64x8: splat keeps the type of its argument (f64)",
           "  = help: convert: to_f32(s)"),
     ("to_f32(s)", (2, 26, 2, 27))),
    ("f64-splatted-into-a-returned-vector",
     lines("export func f(s: f64) -> f32x8 {",
           "    return splat(s)",
           "}"),
     lines("k.ea:2:12  error[type]: function 'f' returns f64x8 but expected f32x8",
           "        return splat(s)",
           "               ^^^^^^^^",
           "  = note: `splat(s)` is f64x8: splat keeps the type of its argument (f64)",
           "  = help: convert: to_f32(s)"),
     ("to_f32(s)", (2, 18, 2, 19))),
    ("step-wider-than-the-store",
     lines("export kernel k(x: *f32, y: *mut f32) over i in n step 16 tail scalar { y[i] = x[i] }",
           "{",
           "    store(y, i, load_f32x8(x, i))",
           "}"),
     lines("k.ea:3:5  warning[type]: this store writes 8 lanes (f32x8) at i, but the kernel steps by 16: "
           "elements i+8..i+15 are never written",
           "        store(y, i, load_f32x8(x, i))",
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = help: step by 8, the lanes the store writes"),
     ("8", (1, 56, 1, 58))),
]


def _apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


@pytest.mark.parametrize("name,src,text,fix", CASES, ids=[c[0] for c in CASES])
def test_golden(name, src, text, fix):
    a = analyze(src, "k.ea", X86)
    assert render_all(a.diagnostics, a.source, "k.ea") == text
    assert len(a.diagnostics) == 1  # no cascade
    (s,) = a.diagnostics[0].suggestions
    assert (s.replacement, (s.span.line, s.span.col, s.span.end_line, s.span.end_col)) == fix
    fixed = analyze(_apply(src, s), "k.ea", X86)
    assert fixed.diagnostics == [], [d.message for d in fixed.diagnostics]


def test_no_step_fix_when_a_narrower_step_would_read_past_the_end():
    """The body reads x at i + 8: with step 8 the last step would read past
    n, so the step is not offered (the warning stays, without a fix)."""
    src = lines("export kernel k(x: *f32, y: *mut f32) over i in n step 16 tail scalar { y[i] = x[i] }",
                "{",
                "    let a: f32x8 = load_f32x8(x, i)",
                "    let b: f32x8 = load_f32x8(x, i + 8)",
                "    store(y, i, a .+ b)",
                "}")
    (d,) = analyze(src, "k.ea", X86).diagnostics
    assert d.code == "kernel-coverage" and d.suggestions == []


@pytest.mark.parametrize("text", ["1e999999999", "7E+400"])
def test_an_exponent_too_large_to_write_out_has_no_fix(text):
    (d,) = analyze(f"const A: f64 = {text}\n", "k.ea", X86).diagnostics
    assert d.code == "exponent-literal" and d.suggestions == []


def test_other_numbers_lex_as_before():
    src = "const A: i32 = 0x1e5\nconst B: f64 = 1.5\nexport func f(e: i32) -> i32 {\n    return A + e\n}\n"
    assert analyze(src, "k.ea", X86).diagnostics == []


@pytest.mark.parametrize("src", [
    "export func f(a: f32) -> f32 {\n    f(a) += 1.0\n    return a\n}\n",  # not assignable
    "export func f() {\n    x[ += 1\n}\n",  # a broken target
    "export func f(a: f32) -> f32 {\n    a +=\n    return a\n}\n",  # no value
])
def test_no_compound_fix_that_is_not_certain(src):
    d = analyze(src, "k.ea", X86).diagnostics[0]
    assert d.code == "compound-assignment" and d.suggestions == []
