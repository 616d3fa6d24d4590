"""Memory intrinsics: load (and its explicit-width family), store, println, align_offset."""
from __future__ import annotations

import re

from ..typesys import model as T
from .table import Intrinsic, Memory, check_arity

FAMILY = "memory"
LOAD = Memory("touch", index=1)  # the lanes of its result
_LOAD_WIDTH = re.compile(r"^load_(f32|f16|f64|i32|i16|i8|u8)x([0-9]+)$")


def pointee_scalar(c, i: int, name: str) -> T.Type:
    """The numeric element type of pointer argument i, or ERROR (reported)."""
    t = c.arg(i)
    if t.is_error:
        return T.ERROR
    if not isinstance(t, T.Pointer):
        return c.fail(f"{name} expects a pointer, got {t}", c.arg_span(i))
    if not (isinstance(t.pointee, T.Scalar) and t.pointee.is_numeric):
        return c.fail(f"{name} expects pointer to numeric type", c.arg_span(i))
    return t.pointee


def check_writable(c, p: T.Pointer, elem: T.Type, what: str = "vector element type") -> bool:
    """The rule every storing intrinsic shares: a *mut pointer whose element
    type is the stored one. Reports and returns False otherwise."""
    if not p.mutable:
        c.fail(f"{c.name} requires mutable pointer. Declare as *mut to allow writes", c.arg_span(0),
               code="immutable-pointer")
        return False
    if p.pointee is not elem:
        notes = []
        if c.nargs > 2:  # the stored value is argument 2 of every storing intrinsic
            notes, _ = c.blame([2], None, f" but the pointer element type is {p.pointee}", p.pointee)
        c.fail(f"{c.name} type mismatch: pointer element type is {p.pointee}, but {what} is {elem}", notes=notes)
        return False
    return True


def check_index(c, i: int, name: str) -> bool:
    t = c.arg(i)
    if t.is_error or T.is_int(t):
        return True
    c.fail(f"{name} index must be integer", c.arg_span(i))
    return False


def _load_rule(lanes_fixed: int | None, name: str = "load"):
    def rule(c) -> T.Type:
        if not check_arity(c, name, 2, " (ptr, index)"):
            return T.ERROR
        elem = pointee_scalar(c, 0, name)
        ok = check_index(c, 1, name)
        if elem.is_error or not ok:
            return T.ERROR
        if lanes_fixed is not None:
            want = name[5:].split("x")[0]
            if elem.name != want:
                return c.fail(f"{name} loads {want} elements but the pointer is *{elem}; "
                              f"use load_{elem}x{lanes_fixed}", c.arg_span(0))
            return T.vector(elem, lanes_fixed)
        return T.vector(elem, c.context_lanes())
    return rule


def _store(c) -> T.Type:
    if not check_arity(c, "store", 3, " (ptr, index, vector)"):
        return T.ERROR
    p, _, v = c.args()
    if p.is_error or v.is_error:
        return T.ERROR
    if not check_index(c, 1, "store"):
        return T.ERROR
    if not isinstance(p, T.Pointer) or not isinstance(v, T.Vector):
        return c.fail(f"store expects (mut ptr, index, vector), got ({p}, {c.arg(1)}, {v})")
    return T.VOID if check_writable(c, p, v.elem) else T.ERROR


def _println(c) -> T.Type:
    if not check_arity(c, "println", 1):
        return T.ERROR
    t = c.arg(0)
    if t.is_error or t is T.STRING or T.is_numeric(t):
        return T.VOID
    if isinstance(t, T.Vector):
        return c.fail(f"println cannot print a vector ({t}); print one lane, e.g. println(v[0])",
                      c.arg_span(0))
    return c.fail(f"println expects a numeric scalar or string literal, got {t}", c.arg_span(0))


def _align_offset(c) -> T.Type:
    if not check_arity(c, "align_offset", 2, " (ptr, bytes)"):
        return T.ERROR
    elem = pointee_scalar(c, 0, "align_offset")
    if elem.is_error:
        c.args()
        return T.ERROR
    size = max(elem.bits // 8, 1)
    boundary = c.const_int(1, size, 4096, f"align_offset boundary must be {size}..=4096 bytes")
    if boundary is None:
        return T.ERROR
    if boundary & (boundary - 1):
        return c.fail(f"align_offset boundary must be a power of two, got {boundary}", c.arg_span(1),
                      code="immediate")
    return T.I32


INTRINSICS = [
    Intrinsic("load", ("ptr", "index"), ("(*T, int) -> TxN",),
              "Load N consecutive elements from ptr[index]; N comes from the expected type (default 4).",
              _load_rule(None), FAMILY, "CORE (v0.1)", memory=LOAD),
    Intrinsic("align_offset", ("ptr", "bytes"), ("(*T, int) -> i32",),
              "How many elements from ptr[0] to the first element whose address is a multiple of `bytes` "
              "(a compile-time power of two, at least the element size): 0..bytes/size-1, rounded down when "
              "ptr itself is not aligned to its element size. Lets a loop start its full vectors on a "
              "cache line (64) of the array it was given.",
              _align_offset, FAMILY, "extension (not in the reference)", memory=Memory("hint")),
    Intrinsic("store", ("ptr", "index", "vector"), ("(*mut T, int, TxN) -> void",),
              "Store the vector's lanes to ptr[index .. index+N).", _store, FAMILY, "CORE (v0.1)",
              memory=Memory("touch", index=1, lanes=2)),
    Intrinsic("println", ("value",), ("(numeric scalar) -> void", "(string literal) -> void"),
              "Debug print of one value through printf, with a newline.", _println, FAMILY, "CORE (v0.1)"),
]


def load_width(name: str) -> Intrinsic | None:
    """The `load_<T>x<N>` family member for `name`, if it is one."""
    m = _LOAD_WIDTH.match(name)
    if m is None:
        return None
    elem, lanes = m.group(1), int(m.group(2))
    if lanes <= 0:
        return None
    return Intrinsic(name, ("ptr", "index"), (f"(*{elem}, int) -> {elem}x{lanes}",),
                     f"Load {lanes} consecutive {elem} elements from ptr[index].",
                     _load_rule(lanes, name), FAMILY, "v1.8", memory=LOAD)
