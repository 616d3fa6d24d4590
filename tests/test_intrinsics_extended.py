"""The extended intrinsic table (INTRINSICS.md §4-§10): every intrinsic added
beyond the CORE set has accepted calls (with their result type) and rejected
calls (with the exact message), and the target rules hold on x86 and ARM."""
from __future__ import annotations

import pytest

from ea_compiler import Options, analyze
from ea_compiler.intrinsics import TABLE

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # AVX-512 and VNNI: no width warnings
ARM = Options(target_triple="aarch64-unknown-linux-gnu", dotprod=True, i8mm=True)
ARM_BARE = Options(target_triple="aarch64-unknown-linux-gnu")

# Present before this table was completed; their behaviour is tested elsewhere.
PREEXISTING = set("""println splat load store fma sqrt rsqrt to_f32 to_f64 to_i32 to_i64 reduce_add
reduce_max reduce_min shuffle select widen_i8_f32x4 widen_u8_f32x4 narrow_f32x4_i8 maddubs_i16 prefetch
gather scatter load_masked store_masked exp abs min max reduce_add_fast to_i16 to_f16""".split())


def program(params: str, call: str, ret: str | None) -> str:
    body = f"let r: {ret} = {call}" if ret and ret != "void" else call
    return f"export func f({params}) {{\n    {body}\n}}\n"


def name_of(call: str) -> str:
    return call.split("(", 1)[0]


def check(params: str, call: str, ret: str | None = None, opts: Options = X86):
    src = program(params, call, ret)
    return src, analyze(src, "t.ea", opts)


# ---- accepted calls: (params, call, result type) ----

def _gen(rows, opts):
    return [(p, c, r, opts) for p, c, r in rows]


_HALVES = [("lo128", "i8x32", "i8x16"), ("lo128", "u8x32", "u8x16"), ("lo128", "i16x16", "i16x8"),
           ("lo128", "u16x16", "u16x8"), ("lo256", "i8x64", "i8x32"), ("lo256", "u8x64", "u8x32"),
           ("lo256", "i32x16", "i32x8"), ("lo256", "f32x16", "f32x8"), ("lo256", "i16x32", "i16x16"),
           ("lo256", "u16x32", "u16x16")]
_HALVES += [("hi" + p[2:], t, r) for p, t, r in _HALVES]
_CONCAT = [("i8x16", "i8x32"), ("u8x16", "u8x32"), ("i8x32", "i8x64"), ("u8x32", "u8x64"),
           ("i32x8", "i32x16"), ("f32x8", "f32x16")]
_PACK = [("sat", "i32x4", "i16x8"), ("sat", "i16x8", "i8x16"), ("sat", "i32x8", "i16x16"),
         ("sat", "i16x16", "i8x32"), ("usat", "i32x4", "u16x8"), ("usat", "i16x8", "u8x16"),
         ("usat", "i32x8", "u16x16"), ("usat", "i16x16", "u8x32")]
_PTR = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64")
_WIDEN_F = ([(f"widen_{s}_f32x{n}", f"f32x{n}") for s in ("i8", "u8") for n in (8, 16)]
            + [(f"widen_{s}_f32x4_{k}", "f32x4") for s in ("i8", "u8") for k in (4, 8, 12)])
_WIDEN_U = ([(f"widen_u8_i32x{n}", f"i32x{n}") for n in (4, 8, 16)]
            + [(f"widen_u8_i32x4_{k}", "i32x4") for k in (4, 8, 12)]
            + [("widen_u8_u16", "u16x8"), ("widen_u8_u16_hi", "u16x8")])
_SAT = [(op, t) for op in ("sat_add", "sat_sub") for t in ("i8x16", "u8x16", "i16x8", "u16x8")]
_ABD = ("i8x16", "u8x16", "i16x8", "u16x8", "i32x4", "u32x4")
_POLY = {"exp_poly_f32": "exp", "tanh_approx_f32": "tanh", "log_approx_f32": "log",
         "sin_approx_f32": "sin", "cos_approx_f32": "cos"}

ACCEPT = _gen([
    ("a: u8x16", "movemask(a)", "i32"),
    ("a: i8x32", "movemask(a)", "i32"),
    ("a: i8x16, b: i8x16", "movemask(a .> b)", "i32"),
    ("a: u8x32, b: u8x32", "movemask(a .== b)", "i32"),
    ("t: i8x16, i: u8x16", "shuffle_bytes(t, i)", "i8x16"),
    ("t: u8x32, i: u8x32", "shuffle_bytes(t, i)", "u8x32"),
    ("t: f32x8, i: i32x8", "permute_runtime(t, i)", "f32x8"),
    ("t: i32x8, i: i32x8", "permute_runtime(t, i)", "i32x8"),
    ("v: i32x8", "shuffle_i32x8(v, 27)", "i32x8"),
    ("v: i32x16", "shuffle_i32x16(v, 255)", "i32x16"),
    ("a: i32x8, b: i32x8", "blend_i32(a, b, 170)", "i32x8"),
    *[("v: " + t, f"bcast_{k}_pairs_{t}(v)", t) for k in ("even", "odd") for t in ("i32x8", "i32x16")],
    *[(f"a: {t}, b: {t}", f"concat_{t}(a, b)", r) for t, r in _CONCAT],
    *[(f"v: {t}", f"{p}_{t}(v)", r) for p, t, r in _HALVES],
    ("x: f32, y: f32", "f32x4_from_scalars(x, 1.0, y, 2.5)", "f32x4"),
    ("x: f32", "f32x8_from_scalars(x, x, x, x, 1.0, x, x, x)", "f32x8"),
    ("v: f32x4", "bitcast_i8x16(v)", "i8x16"),
    ("v: f32x8", "bitcast_i8x32(v)", "i8x32"),
    ("v: u8x16", "bitcast_i32x4(v)", "i32x4"),
    ("v: i16x16", "bitcast_i32x8(v)", "i32x8"),
    ("v: i8x16", "bsrli_i8x16(v, 15)", "i8x16"),
    ("v: i8x16", "bslli_i8x16(v, 0)", "i8x16"),
    ("v: i8x32", "bsrli_i8x32(v, 4)", "i8x32"),
    ("v: i8x32", "bslli_i8x32(v, 2 * 4)", "i8x32"),
    *[("p: *mut f32", f"ptr_as_{e}(p)", f"*mut {e}") for e in _PTR],
    ("p: *i32", "ptr_as_u8(p)", "*u8"),
    *[("v: i8x16", f"{n}(v)", r) for n, r in _WIDEN_F],
    ("v: u8x16", "widen_i8_f32x8(v)", "f32x8"),
    *[("v: u8x16", f"{n}(v)", r) for n, r in _WIDEN_U],
    ("v: f32x4", "round_f32x4_i32x4(v)", "i32x4"),
    ("v: f32x8", "round_f32x8_i32x8(v)", "i32x8"),
    *[(f"a: {s}, b: {s}", f"pack_{k}_{s}(a, b)", d) for k, s, d in _PACK],
    ("a: i16x8, b: i16x8", "madd_i16(a, b)", "i32x4"),
    ("a: i16x16, b: i16x16", "madd_i16(a, b)", "i32x8"),
    ("a: i16x32, b: i16x32", "madd_i16(a, b)", "i32x16"),
    ("a: i16x8, b: i16x8", "hadd_i16(a, b)", "i16x8"),
    ("a: i16x16, b: i16x16", "hadd_i16(a, b)", "i16x16"),
    ("a: u32x4, b: u32x4", "wmul_u64_lo(a, b)", "u64x2"),
    ("a: u32x4, b: u32x4", "wmul_u64_hi(a, b)", "u64x2"),
    ("a: u32x4, b: u32x4", "wmul_u64(a, b)", "u64x4"),
    *[(f"a: {t}, b: {t}", f"{op}_{t}(a, b)", t) for op, t in _SAT],
    ("a: u8x16", "sat_add_u8x16(a, splat(1))", "u8x16"),
    ("a: i16x8", "cvt_f16_f32(a)", "f32x8"),
    ("a: i16x16", "cvt_f16_f32(a)", "f32x16"),
    ("v: f32x8", "cvt_f32_f16(v)", "i16x8"),
    ("v: f32x16", "cvt_f32_f16(v)", "i16x16"),
    *[("v: f32x8", f"{n}(v)", "f32x8") for n in _POLY],
    ("v: f32x16", "exp_poly_f32(v)", "f32x16"),
    ("p: *f32, i: i32", "prefetch_write(p, i + 16)", "void"),
    ("p: *u8", "prefetch_nta(p, 64)", "void"),
    ("p: *mut f32, v: f32x8", "stream_store(p, 0, v)", "void"),
    ("p: *mut u8, v: u8x16", "stream_store(p, 16, v)", "void"),
    *[(f"p: *mut {t}, x: {t}", "stream_store(p, 3, x)", "void") for t in ("i16", "u16", "i32", "u32", "i64", "u64")],
    ("", "fence_nt()", "void"),
], X86) + _gen([
    ("a: u8x16, i: u8x16", "shuffle_bytes(a, i)", "u8x16"),
    ("v: i8x16", "bsrli_i8x16(v, 1)", "i8x16"),
    ("v: f32x4", "round_f32x4_i32x4(v)", "i32x4"),
    ("a: i32x4, b: i32x4", "pack_usat_i32x4(a, b)", "u16x8"),
    ("a: i8x16, b: i8x16", "vdot_i32(a, b)", "i32x4"),
    ("c: i32x4, a: i8x16, b: i8x16", "vdot_lane_i32(c, a, b, 3)", "i32x4"),
    ("c: i32x4, a: i8x16, b: i8x16", "smmla_i32(c, a, b)", "i32x4"),
    ("c: i32x4, a: u8x16, b: u8x16", "ummla_i32(c, a, b)", "i32x4"),
    ("c: i32x4, a: u8x16, b: i8x16", "usmmla_i32(c, a, b)", "i32x4"),
    ("a: i32x4, b: i32x4", "addp_i32(a, b)", "i32x4"),
    ("a: i16x8, b: i16x8", "addp_i16(a, b)", "i16x8"),
    ("a: i8x8, b: i8x8", "wmul_i16(a, b)", "i16x8"),
    ("a: u8x8, b: u8x8", "wmul_u16(a, b)", "u16x8"),
    ("a: i16x4, b: i16x4", "wmul_i32(a, b)", "i32x4"),
    ("a: u16x4, b: u16x4", "wmul_u32(a, b)", "u32x4"),
    ("a: u32x4, b: u32x4", "wmul_u64_lo(a, b)", "u64x2"),
    ("a: u32x4, b: u32x4", "wmul_u64_hi(a, b)", "u64x2"),
    *[(f"a: {t}, b: {t}", f"abs_diff_{t}(a, b)", t) for t in _ABD],
    ("a: i16x4", "cvt_f16_f32(a)", "f32x4"),
    ("v: f32x4", "cvt_f32_f16(v)", "i16x4"),
    *[("v: f32x4", f"{n}(v)", "f32x4") for n in _POLY],
    ("p: *mut i64, x: i64", "stream_store(p, 0, x)", "void"),
    ("", "fence_nt()", "void"),
], ARM)


@pytest.mark.parametrize("params,call,ret,opts", ACCEPT, ids=[f"{c}@{o.arch}" for _, c, _, o in ACCEPT])
def test_accepted(params, call, ret, opts):
    src, a = check(params, call, ret, opts)
    assert [d.message for d in a.diagnostics] == []
    assert str(a.type_at(src.index(call))) == ret


# ---- rejected calls (type errors): (params, call, exact message) ----

REJECT = _gen([
    ("a: f32x4", "movemask(a)",
     "movemask expects u8x16, i8x16, u8x32, i8x32 or a 16/32-lane comparison mask, got f32x4"),
    ("a: u8x16", "movemask(a, a)", "movemask expects 1 argument"),
    ("t: i8x16, i: i8x16", "shuffle_bytes(t, i)", "shuffle_bytes expects (u8x16, u8x16), (i8x16, u8x16), "
     "(u8x32, u8x32) or (i8x32, u8x32), got (i8x16, i8x16)"),
    ("t: f32x4, i: i32x4", "permute_runtime(t, i)", "permute_runtime table must have width 8 (f32x8), got f32x4"),
    ("t: f64x4, i: i32x4", "permute_runtime(t, i)",
     "permute_runtime table must be an f32 or i32 vector of 8 lanes (f32x8 or i32x8), got f64x4"),
    ("t: i32x8, i: u16x8", "permute_runtime(t, i)",
     "permute_runtime indices must be an i32 vector of 8 lanes (i32x8), got u16x8"),
    ("t: f32x8", "permute_runtime(t)", "permute_runtime expects 2 arguments: (f32x8, i32x8) or (i32x8, i32x8)"),
    ("v: i32x8", "shuffle_i32x8(v, 300)", "shuffle_i32x8 immediate must be 0..=255, got 300"),
    ("v: i32x4", "shuffle_i32x8(v, 0)", "shuffle_i32x8 expects i32x8, got i32x4"),
    ("v: i32x16", "shuffle_i32x16(v, 256)", "shuffle_i32x16 immediate must be 0..=255, got 256"),
    ("a: i32x8, n: i32", "blend_i32(a, a, n)", "blend_i32 requires a compile-time integer constant as third argument"),
    ("a: i32x8", "blend_i32(a, a, -1)", "blend_i32 immediate must be 0..=255, got -1"),
    ("a: i32x4", "blend_i32(a, a, 1)", "blend_i32 expects (i32x8, i32x8, imm 0..=255), got (i32x4, i32x4, integer literal)"),
    ("a: i32x8", "blend_i32(a, a)", "blend_i32 expects 3 arguments: (i32x8, i32x8, imm 0..=255)"),
    *[("v: i32x4", f"bcast_{k}_pairs_{t}(v)", f"bcast_{k}_pairs_{t} expects {t}, got i32x4")
      for k in ("even", "odd") for t in ("i32x8", "i32x16")],
    *[(f"a: {t}, b: f32x4", f"concat_{t}(a, b)", f"concat_{t} expects {t}, got f32x4") for t, _ in _CONCAT],
    ("a: i8x16", "concat_i8x16(a)", "concat_i8x16 expects 2 arguments: (i8x16, i8x16)"),
    *[("v: f32x4", f"{p}_{t}(v)", f"{p}_{t} expects {t}, got f32x4") for p, t, _ in _HALVES],
    ("a: u8x32", "lo128_i8x32(a)", "lo128_i8x32 expects i8x32, got u8x32"),
    ("x: f32", "f32x4_from_scalars(x, x, x)", "f32x4_from_scalars expects 4 arguments: (f32, f32, f32, f32)"),
    ("x: f32, n: i32", "f32x8_from_scalars(x, x, x, x, x, x, x, n)", "f32x8_from_scalars expects "
     "(f32, f32, f32, f32, f32, f32, f32, f32), got (f32, f32, f32, f32, f32, f32, f32, i32)"),
    ("v: f32x8", "bitcast_i8x16(v)",
     "bitcast_i8x16 requires matching bit widths: source f32x8 is 256 bits, target i8x16 is 128 bits"),
    ("v: i32x4", "bitcast_i8x32(v)",
     "bitcast_i8x32 requires matching bit widths: source i32x4 is 128 bits, target i8x32 is 256 bits"),
    ("x: i32", "bitcast_i32x4(x)", "bitcast_i32x4 expects a 128-bit vector, got i32"),
    ("v: f32x16", "bitcast_i32x8(v)",
     "bitcast_i32x8 requires matching bit widths: source f32x16 is 512 bits, target i32x8 is 256 bits"),
    ("v: i8x16", "bsrli_i8x16(v, 16)", "bsrli_i8x16 immediate must be 0..=15, got 16"),
    ("v: i8x16, n: i32", "bslli_i8x16(v, n)", "bslli_i8x16 requires a compile-time integer constant as second argument"),
    ("v: u8x16", "bslli_i8x16(v, 1)", "bslli_i8x16 expects i8x16, got u8x16"),
    ("v: i8x32", "bsrli_i8x32(v, 16)", "bsrli_i8x32 immediate must be 0..=15, got 16"),
    ("v: i8x32", "bslli_i8x32(v, 1.5)", "bslli_i8x32 requires a compile-time integer constant as second argument"),
    *[("x: f32", f"ptr_as_{e}(x)", f"ptr_as_{e} expects a pointer, got f32") for e in _PTR],
    ("p: *f32", "ptr_as_i8()", "ptr_as_i8 expects 1 argument"),
    *[("v: f32x4", f"{n}(v)", f"{n} expects {n[6:8]}x16 or {'u8' if n[6] == 'i' else 'i8'}x16, got f32x4")
      for n, _ in _WIDEN_F],
    *[("v: i8x16", f"{n}(v)", f"{n} expects u8x16, got i8x16") for n, _ in _WIDEN_U],
    ("v: f64x2", "round_f32x4_i32x4(v)", "round_f32x4_i32x4 expects f32x4, got f64x2"),
    ("v: f32x4", "round_f32x8_i32x8(v)", "round_f32x8_i32x8 expects f32x8, got f32x4"),
    *[(f"a: {s}, b: f32x4", f"pack_{k}_{s}(a, b)", f"pack_{k}_{s} expects {s}, got f32x4") for k, s, _ in _PACK],
    ("a: i32x4, b: i32x4", "madd_i16(a, b)",
     "madd_i16 expects (i16x8, i16x8), (i16x16, i16x16) or (i16x32, i16x32), got (i32x4, i32x4)"),
    ("a: i16x8, b: i16x16", "hadd_i16(a, b)",
     "hadd_i16 expects (i16x8, i16x8) or (i16x16, i16x16), got (i16x8, i16x16)"),
    ("a: u32x4", "wmul_u64_lo(a)", "wmul_u64_lo expects 2 arguments: (u32x4, u32x4)"),
    ("a: i32x4, b: i32x4", "wmul_u64_hi(a, b)", "wmul_u64_hi expects (u32x4, u32x4), got (i32x4, i32x4)"),
    ("a: u16x8, b: u16x8", "wmul_u64(a, b)", "wmul_u64 expects (u32x4, u32x4), got (u16x8, u16x8)"),
    *[(f"a: {t}, b: f32x4", f"{op}_{t}(a, b)", f"{op}_{t} expects {t}, got f32x4") for op, t in _SAT],
    ("a: i8x16, b: i8x16", "sat_add_u8x16(a, b)", "sat_add_u8x16 expects u8x16, got i8x16"),
    ("a: i32x4, b: i32x4", "sat_add(a, b)",
     "sat_add expects two vectors of the same type (i8x16, u8x16, i16x8 or u16x8), got (i32x4, i32x4)"),
    ("a: i8x16, b: u8x16", "sat_sub(a, b)",
     "sat_sub expects two vectors of the same type (i8x16, u8x16, i16x8 or u16x8), got (i8x16, u8x16)"),
    ("a: u8x16", "sat_sub(a)", "sat_sub expects 2 arguments"),
    ("v: f32x4", "cvt_f16_f32(v)", "cvt_f16_f32 expects i16x4, i16x8 or i16x16, got f32x4"),
    ("v: i16x8", "cvt_f32_f16(v)", "cvt_f32_f16 expects f32x4, f32x8 or f32x16, got i16x8"),
    *[("x: f32", f"{n}(x)", f"{n} expects f32 vector, got scalar; use {s}() for scalar libm-precision")
      for n, s in _POLY.items()],
    ("", "tanh_approx_f32(1.0)", "tanh_approx_f32 expects f32 vector, got scalar; use tanh() for scalar libm-precision"),
    *[("v: f64x4", f"{n}(v)", f"{n} expects f32 element type, got f64") for n in _POLY],
    ("v: i32x4", "log_approx_f32(v)", "log_approx_f32 expects f32 element type, got i32"),
    ("p: *f32", "prefetch_write(p)", "prefetch expects 2 arguments: (ptr, offset), but this prefetch_write call has 1"),
    ("x: i32", "prefetch_nta(x, 0)", "prefetch_nta first argument must be a pointer, got i32"),
    ("p: *f32, x: f64", "prefetch(p, x)", "prefetch offset must be integer, got f64"),
    ("p: *f32, v: f32x4", "stream_store(p, 0, v)",
     "stream_store requires mutable pointer. Declare as *mut to allow writes"),
    ("p: *mut i32, v: f32x4", "stream_store(p, 0, v)",
     "stream_store type mismatch: pointer element type is i32, but vector element type is f32"),
    ("p: *mut i32, x: i64", "stream_store(p, 0, x)",
     "stream_store type mismatch: pointer element type is i32, but value type is i64"),
    ("p: *mut i32", "stream_store(p, 0, 7)",
     "stream_store expects a vector or a typed i16, u16, i32, u32, i64 or u64 value, got integer literal"),
    ("p: *mut f32, x: f32", "stream_store(p, 0, x)",
     "stream_store expects a vector or a typed i16, u16, i32, u32, i64 or u64 value, got f32"),
    ("p: *mut f32, v: f32x4, x: f32", "stream_store(p, x, v)", "stream_store index must be integer"),
    ("p: *mut f32", "stream_store(p, 0)", "stream_store expects 3 arguments (ptr, index, value)"),
    ("", "fence_nt(1)", "fence_nt takes 0 arguments (no operands)"),
], X86) + _gen([
    ("a: u8x16, b: i8x16", "vdot_i32(a, b)", "vdot_i32 expects (i8x16, i8x16), got (u8x16, i8x16)"),
    ("c: i32x4, a: i8x16, b: i8x16", "vdot_lane_i32(c, a, b, 4)", "vdot_lane_i32 lane must be 0..3, got 4"),
    ("c: i32x4, a: i8x16, b: i8x16, n: i32", "vdot_lane_i32(c, a, b, n)",
     "vdot_lane_i32 requires a compile-time integer constant as fourth argument"),
    ("c: i32x4, a: u8x16, b: i8x16", "smmla_i32(c, a, b)",
     "smmla_i32 expects (i32x4, i8x16, i8x16), got (i32x4, u8x16, i8x16)"),
    ("c: i32x4, a: i8x16, b: i8x16", "ummla_i32(c, a, b)",
     "ummla_i32 expects (i32x4, u8x16, u8x16), got (i32x4, i8x16, i8x16)"),
    ("c: i32x4, a: u8x16", "usmmla_i32(c, a)", "usmmla_i32 expects 3 arguments: (i32x4, u8x16, i8x16)"),
    ("a: i16x8, b: i16x8", "addp_i32(a, b)", "addp_i32 expects (i32x4, i32x4), got (i16x8, i16x8)"),
    ("a: i32x4, b: i32x4", "addp_i16(a, b)", "addp_i16 expects (i16x8, i16x8), got (i32x4, i32x4)"),
    ("a: u8x8, b: u8x8", "wmul_i16(a, b)", "wmul_i16 expects (i8x8, i8x8), got (u8x8, u8x8)"),
    ("a: i8x8, b: i8x8", "wmul_u16(a, b)", "wmul_u16 expects (u8x8, u8x8), got (i8x8, i8x8)"),
    ("a: i16x8, b: i16x8", "wmul_i32(a, b)", "wmul_i32 expects (i16x4, i16x4), got (i16x8, i16x8)"),
    ("a: i16x4, b: i16x4", "wmul_u32(a, b)", "wmul_u32 expects (u16x4, u16x4), got (i16x4, i16x4)"),
    *[(f"a: {t}, b: f32x4", f"abs_diff_{t}(a, b)", f"abs_diff_{t} expects {t}, got f32x4") for t in _ABD],
    ("a: i32x4, b: u32x4", "abs_diff(a, b)", "abs_diff expects two vectors of the same type "
     "(i8x16, u8x16, i16x8, u16x8, i32x4 or u32x4), got (i32x4, u32x4)"),
], ARM)


@pytest.mark.parametrize("params,call,message,opts", REJECT, ids=[f"{c}@{o.arch}" for _, c, _, o in REJECT])
def test_rejected(params, call, message, opts):
    _, a = check(params, call, None, opts)
    errors = [(d.kind, d.message) for d in a.diagnostics if d.is_error]
    assert errors == [("type", message)]


# ---- target rules: (params, call, exact codegen message, options) ----

_DOT = "requires ARMv8.2-A dot product extension; compile with --dotprod"
_MM = "requires ARMv8.6-A I8MM extension; compile with --i8mm"
_ABD_MSG = "abs_diff is ARM-only (NEON); no x86 equivalent \u2014 use max(a .- b, b .- a) explicitly"

TARGET = [
    ("a: u8x16", "movemask(a)", "movemask is x86-only (SSE2/AVX2); no NEON equivalent", ARM),
    ("t: u8x32, i: u8x32", "shuffle_bytes(t, i)", "shuffle_bytes(u8x32) is x86-only (AVX2 vpshufb); use u8x16 on ARM", ARM),
    ("t: f32x4, i: i32x4", "permute_runtime(t, i)", "permute_runtime has no NEON equivalent on ARM. Use compare/select "
     "chains (v .== splat(k)) or shuffle_bytes with a u8x16 table instead; docs/idioms/neon-runtime-permute.md "
     "shows both", ARM),
    ("v: i8x32", "bsrli_i8x32(v, 1)", "bsrli_i8x32 is x86-only (AVX2); use bsrli_i8x16 on ARM", ARM),
    ("v: i8x32", "bslli_i8x32(v, 1)", "bslli_i8x32 is x86-only (AVX2); use bslli_i8x16 on ARM", ARM),
    ("v: f32x8", "round_f32x8_i32x8(v)", "round_f32x8_i32x8 is x86-only (AVX2); use round_f32x4_i32x4 on ARM", ARM),
    ("a: i32x8, b: i32x8", "pack_sat_i32x8(a, b)", "pack_sat_i32x8 is x86-only (AVX2); use pack_sat_i32x4 on ARM", ARM),
    ("a: i16x16, b: i16x16", "pack_sat_i16x16(a, b)", "pack_sat_i16x16 is x86-only (AVX2); use pack_sat_i16x8 on ARM", ARM),
    ("a: i32x8, b: i32x8", "pack_usat_i32x8(a, b)", "pack_usat_i32x8 is x86-only (AVX2); use pack_usat_i32x4 on ARM", ARM),
    ("a: i16x16, b: i16x16", "pack_usat_i16x16(a, b)",
     "pack_usat_i16x16 is x86-only (AVX2); use pack_usat_i16x8 on ARM", ARM),
    ("a: i16x8, b: i16x8", "madd_i16(a, b)", "madd_i16 is x86-only (SSE2/AVX2 pmaddwd, i16*i16 multiply-add to i32). "
     "On ARM, use wmul_i32 and addp_i32", ARM),
    ("a: i16x8, b: i16x8", "hadd_i16(a, b)", "hadd_i16 is x86-only (SSSE3/AVX2 phaddw). On ARM, use addp_i16", ARM),
    ("a: i16x8", "cvt_f16_f32(a)", "cvt_f16_f32 with i16x8 is x86-only (256-bit); use i16x4 on ARM", ARM),
    ("a: i16x16", "cvt_f16_f32(a)", "cvt_f16_f32 with i16x16 is x86-only (512-bit); use i16x4 on ARM", ARM),
    ("v: f32x8", "cvt_f32_f16(v)", "cvt_f32_f16 with f32x8 is x86-only (256-bit); use f32x4 on ARM", ARM),
    ("a: u32x4, b: u32x4", "wmul_u64(a, b)",
     "wmul_u64 is x86-only (its u64x4 result is 256-bit); use wmul_u64_lo and wmul_u64_hi on ARM", ARM),
    ("a: i8x16, b: i8x16", "vdot_i32(a, b)", "vdot_i32 is ARM-only (NEON dot product); no x86 equivalent", X86),
    ("a: i8x16, b: i8x16", "vdot_i32(a, b)", f"vdot_i32 {_DOT}", ARM_BARE),
    ("c: i32x4, a: i8x16, b: i8x16", "vdot_lane_i32(c, a, b, 0)",
     "vdot_lane_i32 is ARM-only (NEON dot product); no x86 equivalent", X86),
    ("c: i32x4, a: i8x16, b: i8x16", "vdot_lane_i32(c, a, b, 0)", f"vdot_lane_i32 {_DOT}", ARM_BARE),
    *[(f"c: i32x4, a: {x}, b: {y}", f"{n}(c, a, b)", f"{n} is ARM-only (I8MM); no x86 equivalent", X86)
      for n, x, y in (("smmla_i32", "i8x16", "i8x16"), ("ummla_i32", "u8x16", "u8x16"), ("usmmla_i32", "u8x16", "i8x16"))],
    *[(f"c: i32x4, a: {x}, b: {y}", f"{n}(c, a, b)", f"{n} {_MM}", ARM_BARE)
      for n, x, y in (("smmla_i32", "i8x16", "i8x16"), ("ummla_i32", "u8x16", "u8x16"), ("usmmla_i32", "u8x16", "i8x16"))],
    *[(f"a: {t}, b: {t}", f"{n}(a, b)", f"{n} is ARM-only (NEON); no x86 equivalent", X86)
      for n, t in (("addp_i32", "i32x4"), ("addp_i16", "i16x8"), ("wmul_i16", "i8x8"), ("wmul_u16", "u8x8"),
                   ("wmul_i32", "i16x4"), ("wmul_u32", "u16x4"))],
    *[(f"a: {t}, b: {t}", f"abs_diff_{t}(a, b)", _ABD_MSG, X86) for t in _ABD],
    ("a: u8x16, b: u8x16", "abs_diff(a, b)", _ABD_MSG, X86),
]


@pytest.mark.parametrize("params,call,message,opts", TARGET, ids=[f"{c}@{o.arch}" for _, c, _, o in TARGET])
def test_target_rule(params, call, message, opts):
    _, a = check(params, call, None, opts)
    errors = [d for d in a.diagnostics if d.is_error]
    assert ("target", message) in [(d.kind, d.message) for d in errors]
    # A target rule fires only after the call type-checked.
    assert not [d.message for d in errors if d.kind == "type"]


def test_permute_runtime_arm_error_comes_first():
    # Wrong operand types on ARM still give only the target message.
    _, a = check("t: f32x4, i: u8x16", "permute_runtime(t, i)", None, ARM)
    assert [d.message for d in a.diagnostics] == [TARGET[2][2]]


# ---- deprecations (TOOLCHAIN.md §9.4) ----

# Accepted calls of the deprecated polymorphic forms (they also warn).
DEPRECATED = [
    ("sat_add", X86, "sat_add_i8x16 / sat_add_u8x16 / sat_add_i16x8 / sat_add_u16x8"),
    ("sat_sub", X86, "sat_sub_i8x16 / sat_sub_u8x16 / sat_sub_i16x8 / sat_sub_u16x8"),
    ("abs_diff", ARM, "abs_diff_i8x16 / abs_diff_u8x16 / abs_diff_i16x8 / abs_diff_u16x8 / abs_diff_i32x4 / "
                      "abs_diff_u32x4 (ARM-only)"),
]


@pytest.mark.parametrize("op,opts,advice", DEPRECATED)
def test_deprecated_polymorphic_forms_warn(op, opts, advice):
    src, a = check("a: u16x8, b: u16x8", f"{op}(a, b)", "u16x8", opts)
    assert [d.message for d in a.errors] == []
    [w] = a.diagnostics
    assert (w.severity, w.kind) == ("warning", "type")
    assert w.message == f"intrinsic '{op}' is deprecated since 1.12.0 \u2014 use the typed spelling: {advice}"
    assert (w.span.line, w.span.col) == (2, 20)
    assert TABLE[op].deprecated == "1.12.0"
    assert str(a.type_at(src.index(op + "("))) == "u16x8"


def test_typed_spellings_do_not_warn():
    _, a = check("a: i16x8, b: i16x8", "sat_sub_i16x8(a, b)", "i16x8", X86)
    assert a.diagnostics == []


# ---- immediates through constants, operands through context ----

def test_immediate_from_constant_expression():
    src = ("const SHIFT: i32 = 4\nexport func f(v: i8x16) -> i8x16 {\n"
           "    return bsrli_i8x16(v, SHIFT * 3)\n}\n")
    assert analyze(src, "t.ea", X86).diagnostics == []
    bad = src.replace("SHIFT * 3", "SHIFT * 4")
    assert [d.message for d in analyze(bad, "t.ea", X86).diagnostics] == [
        "bsrli_i8x16 immediate must be 0..=15, got 16"]


def test_typed_operand_gives_load_its_width():
    src = "export func f(p: *i8) -> i8x32 {\n    return concat_i8x16(load(p, 0), load(p, 16))\n}\n"
    assert analyze(src, "t.ea", X86).diagnostics == []


def test_ptr_as_keeps_restrict_and_mut():
    src, a = check("p: *restrict mut f32", "ptr_as_u8(p)", "*mut u8", X86)
    assert a.diagnostics == []
    assert str(a.type_at(src.index("ptr_as_u8"))) == "*restrict mut u8"


def test_immediate_error_points_at_the_operand():
    _, a = check("v: i8x16", "bsrli_i8x16(v, 16)", None, X86)
    [d] = a.diagnostics
    assert (d.span.line, d.span.col) == (2, 20)


# ---- the table itself ----

def test_table_has_every_named_intrinsic():
    assert len([i for i in TABLE.values() if not i.extension]) == 160  # INTRINSICS.md §0.2


def test_every_new_intrinsic_has_accepted_and_rejected_cases():
    new = {n for n in set(TABLE) - PREEXISTING if not TABLE[n].extension}  # extensions: tests/test_compat_*
    accepted = {name_of(c) for _, c, _, _ in ACCEPT} | {op for op, _, _ in DEPRECATED}
    rejected = {name_of(c) for _, c, _, _ in REJECT + TARGET}
    assert new - accepted == set()
    assert new - rejected == set()


def test_declarations_are_complete():
    for intr in TABLE.values():
        assert intr.doc and intr.signatures and intr.family and intr.since, intr.name
        assert intr.snippet().startswith(intr.name + "(")
