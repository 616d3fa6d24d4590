"""Width and element mismatches caused by a context-typed call's default
(LANGUAGE.md §5.6: splat/load/load_masked without a type from context are 4
lanes, splat of an integer literal i32) name that call, the type it was
inferred as and why; exact text and span, and each quick fix checks clean."""
from __future__ import annotations

import pytest

from ea_compiler import Options, analyze, render_all

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide


def apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


# (id, source, rendered diagnostics, quick fix replacement or None)
CASES = [
    ("select-splat-default",
     lines("export func thr(p: *u8, out: *mut u8, t: u8) {",
           "    let v: u8x16 = load(p, 0)",
           "    store(out, 0, select(v .> splat(t), splat(255), splat(0)))",
           "}"),
     lines("k.ea:3:41  error[type]: select mask must be bool vector matching operand width: `splat(255)` is "
           "inferred as i32x4 (splat defaults to 4 lanes, and an integer literal to i32, without a type from "
           "context) but the mask compares u8x16",
           "        store(out, 0, select(v .> splat(t), splat(255), splat(0)))",
           "                                            ^^^^^^^^^^",
           "  = help: give them the type u8x16"),
     "[255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255]u8x16, "
     "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]u8x16"),
    ("select-load-default",
     lines("export func pick(p: *f32, q: *f32, out: *mut f32) {",
           "    let v: f32x8 = load(p, 0)",
           "    store(out, 0, select(v .> splat(0.0), load(p, 0), load(q, 0)))",
           "}"),
     lines("k.ea:3:43  error[type]: select mask must be bool vector matching operand width: `load(p, 0)` is "
           "inferred as f32x4 (load defaults to 4 lanes without a type from context) but the mask compares f32x8",
           "        store(out, 0, select(v .> splat(0.0), load(p, 0), load(q, 0)))",
           "                                              ^^^^^^^^^^",
           "  = help: give them the type f32x8"),
     "load_f32x8(p, 0), load_f32x8(q, 0)"),
    ("select-not-a-mask-keeps-the-reference-text",
     lines("export func s(a: i32x4, b: i32x4) -> i32x4 {",
           "    return select(a, a, b)",
           "}"),
     lines("k.ea:2:19  error[type]: select mask must be bool vector matching operand width, got i32x4. Use "
           "comparison operators (.>, .==) to create a mask",
           "        return select(a, a, b)",
           "                      ^",
           "  = note: accepted: select(bool mask xN, TxN, TxN) -> TxN"),
     None),
    ("dotted-nested-default",
     lines("export func add8(p: *f32, q: *mut f32) {",
           "    let a: f32x8 = load(q, 0)",
           "    store(q, 0, a .+ sqrt(load(p, 0)))",
           "}"),
     lines("k.ea:3:17  error[type]: vector width mismatch: 8 vs 4 (hint: load() defaults to width 4; use "
           "load_f32x8(ptr, i) for wider vectors)",
           "        store(q, 0, a .+ sqrt(load(p, 0)))",
           "                    ^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context) "
           "but `a` is f32x8",
           "  = help: write load_f32x8(p, 0)"),
     "load_f32x8(p, 0)"),
    ("splat-keeps-its-argument-type",
     lines("export func m(p: *u8, out: *mut u8, t: i32) {",
           "    let v: u8x16 = load(p, 0)",
           "    store(out, 0, select(v .> splat(t), v, v))",
           "}"),
     lines("k.ea:3:26  error[type]: vector element type mismatch: u8 vs i32",
           "        store(out, 0, select(v .> splat(t), v, v))",
           "                             ^^^^^^^^^^^^^",
           "  = note: `splat(t)` is i32x16: splat keeps the type of its argument (i32)",
           "  = help: convert: to_u8(t)"),
     "to_u8(t)"),
    ("store-element-default",
     lines("export func fill(out: *mut u8) {",
           "    store(out, 0, splat(255))",
           "}"),
     lines("k.ea:2:5  error[type]: store type mismatch: pointer element type is u8, but vector element type is i32",
           "        store(out, 0, splat(255))",
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `splat(255)` is inferred as i32x4 (splat defaults to 4 lanes, and an integer literal to "
           "i32, without a type from context) but the pointer element type is u8",
           "  = note: give it a type with a `let`, e.g. let v: u8x16 = splat(255)",
           "  = note: accepted: store(*mut T, int, TxN) -> void"),
     None),
    ("max-peer-default",
     lines("export func b(p: *f32, x: f32x8) -> f32x8 {",
           "    return max(x, sqrt(load(p, 0)))",
           "}"),
     lines("k.ea:2:12  error[type]: max expects matching numeric types, got (f32x8, f32x4)",
           "        return max(x, sqrt(load(p, 0)))",
           "               ^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context) "
           "but `x` is f32x8",
           "  = note: max accepts (i32, i32), (f32, f32), (f64, f64) or two identical float vectors",
           "  = note: accepted: max(i32, i32) -> i32 | max(f32, f32) -> f32 | max(f64, f64) -> f64 | max(FV, FV) -> FV",
           "  = help: write load_f32x8(p, 0)"),
     "load_f32x8(p, 0)"),
    ("fixed-signature-default",
     lines("export func c(p: *u8, out: *mut i16) {",
           "    store(out, 0, maddubs_i16(load(p, 0), splat(1.0)))",
           "}"),
     lines("k.ea:2:19  error[type]: maddubs_i16 expects (u8x16, i8x16), (u8x32, i8x32) or (u8x64, i8x64), "
           "got (u8x4, f32x4)",
           "        store(out, 0, maddubs_i16(load(p, 0), splat(1.0)))",
           "                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as u8x4 (load defaults to 4 lanes without a type from context), "
           "which fits no signature of maddubs_i16",
           "  = note: give it a type with a `let`, e.g. let v: u8x16 = load(p, 0)",
           "  = note: accepted: maddubs_i16(u8x16, i8x16) -> i16x8 | maddubs_i16(u8x32, i8x32) -> i16x16 | "
           "maddubs_i16(u8x64, i8x64) -> i16x32"),
     None),
    ("fma-peer-default",
     lines("export func f(p: *f32, a: f32x8) -> f32x8 {",
           "    return fma(a, a, sqrt(load(p, 0)))",
           "}"),
     lines("k.ea:2:12  error[type]: fma arguments must all have the same vector type, got f32x8, f32x8, f32x4",
           "        return fma(a, a, sqrt(load(p, 0)))",
           "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context) "
           "but `a` is f32x8",
           "  = note: accepted: fma(FV, FV, FV) -> FV | fma(f32, f32, f32) -> f32 | fma(f64, f64, f64) -> f64",
           "  = help: write load_f32x8(p, 0)"),
     "load_f32x8(p, 0)"),
    ("return-nested-default",
     lines("export func f(p: *f32) -> f32x8 {",
           "    return sqrt(load(p, 0))",
           "}"),
     lines("k.ea:2:12  error[type]: function 'f' returns f32x4 but expected f32x8",
           "        return sqrt(load(p, 0))",
           "               ^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context)",
           "  = help: write load_f32x8(p, 0)"),
     "load_f32x8(p, 0)"),
    ("store-masked-int-splat-into-floats",
     lines("export func g(q: *mut f32) {",
           "    store_masked(q, 0, splat(1), 3)",
           "}"),
     lines("k.ea:2:5  error[type]: store_masked type mismatch: pointer element type is f32, but vector element "
           "type is i32",
           "        store_masked(q, 0, splat(1), 3)",
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
           "  = note: `splat(1)` is inferred as i32x4 (splat defaults to 4 lanes, and an integer literal to i32, "
           "without a type from context) but the pointer element type is f32",
           "  = note: give it a type with a `let`, e.g. let v: f32x4 = splat(1.0)",
           "  = note: accepted: store_masked(*mut T, int, TxN, int) -> void"),
     None),
    ("let-nested-default",
     lines("export func f(p: *f32) -> f32x8 {",
           "    let v: f32x8 = sqrt(load(p, 0))",
           "    return v",
           "}"),
     lines("k.ea:2:20  error[type]: cannot initialize 'v' of type f32x8 with f32x4",
           "        let v: f32x8 = sqrt(load(p, 0))",
           "                       ^^^^^^^^^^^^^^^^",
           "  = note: `load(p, 0)` is inferred as f32x4 (load defaults to 4 lanes without a type from context)",
           "  = help: write load_f32x8(p, 0)"),
     "load_f32x8(p, 0)"),
]


@pytest.mark.parametrize("src, text, fix", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_width_blame(src, text, fix):
    a = analyze(src, "k.ea", X86)
    assert render_all(a.diagnostics, a.source, "k.ea") == text
    (d,) = a.diagnostics
    if fix is None:
        assert d.suggestions == []
        return
    (s,) = d.suggestions
    assert s.replacement == fix
    after = analyze(apply(src, s), "k.ea", X86)
    assert after.diagnostics == [], [x.message for x in after.diagnostics]


def test_fixed_signatures_type_context_calls_from_the_other_operands():
    """The extension behind the maddubs_i32 migration: splat/load as an operand of a
    fixed-signature intrinsic take the parameter type of the one signature that fits."""
    src = lines("export func f(p: *u8, q: *i8, out: *mut i32) {",
                "    let a: u8x32 = load(p, 0)",
                "    store(out, 0, madd_i16(maddubs_i16(a, load(q, 0)), splat(1)))",
                "    let h: u16x8 = widen_u8_u16_hi(load(p, 0))",
                "}")
    a = analyze(src, "k.ea", X86)
    assert a.diagnostics == []
    assert str(a.type_at(src.index("load(q, 0)"))) == "i8x32"
    assert str(a.type_at(src.index("splat(1)"))) == "i16x16"
