"""Timing: warm-up, batches long enough for the clock, many samples taken in
turns, and order statistics of the per-call time.

Implementations measured together (the kernel and its NumPy reference) take
turns within every round, so a busy spell on the machine lands on both
rather than on whichever happened to be running. Wall-clock time
(perf_counter_ns), as a user of the kernel sees it; or, with
`Budget.cpu_time`, the thread's CPU time (thread_time_ns: the moments
another process has the core do not count), for comparisons across runs on
a shared machine (bench/perf_guard.py)."""
from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

clock = time.perf_counter_ns


@dataclass
class Budget:
    """How long to measure: per implementation, at one size."""
    seconds: float = 0.4
    min_samples: int = 7
    max_samples: int = 200
    sample_ns: float = 2e6  # a batch of calls lasts at least this long
    warmup_ns: float = 2e7
    fixed_samples: int | None = None  # --reps
    cpu_time: bool = False  # time samples by the thread's CPU time, not the wall clock

    @classmethod
    def quick(cls) -> "Budget":
        return cls(seconds=0.06, min_samples=5, max_samples=30, sample_ns=5e5, warmup_ns=3e6)


@dataclass
class Stats:
    median_ns: float
    p10_ns: float
    p90_ns: float
    n_inner: int  # calls per sample
    n_runs: int  # samples
    samples: list[float] = field(default_factory=list, repr=False)  # per-call ns of each sample, in round order


class Cancelled(Exception):
    """The run was cancelled (the TUI's cancel key)."""


def _batch(f: Callable[[], object], k: int, timer: Callable[[], int] = clock) -> float:
    t0 = timer()
    for _ in range(k):
        f()
    return (timer() - t0) / k


def _warm(f: Callable[[], object], budget: Budget) -> float:
    """Call until warm (page faults, caches, branch predictors); the fastest call's ns."""
    best, spent, calls = float("inf"), 0.0, 0
    while calls < 2 or (spent < budget.warmup_ns and calls < 50):
        t = _batch(f, 1)
        best, spent, calls = min(best, t), spent + t, calls + 1
    return max(best, 1.0)


def measure(fns: dict[str, Callable[[], object]], budget: Budget,
            cancel: threading.Event | None = None) -> dict[str, Stats]:
    """Stats per implementation, measured in alternating turns."""
    inner = {}
    for name, f in fns.items():
        inner[name] = max(1, int(budget.sample_ns / _warm(f, budget)))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    deadline = clock() + budget.seconds * 1e9 * len(fns)
    rounds = 0
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled
        order = names[rounds % len(names):] + names[:rounds % len(names)]
        for name in order:
            samples[name].append(_batch(fns[name], inner[name], time.thread_time_ns if budget.cpu_time else clock))
        rounds += 1
        if budget.fixed_samples is not None:
            if rounds >= budget.fixed_samples:
                break
        elif rounds >= budget.max_samples or (rounds >= budget.min_samples and clock() >= deadline):
            break
    return {name: summarize(v, inner[name]) for name, v in samples.items()}


def summarize(per_call_ns: list[float], n_inner: int) -> Stats:
    p10, p90 = np.percentile(per_call_ns, [10, 90])
    return Stats(statistics.median(per_call_ns), float(p10), float(p90), n_inner, len(per_call_ns), list(per_call_ns))
