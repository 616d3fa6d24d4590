"""Eä scalar types as the Python generators spell them (ctypes and integer
ranges), and the integer check their generated code runs: one table for the
NumPy and PyTorch bindings, and so for the loader, which executes the NumPy
binding."""
from __future__ import annotations

CTYPES = {"i8": "_ct.c_int8", "u8": "_ct.c_uint8", "i16": "_ct.c_int16", "u16": "_ct.c_uint16",
          "i32": "_ct.c_int32", "u32": "_ct.c_uint32", "i64": "_ct.c_int64", "u64": "_ct.c_uint64",
          "f32": "_ct.c_float", "f64": "_ct.c_double", "bool": "_ct.c_bool"}
INT_RANGES = {t: ((-(1 << (int(t[1:]) - 1)), (1 << (int(t[1:]) - 1)) - 1) if t[0] == "i"
                  else (0, (1 << int(t[1:])) - 1))
              for t in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")}

# Generated runtime (needs `import operator as _op`): any integer Python
# accepts as an index (int, NumPy and torch integers), never a bool; any
# number `float()` converts, never a string.
INT_CHECK = '''

def _int(v, name, lo, hi):
    if isinstance(v, bool):
        raise TypeError(f"{name}: expected an int, got bool")
    try:
        v = _op.index(v)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(v).__name__}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: {v} does not fit in [{lo}, {hi}]")
    return v


def _length(n, of, hi):
    if n > hi:
        raise ValueError(f"{of}: {n} elements do not fit the kernel's length argument (at most {hi})")
    return n


def _wraps(name, index, value, end, type):
    """An index of `name` is computed from `index`, which a call must keep in `type`: `value` is
    past `end`, the type's largest value, or below it, its smallest."""
    side = "below the smallest" if value < end else "past the largest"
    raise ValueError(f"{name}: {index} = {value} is {side} {type} ({end}): "
                     f"an index of {name} is computed from it and would wrap around")


def _float(v, name):
    if isinstance(v, (str, bytes)):
        raise TypeError(f"{name}: expected a float, got {type(v).__name__}")
    try:
        return float(v)
    except TypeError:
        raise TypeError(f"{name}: expected a float, got {type(v).__name__}") from None
    except OverflowError:
        raise ValueError(f"{name}: {v} is too large for a float") from None


def _struct(v, name, cls):
    if not isinstance(v, cls):
        raise TypeError(f"{name}: expected a {cls.__name__}, got {type(v).__name__}")
    return v
'''


def conversion(t: str) -> str:
    """The Python builtin a scalar argument of type `t` converts through."""
    return "float" if t in ("f32", "f64") else "bool" if t == "bool" else "int"


def limit_lines(a, lim, rename) -> list[str]:
    """The Python statements that refuse a call taking `lim` (outputs/bounds/limits.py) past its
    type, with the parameters spelled by `rename` (INT_CHECK's `_wraps` raises)."""
    from .plan import cap_expr
    value = cap_expr(lim.index.text(), rename)
    return [f"if {value} {'<' if lim.below else '>'} {lim.most}:",
            f"    _wraps({a.name!r}, {lim.index.text()!r}, {value}, {lim.most}, {lim.type!r})"]
