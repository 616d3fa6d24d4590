"""Conversions, widening, narrowing, packing and pointer reinterpretation."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic, Memory, declare_fixed, declare_typed, x86_only

FAMILY = "conversion"


def _to(name: str, target: T.Scalar, vector_from_i32: bool = False):
    def rule(c) -> T.Type:
        t = c.only_arg()
        if t.is_error:
            return T.ERROR
        if T.is_numeric(t):
            return target
        if vector_from_i32 and isinstance(t, T.Vector) and t.elem is T.I32:
            return T.vector(T.F32, t.lanes)
        what = "a numeric scalar or an i32 vector" if vector_from_i32 else "a numeric scalar"
        return c.fail(f"{name} expects {what}, got {t}", c.arg_span(0))
    return rule


def _conv(name: str, target: T.Scalar, since: str, vector: bool = False) -> Intrinsic:
    sigs = ("(numeric scalar) -> " + target.name,) + (("(i32xN) -> f32xN",) if vector else ())
    if target.is_float:
        doc = f"Convert to {target.name} (from unsigned integers as unsigned)."
    else:
        doc = (f"Convert to {target.name}: float truncates toward zero (out of range is undefined); "
               "a narrower integer sign- or zero-extends by its own signedness, a wider one keeps the "
               f"low {target.bits} bits.")
    return Intrinsic(name, ("x",), sigs, doc, _to(name, target, vector), FAMILY, since)


def _ptr_as(elem: str) -> Intrinsic:
    name = f"ptr_as_{elem}"
    pointee = T.SCALARS[elem]

    def rule(c) -> T.Type:
        t = c.only_arg()
        if t.is_error:
            return T.ERROR
        if not isinstance(t, T.Pointer):
            return c.fail(f"{name} expects a pointer, got {t}", c.arg_span(0))
        # Only the pointee changes: writability and the no-alias promise carry over.
        return T.pointer(pointee, t.mutable, t.restrict)

    return Intrinsic(name, ("ptr",), (f"(*T) -> *{elem}", f"(*mut T) -> *mut {elem}"),
                     f"Reinterpret the pointee as {elem}; offsets then count {elem} elements.", rule,
                     FAMILY, "v1.11", memory=Memory("view"))


def _widen_float(sign: str, lanes: int, first: int = 0) -> Intrinsic:
    """widen_{i8,u8}_f32xN[_k]: bytes first..first+N-1 to floats. Either byte
    type is accepted; the name's sign picks sign- or zero-extension."""
    suffix = f"_{first}" if first else ""
    other = "u8x16" if sign == "i8" else "i8x16"
    ext = "sign" if sign == "i8" else "zero"
    return declare_fixed(f"widen_{sign}_f32x{lanes}{suffix}", ("v",),
                         [((f"{sign}x16",), f"f32x{lanes}"), ((other,), f"f32x{lanes}")],
                         f"Bytes {first}-{first + lanes - 1}, {ext}-extended, to f32x{lanes}.", FAMILY,
                         "v1.11" if first else "v1.7")


def _widen_int(lanes: int, first: int = 0) -> Intrinsic:
    suffix = f"_{first}" if first else ""
    return declare_fixed(f"widen_u8_i32x{lanes}{suffix}", ("v",), [(("u8x16",), f"i32x{lanes}")],
                         f"Bytes {first}-{first + lanes - 1}, zero-extended, to i32x{lanes}.", FAMILY,
                         "v1.11" if first else "v1.7")


def _pack(kind: str, src: str, dst: str, alt: str | None) -> Intrinsic:
    """pack_sat_* (signed saturation) / pack_usat_* (to unsigned); the
    256-bit forms are AVX2-only and name their 128-bit alternative."""
    name = f"pack_{kind}_{src}"
    clamp = "signed saturation" if kind == "sat" else "clamped to the unsigned range"
    target = x86_only(f"{name} is x86-only (AVX2); use pack_{kind}_{alt} on ARM") if alt else None
    return declare_typed(name, ("a", "b"), src, f"[a lanes, b lanes] narrowed to {dst} with {clamp}.",
                         FAMILY, "v1.11", ret=dst, target=target)


INTRINSICS = [
    _conv("to_f32", T.F32, "CORE (v0.6)", vector=True),
    _conv("to_f64", T.F64, "CORE (v0.6)"),
    _conv("to_i32", T.I32, "CORE (v0.6)"),
    _conv("to_i64", T.I64, "CORE (v0.6)"),
    _conv("to_i16", T.I16, "v1.11"),
    _conv("to_f16", T.F16, "v1.11"),
    # Extension (not in the reference): the other integer targets, so that a
    # u8/u16/u32 kernel can write its scalar tail.
    *[_conv(f"to_{t.name}", t, "extension (not in the reference)") for t in (T.I8, T.U8, T.U16, T.U32, T.U64)],
    declare_fixed("widen_i8_f32x4", ("v",), [(("i8x16",), "f32x4"), (("u8x16",), "f32x4")],
                  "Bytes 0-3, sign-extended, to f32x4.", FAMILY, "CORE (v0.5)"),
    declare_fixed("widen_u8_f32x4", ("v",), [(("u8x16",), "f32x4"), (("i8x16",), "f32x4")],
                  "Bytes 0-3, zero-extended, to f32x4.", FAMILY, "CORE (v0.5)"),
    declare_fixed("narrow_f32x4_i8", ("v",), [(("f32x4",), "i8x4")],
                  "Truncate each lane to an integer and keep its low 8 bits (no saturation).",
                  FAMILY, "CORE (v0.5)"),
    *[_ptr_as(e) for e in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64")],
    *[_widen_float(sign, lanes) for sign in ("i8", "u8") for lanes in (8, 16)],
    *[_widen_float(sign, 4, k) for sign in ("i8", "u8") for k in (4, 8, 12)],
    *[_widen_int(lanes) for lanes in (4, 8, 16)],
    *[_widen_int(4, k) for k in (4, 8, 12)],
    declare_fixed("widen_u8_u16", ("v",), [(("u8x16",), "u16x8")], "Bytes 0-7, zero-extended, to u16x8.",
                  FAMILY, "v1.11"),
    declare_fixed("widen_u8_u16_hi", ("v",), [(("u8x16",), "u16x8")],
                  "Bytes 8-15, zero-extended, to u16x8.", FAMILY, "v1.12"),
    declare_fixed("round_f32x4_i32x4", ("v",), [(("f32x4",), "i32x4")],
                  "Round each lane to the nearest integer, ties to even.", FAMILY, "v1.11"),
    declare_fixed("round_f32x8_i32x8", ("v",), [(("f32x8",), "i32x8")],
                  "Round each lane to the nearest integer, ties to even.", FAMILY, "v1.11",
                  x86_only("round_f32x8_i32x8 is x86-only (AVX2); use round_f32x4_i32x4 on ARM")),
    _pack("sat", "i32x4", "i16x8", None),
    _pack("sat", "i16x8", "i8x16", None),
    _pack("sat", "i32x8", "i16x16", "i32x4"),
    _pack("sat", "i16x16", "i8x32", "i16x8"),
    _pack("usat", "i32x4", "u16x8", None),
    _pack("usat", "i16x8", "u8x16", None),
    _pack("usat", "i32x8", "u16x16", "i32x4"),
    _pack("usat", "i16x16", "u8x32", "i16x8"),
]
