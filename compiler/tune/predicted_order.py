"""`ea tune --predicted`: the search tries its candidates in the order of
their predicted time (compiler/inspect/predict at the suite's largest size),
times only those predicted faster than the current best (the original at first; at the
largest or the smallest size, with the core alone or shared with a busy hardware thread: at a
DRAM size every variant of a streaming loop ties), and
stops after PATIENCE candidates in a row were not accepted, or after a
quarter of all candidates (KEEP). Each candidate is compiled (no run) to predict it:
far cheaper than a timed evaluation. The candidates are the whole space when it
has at most MAX_POINTS points, else its points with one or two knobs changed,
fewest changes first, up to MAX_POINTS; one round (the prediction has seen the
combinations: the search does not start again from its best).

Predicted time of a function at n = its hot loop's predicted cycles per
iteration x the iterations at n (`loop_elements` / elements per iteration);
the hot loop as `ea bench --cycles` measures it (cycle_report.hot_loop)."""
from __future__ import annotations

import itertools
import math
from typing import Callable

from ..analysis import Analysis
from ..bench.suite import BenchSpec
from .space import Space, render
from . import transforms as T

KEEP = 0.25  # of the candidates, the predicted-fastest part that may be timed
PATIENCE = 3  # candidates in a row not accepted before the search stops
MIN_GAIN = 0.02  # a candidate predicted less than this much faster at every size is not timed
MAX_POINTS = 256  # candidates predicted at most (each is compiled once)


def predicted_cycles(text: str, path: str, options, function: str, spec: BenchSpec, n: int) -> float | None:
    """Predicted cycles of one call of `function` at size n; None when there is no prediction."""
    return predicted_cycles_at(text, path, options, function, spec, (n,))[n]


def predicted_cycles_at(text: str, path: str, options, function: str, spec: BenchSpec,
                        sizes, memories: tuple = (None,)) -> dict[int, float | None]:
    """predicted_cycles at each of `sizes`, from one compile of the text; with several
    `memories` (MemoryModel; None: the host's), {(n, k): cycles with the k-th} instead."""
    from ..build import compile_source
    try:
        analysis, module = compile_source(text.encode(), path, options)
    except Exception:  # noqa: BLE001 - a candidate the model cannot read is timed like any other
        module = None
    got = {(n, k): None if module is None else _at(analysis, module, function, spec, n, memory)
           for n in sizes for k, memory in enumerate(memories)}
    return {n: got[n, 0] for n in sizes} if len(memories) == 1 else got


def _at(analysis, module, function: str, spec: BenchSpec, n: int, memory=None) -> float | None:
    from ..bench.cycle_report import hot_loop
    from ..bench.cycle_run import loop_elements
    from ..bench.cycle_sizes import working_set
    from ..inspect import inspect_module
    try:
        # alignment 64: the tuner times its candidates on arrays placed on a cache line (bench.inputs.make_args)
        report = inspect_module(analysis, module, names=[function], predict=True,
                                working_set_bytes=working_set(spec, n), memory=memory, alignment=64)
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


def candidates(space: Space) -> list[tuple]:
    """The allowed points (origin excluded) the search predicts: all of a space of at most
    MAX_POINTS, else those with one or two knobs changed, fewest first, up to MAX_POINTS."""
    origin = space.origin
    if space.size <= MAX_POINTS:
        points = list(space.points())
    else:
        singles = list(space.neighbours(origin))
        pairs = (q for p in singles for q in space.neighbours(p)
                 if sum(a != b for a, b in zip(q, origin)) == 2)
        points = list(dict.fromkeys(itertools.chain(singles, itertools.islice(pairs, MAX_POINTS * 4))))
    return [p for p in points if p != origin and space.allowed(p)][:MAX_POINTS]


def ranked(space: Space, base: Analysis, estimate: Callable[[str], tuple | None]) -> list[tuple[tuple, tuple | None]]:
    """The candidates with their predictions, predicted-fastest first; those without a
    prediction after those with one, in the candidates' order."""
    scored = []
    for k, point in enumerate(candidates(space)):
        try:
            text, _ = render(base, space, point)
            guess = estimate(text)
        except T.NotApplicable:
            guess = None
        scored.append((guess is None, guess or (), k, point, guess))
    return [(p, g) for *_, p, g in sorted(scored)]


def promising(guess: tuple | None, origin: tuple | None) -> bool:
    """Whether the model expects a gain: faster by MIN_GAIN at some size (or no prediction)."""
    if guess is None or origin is None:
        return True
    return any(g < o * (1 - MIN_GAIN) for g, o in zip(guess, origin))


def predicted_search(space: Space, base: Analysis, estimate: Callable[[str], tuple | None],
                     try_point: Callable[[tuple], bool], stop: Callable[[], bool]) -> None:
    """Time the candidates the model expects a gain from, fastest-predicted first, until
    PATIENCE in a row are not accepted or KEEP of all were tried. Once one is accepted, a gain
    is expected against it: dot_f32's search, after `unroll ×2`, spent its patience on three
    variants of it predicted to take exactly its time."""
    order = ranked(space, base, estimate)
    best = estimate(base.source.data.decode())
    chosen = [(p, guess) for p, guess in order if promising(guess, best)]
    misses = 0
    for point, guess in chosen[:max(1, math.ceil(len(order) * KEEP))]:
        if stop() or misses >= PATIENCE:
            return
        if not promising(guess, best):
            continue
        if try_point(point):
            misses, best = 0, guess or best
        else:
            misses += 1


def predicted_times(text: str, path: str, options, function: str, spec: BenchSpec) -> tuple | None:
    """(cycles at the suite's largest size, at its smallest; the same with the core shared): the
    order the tuner's score (largest size) gives, ties broken where the data sit in cache.
    The tuner scores medians, and on a machine whose cores' other hardware threads run other
    tenants' work part of the samples are taken with the op cache's fetches taking twice as long
    (frontend.SHARED_FETCH_CYCLES): a loop bound by its fetches then takes twice its time. dot_u8i8's
    one-accumulator loop (2.1 cycles an iteration, front end; unrolled x2 bound by L2 alike) had a
    median 1.7x its unrolled variant's at 64K, the same 10th percentile."""
    import dataclasses
    from ..inspect.predict import memory_for
    from ..inspect.predict.frontend import SHARED_FETCH_CYCLES
    quiet = memory_for(options)
    shared = dataclasses.replace(quiet, fetch_cycles=max(quiet.fetch_cycles, SHARED_FETCH_CYCLES))
    sizes = (max(spec.sizes), min(spec.sizes))
    at = predicted_cycles_at(text, path, options, function, spec, sizes, (quiet, shared))
    times = tuple(at[n, k] for k in (0, 1) for n in sizes)
    return None if None in times else times
