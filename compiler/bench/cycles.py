"""Time to cycles per main-loop iteration (pure arithmetic, no measuring).

At a DRAM-sized n a call's fixed cost (the call itself, the reduction after
the loop, the tail) is lost in the loop's time: cycles per iteration are
time x clock / iterations. At an L1-resident n the fixed cost is of the same
order as the loop, so two L1 sizes are timed and the slope between them
counts: the fixed cost cancels in the difference."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class CycleMeasurement:
    """One function's main loop, measured at one size class."""
    function: str
    size_class: str  # "L1" or "DRAM"
    n: int  # the bench's n (the larger of the two for the L1 slope)
    working_set: int  # bytes of the arguments at n
    elements_per_iteration: int
    cycles_per_iter: float | None  # None: not measured (`note` says why)
    ghz: float
    method: str  # "slope" (two L1 sizes) or "per-call"
    predicted: float | None = None  # the model's cycles per iteration at this size class
    limit: str | None = None  # what the model says binds, e.g. "load ports", "DRAM bandwidth"
    predicted_by: str | None = None  # the model, e.g. "llvm-mca znver3" or "rough"
    note: str = ""
    alignment: int = 64  # the arrays started at a multiple of this many bytes (64: on a cache line)

    @property
    def error(self) -> float | None:
        return error_pct(self.predicted, self.cycles_per_iter)

    def to_json(self) -> dict:
        data = asdict(self)
        data["error_pct"] = None if self.error is None else round(self.error, 1)
        for key in ("cycles_per_iter", "predicted", "ghz"):
            if data[key] is not None:
                data[key] = round(data[key], 4)
        return data


def iterations(loop_elements: float, elements_per_iteration: int) -> float:
    if elements_per_iteration <= 0:
        raise ValueError("elements per iteration must be positive")
    return loop_elements / elements_per_iteration


def per_call(ns: float, ghz: float, loop_elements: float, elements_per_iteration: int) -> float:
    """Cycles per iteration of a call that took `ns` at `ghz` (cycles per ns)."""
    return ns * ghz / iterations(loop_elements, elements_per_iteration)


def slope(small: tuple[float, float], large: tuple[float, float], ghz: float,
          elements_per_iteration: int) -> float:
    """Cycles per iteration from two (loop elements, ns) points: the extra
    time of the larger call over its extra iterations."""
    (e0, t0), (e1, t1) = small, large
    extra = iterations(e1, elements_per_iteration) - iterations(e0, elements_per_iteration)
    if extra <= 0:
        raise ValueError("the larger size must cover more iterations")
    return (t1 - t0) * ghz / extra


def error_pct(predicted: float | None, measured: float | None) -> float | None:
    """(predicted - measured) / measured, in percent: +20 = predicted 20 % slower than measured."""
    if predicted is None or measured is None or measured <= 0:
        return None
    return (predicted - measured) / measured * 100.0


def mape(pairs: list[tuple[float, float]]) -> float | None:
    """Mean absolute percentage error of (predicted, measured) pairs."""
    errs = [abs(error_pct(p, m)) for p, m in pairs if error_pct(p, m) is not None]
    return sum(errs) / len(errs) if errs else None
