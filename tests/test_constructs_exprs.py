"""Every CORE expression form: operators at each precedence level (§2.1), unary,
calls, struct and vector literals, indexing, field access; literal typing
(§5.5) and context-typed splat/load (§5.6)."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze  # noqa: E402
from ea_compiler.syntax import ast as A  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide

PARAMS = ("a: i32, b: i32, c: i32, m: i32, x: i32, f: f32, g: f32, d: f64, s: i64, u: u8, "
          "t: bool, k: bool, v: f32x4, w: f32x4, iv: i32x4, jv: i32x4, bv: u8x16, p: *f32, "
          "q: *mut f32, rows: **f32, pp: *Pt, ps: *mut Pt, pt: Pt, h: f32x8")
PRELUDE = "struct Pt { x: f32, y: f32 }\n"


def program(stmts: str) -> str:
    return PRELUDE + f"export func e({PARAMS}) {{\n{stmts}\n}}\n"


def messages(src: str):
    a = analyze(src, "k.ea", X86)
    return [(d.kind, d.message) for d in a.diagnostics]


def first_value(src: str):
    """The parsed initialiser of the first statement of the test function."""
    a = analyze(src, "k.ea", X86)
    func = [i for i in a.ast.items if isinstance(i, A.Func)][0]
    return a, func.body.stmts[0].value


def shape(e):
    if isinstance(e, A.Binary):
        return (e.op, shape(e.left), shape(e.right))
    if isinstance(e, A.Unary):
        return (e.op, shape(e.operand))
    if isinstance(e, A.Paren):
        return ("()", shape(e.inner))
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, (A.IntLit, A.FloatLit)):
        return e.value
    if isinstance(e, A.Call):
        return (e.name + "()",) + tuple(shape(x) for x in e.args)
    if isinstance(e, A.Index):
        return ("[]", shape(e.base), shape(e.index))
    if isinstance(e, A.Field):
        return (".", shape(e.base), e.name)
    raise AssertionError(type(e))


# ---- every expression form type-checks --------------------------------------

EXPRESSIONS = {
    # level 1 and 2
    "or": ("bool", "t || k"),
    "and": ("bool", "t && k"),
    # level 3: scalar and dotted comparisons
    **{f"cmp {op}": ("bool", f"a {op} b") for op in ["==", "!=", "<", ">", "<=", ">="]},
    "bool ==": ("bool", "t == k"),
    "bool !=": ("bool", "t != k"),
    **{f"dotted {op}": ("f32x4", f"select(v {op} w, v, w)") for op in [".==", ".!=", ".<", ".>", ".<=", ".>="]},
    # level 4: additive, scalar bitwise/shifts, dotted additive/bitwise/shifts
    **{f"scalar {op}": ("i32", f"a {op} b") for op in ["+", "-", "&", "|", "^", "<<", ">>"]},
    **{f"dotted {op}": ("f32x4", f"v {op} w") for op in [".+", ".-"]},
    **{f"int dotted {op}": ("i32x4", f"iv {op} jv") for op in [".&", ".|", ".^", ".<<", ".>>"]},
    "u8 bitwise": ("u8x16", "bv .& bv .| bv .^ bv"),
    # level 5: multiplicative
    **{f"scalar {op}": ("i32", f"a {op} b") for op in ["*", "/", "%"]},
    "float %": ("f32", "f % g"),
    **{f"dotted {op}": ("f32x4", f"v {op} w") for op in [".*", "./"]},
    # level 6: unary
    "not": ("bool", "!t"),
    "double not": ("bool", "!!t"),
    "negate": ("i32", "-a"),
    "negate float": ("f32", "-f"),
    "negate vector": ("f32x4", "-v"),
    "negative literal operand": ("i32", "a + -5"),
    "binary minus literal": ("i32", "a -1"),
    # level 7 and primaries
    "call user function": ("i32", "helper(a, 2)"),
    "call intrinsic": ("f32", "reduce_add(v)"),
    "parentheses": ("i32", "(a + b) * c"),
    "index pointer": ("f32", "p[a]"),
    "index vector lane": ("f32", "v[2]"),
    "index with i64": ("f32", "p[s]"),
    "double pointer index": ("*f32", "rows[a]"),
    "field of struct value": ("f32", "pt.x"),
    "field through pointer": ("f32", "pp.y"),
    "field of indexed pointer": ("f32", "ps[a].x"),
    "struct literal": ("Pt", "Pt { x: 1.0, y: g }"),
    "struct literal any order no commas": ("Pt", "Pt { y: 1.0 x: f }"),
    "vector literal suffix": ("f32x4", "[1.0, 2.0, f, g]f32x4"),
    "vector literal of expressions": ("i32x4", "[a + 1, b * 2, -c, 0]i32x4"),
    "vector literal annotation": ("u16x8", "[1, 2, 4, 8, 16, 32, 64, 128]"),
    "vector literal annotation f32x8": ("f32x8", "[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]"),
    "hex and binary literals": ("i32", "0xFF + 0b101 + 10"),
    "float literal without leading digit": ("f32", ".5 + f"),
    "bool literals": ("bool", "true || false"),
    "splat": ("f32x8", "splat(f)"),
    "load": ("f32x8", "load(p, a)"),
    "explicit width load": ("f32x8", "load_f32x8(p, 0)"),
    "i64 arithmetic with literal": ("i64", "s * 2 + 1"),
    "f64 arithmetic with literal": ("f64", "d * 2.5"),
    "u8 with literal": ("u8", "u + 1"),
    "long chain": ("i32", "a + b - c + a * b / c % m - 1"),
}


@pytest.mark.parametrize("ty,expr", EXPRESSIONS.values(), ids=EXPRESSIONS.keys())
def test_expression_form(ty, expr):
    helper = "func helper(a: i32, b: i32) -> i32 {\n    return a\n}\n"
    src = helper + program(f"    let r: {ty} = {expr}")
    a = analyze(src, "k.ea", X86)
    assert [(d.kind, d.message) for d in a.diagnostics] == []
    init = a.ast.items[-1].body.stmts[0].value
    assert str(init.ty) == ty


def test_pointer_to_pointer_row_is_bound_then_indexed():
    assert messages(program("    let row: *f32 = rows[1]\n    let z: f32 = row[2]")) == []


# ---- precedence and associativity (§2.1) -------------------------------------

SHAPES = [
    ("a & b == c", ("==", ("&", "a", "b"), "c")),
    ("x << 1 + 2", ("+", ("<<", "x", 1), 2)),
    ("a + b & m", ("&", ("+", "a", "b"), "m")),
    ("a | b ^ c & m", ("&", ("^", ("|", "a", "b"), "c"), "m")),
    ("a - b - c", ("-", ("-", "a", "b"), "c")),
    ("a / b * c", ("*", ("/", "a", "b"), "c")),
    ("a + b * c", ("+", "a", ("*", "b", "c"))),
    ("a * b + c % m", ("+", ("*", "a", "b"), ("%", "c", "m"))),
    ("-a * b", ("*", ("-", "a"), "b")),
    ("a -1", ("-", "a", 1)),
    ("a * -1", ("*", "a", -1)),
    ("a < b == t", None),  # comparisons are non-associative: a parse error, checked below
    ("t || k && t", ("||", "t", ("&&", "k", "t"))),
    ("t && k || t", ("||", ("&&", "t", "k"), "t")),
    ("!t && k", ("&&", ("!", "t"), "k")),
    ("a < b && b < c || t", ("||", ("&&", ("<", "a", "b"), ("<", "b", "c")), "t")),
    ("v .+ w .* v", (".+", "v", (".*", "w", "v"))),
    ("iv .& jv .<< iv", (".<<", (".&", "iv", "jv"), "iv")),
    ("(a + b) * c", ("*", ("()", ("+", "a", "b")), "c")),
    ("p[a + 1] * pp.x", ("*", ("[]", "p", ("+", "a", 1)), (".", "pp", "x"))),
    ("helper(a, b) + 1", ("+", ("helper()", "a", "b"), 1)),
]


@pytest.mark.parametrize("expr,expected", [s for s in SHAPES if s[1] is not None],
                         ids=[s[0] for s in SHAPES if s[1] is not None])
def test_tree_shape(expr, expected):
    _, value = first_value(program(f"    let r: i32 = {expr}"))
    assert shape(value) == expected


def test_minus_before_a_number_folds_into_one_literal():
    _, value = first_value(program("    let r: i32 = -  0x10"))
    assert isinstance(value, A.IntLit) and value.value == -16
    _, value = first_value(program("    let r: f32 = -2.5"))
    assert isinstance(value, A.FloatLit) and value.value == -2.5


def test_chained_comparison_is_a_parse_error():
    got = messages(program("    let r: bool = a < b == t"))
    assert got and got[0][0] == "parse"


def test_bitwise_binds_like_addition_so_mask_compare_type_checks():
    # (a & b) == c is i32 == i32 -> bool; with C precedence it would be a & bool.
    assert messages(program("    let r: bool = a & b == c\n    let z: i32 = a << 1 + 2")) == []


# ---- literal typing and compatibility (§5.5) ---------------------------------

def test_float_literal_sum_is_f64():
    assert messages(program("    let y: f32 = 1.0 + 2.0")) == [
        ("type", "cannot initialize 'y' of type f32 with f64. Use to_f32() to convert")]


def test_integer_literal_sum_is_i32():
    assert messages(program("    let y: i64 = 1 + 2")) == [
        ("type", "cannot initialize 'y' of type i64 with i32. Use to_i64() to convert")]
    assert messages(program("    let y: i32 = 1 + 2\n    let z: f64 = 1.0 + 2.0")) == []


def test_integer_literal_is_not_a_float():
    assert messages(program("    let x: f32 = 1")) == [
        ("type", "cannot initialize 'x' of type f32 with integer literal. Use to_f32() to convert")]


def test_literal_takes_the_concrete_type_of_the_other_operand():
    assert messages(program("    let y: i64 = s + 1\n    let z: u8 = 2 * u\n    let w: f64 = 0.5 * d\n"
                            "    let o: f32 = f / 3.0")) == []


def test_literals_fit_every_width():
    assert messages(program("    let a1: i8 = -128\n    let a2: u8 = 255\n    let a3: i16 = 7\n"
                            "    let a4: u64 = 0xFFFFFFFF\n    let a5: f64 = 1.5\n    let a6: f32 = 1.5")) == []


def test_no_implicit_conversion_between_integer_widths():
    assert messages(program("    let y: i32 = u")) == [
        ("type", "cannot initialize 'y' of type i32 with u8. Use to_i32() to convert")]
    assert messages(program("    let y: i32 = to_i32(u)\n    let z: f32 = to_f32(a)\n"
                            "    let q: f64 = to_f64(f)\n    let r: i64 = to_i64(a)")) == []


def test_mut_pointer_not_accepted_for_read_only_parameter():
    src = "func g(p: *f32) {\n}\nexport func f(q: *mut f32) {\n    g(q)\n}\n"
    assert messages(src) == [("type", "argument 1 of 'g': expected *f32, got *mut f32")]


def test_restrict_is_ignored_for_compatibility():
    src = "func g(p: *mut f32, r: *f32) {\n}\nexport func f(q: *restrict mut f32, s: *restrict f32) {\n    g(q, s)\n}\n"
    assert messages(src) == []


def test_structs_are_compatible_by_name():
    src = "struct A2 { x: f32 }\nstruct B2 { x: f32 }\nfunc g(a: A2) {\n}\nexport func f(b: B2) {\n    g(b)\n}\n"
    assert messages(src) == [("type", "argument 1 of 'g': expected A2, got B2")]


# ---- context-typed splat / load (§5.6) ---------------------------------------

def type_of_call(src: str, needle: str) -> str:
    a = analyze(src, "k.ea", X86)
    assert [d.message for d in a.errors] == []
    offset = len(src[: src.index(needle)].encode())
    return str(a.type_at(offset))


@pytest.mark.parametrize("decl,needle,expected", [
    ("let r: f32x8 = splat(0.0)", "splat", "f32x8"),
    ("let r: f64x2 = splat(1.0)", "splat", "f64x2"),
    ("let r: i32x8 = splat(1)", "splat", "i32x8"),
    ("let r: u8x16 = splat(255)", "splat", "u8x16"),
    ("let r: i16x16 = splat(1)", "splat", "i16x16"),
    ("let r: f32x8 = load(p, 0)", "load", "f32x8"),
    ("let r: f32x16 = load(p, 0)", "load", "f32x16"),
    ("let r: f32x8 = load_f32x8(p, 0)", "load_f32x8", "f32x8"),
    ("let r: f32 = reduce_add(splat(2.0))", "splat", "f32x4"),
    ("let r: i32 = reduce_add(splat(2))", "splat", "i32x4"),
    ("let r: f64 = reduce_add(splat(d))", "splat", "f64x4"),
    ("let r: f32 = reduce_add(load(p, 0))", "load", "f32x4"),
    ("let r: f32x8 = h .* splat(2.0)", "splat", "f32x8"),
    ("let r: f32x8 = h .+ load(p, 8)", "load", "f32x8"),
])
def test_context_typed_width(decl, needle, expected):
    assert type_of_call(program("    " + decl), needle) == expected


def test_accumulator_pattern_of_the_spec():
    assert messages(program("    let mut acc: f32x8 = splat(0.0)\n    acc = acc .* splat(0.0)\n"
                            "    acc = acc .+ load(p, 0)")) == []


def test_splat_of_a_concrete_scalar_keeps_its_type():
    assert messages(program("    let r: f32x4 = splat(a)")) == [
        ("type", "cannot initialize 'r' of type f32x4 with i32x4")]


def test_splat_literal_element_when_expected_element_does_not_match():
    # a float literal becomes f32 when the expected element is not a float type
    assert messages(program("    let r: i32x4 = splat(1.0)")) == [
        ("type", "cannot initialize 'r' of type i32x4 with f32x4")]
    # an integer literal becomes i32 when the expected element is not an integer type
    assert messages(program("    let r: f32x4 = splat(1)")) == [
        ("type", "cannot initialize 'r' of type f32x4 with i32x4")]


def test_load_element_comes_from_the_pointer():
    assert messages(program("    let r: i32x4 = load(p, 0)")) == [
        ("type", "cannot initialize 'r' of type i32x4 with f32x4")]
