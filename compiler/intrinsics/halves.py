"""Lane movement, second half of INTRINSICS.md §4: joining and splitting
vectors (concat, lo/hi halves), building from scalars, bitcasts and the
whole-register byte shifts. Shares the "lanes" family with lanes.py; split
only to keep files small."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic, check_arity, declare_fixed, declare_typed, type_named, x86_only

FAMILY = "lanes"


def _halve(name: str) -> str:
    elem, lanes = name.split("x")
    return f"{elem}x{int(lanes) // 2}"


def _double(name: str) -> str:
    elem, lanes = name.split("x")
    return f"{elem}x{int(lanes) * 2}"


def _concat(ty: str) -> Intrinsic:
    return declare_typed(f"concat_{ty}", ("a", "b"), ty, "[a..., b...]: the lanes of a, then those of b.",
                         FAMILY, "v1.11", ret=_double(ty))


def _half(prefix: str, ty: str, since: str) -> Intrinsic:
    upper = prefix.startswith("hi")
    doc = "Upper half: r[k] = v[k + N/2]." if upper else "Lower half: r[k] = v[k]."
    return declare_typed(f"{prefix}_{ty}", ("v",), ty, doc, FAMILY, since, ret=_halve(ty))


_BITCASTS = ("i8x16", "i8x32", "i32x4", "i32x8")


def _bitcast(ty: str) -> Intrinsic:
    name = f"bitcast_{ty}"
    target = type_named(ty)

    def rule(c) -> T.Type:
        if not check_arity(c, name, 1, f": ({target.bits}-bit vector)"):
            return T.ERROR
        t = c.arg(0)
        if t.is_error:
            return T.ERROR
        if isinstance(t, T.Vector) and t.bits == target.bits:
            return target
        if not isinstance(t, T.Vector):
            return c.fail(f"{name} expects a {target.bits}-bit vector, got {t}", c.arg_span(0))
        same = [f"bitcast_{b}" for b in _BITCASTS if type_named(b).bits == t.bits]
        notes = [f"for a {t.bits}-bit vector use {' or '.join(same)}"] if same else []
        return c.fail(f"{name} requires matching bit widths: source {t} is {t.bits} bits, "
                      f"target {ty} is {target.bits} bits", c.arg_span(0), notes=notes)

    return Intrinsic(name, ("v",), (f"(any {target.bits}-bit vector) -> {ty}",),
                     f"Reinterpret the bits of a {target.bits}-bit vector as {ty} (free).", rule, FAMILY,
                     "v1.11")


def _byte_shift(op: str, ty: str) -> Intrinsic:
    name = f"{op}_{ty}"
    right = op == "bsrli"
    doc = ("Byte shift right with zero fill: r[j] = j+imm < 16 ? v[j+imm] : 0"
           if right else "Byte shift left with zero fill: r[j] = j >= imm ? v[j-imm] : 0")
    target = None
    if ty == "i8x32":
        doc += " (per 16-byte half)"
        target = x86_only(f"{name} is x86-only (AVX2); use {op}_i8x16 on ARM")
    return declare_typed(name, ("v", "imm"), ty, doc + ".", FAMILY, "v1.11", imm=(0, 15), target=target)


def _from_scalars(n: int) -> Intrinsic:
    name = f"f32x{n}_from_scalars"
    return declare_fixed(name, tuple(f"s{k}" for k in range(n)), [(("f32",) * n, f"f32x{n}")],
                         f"Build an f32x{n} from {n} f32 scalars, lane k = sk.", FAMILY, "v1.11")


_V112 = "v1.12"

INTRINSICS = [
    *[_concat(t) for t in ("i8x16", "u8x16", "i8x32", "u8x32", "i32x8", "f32x8")],
    *[_half(p, t, s) for p in ("lo128", "hi128")
      for t, s in (("i8x32", "v1.11"), ("u8x32", "v1.11"), ("i16x16", _V112), ("u16x16", _V112))],
    *[_half(p, t, s) for p in ("lo256", "hi256")
      for t, s in (("i8x64", "v1.11"), ("u8x64", "v1.11"), ("i32x16", "v1.11"), ("f32x16", "v1.11"),
                   ("i16x32", _V112), ("u16x32", "v1.14"))],
    _from_scalars(4),
    _from_scalars(8),
    *[_bitcast(t) for t in _BITCASTS],
    *[_byte_shift(op, t) for op in ("bsrli", "bslli") for t in ("i8x16", "i8x32")],
]
