"""Semantic types. Instances are interned, so `is`/`==` compare types.

`str(t)` is the Eä spelling used in diagnostics (`f32`, `f32x8`, `*mut u8`,
`integer literal`, `bool mask x4`).
"""
from __future__ import annotations

from .vectors import VECTORS


class Type:
    __slots__ = ()
    is_error = False

    def __repr__(self) -> str:
        return f"<type {self}>"


class Scalar(Type):
    __slots__ = ("name", "bits", "cls")

    def __init__(self, name: str, bits: int, cls: str):
        self.name = name
        self.bits = bits
        self.cls = cls  # "int", "uint", "float", "bool"

    @property
    def is_integer(self) -> bool:
        return self.cls in ("int", "uint")

    @property
    def is_float(self) -> bool:
        return self.cls == "float"

    @property
    def is_unsigned(self) -> bool:
        return self.cls == "uint"

    @property
    def is_numeric(self) -> bool:
        return self.cls != "bool"

    def __str__(self) -> str:
        return self.name


SCALARS: dict[str, Scalar] = {}
for _n, _b, _c in [("i8", 8, "int"), ("u8", 8, "uint"), ("i16", 16, "int"), ("u16", 16, "uint"),
                   ("i32", 32, "int"), ("u32", 32, "uint"), ("i64", 64, "int"), ("u64", 64, "uint"),
                   ("f16", 16, "float"), ("f32", 32, "float"), ("f64", 64, "float"), ("bool", 1, "bool")]:
    SCALARS[_n] = Scalar(_n, _b, _c)

I8, U8, I16, U16 = SCALARS["i8"], SCALARS["u8"], SCALARS["i16"], SCALARS["u16"]
I32, U32, I64, U64 = SCALARS["i32"], SCALARS["u32"], SCALARS["i64"], SCALARS["u64"]
F16, F32, F64, BOOL = SCALARS["f16"], SCALARS["f32"], SCALARS["f64"], SCALARS["bool"]


class Vector(Type):
    __slots__ = ("elem", "lanes", "name")

    def __init__(self, elem: Scalar, lanes: int):
        self.elem = elem
        self.lanes = lanes
        self.name = f"{elem.name}x{lanes}"

    @property
    def bits(self) -> int:
        return self.elem.bits * self.lanes

    @property
    def spelled(self) -> bool:
        """Whether the language has a name for this vector type."""
        return self.name in VECTORS

    def __str__(self) -> str:
        return self.name


_VECTORS: dict[tuple[str, int], Vector] = {}


def vector(elem: Scalar, lanes: int) -> Vector:
    key = (elem.name, lanes)
    v = _VECTORS.get(key)
    if v is None:
        v = _VECTORS[key] = Vector(elem, lanes)
    return v


class Mask(Type):
    """Result of a dotted comparison: bool x N. Has no spelling."""
    __slots__ = ("lanes",)

    def __init__(self, lanes: int):
        self.lanes = lanes

    def __str__(self) -> str:
        return f"bool mask x{self.lanes}"


_MASKS: dict[int, Mask] = {}


def mask(lanes: int) -> Mask:
    m = _MASKS.get(lanes)
    if m is None:
        m = _MASKS[lanes] = Mask(lanes)
    return m


class Pointer(Type):
    __slots__ = ("pointee", "mutable", "restrict")

    def __init__(self, pointee: Type, mutable: bool, restrict: bool):
        self.pointee = pointee
        self.mutable = mutable
        self.restrict = restrict

    def __str__(self) -> str:
        return "*" + ("restrict " if self.restrict else "") + ("mut " if self.mutable else "") + str(self.pointee)


_POINTERS: dict[tuple[int, bool, bool], Pointer] = {}


def pointer(pointee: Type, mutable: bool, restrict: bool = False) -> Pointer:
    key = (id(pointee), mutable, restrict)
    p = _POINTERS.get(key)
    if p is None or p.pointee is not pointee:  # ids of dead structs get reused
        if isinstance(pointee, Struct) or (isinstance(pointee, Pointer) and not _interned(pointee)):
            return Pointer(pointee, mutable, restrict)
        p = _POINTERS[key] = Pointer(pointee, mutable, restrict)
    return p


def _interned(p: Pointer) -> bool:
    return _POINTERS.get((id(p.pointee), p.mutable, p.restrict)) is p


class Struct(Type):
    """A declared struct. Fields are filled in after all structs are known."""
    __slots__ = ("name", "fields", "decl")

    def __init__(self, name: str, decl=None):
        self.name = name
        self.fields: dict[str, Type] = {}
        self.decl = decl

    def __str__(self) -> str:
        return self.name


class _Named(Type):
    __slots__ = ("label",)

    def __init__(self, label: str):
        self.label = label

    def __str__(self) -> str:
        return self.label


class _ErrorType(_Named):
    __slots__ = ()
    is_error = True


INT_LIT = _Named("integer literal")
FLOAT_LIT = _Named("float literal")
STRING = _Named("string")
VOID = _Named("void")
ARRAY = _Named("array literal")
ERROR = _ErrorType("<error>")


def is_int(t: Type) -> bool:
    return t is INT_LIT or (isinstance(t, Scalar) and t.is_integer)


def is_float(t: Type) -> bool:
    return t is FLOAT_LIT or (isinstance(t, Scalar) and t.is_float)


def is_numeric(t: Type) -> bool:
    return is_int(t) or is_float(t)


def is_literal(t: Type) -> bool:
    return t is INT_LIT or t is FLOAT_LIT


def is_float_vector(t: Type) -> bool:
    return isinstance(t, Vector) and t.elem.is_float


def compatible(actual: Type, expected: Type) -> bool:
    """Can a value of `actual` be used where `expected` is required (§5.5)?"""
    if actual is expected or actual.is_error or expected.is_error:
        return True
    if actual is INT_LIT:
        return isinstance(expected, Scalar) and expected.is_integer
    if actual is FLOAT_LIT:
        return isinstance(expected, Scalar) and expected.is_float
    if isinstance(actual, Pointer) and isinstance(expected, Pointer):
        return actual.mutable == expected.mutable and compatible(actual.pointee, expected.pointee)
    if isinstance(actual, Vector) and isinstance(expected, Vector):
        return actual.lanes == expected.lanes and actual.elem is expected.elem
    return False


def concrete(t: Type) -> Type:
    """The type a literal materialises as without context (§5.5)."""
    if t is INT_LIT:
        return I32
    if t is FLOAT_LIT:
        return F64
    return t
