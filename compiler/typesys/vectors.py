"""The vector type table: every vector spelling of the language, once.

The lexer reads the spellings, the type checker the element/lane facts and
the target rules, completion and hover the `since` column.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VectorInfo:
    name: str
    elem: str
    lanes: int
    since: str

    @property
    def bits(self) -> int:
        return _ELEM_BITS[self.elem] * self.lanes


_ELEM_BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32,
              "i64": 64, "u64": 64, "f16": 16, "f32": 32, "f64": 64}

_TABLE = [
    ("f32x4", "CORE"), ("i32x4", "CORE"), ("i8x16", "CORE"), ("u8x16", "CORE"), ("i16x8", "CORE"),
    ("f64x2", "v1.6"), ("u16x8", "v1.11"), ("u32x4", "v1.11"), ("u64x2", "v1.12"),
    ("f32x8", "CORE"), ("i32x8", "CORE"), ("i8x32", "CORE"), ("i16x16", "CORE"),
    ("u8x32", "v1.5.2"), ("f64x4", "v1.6"), ("u16x16", "v1.11"), ("u64x4", "v1.12"),
    ("f32x16", "CORE"), ("i32x16", "v1.7"), ("i8x64", "v1.11"), ("u8x64", "v1.11"),
    ("i16x32", "v1.11"), ("u64x8", "v1.12"), ("u16x32", "v1.14"),
    ("i8x8", "v1.11"), ("u8x8", "v1.11"), ("i16x4", "v1.11"), ("u16x4", "v1.11"), ("i32x2", "v1.11"),
    ("i8x4", "v1.11"), ("f16x4", "v1.11"), ("f16x8", "v1.11"),
]


def _info(name: str, since: str) -> VectorInfo:
    elem, lanes = name.split("x")
    return VectorInfo(name, elem, int(lanes), since)


VECTORS: dict[str, VectorInfo] = {name: _info(name, since) for name, since in _TABLE}

# Spellings accepted as a vector-literal suffix (`[..]f32x4`), LANGUAGE.md §5.4.
LITERAL_SUFFIXES = frozenset(
    "i8x16 i8x32 u8x16 u8x32 i16x8 i16x16 f16x4 f16x8 f32x4 i32x4 f32x8 i32x8 "
    "i32x16 f32x16 u8x64 i8x64 i16x32 u16x32".split()
)

# ARM rejections with a named alternative (LANGUAGE.md §5.3).
_ARM_ALTERNATIVE = {
    "f32x8": ("AVX2", "f32x4"), "f32x16": ("AVX-512", "f32x4"), "i32x8": ("AVX2", "i32x4"),
    "i8x32": ("AVX2", "i8x16"), "f64x4": ("AVX2", "f64x2"), "u64x4": ("AVX2", "u64x2"),
    "u64x8": ("AVX-512", "u64x2"), "i16x16": ("AVX2", "i16x8"),
}
_X86_WIDER = {"i8x8": "i8x16", "u8x8": "u8x16", "i16x4": "i16x8", "u16x4": "u16x8", "i32x2": "i32x4"}


def vector_shape(name: str) -> tuple[str, int] | None:
    """(element, lanes) of a name written like a vector type that the language
    does not have (`u32x8`, `f64x8`, `i64x2`: LANGUAGE.md §5.3), else None.
    The checker reports it as an unknown type and checks its uses as that
    shape, so the errors after it still say what else is wrong."""
    if name in VECTORS:
        return None
    elem, sep, lanes = name.partition("x")
    if not sep or elem not in _ELEM_BITS or not lanes.isdigit() or lanes[0] == "0":
        return None
    n = int(lanes)
    return (elem, n) if 2 <= n <= 64 and n & (n - 1) == 0 else None


def target_error(name: str, arm: bool, fp16: bool) -> str | None:
    """The message for a vector type the target cannot hold, or None."""
    info = VECTORS[name]
    if info.elem == "f16" and not fp16:
        return "f16 vector types require --fp16; use cvt_f16_f32 to compute through f32 instead"
    if arm:
        if info.bits <= 128:
            return None
        if name in _ARM_ALTERNATIVE:
            feature, alt = _ARM_ALTERNATIVE[name]
            return f"{name} requires {feature}; use {alt} on ARM"
        return f"{name} exceeds 128-bit NEON maximum; use a narrower vector on ARM"
    if name in _X86_WIDER:
        return f"{name} is a 64-bit NEON type; not available on x86 \u2014 use {_X86_WIDER[name]} or wider"
    return None
