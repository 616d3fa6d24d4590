"""Golden tests: the exact CLI text of one diagnostic kind each (TOOLCHAIN.md §9).

Every case asserts the whole rendered text (location line, source line, the
underline covering the WHOLE span of the construct, notes and help lines) and,
where the diagnostic carries a quick fix, the fix's replacement and span and
that applying it makes the diagnostic go away.
"""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide
ARM = Options(target_triple="aarch64-unknown-linux-gnu")


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


def rendered(src: str, opts: Options | None = None) -> str:
    a = analyze(src, "k.ea", opts or X86)
    return render_all(a.diagnostics, a.source, "k.ea")


def only(src: str, opts: Options | None = None):
    a = analyze(src, "k.ea", opts or X86)
    assert len(a.diagnostics) == 1, [d.message for d in a.diagnostics]
    return a.diagnostics[0]


def apply(src: str, suggestion) -> str:
    data = src.encode()
    s = suggestion.span
    return (data[: s.start] + suggestion.replacement.encode() + data[s.end:]).decode()


def span_pos(span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


# Each case: (id, source, expected text, quick fix or None, options).
# A quick fix is (replacement, (line, col, end_line, end_col)); applying it must
# leave a file without any error.
CASES = [
    # ---- the spec's own examples (TOOLCHAIN.md §9.3), underline = whole span ----
    ("spec-unknown-name",
     lines("export func total(count: i32) -> i32 {",
           "    return cuont * 2",
           "}"),
     lines("k.ea:2:12  error[type]: undefined variable 'cuont'. Did you mean 'count'?",
           "        return cuont * 2",
           "               ^^^^^",
           "  = help: rename to 'count'"),
     ("count", (2, 12, 2, 17)), X86),
    ("spec-immutable",
     lines("export func bump(x: i32) -> i32 {",
           "    let y: i32 = x",
           "    y = y + 1",
           "    return y",
           "}"),
     lines("k.ea:3:5  error[type]: cannot assign to immutable variable 'y'. "
           "Declare with 'let mut y' to allow assignment",
           "        y = y + 1",
           "        ^^^^^^^^^",
           "  = help: declare it 'let mut'"),
     ("mut ", (2, 9, 2, 9)), X86),
    ("spec-vector-operator",
     lines("export func mix(a: f32x4, b: f32x4) -> f32x4 {",
           "    return a * b",
           "}"),
     lines("k.ea:2:12  error[type]: cannot use '*' on vectors. Use '.*' for element-wise vector operations",
           "        return a * b",
           "               ^^^^^",
           "  = help: use '.*'"),
     (".*", (2, 14, 2, 15)), X86),
    ("spec-conversion",
     lines("export func half(n: i32) -> f32 {",
           "    let h: f32 = n",
           "    return h * 0.5",
           "}"),
     lines("k.ea:2:18  error[type]: cannot initialize 'h' of type f32 with i32. Use to_f32() to convert",
           "        let h: f32 = n",
           "                     ^",
           "  = help: wrap in to_f32(...)"),
     ("to_f32(n)", (2, 18, 2, 19)), X86),
    # §5.6: load() outside a let initialiser has 4 lanes; the left operand is typed first.
    ("spec-width-hint",
     lines("export func add8(p: *f32, q: *mut f32) {",
           "    let a: f32x8 = load(q, 0)",
           "    store(q, 0, load(p, 0) .+ a)",
           "}"),
     lines("k.ea:3:17  error[type]: vector width mismatch: 4 vs 8 (hint: load() defaults to width 4; "
           "use load_f32x8(ptr, i) for wider vectors)",
           "        store(q, 0, load(p, 0) .+ a)",
           "                    ^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context) "
           "but `a` is f32x8",
           "  = help: write load_f32x8(p, 0)"),
     ("load_f32x8(p, 0)", (3, 17, 3, 27)), X86),
    ("spec-readonly-pointer",
     lines("export func zero(p: *f32) {",
           "    p[0] = 0.0",
           "}"),
     lines("k.ea:2:5  error[type]: cannot write through immutable pointer 'p'. Declare as *mut to allow writes",
           "        p[0] = 0.0",
           "        ^^^^^^^^^^",
           "  = help: declare 'p' as *mut f32"),
     ("*mut f32", (1, 21, 1, 25)), X86),
    ("spec-parse-error",
     lines("export func f() { let x: i32 = }"),
     lines("k.ea:1:32  error[parse]: expected expression, found '}'",
           "    export func f() { let x: i32 = }",
           "                                   ^"),
     None, X86),
    ("spec-lex-error",
     lines("export func f() {",
           "    let a: i32 = 5;",
           "}"),
     lines('k.ea:2:19  error[lex]: unexpected character: ";"',
           "        let a: i32 = 5;",
           "                      ^",
           "  = note: Eä has no statement terminators: statements end where the grammar says so",
           "  = help: remove the ';'"),
     ("", (2, 19, 2, 20)), X86),
    # §9.1: a codegen error's first line is only `error[codegen]: <message>`; the front end
    # knows the position, so it follows on the next lines.
    ("spec-target-error",
     lines("export func f(a: f32x8) -> f32 {",
           "    return reduce_add(a)",
           "}"),
     lines("error[codegen]: f32x8 requires AVX2; use f32x4 on ARM",
           "  --> k.ea:1:18",
           "    export func f(a: f32x8) -> f32 {",
           "                     ^^^^^"),
     None, ARM),

    # ---- "did you mean" ----
    ("unknown-function",
     lines("func scale(x: i32) -> i32 {",
           "    return x * 2",
           "}",
           "export func f(a: i32) -> i32 {",
           "    return scael(a)",
           "}"),
     lines("k.ea:5:12  error[type]: undefined function 'scael'. Did you mean 'scale'?",
           "        return scael(a)",
           "               ^^^^^",
           "  = help: rename to 'scale'"),
     ("scale", (5, 12, 5, 17)), X86),
    ("unknown-intrinsic",
     lines("export func f(p: *f32) -> f32x4 {",
           "    return lod(p, 0)",
           "}"),
     lines("k.ea:2:12  error[type]: undefined function 'lod'. Did you mean 'load'?",
           "        return lod(p, 0)",
           "               ^^^",
           "  = help: rename to 'load'"),
     ("load", (2, 12, 2, 15)), X86),
    ("unknown-scalar-type",
     lines("export func f(x: f23) -> i32 {",
           "    return 0",
           "}"),
     lines("k.ea:1:18  error[type]: unknown type 'f23'. Did you mean 'f32'?",
           "    export func f(x: f23) -> i32 {",
           "                     ^^^",
           "  = help: rename to 'f32'"),
     ("f32", (1, 18, 1, 21)), X86),
    ("unknown-struct-type",
     lines("struct Point { x: f32, y: f32 }",
           "export func f(p: *Pont) -> f32 {",
           "    return p.x",
           "}"),
     lines("k.ea:2:19  error[type]: unknown type 'Pont'. Did you mean 'Point'?",
           "    export func f(p: *Pont) -> f32 {",
           "                      ^^^^",
           "  = help: rename to 'Point'"),
     ("Point", (2, 19, 2, 23)), X86),
    ("unknown-struct-literal",
     lines("struct Point { x: f32, y: f32 }",
           "export func f() -> f32 {",
           "    let p: Point = Pont { x: 1.0, y: 2.0 }",
           "    return p.x",
           "}"),
     lines("k.ea:3:20  error[type]: unknown struct 'Pont'. Did you mean 'Point'?",
           "        let p: Point = Pont { x: 1.0, y: 2.0 }",
           "                       ^^^^",
           "  = help: rename to 'Point'"),
     ("Point", (3, 20, 3, 24)), X86),
    ("unknown-field",
     lines("struct Pixel { red: u8, green: u8 }",
           "export func f(px: *Pixel) -> u8 {",
           "    return px.gren",
           "}"),
     lines("k.ea:3:15  error[type]: struct 'Pixel' has no field 'gren'. Did you mean 'green'?",
           "        return px.gren",
           "                  ^^^^",
           "  = help: rename to 'green'"),
     ("green", (3, 15, 3, 19)), X86),
    ("unknown-const",
     lines("const LANES: i32 = 8",
           "export func f(n: i32) -> i32 {",
           "    return n / LANE",
           "}"),
     lines("k.ea:3:16  error[type]: undefined variable 'LANE'. Did you mean 'LANES'?",
           "        return n / LANE",
           "                   ^^^^",
           "  = help: rename to 'LANES'"),
     ("LANES", (3, 16, 3, 20)), X86),

    # ---- conversion hints on scalar mismatches ----
    ("assign-conversion",
     lines("export func f(b: f64) -> f32 {",
           "    let mut x: f32 = 0.0",
           "    x = b",
           "    return x",
           "}"),
     lines("k.ea:3:9  error[type]: cannot assign f64 to 'x' of type f32. Use to_f32() to convert",
           "        x = b",
           "            ^",
           "  = help: wrap in to_f32(...)"),
     ("to_f32(b)", (3, 9, 3, 10)), X86),
    ("let-to-i32",
     lines("export func f(c: i64) -> i32 {",
           "    let y: i32 = c + 1",
           "    return y",
           "}"),
     lines("k.ea:2:18  error[type]: cannot initialize 'y' of type i32 with i64. Use to_i32() to convert",
           "        let y: i32 = c + 1",
           "                     ^^^^^",
           "  = help: wrap in to_i32(...)"),
     ("to_i32(c + 1)", (2, 18, 2, 23)), X86),
    ("let-to-i64",
     lines("export func f(a: i32) -> i64 {",
           "    let z: i64 = a",
           "    return z",
           "}"),
     lines("k.ea:2:18  error[type]: cannot initialize 'z' of type i64 with i32. Use to_i64() to convert",
           "        let z: i64 = a",
           "                     ^",
           "  = help: wrap in to_i64(...)"),
     ("to_i64(a)", (2, 18, 2, 19)), X86),
    ("let-to-f64",
     lines("export func f(a: f32) -> f64 {",
           "    let w: f64 = a",
           "    return w",
           "}"),
     lines("k.ea:2:18  error[type]: cannot initialize 'w' of type f64 with f32. Use to_f64() to convert",
           "        let w: f64 = a",
           "                     ^",
           "  = help: wrap in to_f64(...)"),
     ("to_f64(a)", (2, 18, 2, 19)), X86),
    ("int-literal-for-float",
     lines("export func f() -> f32 {",
           "    let x: f32 = 1",
           "    return x",
           "}"),
     lines("k.ea:2:18  error[type]: cannot initialize 'x' of type f32 with integer literal. "
           "Use to_f32() to convert",
           "        let x: f32 = 1",
           "                     ^",
           "  = help: write 1.0"),
     ("1.0", (2, 18, 2, 19)), X86),

    # ---- intrinsic arity and argument types: the note lists the signatures ----
    ("intrinsic-arity",
     lines("export func f(p: *f32) -> f32x4 {",
           "    return load(p)",
           "}"),
     lines("k.ea:2:12  error[type]: load expects 2 arguments (ptr, index)",
           "        return load(p)",
           "               ^^^^^^^",
           "  = note: accepted: load(*T, int) -> TxN"),
     None, X86),
    ("intrinsic-arity-fma",
     lines("export func f(v: f32x4) -> f32x4 {",
           "    return fma(v, v)",
           "}"),
     lines("k.ea:2:12  error[type]: fma expects 3 arguments",
           "        return fma(v, v)",
           "               ^^^^^^^^^",
           "  = note: accepted: fma(FV, FV, FV) -> FV | fma(f32, f32, f32) -> f32 | fma(f64, f64, f64) -> f64"),
     None, X86),
    ("intrinsic-argument-type",
     lines("export func f(n: i32) -> f32 {",
           "    return sqrt(n)",
           "}"),
     lines("k.ea:2:17  error[type]: sqrt expects float or float vector argument, got i32",
           "        return sqrt(n)",
           "                    ^",
           "  = note: accepted: sqrt(f32) -> f32 | sqrt(f64) -> f64 | sqrt(FV) -> FV"),
     None, X86),
    ("intrinsic-argument-types-fma",
     lines("export func f(a: i32, b: i32, c: i32) -> i32 {",
           "    return fma(a, b, c)",
           "}"),
     lines("k.ea:2:12  error[type]: fma expects float or float vector arguments, got i32, i32, i32",
           "        return fma(a, b, c)",
           "               ^^^^^^^^^^^^",
           "  = note: accepted: fma(FV, FV, FV) -> FV | fma(f32, f32, f32) -> f32 | fma(f64, f64, f64) -> f64"),
     None, X86),

    # ---- scatter needs --avx512 (a codegen-kind error: no position in the CLI text) ----
    ("scatter-without-avx512",
     lines("export func f(p: *mut f32, idx: i32x8, v: f32x8) {",
           "    scatter(p, idx, v)",
           "}"),
     lines("error[codegen]: scatter requires AVX-512 for hardware support; compile with --avx512 "
           "or write a scalar loop explicitly",
           "  --> k.ea:2:5",
           "        scatter(p, idx, v)",
           "        ^^^^^^^^^^^^^^^^^^"),
     None, X86),

    # ---- missing '}' points at the opener, with a label where it was expected ----
    ("unclosed-block",
     lines("export func f(n: i32) -> i32 {",
           "    let a: i32 = n",
           "",
           "export func g() -> i32 {",
           "    return 1",
           "}"),
     lines("k.ea:1:30  error[parse]: unclosed '{': the block of function 'f' is never closed",
           "    export func f(n: i32) -> i32 {",
           "                                 ^",
           "  k.ea:4:1: expected '}' before 'export'",
           "      export func g() -> i32 {",
           "      ^^^^^^",
           "  = help: insert the missing '}'"),
     ("\n}", (2, 19, 2, 19)), X86),
    ("unclosed-paren",
     lines("export func f(a: i32) -> i32 {",
           "    let b: i32 = max(a, 2",
           "    return b",
           "}"),
     # parse errors underline the token where the parser stopped (the whole token, as
     # every diagnostic underlines its whole span; the spec's single caret is the original's)
     lines("k.ea:3:5  error[parse]: expected ')' after arguments",
           "        return b",
           "        ^^^^^^",
           "  k.ea:2:21: '(' opened here",
           "          let b: i32 = max(a, 2",
           "                          ^",
           "  = help: insert ')'"),
     (")", (2, 26, 2, 26)), X86),
]


@pytest.mark.parametrize("src,expected,fix,opts", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_golden_text(src, expected, fix, opts):
    assert rendered(src, opts) == expected


FIXED = [c for c in CASES if c[3] is not None]


@pytest.mark.parametrize("src,expected,fix,opts", [c[1:] for c in FIXED], ids=[c[0] for c in FIXED])
def test_quick_fix(src, expected, fix, opts):
    d = only(src, opts)
    assert [(s.replacement, span_pos(s.span)) for s in d.suggestions] == [fix]
    fixed = apply(src, d.suggestions[0])
    after = analyze(fixed, "k.ea", opts)
    assert [x.message for x in after.diagnostics if x.message == d.message] == []
    assert after.errors == [], [x.message for x in after.errors]


# ---- the dot-operator hint for every scalar operator on vectors ----
DOT_OPS = ["+", "-", "*", "/", "<", ">", "<=", ">=", "==", "!="]


@pytest.mark.parametrize("op", DOT_OPS)
def test_dot_operator_hint(op):
    arith = op in "+-*/"
    body = f"    return a {op} b" if arith else f"    return select(a {op} b, a, b)"
    src = lines("export func f(a: f32x8, b: f32x8) -> f32x8 {", body, "}")
    col = 12 if arith else 19
    width = len(f"a {op} b")
    expected = lines(
        f"k.ea:2:{col}  error[type]: cannot use '{op}' on vectors. Use '.{op}' for element-wise vector operations",
        "    " + body,
        " " * (col + 3) + "^" * width,
        f"  = help: use '.{op}'")
    assert rendered(src) == expected
    d = only(src)
    op_col = col + 2
    assert [(s.replacement, span_pos(s.span)) for s in d.suggestions] == \
        [(f".{op}", (2, op_col, 2, op_col + len(op)))]
    assert analyze(apply(src, d.suggestions[0]), "k.ea", X86).diagnostics == []


def test_let_mut_fix_covers_every_assignment():
    src = lines("export func f(x: i32) -> i32 {",
                "    let y: i32 = x",
                "    y = y + 1",
                "    y = y * 2",
                "    return y",
                "}")
    a = analyze(src, "k.ea", X86)
    assert [d.span.line for d in a.diagnostics] == [3, 4]
    fixed = apply(src, a.diagnostics[0].suggestions[0])
    assert "    let mut y: i32 = x\n" in fixed
    assert analyze(fixed, "k.ea", X86).diagnostics == []


def test_parameter_assignment_has_no_let_mut_fix():
    # A parameter has no 'let' to add 'mut' to; the note explains the copy idiom.
    src = lines("export func f(x: i32) -> i32 {",
                "    x = 1",
                "    return x",
                "}")
    d = only(src)
    assert d.message == "cannot assign to immutable variable 'x'. Declare with 'let mut x' to allow assignment"
    assert d.suggestions == []
    assert any("parameter" in n for n in d.notes)


def test_scatter_with_avx512_is_accepted():
    src = lines("export func f(p: *mut f32, idx: i32x8, v: f32x8) {",
                "    scatter(p, idx, v)",
                "}")
    assert analyze(src, "k.ea", Options(target_triple="x86_64-unknown-linux-gnu", avx512=True)).diagnostics == []


def test_scatter_error_keeps_the_call_span_for_tools():
    src = lines("export func f(p: *mut f32, idx: i32x8, v: f32x8) {",
                "    scatter(p, idx, v)",
                "}")
    d = only(src)
    assert (d.kind, d.message) == ("target", "scatter requires AVX-512 for hardware support; compile with "
                                   "--avx512 or write a scalar loop explicitly")
    assert span_pos(d.span) == (2, 5, 2, 23)


def test_width_hint_names_the_wider_load():
    src = lines("export func f(a: f32x4, b: f32x8) -> f32x8 {",
                "    return b .+ a",
                "}")
    assert rendered(src) == lines(
        "k.ea:2:12  error[type]: vector width mismatch: 8 vs 4 (hint: load() defaults to width 4; "
        "use load_f32x8(ptr, i) for wider vectors)",
        "        return b .+ a",
        "               ^^^^^^")


def test_no_width_hint_without_a_4_lane_side():
    src = lines("export func f(a: f32x8, b: f32x16) -> f32x8 {",
                "    return a .+ b",
                "}")
    assert rendered(src) == lines(
        "k.ea:2:12  error[type]: vector width mismatch: 8 vs 16",
        "        return a .+ b",
        "               ^^^^^^")


def test_no_suggestion_when_nothing_is_close():
    src = lines("export func f(count: i32) -> i32 {",
                "    return zzzzzz",
                "}")
    d = only(src)
    assert d.message == "undefined variable 'zzzzzz'"
    assert d.suggestions == []


def test_short_names_allow_only_distance_one():
    # §9.2: distance <= 1 when the unknown name has <= 3 characters.
    src = lines("export func f(abc: i32) -> i32 {",
                "    return axy",
                "}")
    assert only(src).message == "undefined variable 'axy'"
    src = lines("export func f(abc: i32) -> i32 {",
                "    return abd",
                "}")
    assert only(src).message == "undefined variable 'abd'. Did you mean 'abc'?"


def test_tabs_and_wide_characters_keep_carets_aligned():
    src = "export func f(p: *f32) {\n\t// \u00e4\u00e4\n\tp[0] = 0.0\n}\n"
    out = rendered(src)
    assert out.splitlines()[1:3] == ["    \tp[0] = 0.0", "    \t^^^^^^^^^^"]
