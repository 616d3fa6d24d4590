"""Our error texts contain the reference compiler's key phrase for the same
mistake (a tool may grep for it). The table is written from the spec: every
error text INTRINSICS.md gives (§0.3 and the per-family tables) and the hints
and examples of TOOLCHAIN.md §9; each row is a program making that mistake."""
from __future__ import annotations

import pytest

from ea_compiler import Options, analyze

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide
ARM = Options(target_triple="aarch64-unknown-linux-gnu")
ARM_PLAIN = Options(target_triple="aarch64-unknown-linux-gnu", target_cpu="generic")
ARM_DOT = Options(target_triple="aarch64-unknown-linux-gnu", target_cpu="generic", dotprod=True)

P = "p: *f32, q: *mut f32, x: f32, n: i32, v: f32x4, iv: i32x4"

# (reference phrase, parameters, statement, options)
ROWS = [
    # ---- INTRINSICS.md §0.3 ----
    ("splat expects 1 argument", P, "let a: f32x4 = splat(1.0, 2.0)", X86),
    ("splat expects numeric argument, got bool", P, "let a: f32x4 = splat(true)", X86),
    ("load expects 2 arguments (ptr, index)", P, "let a: f32x4 = load(p)", X86),
    ("load index must be integer", P, "let a: f32x4 = load(p, 1.5)", X86),
    ("load expects a pointer, got f32", P, "let a: f32x4 = load(x, 0)", X86),
    ("load expects pointer to numeric type", "s: *S", "let a: f32x4 = load(s, 0)", X86),
    ("store expects 3 arguments (ptr, index, vector)", P, "store(q, 0)", X86),
    ("store index must be integer", P, "store(q, 1.5, v)", X86),
    ("store requires mutable pointer. Declare as *mut to allow writes", P, "store(p, 0, v)", X86),
    ("store type mismatch: pointer element type is i32, but vector element type is f32",
     "qi: *mut i32, v: f32x4", "store(qi, 0, v)", X86),
    ("store expects (mut ptr, index, vector)", P, "store(q, 0, x)", X86),
    ("fma expects 3 arguments", P, "let a: f32x4 = fma(v, v)", X86),
    ("fma expects float or float vector arguments, got i32, i32, i32", P, "let a: i32 = fma(n, n, n)", X86),
    ("fma requires float vector arguments. fma only works on f32 or f64 vectors", P,
     "let a: i32x4 = fma(iv, iv, iv)", X86),
    ("sqrt expects float or float vector argument, got i32", P, "let a: i32 = sqrt(n)", X86),
    ("reduce_add expects vector argument, got f32", P, "let a: f32 = reduce_add(x)", X86),
    ("select expects 3 arguments (mask, a, b)", P, "let a: f32x4 = select(v, v)", X86),
    ("select mask must be bool vector matching operand width, got i32x4. Use comparison operators (.>, .==) "
     "to create a mask", P, "let a: i32x4 = select(iv, iv, iv)", X86),
    ("shuffle indices length 3 != vector width 4", P, "let a: f32x4 = shuffle(v, [0, 1, 2])", X86),
    ("shuffle index 2 out of range: 9 (must be in [0, 8))", "v8: f32x8",
     "let a: f32x8 = shuffle(v8, [0, 1, 9, 3, 4, 5, 6, 7])", X86),
    ("shuffle index 0 must be integer literal", P, "let a: f32x4 = shuffle(v, [n, 1, 2, 3])", X86),
    ("shuffle indices argument must be [index, ...] array literal", P, "let a: f32x4 = shuffle(v, v)", X86),
    ("prefetch expects 2 arguments: (ptr, offset)", P, "prefetch(p)", X86),
    ("min expects matching numeric types, got (i32, f32)", P, "let a: i32 = min(n, x)", X86),
    ("madd_i16 expects (i16x8, i16x8), (i16x16, i16x16) or (i16x32, i16x32), got (i32x4, i32x4)", P,
     "let a: i32x4 = madd_i16(iv, iv)", X86),
    ("wmul_i32 expects (i16x4, i16x4), got (i16x8, i16x8)", "h: i16x8", "let a: i32x4 = wmul_i32(h, h)", ARM),
    ("sat_add_u8x16 expects u8x16, got i8x16", "b: i8x16", "let a: u8x16 = sat_add_u8x16(b, b)", X86),
    ("lo128_i8x32 expects i8x32, got u8x32", "u: u8x32", "let a: i8x16 = lo128_i8x32(u)", X86),
    ("madd_i16 expects 2 arguments", "h: i16x8", "let a: i32x4 = madd_i16(h)", X86),
    ("bsrli_i8x16 immediate must be 0..=15, got 16", "b: i8x16", "let a: i8x16 = bsrli_i8x16(b, 16)", X86),
    ("shuffle_i32x8 immediate must be 0..=255, got 300", "w: i32x8", "let a: i32x8 = shuffle_i32x8(w, 300)", X86),
    ("vdot_lane_i32 lane must be 0..3, got 4", "acc: i32x4, b: i8x16",
     "let a: i32x4 = vdot_lane_i32(acc, b, b, 4)", ARM_DOT),
    ("bsrli_i8x16 requires a compile-time integer constant as second argument", "b: i8x16, n: i32",
     "let a: i8x16 = bsrli_i8x16(b, n)", X86),
    # ---- named by the issue ----
    ("shuffle expects 2 or 3 arguments", P, "let a: f32x4 = shuffle(v)", X86),
    ("widen_u8_u16_hi expects u8x16", P, "let a: u16x8 = widen_u8_u16_hi(v)", X86),
    # ---- the family tables ----
    ("Integer reduce_add is already unordered \u2014 use reduce_add instead", P,
     "let a: i32 = reduce_add_fast(iv)", X86),
    ("movemask is x86-only (SSE2/AVX2); no NEON equivalent", "u: u8x16", "let a: i32 = movemask(u)", ARM),
    ("shuffle_bytes(u8x32) is x86-only (AVX2 vpshufb); use u8x16 on ARM", "t: u8x32",
     "let a: u8x32 = shuffle_bytes(t, t)", ARM),
    ("permute_runtime has no NEON equivalent on ARM.", "t: f32x8, i: i32x8",
     "let a: f32x8 = permute_runtime(t, i)", ARM),
    ("bsrli_i8x32 is x86-only (AVX2); use bsrli_i8x16 on ARM", "b: i8x32",
     "let a: i8x32 = bsrli_i8x32(b, 1)", ARM),
    ("round_f32x8_i32x8 is x86-only (AVX2); use round_f32x4_i32x4 on ARM", "w: f32x8",
     "let a: i32x8 = round_f32x8_i32x8(w)", ARM),
    ("pack_sat_i32x8 is x86-only (AVX2); use pack_sat_i32x4 on ARM", "w: i32x8",
     "let a: i16x16 = pack_sat_i32x8(w, w)", ARM),
    ("maddubs_i16 is x86-only (SSSE3/AVX2 pmaddubsw, mixed-sign u8*i8 multiply-add). On ARM, use usmmla_i32",
     "u: u8x16, b: i8x16", "let a: i16x8 = maddubs_i16(u, b)", ARM),
    ("vdot_i32 is ARM-only (NEON dot product); no x86 equivalent", "b: i8x16",
     "let a: i32x4 = vdot_i32(b, b)", X86),
    ("vdot_i32 requires ARMv8.2-A dot product extension; compile with --dotprod", "b: i8x16",
     "let a: i32x4 = vdot_i32(b, b)", ARM_PLAIN),
    ("smmla_i32 is ARM-only (I8MM); no x86 equivalent", "acc: i32x4, b: i8x16",
     "let a: i32x4 = smmla_i32(acc, b, b)", X86),
    ("smmla_i32 requires ARMv8.6-A I8MM extension; compile with --i8mm", "acc: i32x4, b: i8x16",
     "let a: i32x4 = smmla_i32(acc, b, b)", ARM_PLAIN),
    ("addp_i32 is ARM-only (NEON); no x86 equivalent", P, "let a: i32x4 = addp_i32(iv, iv)", X86),
    ("abs_diff is ARM-only (NEON); no x86 equivalent \u2014 use max(a .- b, b .- a) explicitly", "u: u8x16",
     "let a: u8x16 = abs_diff_u8x16(u, u)", X86),
    ("cvt_f16_f32 with i16x8 is x86-only (256-bit); use i16x4 on ARM", "h: i16x8",
     "let a: f32x8 = cvt_f16_f32(h)", ARM),
    ("f16 vector types require --fp16; use cvt_f16_f32 to compute through f32 instead", "h: f16x4",
     "let a: f16x4 = h", ARM),
    ("exp_poly_f32 expects f32 vector, got scalar; use exp() for scalar libm-precision", P,
     "let a: f32 = exp_poly_f32(x)", X86),
    ("tanh_approx_f32 expects f32 vector, got scalar; use tanh() for scalar libm-precision", P,
     "let a: f32 = tanh_approx_f32(x)", X86),
    ("exp_poly_f32 expects f32 element type, got f64", "d: f64x2", "let a: f64x2 = exp_poly_f32(d)", X86),
    ("fence_nt takes 0 arguments (no operands)", P, "fence_nt(p)", X86),
    ("gather has no NEON equivalent on ARM. Use scalar load + f32x4_from_scalars (or f32x8_from_scalars) to "
     "compose the result explicitly.", P, "let a: f32x4 = gather(p, iv)", ARM),
    ("scatter has no NEON equivalent; use a scalar loop on ARM", P, "scatter(q, iv, v)", ARM),
    ("scatter requires AVX-512 for hardware support; compile with --avx512 or write a scalar loop explicitly", P,
     "scatter(q, iv, v)", X86),
    ("gather indices must be i32 vector, got u32x4", "p: *f32, u: u32x4", "let a: f32x4 = gather(p, u)", X86),
    ("scatter requires mutable pointer. Declare as *mut to allow writes", P, "scatter(p, iv, v)", X86),
    ("scatter type mismatch: pointer element type is f32, but vector element type is i32", P,
     "scatter(q, iv, iv)", X86),
    # ---- TOOLCHAIN.md §9.2 hints and §9.3 examples ----
    ("undefined variable 'cuont'. Did you mean 'count'?", "count: i32", "let a: i32 = cuont * 2", X86),
    ("undefined function 'sqtr'. Did you mean 'sqrt'?", P, "let a: f32 = sqtr(x)", X86),
    ("cannot assign to immutable variable 'y'. Declare with 'let mut y' to allow assignment", P,
     "let y: i32 = n\n    y = y + 1", X86),
    ("cannot use '*' on vectors. Use '.*' for element-wise vector operations", P, "let a: f32x4 = v * v", X86),
    ("cannot initialize 'h' of type f32 with i32. Use to_f32() to convert", P, "let h: f32 = n", X86),
    ("cannot initialize 'h' of type i64 with i32. Use to_i64() to convert", P, "let h: i64 = n", X86),
    ("vector width mismatch: 4 vs 8 (hint: load() defaults to width 4; use load_f32x8(ptr, i) for wider vectors)",
     "p: *f32, q: *mut f32", "let a: f32x8 = load(q, 0)\n    store(q, 0, load(p, 0) .+ a)", X86),
    ("cannot write through immutable pointer 'p'. Declare as *mut to allow writes", P, "p[0] = 0.0", X86),
    ("f32x8 requires AVX2; use f32x4 on ARM", "w: f32x8", "let a: f32x8 = w", ARM),
    ("expected expression, found '}'", P, "let a: i32 =", X86),
    ("unexpected character: \";\"", P, "let a: i32 = 5;", X86),
    ("intrinsic 'sat_add' is deprecated since 1.12.0 \u2014 use the typed spelling: sat_add_i8x16 / "
     "sat_add_u8x16 / sat_add_i16x8 / sat_add_u16x8", "u: u8x16", "let a: u8x16 = sat_add(u, u)", X86),
    # ---- LANGUAGE.md §5.4 / §11: array literals ----
    ("array literals can only be used as shuffle indices", P, "let a: f32x4 = v .+ [1.0, 2.0, 3.0, 4.0]", X86),
]


def program(params: str, stmt: str) -> str:
    return f"struct S {{ a: f32 }}\nexport func f({params}) {{\n    {stmt}\n}}\n"


@pytest.mark.parametrize("phrase, params, stmt, opts", ROWS, ids=[r[0][:60] for r in ROWS])
def test_contains_reference_phrase(phrase, params, stmt, opts):
    a = analyze(program(params, stmt), "k.ea", opts)
    messages = [d.message for d in a.diagnostics]
    assert any(phrase in m for m in messages), messages


# ---- bare array literals: accepted only where the reference accepts them ----

def test_annotation_form_is_accepted():
    src = program("p: *f32", "let a: f32x4 = [1.0, 2.0, 3.0, 4.0]\n    let b: u16x8 = ([1, 2, 4, 8, 16, 32, 64, 128])")
    assert analyze(src, "k.ea", X86).diagnostics == []


def _apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


@pytest.mark.parametrize("stmt, at", [
    ("let a: f32x4 = v .+ [1.0, 2.0, 3.0, 4.0]", (3, 25, 3, 45)),
    ("let mut a: f32x4 = v\n    a = [1.0, 2.0, 3.0, 4.0]", (4, 9, 4, 29)),
    ("store(q, 0, v .* [2.0, 2.0, 2.0, 2.0])", (3, 22, 3, 42)),
])
def test_bare_array_outside_a_let_is_rejected_with_a_suffix_fix(stmt, at):
    src = program(P, stmt)
    (d,) = analyze(src, "k.ea", X86).diagnostics
    assert d.message == ("array literals can only be used as shuffle indices; write the vector type after the "
                         "literal: [...]f32x4")
    assert (d.span.line, d.span.col, d.span.end_line, d.span.end_col) == at
    (fix,) = d.suggestions
    assert fix.replacement == "f32x4" and fix.span.start == fix.span.end == d.span.end
    assert analyze(_apply(src, fix), "k.ea", X86).diagnostics == []


def test_bare_array_of_a_type_without_suffix_says_to_bind_it():
    src = program("u: u16x8", "let a: u16x8 = u .+ [1, 2, 3, 4, 5, 6, 7, 8]")
    (d,) = analyze(src, "k.ea", X86).diagnostics
    assert d.message == ("array literals can only be used as shuffle indices; bind it to a vector first: "
                         "let v: u16x8 = [...]")
    assert d.suggestions == []
