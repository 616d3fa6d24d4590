"""Eä types to LLVM types (LANGUAGE.md §3.2)."""
from __future__ import annotations

from llvmlite import ir

from ..typesys import model as T

PTR = ir.PointerType()
I1, I8, I16, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
HALF, FLOAT, DOUBLE = ir.HalfType(), ir.FloatType(), ir.DoubleType()
VOID = ir.VoidType()

_SCALAR = {"i8": I8, "u8": I8, "i16": I16, "u16": I16, "i32": I32, "u32": I32, "i64": I64, "u64": I64,
           "f16": HALF, "f32": FLOAT, "f64": DOUBLE, "bool": I1}


class TypeMap:
    """Per-module mapping; structs become identified LLVM struct types."""

    def __init__(self, module: ir.Module):
        self.module = module
        self.structs: dict[str, ir.IdentifiedStructType] = {}

    def __call__(self, t: T.Type) -> ir.Type:
        if isinstance(t, T.Scalar):
            return _SCALAR[t.name]
        if isinstance(t, T.Vector):
            return ir.VectorType(_SCALAR[t.elem.name], t.lanes)
        if isinstance(t, T.Mask):
            return ir.VectorType(I1, t.lanes)
        if isinstance(t, T.Pointer):
            return PTR
        if isinstance(t, T.Struct):
            return self.struct(t)
        if t is T.VOID:
            return VOID
        if t is T.INT_LIT:
            return I32
        if t is T.FLOAT_LIT:
            return DOUBLE
        raise TypeError(f"no LLVM type for {t}")

    def struct(self, t: T.Struct) -> ir.IdentifiedStructType:
        st = self.structs.get(t.name)
        if st is None:
            st = self.module.context.get_identified_type(t.name)
            self.structs[t.name] = st
            st.set_body(*[self(f) for f in t.fields.values()])
        return st
