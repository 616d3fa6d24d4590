"""The arguments of one benchmark at one size, generated from its suite entry.

Arrays are placed 64-byte aligned with their start addresses spread over
the 4 KiB page offset: where arrays sit relative to each other modulo 4 KiB
changes the speed of streaming kernels by up to 2x (4K aliasing between
loads and stores), so it is fixed instead of left to the allocator. So is
where they start in a cache line (`line_offset`, default 0): 16 bytes past
one, where NumPy puts its large arrays, half of the 32-byte accesses cross
a line and L1-bound loops run up to 2x slower."""
from __future__ import annotations

import numpy as np

from .suite import ArraySpec, BenchError, BenchSpec, namespace


def bench_namespace(spec: BenchSpec, size) -> dict:
    """What the bench's expressions see at `size` (a Size or a count n): its parameters,
    np, isqrt and the names its prelude defines."""
    env = namespace(size)
    if spec.prelude:
        try:
            exec(spec.prelude, env)  # noqa: S102 - suites are trusted code, see suite.py
        except Exception as err:  # noqa: BLE001 - the user's code
            raise BenchError(f"[[bench]] {spec.name}: the prelude failed: {type(err).__name__}: {err}") from None
    return env


def make_args(spec: BenchSpec, size, structs: dict[str, np.dtype] | None = None,
              env: dict | None = None, line_offset: int = 0) -> dict:
    """Fresh arguments, in the suite's order; the same seed gives the same values.
    `structs` resolves struct dtype names (the kernel's ctypes structures); `env`
    is the bench's namespace when the caller already has it (not modified); the arrays
    start `line_offset` bytes past a cache line (place)."""
    env = dict(env) if env is not None else bench_namespace(spec, size)
    out: dict = {}
    arrays = []
    for i, (name, arg) in enumerate(spec.args.items()):
        where = f"[[bench]] {spec.name}: args.{name}"
        if isinstance(arg, ArraySpec):
            rng = np.random.default_rng(arg.seed if arg.seed is not None else spec.seed * 1000 + i)
            value = _array(arg, rng, env, where, structs or {})
            arrays.append(name)
        elif isinstance(arg, str):
            value = evaluate(arg, env, where)
        else:
            value = arg
        out[name] = value
        env[name] = value
    for name, placed in zip(arrays, place([out[a] for a in arrays], line_offset)):
        out[name] = placed
    return out


def copy_args(args: dict) -> dict:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}


def evaluate(text: str, env: dict, where: str):
    try:
        return eval(text, env)  # noqa: S307 - suites are trusted code, see suite.py
    except Exception as err:  # noqa: BLE001 - any mistake in the user's expression
        raise BenchError(f"{where}: evaluating {text!r} failed: {type(err).__name__}: {err}") from None


def _array(arg: ArraySpec, rng, env: dict, where: str, structs: dict) -> np.ndarray:
    dims = arg.shape if arg.shape is not None else [arg.length]
    shape = []
    for d in dims:
        value = evaluate(d, env, where)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise BenchError(f"{where}: length {d!r} gave {value!r}, not a count")
        shape.append(int(value))
    dt = arg.dtype
    if isinstance(dt, str):
        if dt not in structs:
            raise BenchError(f"{where}: dtype '{dt}' is neither a NumPy dtype nor a struct of the kernel"
                             + (f" ({', '.join(structs)})" if structs else ""))
        dt = structs[dt]
    if dt.fields is not None:  # a struct: fill its bytes' float/int fields one by one
        out = np.zeros(shape, dt)
        for fname in dt.names:
            sub = ArraySpec(dt.fields[fname][0], arg.dist, arg.low, arg.high, arg.mean, arg.std, arg.value)
            out[fname] = _values(sub, rng, out[fname].shape, where)
        return out
    return _values(arg, rng, shape, where)


def _values(arg: ArraySpec, rng, shape, where: str) -> np.ndarray:
    dt = arg.dtype
    if arg.dist == "zeros":
        return np.zeros(shape, dt)
    if arg.dist == "ones":
        return np.ones(shape, dt)
    if arg.dist == "full":
        return np.full(shape, arg.value, dt)
    if arg.dist == "normal":
        return rng.normal(arg.mean, arg.std, shape).astype(dt)
    integer = np.issubdtype(dt, np.integer)
    if arg.dist == "integers" or integer:
        info = np.iinfo(dt) if integer else None
        lo = int(arg.low) if arg.low is not None else (info.min if info else 0)
        hi = int(arg.high) if arg.high is not None else (info.max + 1 if info else 100)
        if hi <= lo:
            raise BenchError(f"{where}: integers need low < high (got {lo}, {hi})")
        return rng.integers(lo, hi, shape, dtype=dt if integer else np.int64).astype(dt)
    lo = arg.low if arg.low is not None else -1.0
    hi = arg.high if arg.high is not None else 1.0
    return rng.uniform(lo, hi, shape).astype(dt)


def place(arrays: list[np.ndarray], line_offset: int = 0) -> list[np.ndarray]:
    """Copies of `arrays` in one aligned arena, starts spread over the page offset, each
    `line_offset` bytes past a 64-byte line (0: on a line; 16: where NumPy's large arrays start)."""
    if not 0 <= line_offset < 64 or line_offset % 16:
        raise ValueError(f"line_offset must be 0, 16, 32 or 48, not {line_offset}")
    if not arrays:
        return []
    spacing = 4096 // len(arrays) // 64 * 64
    starts, end = [], 0
    for j, a in enumerate(arrays):
        start = -(-end // 4096) * 4096 + j * spacing + line_offset
        starts.append(start)
        end = start + a.nbytes
    arena = np.empty(end + 4096, np.uint8)
    skew = -arena.ctypes.data % 4096
    out = []
    for a, start in zip(arrays, starts):
        view = arena[skew + start: skew + start + a.nbytes].view(a.dtype).reshape(a.shape)
        view[...] = a
        out.append(view)
    return out
