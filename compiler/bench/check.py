"""Correctness before timing: the kernel's result against the NumPy reference."""
from __future__ import annotations

import numpy as np


def mismatch(got, expected, rtol: float, atol: float) -> str | None:
    """None when `got` matches `expected` within tolerance, else what differs."""
    if got is None:
        return "the function returned nothing: set check to the output argument"
    got_a, exp_a = np.asarray(got), np.asarray(expected)
    if got_a.dtype.fields is not None:
        if exp_a.dtype.fields is None:
            return f"the output is a struct array ({', '.join(got_a.dtype.names)}) but the reference is not"
        for name in got_a.dtype.names:
            if name not in exp_a.dtype.names:
                return f"the reference has no field '{name}'"
            why = mismatch(got_a[name], exp_a[name], rtol, atol)
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
    if not bad.any():
        return None
    err = np.where(bad, np.abs(g - e), -1.0)
    worst = np.unravel_index(int(np.nanargmax(np.nan_to_num(err, nan=np.inf))), err.shape)
    where = f" at index {worst[0] if len(worst) == 1 else tuple(int(i) for i in worst)}" if got_a.ndim else ""
    return (f"{int(bad.sum())} of {bad.size} values differ (rtol={rtol:g}, atol={atol:g}); worst{where}: "
            f"got {_fmt(g[worst])}, expected {_fmt(e[worst])}")


def _fmt(x) -> str:
    return f"{float(x):.7g}"


def first_bad_index(got, expected, rtol: float, atol: float) -> int | None:
    """The first flat index where `got` and `expected` differ beyond tolerance, or None."""
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
