"""`ea tune --predicted`: the search tries its candidates in the order of
their predicted time (compiler/inspect/predict at the suite's largest size),
and stops after PATIENCE candidates in a row were not accepted, or after the
predicted-fastest half. Each candidate is compiled (no run) to predict it:
far cheaper than a timed evaluation.

Predicted time of a function = its hot loop's predicted cycles per
iteration x the iterations at n (`loop_elements` / elements per iteration);
the hot loop as `ea bench --cycles` measures it (cycle_report.hot_loop)."""
from __future__ import annotations

import math
from typing import Callable

from ..analysis import Analysis
from ..bench.suite import BenchSpec
from .space import Space, render
from . import transforms as T

KEEP = 0.5  # of the candidates, the predicted-fastest part that may be timed
PATIENCE = 3  # candidates in a row not accepted before the search stops
MAX_POINTS = 256  # larger spaces are not enumerated: the normal search runs instead


def predicted_cycles(text: str, path: str, options, function: str, spec: BenchSpec, n: int) -> float | None:
    """Predicted cycles of one call of `function` at size n; None when there is no prediction."""
    from ..bench.cycle_report import hot_loop
    from ..bench.cycle_run import loop_elements
    from ..bench.cycle_sizes import working_set
    from ..build import compile_source
    from ..inspect import inspect_module
    try:
        analysis, module = compile_source(text.encode(), path, options)
        if module is None:
            return None
        report = inspect_module(analysis, module, names=[function], predict=True,
                                working_set_bytes=working_set(spec, n))
        fn = next(f for f in report.functions if f.name == function)
        index = hot_loop(fn)
        if index is None or fn.prediction is None or index >= len(fn.prediction.loops):
            return None
        step = spec.loop_step or fn.loops[index].elements_per_iteration
        if not step:
            return None
        return fn.prediction.loops[index].cycles_per_iter * loop_elements(spec, n) / step
    except Exception:  # noqa: BLE001 - a candidate the model cannot read is timed like any other
        return None


def ranked(space: Space, base: Analysis, estimate: Callable[[str], float | None]) -> list[tuple]:
    """The allowed candidates (origin excluded), predicted-fastest first; those without a
    prediction after those with one, in the space's order."""
    scored = []
    for k, point in enumerate(space.points()):
        if point == space.origin or not space.allowed(point):
            continue
        try:
            text, _ = render(base, space, point)
            guess = estimate(text)
        except T.NotApplicable:
            guess = None
        scored.append((guess is None, guess or 0.0, k, point))
    return [p for *_, p in sorted(scored)]


def predicted_search(space: Space, base: Analysis, estimate: Callable[[str], float | None],
                     try_point: Callable[[tuple], bool], stop: Callable[[], bool],
                     fallback: Callable[[], None]) -> None:
    """Try the candidates fastest-predicted first, until PATIENCE in a row are not accepted
    or KEEP of them were tried; spaces too large to enumerate go to `fallback` (the normal search)."""
    if space.size > MAX_POINTS:
        fallback()
        return
    order = ranked(space, base, estimate)
    misses = 0
    for point in order[:max(1, math.ceil(len(order) * KEEP))]:
        if stop() or misses >= PATIENCE:
            return
        misses = 0 if try_point(point) else misses + 1
