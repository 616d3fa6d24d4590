"""Search strategies over a space's points. Each calls `try_point(point)`
(True when the point was accepted and became the current best) until the
space is exhausted or `stop()` says the budget or time is spent."""
from __future__ import annotations

import random
from typing import Callable

from .space import Space

EXHAUSTIVE_MAX = 24  # "auto" enumerates spaces up to this many points, else searches locally


def choose(space: Space, strategy: str, budget: int | None) -> str:
    if strategy != "auto":
        return strategy
    return "exhaustive" if space.size <= max(EXHAUSTIVE_MAX, budget or 0) else "local"


def search(space: Space, strategy: str, seed: int, try_point: Callable[[tuple], bool],
           stop: Callable[[], bool], first: frozenset[str] = frozenset()) -> None:
    """`first`: names of knobs the local search tries before the others (the sites that
    answer what inspect says about the current best)."""
    rng = random.Random(seed)
    origin = space.origin
    if strategy == "exhaustive":
        for point in space.points():
            if stop():
                return
            if point != origin and space.allowed(point):
                try_point(point)
    elif strategy == "random":
        _random(space, rng, try_point, stop)
    else:
        _hill_climb(space, rng, try_point, stop, first)


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


def _hill_climb(space: Space, rng: random.Random, try_point, stop, first: frozenset[str]) -> None:
    """First-improvement hill climbing: move to the first neighbour that is accepted;
    stop at a point none of whose neighbours is."""
    current = space.origin
    tried = {current}
    while not stop():
        neighbours = [p for p in space.neighbours(current) if p not in tried]
        rng.shuffle(neighbours)
        neighbours.sort(key=lambda p: not any(k.name in first and a != b
                                              for k, a, b in zip(space.knobs, p, current)))
        moved = False
        for point in neighbours:
            if stop():
                return
            tried.add(point)
            if space.allowed(point) and try_point(point):
                current, moved = point, True
                break
        if not moved:
            return
