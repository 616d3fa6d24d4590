"""One fuzzed call of an exported function, made from its metadata (argument
types, collapsed lengths, allocated outputs) and a seeded generator: arrays
of independent random lengths, each ending at a guard page (a PROT_NONE page
right after its last byte, `compiler/tune/guard.py`), and one kind of misuse
per call: an explicit length larger than the arrays (or 0, negative, huge),
a wrong dtype, a non-contiguous or read-only array, a list or a 2-D array,
a scalar of the wrong type or out of range, a bad `threads`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ea_compiler.bind.ctypes_table import INT_RANGES
from ea_compiler.bind.meta import NUMPY_DTYPES, Arg, Export
from ea_compiler.tune.guard import guarded

KINDS = ("valid", "length", "dtype", "strided", "readonly", "shape", "scalar", "threads")
WEIGHTS = np.array([40, 16, 8, 8, 8, 6, 8, 6], dtype=float)
LENGTHS = (0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000)
WRONG = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.float32}


@dataclass
class Call:
    fn: str
    kind: str
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def describe(self) -> str:
        def show(v):
            if isinstance(v, np.ndarray):
                flags = ("" if v.flags.c_contiguous else ", strided") + ("" if v.flags.writeable else ", read-only")
                return f"ndarray[{v.dtype}, shape={v.shape}{flags}]"
            return repr(v) if not isinstance(v, list) else f"list[{len(v)}]"
        inner = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"{self.fn}({', '.join(inner)})  # {self.kind}"


def make_call(export: Export, fn: str, structs: dict, rng: np.random.Generator) -> Call:
    parallel = fn == f"{export.name}_parallel"
    kind = str(rng.choice(KINDS, p=WEIGHTS / WEIGHTS.sum()))
    if kind == "threads" and not parallel:
        kind = "valid"
    call = Call(fn, kind)
    arrays = [a for a in export.visible if a.is_pointer]
    scalars = [a for a in export.visible if not a.is_pointer]
    base = int(rng.choice(LENGTHS))
    for a in export.visible:
        call.args.append(_array(a, structs, _length(base, rng), rng) if a.is_pointer else
                         structs[a.type]() if a.type in structs else _scalar(a, rng))
    lengths = [a for a in export.args if a.collapsed_from is not None]
    sizes = [x.size for x in call.args if isinstance(x, np.ndarray)] or [0]
    if kind == "length" and lengths:
        a = lengths[int(rng.integers(len(lengths)))]
        lo, hi = INT_RANGES[a.type]
        choices = [0, max(sizes) + 1, max(sizes) + int(rng.integers(1, 100)), min(sizes) // 2, -1, lo]
        if not export.outputs:  # an output sized by the length would be allocated that large
            choices.append(hi)
        call.kwargs[a.name] = int(rng.choice(choices))
    elif kind in ("dtype", "strided", "readonly", "shape") and arrays:
        k = int(rng.integers(len(arrays)))
        index = export.visible.index(arrays[k])
        call.args[index] = _misuse(kind, call.args[index], rng)
    elif kind == "scalar" and scalars:
        a = scalars[int(rng.integers(len(scalars)))]
        call.args[export.visible.index(a)] = _bad_scalar(a, rng)
    if parallel:
        call.kwargs["threads"] = [None, 1, 2, 3, 8][int(rng.integers(5))] if kind != "threads" else \
            [0, -1, 2.5, "2", 1 << 20][int(rng.integers(5))]
    return call


def _dtype(a: Arg, structs: dict) -> np.dtype:
    p = a.pointee
    if p in NUMPY_DTYPES:
        return np.dtype(NUMPY_DTYPES[p])
    if p in structs:
        return np.dtype(structs[p])
    return np.dtype(np.uintp)  # a pointer to pointers: an array of addresses


def _length(base: int, rng) -> int:
    """Each array's own length: the call's base length, a few elements off it
    (an array one short of what a loop reads), or any length."""
    r = rng.random()
    if r < 0.4:
        return base
    if r < 0.7:
        return max(0, base + int(rng.integers(-2, 3)))
    return int(rng.choice(LENGTHS)) if r < 0.9 else int(rng.integers(0, 3000))


def _array(a: Arg, structs: dict, n: int, rng) -> np.ndarray:
    dtype = _dtype(a, structs)
    if dtype.names:
        x = np.zeros(n, dtype)
        for name in dtype.names:
            x[name] = rng.standard_normal(n) if dtype[name].kind == "f" else rng.integers(0, 16, n)
    elif dtype.kind == "f":
        x = (rng.standard_normal(n) * 10).astype(dtype)
    elif dtype == np.uintp:
        x = np.zeros(n, dtype)
    else:  # small integers: data that ends up in an index stays near the start
        x = rng.integers(0, 16, n).astype(dtype)
    return guarded(x)


def _scalar(a: Arg, rng):
    t = a.type
    if t in ("f32", "f64"):
        return float(rng.standard_normal())
    if t == "bool":
        return bool(rng.integers(2))
    if t in INT_RANGES:
        lo, hi = INT_RANGES[t]
        if rng.random() < 0.1:
            return int(rng.choice([lo, hi]))
        return int(max(lo, min(hi, int(rng.integers(-3, 300)))))
    return 0


def _misuse(kind: str, x: np.ndarray, rng):
    if kind == "dtype":
        wrong = WRONG.get(x.dtype, np.float32 if x.dtype.kind in "iu" or x.dtype.names else np.int32)
        return guarded(np.zeros(x.size, wrong))
    if kind == "strided":
        return guarded(np.concatenate([x, x]) if x.size else np.zeros(2, x.dtype))[::2]
    if kind == "readonly":
        x.flags.writeable = False
        return x
    return [x.tolist(), x.reshape(1, -1), x.reshape(-1, 1) if x.size else x.reshape(0, 1)][int(rng.integers(3))]


def _bad_scalar(a: Arg, rng):
    t = a.type
    if t in INT_RANGES:
        lo, hi = INT_RANGES[t]
        return [hi + 1, lo - 1, 2.5, "3", None, True][int(rng.integers(6))]
    if t in ("f32", "f64"):
        return ["1.0", None, [1.0], float("nan")][int(rng.integers(4))]
    return [None, "x"][int(rng.integers(2))]
