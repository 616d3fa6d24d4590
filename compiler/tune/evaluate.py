"""One variant, measured: verify it against the suite's reference at every
size and at edge lengths, then time it against the current best in
alternating turns (the same measurement as `ea bench`). Runs inside the
worker process (`worker.py`), so a variant that crashes takes only the
worker down."""
from __future__ import annotations

import ctypes

import numpy as np

from ..bench.check import first_bad_index, judge
from ..bench.inputs import bench_namespace, copy_args, make_args
from ..bench.suite import BenchError, BenchSpec, Size, as_size, size_label
from ..bench.timing import Budget, measure
from .guard import guarded
from .ratio import ratio_interval, spread


class Wrong(Exception):
    """The variant's result differs from the reference; str(err) says where."""


def edge_lengths(step: int) -> list[int]:
    """0, 1, step-1, step, step+1 and non-multiples of the step."""
    s = max(int(step), 1)
    return sorted({0, 1, max(s - 1, 0), s, s + 1, 2 * s + 3, 5 * s - 1})


def structs_of(kernel) -> dict:
    return {name: np.dtype(value) for name, value in vars(kernel).items()
            if isinstance(value, type) and issubclass(value, ctypes.Structure)}


def edge_sizes(spec: BenchSpec, step: int) -> list[Size]:
    """The edge lengths as sizes of `spec`: every size parameter at each length."""
    return [spec.sizes[0].with_all(e) for e in edge_lengths(step)]


def run_once(kernel, spec: BenchSpec, n: Size, guard: bool = False):
    """(result to check, expected, the namespace after the call), or None when the reference is
    undefined at n (only the edge lengths may be: at a suite size that is a BenchError). With
    `guard` every array ends at an inaccessible page (guard.py), and `guard` is what marks an edge length."""
    n = as_size(n)
    env = bench_namespace(spec, n)
    try:
        args = make_args(spec, n, structs_of(kernel), env)
        if guard:
            args = {name: guarded(value) for name, value in args.items()}
        before = copy_args(args)
        env.update(before)
        expected = eval(compile(spec.reference, spec.name, "eval"), env)  # noqa: S307 - trusted suite
    except Exception as err:  # noqa: BLE001 - the reference (or the inputs) are not defined at this n
        if guard:
            return None
        raise BenchError(f"[[bench]] {spec.name} at {_at(n)}: the inputs or the reference failed: "
                         f"{type(err).__name__}: {err}") from None
    returned = getattr(kernel, spec.function)(**args)
    got = returned if spec.check == "return" else args[spec.check]
    return got, expected, {**env, **args}


def _at(n: Size) -> str:
    """`n=1000` or `m=64,k=32`, as messages name a size."""
    return f"n={n.key}" if n.single else n.key


def verify(kernel, spec: BenchSpec, lengths: list[Size], required: set[Size], incumbent=None,
           on_check=None) -> None:
    """Raise Wrong at the first length where the variant differs from the reference. At
    lengths outside `required` (the edges), a length where the reference is undefined, or
    where the incumbent itself is wrong or refuses the input, is not held against the variant."""
    for n in lengths:
        guard = n not in required
        if on_check is not None:
            on_check(spec.function, n, guard)
        try:
            outcome = run_once(kernel, spec, n, guard=guard)
        except Exception as err:  # noqa: BLE001 - the binding refused this input
            if n in required or _incumbent_ok(incumbent, spec, n):
                raise Wrong(f"{spec.function} at {_at(n)}: raised {type(err).__name__}: {err}") from None
            continue
        if outcome is None:
            continue
        got, expected, env = outcome
        why = judge(spec, got, expected, env)
        if why is None:
            continue
        if n not in required and not _incumbent_ok(incumbent, spec, n):
            continue
        first = None if spec.verify or spec.max_mismatch else first_bad_index(got, expected, spec.rtol, spec.atol)
        where = f"; first mismatch at index {first}" if first is not None else ""
        raise Wrong(f"{spec.function} at {_at(n)}: {why}{where}")


def _incumbent_ok(incumbent, spec: BenchSpec, n: int) -> bool:
    if incumbent is None:
        return False
    try:
        outcome = run_once(incumbent, spec, n, guard=True)
    except Exception:  # noqa: BLE001
        return False
    return outcome is not None and judge(spec, *outcome) is None


def budgets(quick: bool) -> tuple[Budget, Budget]:
    """(for the sizes reported, for the largest size, which decides)."""
    if quick:
        return Budget.quick(), Budget(seconds=0.1, min_samples=9, max_samples=40, sample_ns=5e5, warmup_ns=3e6)
    return (Budget(seconds=0.1, min_samples=7, max_samples=40, sample_ns=1e6, warmup_ns=1e7),
            Budget(seconds=0.35, min_samples=15, max_samples=120, sample_ns=2e6, warmup_ns=2e7))


def time_sizes(kernel, spec: BenchSpec, sizes: list[Size], quick: bool, incumbent=None,
               reference: bool = False) -> dict[str, dict]:
    """Per size (by its key): the variant's median µs and the spread of its samples (ratio.spread)
    and, when given, the incumbent's and the ratio of their medians (incumbent / variant: above 1
    the variant is faster) with its 95 % interval (ratio.ratio_interval)."""
    small, large = budgets(quick)
    out = {}
    largest = max(sizes)
    for n in sizes:
        env = bench_namespace(spec, n)
        args = make_args(spec, n, structs_of(kernel), env)
        env.update(copy_args(args))
        # Both get the very same arrays: where arrays sit relative to each other modulo 4 KiB
        # changes a streaming kernel's speed by up to 2x (inputs.place), so copies would
        # compare layouts, not kernels. Outputs are overwritten alike by every call.
        fns = {"variant": _caller(kernel, spec, args)}
        if incumbent is not None:
            fns["incumbent"] = _caller(incumbent, spec, args)
        if reference:
            code = compile(spec.reference, spec.name, "eval")
            fns["reference"] = lambda code=code, env=env: eval(code, env)  # noqa: S307
        stats = measure(fns, large if n == largest else small)
        row = {"us": stats["variant"].median_ns / 1e3, "size": size_label(n),
               "spread": spread(stats["variant"].samples), "flops": _flops(spec, n, env)}
        if incumbent is not None:
            mid, lo, hi = ratio_interval(stats["variant"].samples, stats["incumbent"].samples)
            row.update(incumbent_us=stats["incumbent"].median_ns / 1e3, ratio=mid, ratio_lo=lo, ratio_hi=hi,
                       incumbent_spread=spread(stats["incumbent"].samples))
        if reference:
            row["numpy_us"] = stats["reference"].median_ns / 1e3
        out[n.key] = row
    return out


def _flops(spec: BenchSpec, n: Size, env: dict) -> float | None:
    """The floating-point operations of one call, when the suite counts them (for GFLOP/s)."""
    if not (spec.flops or spec.flops_per_element):
        return None
    from ..bench.runner import work
    return work(spec, n, env)[1]


def _caller(kernel, spec: BenchSpec, args: dict):
    fn = getattr(kernel, spec.function)
    return lambda: fn(**args)


__all__ = ["BenchError", "Wrong", "edge_lengths", "edge_sizes", "run_once", "time_sizes", "verify"]
