"""Measure a bench's function in cycles per main-loop iteration at an
L1-resident size (the slope between two L1 sizes, cycles.py) and at a
DRAM size, each call checked against the bench's reference first, and pair
each figure with the model's prediction (predicted_side.py)."""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from .check import mismatch
from .cycle_sizes import choose, working_set
from .cycles import CycleMeasurement, per_call, slope
from .inputs import bench_namespace, copy_args, evaluate, make_args
from .suite import BenchError, BenchSpec
from .timing import Budget, measure

MAX_CALL_S = 2.0  # a DRAM-sized call expected to last longer is skipped (a naive matmul at 4096)


def loop_elements(spec: BenchSpec, n: int) -> float:
    value = evaluate(spec.loop_elements, bench_namespace(spec, n), f"[[bench]] {spec.name}: loop_elements")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value <= 0:
        raise BenchError(f"[[bench]] {spec.name}: loop_elements gave {value!r}, not a positive count")
    return float(value)


def _checked_call(kernel, spec: BenchSpec, n: int, line_offset: int = 0):
    """A call of the bench's function at n with its arguments (starting `line_offset` bytes past a
    cache line), after checking its result."""
    fn = getattr(kernel, spec.function, None)
    if fn is None:
        raise BenchError(f"the kernel has no exported function '{spec.function}'")
    structs = {name: np.dtype(value) for name, value in vars(kernel).items()
               if isinstance(value, type) and issubclass(value, ctypes.Structure)}
    env = bench_namespace(spec, n)
    args = make_args(spec, n, structs, env, line_offset)
    env.update(copy_args(args))
    expected = evaluate(spec.reference, env, f"[[bench]] {spec.name}: reference")
    try:
        got = fn(**args)
    except Exception as err:  # noqa: BLE001 - the binding's argument checks, named per parameter
        raise BenchError(f"{spec.function}(...) at n={n} raised {type(err).__name__}: {err}") from None
    why = mismatch(got if spec.check == "return" else args[spec.check], expected, spec.rtol, spec.atol)
    if why:
        raise BenchError(f"{spec.name} at n={n} does not match its reference: {why}")
    return lambda: fn(**args)


def time_calls(kernel, spec: BenchSpec, sizes: list[int], budget: Budget,
               cancel: threading.Event | None = None, line_offset: int = 0) -> list[float]:
    """ns of one call at each size (10th percentile: the samples other processes disturbed
    least), the sizes timed in alternating turns so a busy spell lands on all of them."""
    calls = {str(n): _checked_call(kernel, spec, n, line_offset) for n in sizes}
    stats = measure(calls, budget, cancel)
    return [stats[str(n)].p10_ns for n in sizes]


def measure_cycles(kernel, spec: BenchSpec, elements_per_iteration: int, ghz: float,
                   budget: Budget | None = None, cancel: threading.Event | None = None,
                   line_offset: int = 0) -> list[CycleMeasurement]:
    """The L1 and DRAM measurements of one bench's function (unpredicted), its arrays
    `line_offset` bytes past a cache line."""
    budget = budget or Budget(seconds=0.3, cpu_time=True)
    epi = elements_per_iteration
    sizes = choose(spec, epi)
    out: list[CycleMeasurement] = []
    l1_cpi = None
    if "L1" in sizes:
        small, large = sizes["L1"]
        t_small, t_large = time_calls(kernel, spec, [small, large], budget, cancel, line_offset)
        l1_cpi = slope((loop_elements(spec, small), t_small), (loop_elements(spec, large), t_large), ghz, epi)
        note = "" if l1_cpi > 0 else "the larger size was not slower: too noisy to measure"
        out.append(CycleMeasurement(spec.function, "L1", large, working_set(spec, large), epi,
                                    l1_cpi if l1_cpi > 0 else None, ghz, "slope", note=note))
    if "DRAM" in sizes:
        (n,) = sizes["DRAM"]
        row = CycleMeasurement(spec.function, "DRAM", n, working_set(spec, n), epi, None, ghz, "per-call")
        # Without an L1 figure, assume a slow 20 cycles per iteration.
        expected_s = (l1_cpi or 20.0) * loop_elements(spec, n) / epi / ghz / 1e9
        if expected_s > MAX_CALL_S:
            row.note = f"skipped: one call would take about {expected_s:.0f} s"
        else:
            dram_budget = Budget(seconds=budget.seconds, min_samples=3, max_samples=15, sample_ns=1.0,
                                 cpu_time=budget.cpu_time,
                                 warmup_ns=0.0)
            (ns,) = time_calls(kernel, spec, [n], dram_budget, cancel, line_offset)
            row.cycles_per_iter = per_call(ns, ghz, loop_elements(spec, n), epi)
        out.append(row)
    return out
