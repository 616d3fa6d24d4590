"""Search strategies over a space's points. Each calls `try_point(point)`
(True when the point was accepted and became the current best) until the
space is exhausted or `stop()` says the budget or time is spent."""
from __future__ import annotations

import random
from typing import Callable

from .space import Space

NEST_FIRST = ("tile", "panels", "kblock", "lines", "vectorise", "interchange", "vectorise_sum")
EXHAUSTIVE_MAX = 24  # "auto" enumerates spaces up to this many points, else searches locally
# Without a budget or a time limit, a local search's random restarts end after this many variants
# without a gain: on a noisy machine "until one is accepted" is until a false acceptance, and
# dot_f32's 259,199-point space had no other end.
UNBOUNDED_RESTARTS = 32


def choose(space: Space, strategy: str, budget: int | None) -> str:
    if strategy != "auto":
        return strategy
    return "exhaustive" if space.size <= max(EXHAUSTIVE_MAX, budget or 0) else "local"


def search(space: Space, strategy: str, seed: int, try_point: Callable[[tuple], bool],
           stop: Callable[[], bool], first: frozenset[str] = frozenset(), bounded: bool = True) -> None:
    """`first`: names of knobs the local search tries before the others (the sites that
    answer what inspect says about the current best). `bounded`: a budget or a time limit
    ends the run; without one the random restarts end after UNBOUNDED_RESTARTS misses."""
    rng = random.Random(seed)
    # The loop-nest restructurings first: they hold the large gains (a naive matmul's 40×).
    first = first | {k.name for k in space.knobs if k.site is not None and k.site.transform in NEST_FIRST}
    origin = space.origin
    if strategy == "exhaustive":
        # Single changes before combinations (a small budget still tries every knob), and
        # among equals the knobs inspect points at first.
        def order(point):
            changed = [k.name for k, a, b in zip(space.knobs, point, origin) if a != b]
            return len(changed), not any(name in first for name in changed)
        for point in sorted(space.points(), key=order):
            if stop():
                return
            if point != origin and space.allowed(point):
                try_point(point)
    elif strategy == "random":
        _random(space, rng, try_point, stop)
    else:
        _hill_climb(space, rng, try_point, stop, first, None if bounded else UNBOUNDED_RESTARTS)


def _random(space: Space, rng: random.Random, try_point, stop) -> None:
    seen = {space.origin}
    misses = 0
    while not stop() and len(seen) < space.size and misses < 1000:
        point = tuple(rng.choice(k.values) for k in space.knobs)
        if point in seen:
            misses += 1
            continue
        seen.add(point)
        misses = 0
        if space.allowed(point):
            try_point(point)


def _hill_climb(space: Space, rng: random.Random, try_point, stop, first: frozenset[str],
                restarts: int | None = None) -> None:
    """First-improvement hill climbing: move to the first neighbour that is accepted. At a
    point none of whose neighbours is, restart: the points two changes away, then random
    points, until the space, the budget or the time is spent, or `restarts` random points
    in a row are not accepted."""
    current = space.origin
    tried = {current}
    while not stop():
        moved = _climb_step(space, rng, try_point, stop, first, current, tried, space.neighbours(current))
        if moved is not None:
            current = moved
            continue
        # A local optimum: the points two changes away (pairs no single step reaches), then
        # random ones; the first accepted becomes the point the climb goes on from.
        far = (p for n in space.neighbours(current) for p in space.neighbours(n))
        moved = _climb_step(space, rng, try_point, stop, frozenset(), current, tried, far)
        if moved is None:
            moved = _random_restart(space, rng, try_point, stop, tried, restarts)
        if moved is None:
            return
        current = moved


def _climb_step(space: Space, rng: random.Random, try_point, stop, first, current, tried: set, candidates):
    """The first accepted of `candidates` not tried yet, or None."""
    points = list(dict.fromkeys(p for p in candidates if p not in tried))
    rng.shuffle(points)
    points.sort(key=lambda p: not any(k.name in first and a != b for k, a, b in zip(space.knobs, p, current)))
    for point in points:
        if stop():
            return None
        tried.add(point)
        if space.allowed(point) and try_point(point):
            return point
    return None


def _random_restart(space: Space, rng: random.Random, try_point, stop, tried: set, limit: int | None = None):
    """Random untried points until one is accepted (returned); None when none is left, the run
    stops or `limit` points were tried without one."""
    misses = tries = 0
    while not stop() and len(tried) < space.size and misses < 1000 and (limit is None or tries < limit):
        point = tuple(rng.choice(k.values) for k in space.knobs)
        if point in tried:
            misses += 1
            continue
        misses = 0
        tried.add(point)
        if space.allowed(point):
            tries += 1
            if try_point(point):
                return point
    return None
