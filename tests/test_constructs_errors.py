"""The type errors of LANGUAGE.md §11, one test per row (and per message of a
row), with the exact message, reported exactly once, at the start of the
offending construct; plus the intrinsic messages of INTRINSICS.md §0.3."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide

PARAMS = ("a: i32, b: i64, f: f32, d: f64, t: bool, v: f32x4, w: f32x8, iv: i32x4, "
          "p: *f32, q: *mut f32, ps: *Pt")
PRELUDE = "struct Pt { x: f32, y: f32 }\nconst N: i32 = 4\n"
TOP = ("export", "func", "const", "struct", "static_assert", "kernel")


def source(code: str) -> str:
    if code.startswith(TOP):
        return code
    return PRELUDE + f"export func e({PARAMS}) {{\n{code}\n}}\n"


def position(src: str, at: str) -> tuple[int, int]:
    i = src.index(at)
    line = src.count("\n", 0, i) + 1
    return line, i - (src.rfind("\n", 0, i) + 1) + 1


# (id, code, where the diagnostic starts (first occurrence of this text), message)
ROWS = [
    # unknown variable / function / struct / field
    ("undefined-variable", "    let r: i32 = a + zzz", "zzz", "undefined variable 'zzz'"),
    ("undefined-variable-suggest", "    let count: i32 = 1\n    let r: i32 = cuont", "cuont",
     "undefined variable 'cuont'. Did you mean 'count'?"),
    ("undefined-function", "    let r: i32 = frobnicate(a)", "frobnicate", "undefined function 'frobnicate'"),
    ("undefined-function-suggest", "    let r: f32 = sqr(f)", "sqr", "undefined function 'sqr'. Did you mean 'sqrt'?"),
    ("unknown-struct", "struct Pt { x: f32 }\nfunc g(p: Pt) {\n}\nexport func e() {\n    g(Zzz { x: 1.0 })\n}\n",
     "Zzz", "unknown struct 'Zzz'"),
    ("unknown-field", "    let r: f32 = ps.zzz", "zzz", "struct 'Pt' has no field 'zzz'"),
    ("unknown-field-suggest", "    let r: f32 = ps.xx", "xx", "struct 'Pt' has no field 'xx'. Did you mean 'x'?"),
    # calls of user functions
    ("arity", "func g(x: f32, y: f32) -> f32 {\n    return x\n}\nexport func e() -> f32 {\n    return g(1.0)\n}\n",
     "g(1.0)", "function 'g' expects 2 arguments, got 1"),
    ("argument-type", "func g(x: f32) -> f32 {\n    return x\n}\nexport func e(n: i32) -> f32 {\n    return g(n)\n}\n",
     "n)", "argument 1 of 'g': expected f32, got i32. Use to_f32() to convert"),
    # let / assignment
    ("let-mismatch", "    let x: f32 = a", "a\n", "cannot initialize 'x' of type f32 with i32. Use to_f32() to convert"),
    ("let-mismatch-no-hint", "    let x: f32x4 = f", "f\n", "cannot initialize 'x' of type f32x4 with f32"),
    ("let-mismatch-small-int", "    let x: u8 = a", "a\n",
     "cannot initialize 'x' of type u8 with i32. Use to_u8() to convert"),
    ("assign-mismatch", "    let mut x: f32 = 0.0\n    x = d", "d\n",
     "cannot assign f64 to 'x' of type f32. Use to_f32() to convert"),
    ("immutable", "    let x: i32 = 1\n    x = 2", "x = 2",
     "cannot assign to immutable variable 'x'. Declare with 'let mut x' to allow assignment"),
    # constants
    ("assign-constant", "    N = 5", "N = 5", "cannot assign to constant 'N'"),
    ("constant-as-variable-name", "    let N: i32 = 5", "N: i32 = 5", "'N' is a constant, cannot be used as variable name"),
    ("duplicate-constant", "const N: i32 = 1\nconst N: i32 = 2\n", "N: i32 = 2", "duplicate constant 'N'"),
    ("const-type", "const B: bool = 1\n", "bool", "const type must be a scalar numeric type, got bool"),
    ("const-value", "const N: i32 = 1.5\n", "1.5", "const value is a float literal but declared type is i32"),
    # writes through *T
    ("write-through-pointer", "    p[0] = 1.0", "p[0]",
     "cannot write through immutable pointer 'p'. Declare as *mut to allow writes"),
    ("field-through-pointer", "    ps.x = 1.0", "ps.x", "cannot assign field through immutable pointer. "
     "Declare as *mut to allow writes"),
    # indexing
    ("index-type", "    let r: f32 = p[f]", "f]", "index must be integer, got f32"),
    ("not-indexable", "    let r: f32 = f[0]", "f[0]", "cannot index type f32. Only pointers and vectors support indexing"),
    ("index-assign-non-pointer", "    let mut z: f32x4 = v\n    z[0] = 1.0", "z[0]", "cannot index-assign to non-pointer 'z'"),
    # operators
    ("vector-operator", "    let r: f32x4 = v + v", "v + v",
     "cannot use '+' on vectors. Use '.+' for element-wise vector operations"),
    ("vector-percent", "    let r: f32x4 = v % v", "v % v",
     "binary operations require numeric operands, got f32x4 and f32x4"),
    ("mixed-kinds", "    let r: f32 = f * 2", "f * 2",
     "cannot mix integer and float in binary operation: f32 and integer literal"),
    ("different-types", "    let r: i32 = a + b", "a + b", "mismatched types in binary operation: i32 and i64"),
    ("non-numeric", "    let r: f32x4 = v + f", "v + f", "binary operations require numeric operands, got f32x4 and f32"),
    ("bitwise", "    let r: f32 = f & f", "f & f", "bitwise operators require integer operands, got f32 and f32"),
    ("bitwise-vector", "    let r: f32x4 = v .& v", "v .& v", "bitwise vector ops require integer element type, got f32"),
    ("logical", "    let r: bool = a && t", "a && t", "logical operators require bool operands, got i32 and bool"),
    ("not", "    let r: bool = !a", "!a", "'!' requires bool operand, got i32"),
    ("negate", "    let r: bool = -t", "-t", "unary '-' requires numeric or vector operand, got bool"),
    ("width-mismatch-hint", "    let r: f32x4 = v .+ w", "v .+ w",
     "vector width mismatch: 4 vs 8 (hint: load() defaults to width 4; use load_f32x8(ptr, i) for wider vectors)"),
    ("width-mismatch", "export func e(x: f32x8, y: f32x16) {\n    let r: f32x8 = x .+ y\n}\n", "x .+ y",
     "vector width mismatch: 8 vs 16"),
    ("element-mismatch", "    let r: f32x4 = v .+ iv", "v .+ iv", "vector element type mismatch: f32 vs i32"),
    ("vector-operands", "    let r: f32x4 = v .+ f", "v .+ f",
     "binary vector operations require vector operands, got f32x4 and f32"),
    # vector literals
    ("vector-literal-count", "    let r: f32x4 = [1.0, 2.0, 3.0]f32x4", "[1.0", "vector expects 4 elements, got 3"),
    ("vector-literal-element", "    let r: i32x4 = [1.0, 2, 3, 4]i32x4", "1.0",
     "vector element 0 expected i32, got float literal"),
    ("array-literal", "    let r: i32 = reduce_add([1, 2, 3, 4])", "[1",
     "array literals can only be used as shuffle indices"),
    # conditions
    ("if-condition", "    if a {\n    }", "a {", "if condition must be bool, got i32"),
    ("while-condition", "    while a {\n    }", "a {", "while condition must be bool, got i32"),
    ("foreach-start", "    foreach (i in f..10) {\n    }", "f..", "foreach start must be integer, got f32"),
    ("foreach-end", "    foreach (i in 0..f) {\n    }", "f)", "foreach end must be integer, got f32"),
    # returns
    ("return-type", "export func e(x: i32) -> f32 {\n    return x\n}\n", "x\n", "function 'e' returns i32 but expected f32. Use to_f32() to convert"),
    ("return-value-in-void", "export func e() {\n    return 1\n}\n", "1\n",
     "function 'e' has no return type but returns a value"),
    ("missing-return-value", "export func e() -> f32 {\n    return\n}\n", "return", "function 'e' must return f32"),
    # misc
    ("unroll-count", "    let mut i: i32 = 0\n    unroll(0) while i < a {\n        i = i + 1\n    }", "0)",
     "unroll count must be greater than 0"),
    ("kernel-loop-variable", "export kernel k(y: *mut f32) over i in n step 4 {\n    i = 0\n}\n", "i = 0",
     "cannot assign to loop variable 'i' \u2014 it is advanced by the kernel's step"),
    # out / cap (§9)
    ("out-immutable-pointer", "export func e(out r: *f32 [cap: 4]) {\n}\n", "*f32",
     "'out' parameter 'r' must be *mut pointer, got immutable pointer"),
    ("out-not-pointer", "export func e(out r: i32) {\n}\n", "i32",
     "'out' parameter 'r' must be a *mut pointer type, got i32"),
    ("cap-unknown-identifier", "export func e(n: i32, out r: *mut f32 [cap: n * x]) {\n}\n", "x]",
     "cap expression references unknown identifier 'x' (must be a preceding input parameter or constant)"),
    ("cap-names-out-parameter", "export func e(out s: *mut f32, out r: *mut f32 [cap: s]) {\n}\n", "s]",
     "cap expression references unknown identifier 's' (must be a preceding input parameter or constant)"),
    # static_assert
    ("static-assert-failed", "static_assert(1 == 2, \"one is not two\")\n", "static_assert",
     "static assertion failed: one is not two"),
    ("static-assert-not-bool", "const N: i32 = 3\nstatic_assert(N + 1, \"sum\")\n", "N + 1",
     "static_assert condition must evaluate to a boolean"),
    ("static-assert-not-constant-name", "static_assert(x > 0, \"x\")\n", "x >",
     "'x' is not a compile-time constant"),
    ("static-assert-not-constant-expr", "func h() -> i32 {\n    return 1\n}\nstatic_assert(h() == 1, \"h\")\n",
     "h() ==", "expression is not a compile-time constant"),
    ("static-assert-division-by-zero", "const Z: i32 = 0\nstatic_assert(4 / Z == 1, \"z\")\n", "4 / Z",
     "division by zero in constant expression"),
]


@pytest.mark.parametrize("code,at,message", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_section_11_row(code, at, message):
    src = source(code)
    a = analyze(src, "k.ea", X86)
    got = [(d.kind, d.span.line, d.span.col, d.message) for d in a.diagnostics]
    assert got == [("type",) + position(src, at) + (message,)]


def test_undeclared_struct_in_let_type_and_literal_reported_once():
    src = source("    let s: Zz = Zz { x: 1.0 }")
    a = analyze(src, "k.ea", X86)
    assert len(a.diagnostics) == 1, [d.message for d in a.diagnostics]
    assert "'Zz'" in a.diagnostics[0].message


def test_pointer_to_undeclared_struct_does_not_cascade():
    # The unknown pointee is reported once; using the parameter must not add
    # an error that mentions an internal "<error>" type.
    src = "export func e(p: *Zz) -> f32 {\n    return p.x\n}\n"
    a = analyze(src, "k.ea", X86)
    assert [(d.span.line, d.message) for d in a.diagnostics] == [(1, "unknown type 'Zz'")]



@pytest.mark.parametrize("spelling", ["Zz", "u32x8"])
def test_unknown_type_is_reported_in_every_function_that_writes_it(spelling):
    # Once per function, like an undefined name: each function's own errors
    # keep it from being compiled alone (what the language server's
    # per-function inspect does while the file has errors).
    from ea_compiler.build import compile_functions
    src = (f"export func a(x: {spelling}) -> i32 {{\n    return 1\n}}\n"
           f"export func b(y: {spelling}, z: {spelling}, p: *mut i32) {{\n    p[0] = 2\n}}\n"
           "export func c(p: *mut i32) {\n    p[0] = 3\n}\n")
    a = analyze(src, "k.ea", X86)
    assert [(d.span.line, d.span.col) for d in a.diagnostics] == [(1, 18), (4, 18)]
    module, blocking = compile_functions(a, ["b"])
    assert module is None and [(d.span.line, d.span.col) for d in blocking] == [(4, 18)]
    module, blocking = compile_functions(a, ["c"])
    assert module is not None and blocking == []


def test_unknown_struct_literal_is_reported_in_every_function():
    src = ("func g(v: i32) {\n}\n"
           "export func a() {\n    g(Zz { x: 1 })\n}\n"
           "export func b() {\n    g(Zz { x: 2 })\n}\n")
    a = analyze(src, "k.ea", X86)
    assert [(d.span.line, d.message) for d in a.diagnostics] == [(4, "unknown struct 'Zz'"),
                                                                 (7, "unknown struct 'Zz'")]


# ---- intrinsic calls (INTRINSICS.md §0.3): exact messages -----------------------

INTRINSIC_ROWS = [
    ("splat-arity", "    let r: f32x4 = splat(1.0, 2.0)", "splat(", "splat expects 1 argument"),
    ("splat-bool", "    let r: f32x4 = splat(t)", "t)\n", "splat expects numeric argument, got bool"),
    ("load-arity", "    let r: f32x4 = load(p)", "load(", "load expects 2 arguments (ptr, index)"),
    ("load-index", "    let r: f32x4 = load(p, f)", "f)", "load index must be integer"),
    ("load-not-pointer", "    let r: f32x4 = load(f, 0)", "f, 0", "load expects a pointer, got f32"),
    ("store-arity", "    store(q, 0)", "store(", "store expects 3 arguments (ptr, index, vector)"),
    ("store-index", "    store(q, f, v)", "f, v", "store index must be integer"),
    ("store-immutable", "    store(p, 0, v)", "p, 0", "store requires mutable pointer. Declare as *mut to allow writes"),
    ("store-element", "export func e(r: *mut i32, v: f32x4) {\n    store(r, 0, v)\n}\n", "store(",
     "store type mismatch: pointer element type is i32, but vector element type is f32"),
    ("fma-arity", "    let r: f32x4 = fma(v, v)", "fma(", "fma expects 3 arguments"),
    ("fma-ints", "    let r: i32 = fma(a, a, a)", "fma(", "fma expects float or float vector arguments, got i32, i32, i32"),
    ("fma-int-vectors", "    let r: i32x4 = fma(iv, iv, iv)", "fma(",
     "fma requires float vector arguments. fma only works on f32 or f64 vectors"),
    ("sqrt-int", "    let r: f32 = sqrt(a)", "a)", "sqrt expects float or float vector argument, got i32"),
    ("reduce-scalar", "    let r: f32 = reduce_add(f)", "f)", "reduce_add expects vector argument, got f32"),
    ("select-arity", "    let r: f32x4 = select(v, v)", "select(", "select expects 3 arguments (mask, a, b)"),
    ("select-mask", "    let r: i32x4 = select(iv, iv, iv)", "iv,",
     "select mask must be bool vector matching operand width, got i32x4. Use comparison operators (.>, .==) to "
     "create a mask"),
    ("shuffle-length", "    let r: f32x4 = shuffle(v, [0, 1, 2])", "[0", "shuffle indices length 3 != vector width 4"),
    ("shuffle-range", "    let r: f32x8 = shuffle(w, [0, 1, 9, 3, 4, 5, 6, 7])", "9",
     "shuffle index 2 out of range: 9 (must be in [0, 8))"),
    ("shuffle-literal", "    let r: f32x4 = shuffle(v, [a, 1, 2, 3])", "a, 1", "shuffle index 0 must be integer literal"),
    ("shuffle-array", "    let r: f32x4 = shuffle(v, iv)", "iv)",
     "shuffle indices argument must be [index, ...] array literal"),
    ("prefetch-arity", "    prefetch(p)", "prefetch(", "prefetch expects 2 arguments: (ptr, offset)"),
    ("min-mixed", "    let r: f32 = min(a, f)", "min(", "min expects matching numeric types, got (i32, f32)"),
]


@pytest.mark.parametrize("code,at,message", [r[1:] for r in INTRINSIC_ROWS], ids=[r[0] for r in INTRINSIC_ROWS])
def test_intrinsic_message(code, at, message):
    src = source(code)
    a = analyze(src, "k.ea", X86)
    got = [(d.kind, d.span.line, d.span.col, d.message) for d in a.diagnostics]
    assert got == [("type",) + position(src, at) + (message,)]
