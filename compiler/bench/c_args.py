"""A bench suite's keyword arguments as the C arguments of an export, mapped
as the bindings map them (bind/meta.py): arrays by address, a length argument
the suite does not give is the element count of the array it collapses
from. Shared by the native repetition loop (native_repeat.py) and the
comparison with the reference compiler (bench/refcompiler/)."""
from __future__ import annotations

import numpy as np

from ..bind.meta import BindError, Export


def c_arguments(e: Export, kwargs: dict) -> tuple:
    """The C arguments of `e` for the suite's keyword arguments (arrays by address)."""
    out = []
    for a in e.args:
        if a.name in kwargs:
            value = kwargs[a.name]
        elif a.collapsed_from is not None and a.collapsed_from in kwargs:
            value = np.asarray(kwargs[a.collapsed_from]).size
        else:
            raise BindError(f"{e.name}: the suite gives no value for '{a.name}'")
        if a.is_pointer:
            if not isinstance(value, np.ndarray):
                raise BindError(f"{e.name}: '{a.name}' must be an array, the suite gives {type(value).__name__}")
            out.append(value.ctypes.data)
        elif a.type in ("f32", "f64"):
            out.append(float(value))
        else:
            out.append(int(value))
    return tuple(out)
