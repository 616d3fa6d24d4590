"""The analysis API tools use: symbols with references, types at positions,
desugared tree, and a result for any input."""
from ea_compiler import analyze
from ea_compiler.syntax import ast as A
from ea_compiler.typesys import model as T

SRC = """struct P { x: f32, y: f32 }
const N: i32 = 4
export kernel scale(v: *mut f32, s: f32) over i in n step 4 tail scalar { v[i] = v[i] * s } {
    let vs: f32x4 = splat(s)
    store(v, i, load(v, i) .* vs)
}
func norm(p: *P) -> f32 {
    return p.x * p.x + p.y * p.y
}
export func use(p: *P, k: i32) -> f32 {
    let mut t: f32 = norm(p)
    t = t + to_f32(k * N)
    return t
}
"""


def offset_of(text, needle, nth=0):
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return len(text[:i].encode())


def test_no_errors_and_symbol_kinds():
    a = analyze(SRC, "t.ea")
    assert a.diagnostics == []
    kinds = {(s.name, s.kind) for s in a.symbols.symbols}
    assert {("P", "struct"), ("x", "field"), ("N", "const"), ("scale", "kernel"), ("norm", "function"),
            ("n", "param"), ("i", "loop-var"), ("vs", "local"), ("t", "local")} <= kinds


def test_references_of_a_local_a_field_a_function_and_a_const():
    a = analyze(SRC, "t.ea")
    t = a.symbols.named("t", "local")[0]
    assert len(t.references) == 3  # t = t + ..., return t
    x = a.symbols.named("x", "field")[0]
    assert len(x.references) == 2
    norm = a.symbols.named("norm")[0]
    assert [(r.line, r.col) for r in norm.references] == [(11, 22)]
    n_const = a.symbols.named("N", "const")[0]
    assert [(r.line) for r in n_const.references] == [12]
    assert a.symbol_at(offset_of(SRC, "norm(p)")) is norm
    assert a.symbols.named("P", "struct")[0].references  # used in parameter types


def test_kernel_variable_and_bound_are_defined_at_the_header():
    a = analyze(SRC, "t.ea")
    i = a.symbols.named("i", "loop-var")[0]
    assert (i.span.line, i.span.col) == (3, 47)
    n = a.symbols.named("n", "param")[0]
    assert (n.span.line, n.span.col) == (3, 52)
    assert len(i.references) >= 4  # v[i] twice in the tail, store and load in the body


def test_types_at_positions():
    a = analyze(SRC, "t.ea")
    assert a.type_at(offset_of(SRC, "load(v, i)")) is T.vector(T.F32, 4)
    p_type = a.type_at(offset_of(SRC, "p.x"))  # the innermost expression is the name `p`
    assert isinstance(p_type, T.Pointer) and str(p_type) == "*P"
    assert a.type_at(offset_of(SRC, "x * p.x")) is T.F32
    assert str(a.type_at(offset_of(SRC, "k * N"))) == "i32"


def test_desugared_kernel_is_a_plain_function():
    a = analyze(SRC, "t.ea")
    scale = a.desugared.items[2]
    assert isinstance(scale, A.Func) and scale.origin is a.ast.items[2]
    assert [p.name for p in scale.params] == ["v", "s", "n"]
    assert A.type_text(scale.params[-1].type) == "i32"
    let, main, tail = scale.body.stmts
    assert isinstance(let, A.Let) and let.mutable and let.name == "i"
    assert isinstance(main, A.While) and isinstance(tail, A.While)
    assert not any(isinstance(i, A.Kernel) for i in a.desugared.items)


def test_for_loop_desugars_and_unroll_keeps_the_loop():
    a = analyze("func f(n: i32) { unroll(4) for j in 0..n step 2 { println(j) } }", "t.ea")
    assert a.diagnostics == []
    let, unroll = a.desugared.items[0].body.stmts
    assert isinstance(let, A.Let) and isinstance(unroll, A.Unroll) and isinstance(unroll.loop, A.While)


def test_any_input_gives_a_result():
    for data in (b"", b"\x00\x01\x02", "}}}{{{".encode(), b"func", b"export kernel k(", "é".encode() * 10):
        result = analyze(data, "t.ea")
        assert result.ast is not None
        for d in result.diagnostics:
            assert d.span is None or 0 <= d.span.start <= d.span.end <= len(data)
