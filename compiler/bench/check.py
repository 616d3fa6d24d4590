"""Correctness before timing: the kernel's result against the NumPy reference,
within the tolerances (`rtol`, `atol`, and `max_mismatch`: the fraction of
values allowed beyond them), or by the suite's own `verify` expression."""
from __future__ import annotations

import numpy as np


def judge(spec, got, expected, env: dict) -> str | None:
    """None when the bench's result is right, else what is wrong. `env`: the bench's
    namespace with the arguments as they are after the call (for `verify`)."""
    if not spec.verify:
        return mismatch(got, expected, spec.rtol, spec.atol, spec.max_mismatch)
    scope = dict(env, got=got, expected=expected)
    try:
        verdict = eval(compile(spec.verify, f"[[bench]] {spec.name}: verify", "eval"), scope)  # noqa: S307
    except Exception as err:  # noqa: BLE001 - the user's expression
        return f"the verify expression {spec.verify!r} failed: {type(err).__name__}: {err}"
    if isinstance(verdict, (bool, np.bool_)):
        return None if verdict else f"the verify expression {spec.verify!r} is false"
    return f"the verify expression {spec.verify!r} gave {type(verdict).__name__}, not True or False"


def mismatch(got, expected, rtol: float, atol: float, max_mismatch: float = 0.0) -> str | None:
    """None when `got` matches `expected` within tolerance (at most a `max_mismatch`
    fraction of the values beyond rtol/atol), else what differs."""
    if got is None:
        return "the function returned nothing: set check to the output argument"
    got_a, exp_a = np.asarray(got), np.asarray(expected)
    if got_a.dtype.fields is not None:
        if exp_a.dtype.fields is None:
            return f"the output is a struct array ({', '.join(got_a.dtype.names)}) but the reference is not"
        for name in got_a.dtype.names:
            if name not in exp_a.dtype.names:
                return f"the reference has no field '{name}'"
            why = mismatch(got_a[name], exp_a[name], rtol, atol, max_mismatch)
            if why:
                return f"field {name}: {why}"
        return None
    try:
        exp_a = np.broadcast_to(exp_a, got_a.shape)
    except ValueError:
        return f"the reference has shape {exp_a.shape}, the result {got_a.shape}"
    g = got_a.astype(np.float64)
    e = exp_a.astype(np.float64)
    bad = ~np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    count = int(bad.sum())
    if count <= _allowed(max_mismatch, bad.size):
        return None
    err = np.where(bad, np.abs(g - e), -1.0)
    worst = np.unravel_index(int(np.nanargmax(np.nan_to_num(err, nan=np.inf))), err.shape)
    where = f" at index {worst[0] if len(worst) == 1 else tuple(int(i) for i in worst)}" if got_a.ndim else ""
    allowed = f", at most {_allowed(max_mismatch, bad.size)} allowed by max_mismatch={max_mismatch:g}" \
        if max_mismatch else ""
    return (f"{count} of {bad.size} values differ (rtol={rtol:g}, atol={atol:g}{allowed}); worst{where}: "
            f"got {_fmt(g[worst])}, expected {_fmt(e[worst])}")


def _allowed(fraction: float, size: int) -> int:
    """How many of `size` values may differ: the fraction of them, rounded down."""
    return int(fraction * size + 1e-9)


def _fmt(x) -> str:
    return f"{float(x):.7g}"


def first_bad_index(got, expected, rtol: float, atol: float) -> int | None:
    """The first flat index where `got` and `expected` differ beyond rtol/atol, or None."""
    got_a, exp_a = np.asarray(got), np.asarray(expected)
    if got_a.dtype.fields is not None or exp_a.dtype.fields is not None:
        return None
    try:
        exp_a = np.broadcast_to(exp_a, got_a.shape)
    except ValueError:
        return None
    bad = ~np.isclose(got_a.astype(np.float64), exp_a.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    flat = np.flatnonzero(bad.ravel())
    return int(flat[0]) if flat.size else None
