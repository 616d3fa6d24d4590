"""Every CORE item and statement of LANGUAGE.md parses and type-checks cleanly;
kernel desugaring (§7) and the target rules (§5.3).

Expressions and literal typing: test_constructs_exprs.py; the type errors of
§11: test_constructs_errors.py.
"""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze  # noqa: E402
from ea_compiler.syntax import ast as A  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide
ARM = Options(target_triple="aarch64-unknown-linux-gnu")


def clean(src: str, opts: Options = X86):
    a = analyze(src, "k.ea", opts)
    assert [(d.kind, d.span.line if d.span else None, d.message) for d in a.diagnostics] == []
    return a


def messages(src: str, opts: Options = X86):
    a = analyze(src, "k.ea", opts)
    return [(d.kind, d.span.line if d.span else None, d.message) for d in a.diagnostics]


# ---- items ------------------------------------------------------------------

ITEMS = {
    "func": "func add(a: i32, b: i32) -> i32 {\n    return a + b\n}\n",
    "func-no-params-no-return": "func nothing() {\n}\n",
    "export-func": "export func add(a: f32, b: f32) -> f32 {\n    return a + b\n}\n",
    "call-before-definition": "export func f() -> i32 {\n    return g(1)\n}\nfunc g(x: i32) -> i32 {\n    return x\n}\n",
    "main-without-return-type": "func main() {\n    println(1)\n}\n",
    "falling-off-the-end": "func f(x: i32) -> i32 {\n    let y: i32 = x\n}\n",
    "pointer-params": "export func f(a: *f32, b: *mut f32, c: *restrict f32, d: *restrict mut f32, "
                      "e: **f32, g: **mut f32) {\n}\n",
    "vector-params-and-return": "export func f(a: f32x4, b: i32x8, c: u8x16, d: i16x8, e: f32x16, "
                                "g: i8x32, h: i16x16, k: i8x16, m: f32x8) -> i32x4 {\n"
                                "    return [1, 2, 3, 4]i32x4\n}\n",
    "scalar-params": "export func f(a: i8, b: u8, c: i16, d: u16, e: i32, g: u32, h: i64, k: u64, "
                     "m: f32, n: f64, o: bool) {\n}\n",
    "kernel-not-exported": "kernel k(x: *f32, y: *mut f32) over i in n step 4 {\n"
                           "    store(y, i, load(x, i))\n}\n",
    "kernel-tail-pad": "export kernel k(x: *f32, y: *mut f32) over i in n step 8 tail pad {\n"
                       "    let v: f32x8 = load(x, i)\n    store(y, i, v)\n}\n",
    "kernel-tail-scalar": "export kernel axpy(x: *restrict f32, y: *mut f32, a: f32)\n"
                          "    over k in len step 8\n"
                          "    tail scalar { y[k] = a * x[k] + y[k] }\n{\n"
                          "    let va: f32x8 = splat(a)\n    let vx: f32x8 = load(x, k)\n"
                          "    let vy: f32x8 = load(y, k)\n    store(y, k, fma(va, vx, vy))\n}\n",
    "kernel-tail-mask": "export kernel clip(v: *f32, o: *mut f32, hi: f32)\n"
                        "    over j in count step 4\n    tail mask {\n"
                        "        let left: i32 = count - j\n"
                        "        let x: f32x4 = load_masked(v, j, left)\n"
                        "        store_masked(o, j, min(x, splat(hi)), left)\n    }\n{\n"
                        "    let x: f32x4 = load(v, j)\n    store(o, j, min(x, splat(hi)))\n}\n",
    "kernel-uses-bound": "export kernel k(y: *mut i32) over i in n step 1 {\n    y[i] = n - i\n}\n",
    "struct-with-commas": "struct P { x: f32, y: f32 }\n",
    "struct-without-commas": "struct P {\n    x: f32\n    y: f32\n}\n",
    "struct-mixed-fields": "struct In { a: i32 }\nstruct S { v: f32x4, p: *mut f32, q: *In, s: In, b: bool, "
                           "w: u64 }\n",
    "struct-declared-after-use": "func f(p: *P) -> f32 {\n    return p.x\n}\nstruct P { x: f32 }\n",
    "static-assert": "const N: i32 = 8\nstatic_assert(N % 4 == 0, \"N must be a multiple of 4\")\n",
    "static-assert-before-const": "static_assert(N > 2 && N < 100, \"range\")\nconst N: i64 = 50\n",
    "static-assert-float-and-bool": "const F: f32 = 1.5\nstatic_assert(F * 2.0 == 3.0 && !(1 > 2) "
                                    "|| false, \"f\")\n",
    "static-assert-bitwise": "const M: i32 = 0xF0\nstatic_assert((M >> 4) & 1 == 1 && (M | 1) ^ 1 == M "
                             "&& M << 1 == 480 && -7 % 2 == -1 && 7 / 2 == 3, \"bits\")\n",
    "cfg-pair": "#[cfg(x86_64)]\nfunc lanes() -> i32 {\n    return 8\n}\n#[cfg(aarch64)]\n"
                "func lanes() -> i32 {\n    return 4\n}\nexport func f() -> i32 {\n    return lanes()\n}\n",
    "cfg-export-func": "#[cfg(x86_64)]\nexport func f() {\n}\n",
    "out-param-cap": "export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {\n}\n",
    "out-param-cap-count": "const K: i32 = 2\nexport func f(w: i32, h: i32, out r: *mut f32 [cap: w * h * K, "
                           "count: w]) {\n}\n",
    "out-param-without-cap": "export func f(out r: *mut f32) {\n}\n",
    "out-as-a-name": "export func f(out: *mut f32) {\n    out[0] = 1.0\n}\n",
    "contextual-words-as-names": "export func f(kernel: i32, over: i32, step: i32, tail: i32, scalar: i32, "
                                 "mask: i32, pad: i32, cap: i32, count: i32) -> i32 {\n"
                                 "    return kernel + over + step + tail + scalar + mask + pad + cap + count\n}\n",
    "comments": "// leading comment\nfunc f() { // trailing\n    // inside\n}\n",
}


@pytest.mark.parametrize("src", ITEMS.values(), ids=ITEMS.keys())
def test_item(src):
    clean(src)


CONST_TYPES = [
    ("i8", "-5"), ("u8", "0xFF"), ("i16", "0b1010"), ("u16", "65535"), ("i32", "-0x10"), ("u32", "42"),
    ("i64", "-9000000000"), ("u64", "0b1"), ("f32", "-1.5"), ("f64", "2"), ("f32", ".5"), ("f64", "-3"),
    ("i32", "- 7"),
]


@pytest.mark.parametrize("ty,value", CONST_TYPES, ids=[f"{t}={v}" for t, v in CONST_TYPES])
def test_const_of_each_allowed_type(ty, value):
    a = clean(f"const C: {ty} = {value}\nfunc f() -> {ty} {{\n    return C\n}}\n")
    c = a.ast.items[0]
    assert isinstance(c, A.ConstDecl) and c.name == "C"
    sym = a.symbols.named("C", "const")[0]
    assert str(sym.type) == ty
    text = value.replace(" ", "")
    expected = float(text) if ty.startswith("f") else int(text, 0)
    assert sym.value == expected


def test_constant_is_usable_in_expressions_and_cap():
    clean("const N: i32 = 4\nexport func f(x: i32, out r: *mut i32 [cap: N]) -> i32 {\n"
          "    let y: i32 = x * N\n    r[0] = y\n    return y + N\n}\n")


# ---- statements -------------------------------------------------------------

def body(stmts: str, params: str = "n: i32, p: *mut i32, q: *f32", ret: str = "") -> str:
    return f"export func f({params}){ret} {{\n{stmts}\n}}\n"


STATEMENTS = {
    "let": "    let x: i32 = n",
    "let-mut-and-assign": "    let mut x: i32 = n\n    x = x + 1",
    "let-redeclare": "    let x: i32 = n\n    let x: f32 = 1.0\n    let y: f32 = x",
    "let-in-if-visible-after": "    if n > 0 {\n        let z: i32 = 1\n    }\n    let w: i32 = z",
    "several-on-one-line": "    let a: i32 = 1 let b: i32 = 2 p[0] = a + b",
    "index-assign": "    p[0] = n\n    p[n] = 5",
    "index-with-any-int": "    let k: i64 = 1\n    let u: u8 = 2\n    p[k] = p[u]",
    "field-assign-struct-var": "    let mut s: S = S { a: 1, b: 2.0 }\n    s.a = 3",
    "field-assign-through-mut-pointer": "    ps.a = 1\n    ps[1].b = 2.0",
    "struct-element-assign": "    ps[0] = S { a: 1, b: 2.0 }",
    "if": "    if n > 0 {\n        p[0] = 1\n    }",
    "if-else": "    if n > 0 {\n        p[0] = 1\n    } else {\n        p[0] = 2\n    }",
    "if-else-if-else": "    if n > 0 {\n        p[0] = 1\n    } else if n < 0 {\n        p[0] = 2\n    } "
                       "else if n == 0 {\n        p[0] = 3\n    } else {\n        p[0] = 4\n    }",
    "while": "    let mut i: i32 = 0\n    while i < n {\n        i = i + 1\n    }",
    "foreach": "    foreach (i in 0..n) {\n        p[i] = i\n    }",
    "foreach-scoped": "    foreach (i in 0..n) {\n        let t: i32 = i\n    }\n    let i: f32 = 1.0\n"
                      "    let t: f32 = i",
    "for": "    for i in 0..n {\n        p[i] = i\n    }",
    "for-with-step": "    for i in 0..n step 4 {\n        p[i] = 0\n    }",
    "for-var-visible-and-mutable-after": "    for i in 0..n {\n        i = i + 1\n    }\n    i = 0",
    "unroll-while": "    let mut i: i32 = 0\n    unroll(4) while i < n {\n        i = i + 1\n    }",
    "unroll-foreach": "    unroll(2) foreach (i in 0..n) {\n        p[i] = 1\n    }",
    "unroll-for": "    unroll(8) for i in 0..n step 2 {\n        p[i] = 1\n    }",
    "return-without-value": "    if n > 0 {\n        return\n    }\n    p[0] = 1\n    return",
    "expression-statement-calls": "    println(n)\n    println(\"text\")\n    prefetch(q, 16)\n"
                                  "    store(p, 0, splat(1))",
    "nested-loops": "    foreach (i in 0..n) {\n        for j in i..n {\n            while j > n {\n"
                    "                return\n            }\n        }\n    }",
}


@pytest.mark.parametrize("src", STATEMENTS.values(), ids=STATEMENTS.keys())
def test_statement(src):
    structs = "struct S { a: i32, b: f32 }\n"
    clean(structs + body(src, params="n: i32, p: *mut i32, q: *f32, ps: *mut S"))


def test_foreach_variable_and_body_locals_are_not_visible_after_the_loop():
    src = body("    foreach (i in 0..n) {\n        let inner: i32 = i\n    }\n    p[0] = inner")
    assert messages(src) == [("type", 5, "undefined variable 'inner'")]


def test_return_with_value():
    clean(body("    if n > 0 {\n        return n\n    }\n    return 0", ret=" -> i32"))


def test_if_else_if_parses_as_nested_if():
    a = clean(body("    if n > 0 {\n        p[0] = 1\n    } else if n < 0 {\n        p[0] = 2\n    } else {\n"
                   "        p[0] = 3\n    }"))
    s = a.ast.items[0].body.stmts[0]
    assert isinstance(s, A.If) and isinstance(s.orelse, A.If) and isinstance(s.orelse.orelse, A.Block)


def test_unroll_keeps_the_loop_in_every_form():
    a = clean(body("    let mut i: i32 = 0\n    unroll(4) while i < n {\n        i = i + 1\n    }\n"
                   "    unroll(2) foreach (j in 0..n) {\n        p[j] = 1\n    }\n"
                   "    unroll(8) for k in 0..n {\n        p[k] = 2\n    }"))
    written = a.ast.items[0].body.stmts
    assert [type(s.loop).__name__ for s in written if isinstance(s, A.Unroll)] == ["While", "ForEach", "For"]
    assert [s.count for s in written if isinstance(s, A.Unroll)] == [4, 2, 8]
    # §8: unroll(N) for behaves like the plain for: the loop survives desugaring.
    lowered = a.desugared.items[0].body.stmts
    unrolled = [s for s in lowered if isinstance(s, A.Unroll)]
    assert [type(s.loop).__name__ for s in unrolled] == ["While", "ForEach", "While"]


def test_for_desugars_to_let_mut_and_while_with_step():
    a = clean(body("    for i in 1..n step 3 {\n        p[i] = i\n    }"))
    let, loop = a.desugared.items[0].body.stmts
    assert isinstance(let, A.Let) and let.name == "i" and let.mutable and let.type.name == "i32"
    assert isinstance(loop, A.While) and loop.cond.op == "<"
    inc = loop.body.stmts[-1]
    assert isinstance(inc, A.Assign) and inc.value.op == "+" and inc.value.right.value == 3


# ---- kernel desugaring (§7) -------------------------------------------------

KERNEL = """\
export kernel scale(x: *restrict f32, y: *mut f32, s: f32)
    over i in len step 8
    tail scalar { y[i] = x[i] * s }
{
    let v: f32x8 = load(x, i)
    store(y, i, v .* splat(s))
}
"""


def test_kernel_desugars_to_function_with_bound_appended_as_i32():
    a = clean(KERNEL)
    assert isinstance(a.ast.items[0], A.Kernel)
    f = a.desugared.items[0]
    assert isinstance(f, A.Func) and f.name == "scale" and f.export and f.ret is None
    assert [(p.name, A.type_text(p.type)) for p in f.params] == [
        ("x", "*restrict f32"), ("y", "*mut f32"), ("s", "f32"), ("len", "i32")]


@pytest.mark.parametrize("tail,tail_kind", [("", None), ("tail pad", None),
                                            ("tail scalar { y[i] = 0.0 }", A.While),
                                            ("tail mask { y[i] = 0.0 }", A.If)])
def test_kernel_desugared_shape(tail, tail_kind):
    src = f"kernel k(y: *mut f32) over i in n step 4 {tail} {{\n    store(y, i, splat(0.0))\n}}\n"
    a = clean(src)
    stmts = a.desugared.items[0].body.stmts
    init, main = stmts[0], stmts[1]
    assert isinstance(init, A.Let) and init.name == "i" and init.mutable and init.value.value == 0
    assert isinstance(main, A.While) and main.cond.op == "<=" and main.cond.left.op == "+"
    assert main.cond.left.right.value == 4 and main.cond.right.name == "n"
    assert isinstance(main.body.stmts[-1], A.Assign) and main.body.stmts[-1].value.right.value == 4
    assert [type(s) for s in stmts[2:]] == ([tail_kind] if tail_kind else [])
    if tail_kind is A.While:
        assert stmts[2].cond.op == "<" and stmts[2].body.stmts[-1].value.right.value == 1


def test_exported_kernel_without_tail_is_accepted_with_a_warning():
    src = "export kernel k(x: *f32, y: *mut f32) over i in n step 4 {\n    store(y, i, load(x, i))\n}\n"
    assert messages(src) == [("type", 1, "kernel 'k' has no tail: when callers pass a value of 'n' that is "
                                         "not a multiple of 4, the last n % 4 elements are never processed")]


def test_kernel_tail_may_redeclare_a_body_name():
    clean("kernel k(y: *mut f32) over i in n step 4 tail scalar {\n    let v: f32 = 1.0\n    y[i] = v\n} {\n"
          "    let v: f32x4 = splat(1.0)\n    store(y, i, v)\n}\n")


LOOP_VAR = "cannot assign to loop variable 'i' \u2014 it is advanced by the kernel's step"


def test_assigning_the_loop_variable_in_the_body():
    src = ("export kernel k(y: *mut f32) over i in n step 4 {\n"
           "    store(y, i, splat(0.0))\n"
           "    i = i + 4\n"
           "}\n")
    a = analyze(src, "k.ea", X86)
    assert [(d.kind, d.message) for d in a.diagnostics] == [("type", LOOP_VAR)]
    d = a.diagnostics[0]
    assert (d.span.line, d.span.col, d.span.end_line, d.span.end_col) == (3, 5, 3, 14)


def test_assigning_the_loop_variable_in_a_nested_block_and_in_the_tail():
    src = ("kernel k(y: *mut f32) over i in n step 4\n"
           "    tail scalar {\n"
           "        i = n\n"
           "    }\n"
           "{\n"
           "    if i > 8 {\n"
           "        i = 0\n"
           "    }\n"
           "}\n")
    assert messages(src) == [("type", 3, LOOP_VAR), ("type", 7, LOOP_VAR)]


def test_bound_colliding_with_a_parameter():
    src = "kernel k(n: i32, y: *mut f32) over i in n step 4 {\n    y[i] = 0.0\n}\n"
    assert messages(src) == [("parse", 1, "range bound 'n' collides with parameter name")]


# ---- target rules (§5.3) ----------------------------------------------------

def test_f32x8_parameter_rejected_on_arm():
    src = "export func f(a: f32x8) -> f32 {\n    return reduce_add(a)\n}\n"
    assert messages(src, ARM) == [("target", 1, "f32x8 requires AVX2; use f32x4 on ARM")]


@pytest.mark.parametrize("ty,msg", [
    ("f32x16", "f32x16 requires AVX-512; use f32x4 on ARM"),
    ("i32x8", "i32x8 requires AVX2; use i32x4 on ARM"),
    ("i8x32", "i8x32 requires AVX2; use i8x16 on ARM"),
    ("i16x16", "i16x16 requires AVX2; use i16x8 on ARM"),
    ("u8x32", "u8x32 exceeds 128-bit NEON maximum; use a narrower vector on ARM"),
])
def test_wide_vectors_rejected_on_arm(ty, msg):
    assert messages(f"export func f(a: {ty}) {{\n}}\n", ARM) == [("target", 1, msg)]
    assert messages(f"export func f() -> {ty} {{\n}}\n", ARM) == [("target", 1, msg)]


def test_wide_let_on_arm_reported_once():
    # One declaration, one problem: the context-typed initialiser must not
    # repeat the error of the `let` type.
    src = "export func f(p: *i32) {\n    let v: i32x8 = splat(0)\n    let w: i32x8 = load(p, 0)\n}\n"
    a = analyze(src, "k.ea", ARM)
    assert [(d.kind, d.span.line, d.span.col, d.message) for d in a.diagnostics] == [
        ("target", 2, 12, "i32x8 requires AVX2; use i32x4 on ARM"),
        ("target", 3, 12, "i32x8 requires AVX2; use i32x4 on ARM"),
    ]


def test_128_bit_vectors_accepted_on_arm():
    clean("export func f(a: f32x4, b: i32x4, c: u8x16, d: i8x16, e: i16x8) -> f32x4 {\n    return a\n}\n", ARM)


def test_f32x16_without_avx512_accepted_on_x86():
    src = "export func f(a: f32x16, b: f32x16) -> f32x16 {\n    let c: f32x16 = a .+ b\n    return c\n}\n"
    clean(src, X86)  # a CPU with AVX-512
    avx2 = analyze(src, "k.ea", Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell"))
    assert {(d.severity, d.code) for d in avx2.diagnostics} == {("warning", "vector-too-wide")}  # not an error


@pytest.mark.parametrize("ty,wider", [("i8x8", "i8x16"), ("u8x8", "u8x16"), ("i16x4", "i16x8"),
                                      ("u16x4", "u16x8"), ("i32x2", "i32x4")])
def test_64_bit_neon_types_rejected_on_x86(ty, wider):
    expected = f"{ty} is a 64-bit NEON type; not available on x86 \u2014 use {wider} or wider"
    assert messages(f"export func f(a: {ty}) {{\n}}\n", X86) == [("target", 1, expected)]
    clean(f"export func f(a: {ty}) {{\n}}\n", ARM)
