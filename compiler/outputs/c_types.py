"""Eä types spelled in C (LANGUAGE.md §3.2): the `--header` prototypes, and
the scalar names of the C++ binding (`bind/cpp.py`, where `bool` stays `bool`)."""
from __future__ import annotations

from ..syntax import ast as A

C_SCALARS = {"i8": "int8_t", "u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t", "i32": "int32_t",
             "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t", "f32": "float", "f64": "double",
             "bool": "_Bool"}


def c_type(t: A.TypeRef) -> str:
    if isinstance(t, A.PointerType):
        inner = c_type(t.inner)
        return f"{inner}*" if t.mutable else f"const {inner}*"
    if t.name in C_SCALARS:
        return C_SCALARS[t.name]
    if "x" in t.name and t.name.split("x")[0] in C_SCALARS and t.name.split("x")[-1].isdigit():
        return "/* SIMD */"
    if t.name == "f16":
        return "/* f16 */"
    return f"struct {t.name}"
