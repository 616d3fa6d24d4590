"""Measure a bench's function in cycles per main-loop iteration at an
L1-resident size (the slope between two L1 sizes, cycles.py) and at a
DRAM size, each call checked against the bench's reference first, and pair
each figure with the model's prediction (predicted_side.py). The calls
timed are made back to back from native code (native_repeat.py): no
interpreter between them taking time or evicting the arrays from L1."""
from __future__ import annotations

import ctypes
import math
import threading
import time
from typing import Callable

import numpy as np

from .check import mismatch
from .cycle_sizes import choose, working_set
from .cycles import CycleMeasurement, per_call, slope
from .inputs import bench_namespace, copy_args, evaluate, make_args
from .native_repeat import repeater
from .suite import BenchError, BenchSpec
from .timing import Budget, measure

MAX_CALL_S = 2.0  # a DRAM-sized call expected to last longer is skipped (a naive matmul at 4096)
# Kernel calls are made back to back from native code in runs of at least this long: the Python
# call around a run (about 1 µs) is then under 1 % of it.
NATIVE_CALL_NS = 2e5
PROBE_CALLS = 16
SINGLE_PROBES = 3
MAX_REPS = 1 << 20


def loop_elements(spec: BenchSpec, n: int) -> float:
    value = evaluate(spec.loop_elements, bench_namespace(spec, n), f"[[bench]] {spec.name}: loop_elements")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value <= 0:
        raise BenchError(f"[[bench]] {spec.name}: loop_elements gave {value!r}, not a positive count")
    return float(value)


def _checked_call(kernel, spec: BenchSpec, n: int, line_offset: int = 0):
    """A call of the bench's function at n with its arguments (starting `line_offset` bytes past a
    cache line), after checking its result."""
    fn, args = _checked_arguments(kernel, spec, n, line_offset)
    return lambda: fn(**args)


def _checked_arguments(kernel, spec: BenchSpec, n: int, line_offset: int = 0):
    """(the bench's function, its keyword arguments at n), the result of a call checked."""
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
    return fn, args


def native_calls(kernel, spec: BenchSpec, n: int, line_offset: int = 0) -> tuple[Callable[[], object], int]:
    """(a call, the kernel calls it makes): at least NATIVE_CALL_NS of the bench's function's calls
    at n back to back from native code (native_repeat.py), or one call from Python where that
    cannot be done."""
    fn, args = _checked_arguments(kernel, spec, n, line_offset)
    rep = repeater(kernel, spec.function, args)
    if rep is None:
        return (lambda: fn(**args)), 1
    each = _timed(rep, 1)  # after the checked call: pages and caches are warm
    for _ in range(SINGLE_PROBES - 1):  # a short call slowed by another process would look DRAM-sized
        if not NATIVE_CALL_NS <= each < 10 * NATIVE_CALL_NS:
            break
        each = min(each, _timed(rep, 1))
    if each < NATIVE_CALL_NS:  # a DRAM-sized call is one call a run: no more probing
        each = _timed(rep, PROBE_CALLS)
    reps = max(1, min(MAX_REPS, math.ceil(NATIVE_CALL_NS / each)))
    return (lambda: rep(reps)), reps


def _timed(rep, calls: int) -> float:
    start = time.perf_counter_ns()
    rep(calls)
    return max(1.0, (time.perf_counter_ns() - start) / calls)


def time_calls(kernel, spec: BenchSpec, sizes: list[int], budget: Budget,
               cancel: threading.Event | None = None, line_offset: int = 0) -> list[float]:
    """ns of one call at each size (10th percentile: the samples other processes disturbed
    least), the sizes timed in alternating turns so a busy spell lands on all of them; the calls
    made back to back from native code (native_calls)."""
    made = {str(n): native_calls(kernel, spec, n, line_offset) for n in sizes}
    stats = measure({key: call for key, (call, _) in made.items()}, budget, cancel)
    return [stats[str(n)].p10_ns / made[str(n)][1] for n in sizes]


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
