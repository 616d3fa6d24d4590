"""`reduce_add(v)` -> `reduce_add_fast(v)` on a float vector: the lanes
summed as a tree instead of strictly in order (INTRINSICS.md), a shorter
dependency chain. The result may differ in the last bits, so the tuner keeps
it only within the suite's float tolerance (the site's note says so)."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .base import Edit, NotApplicable, Site, bodies, functions

NAME = "fast_reduce"
HINTS = ()
NOTE = "sums the lanes in any order: kept only within the suite's float tolerance"


def _calls(analysis: Analysis, item) -> list[A.Call]:
    found = []
    for n in A.walk(bodies(item)):
        if isinstance(n, A.Call) and n.name == "reduce_add" and len(n.args) == 1 \
                and analysis.decisions.intrinsic_of(n) is not None:
            ty = n.args[0].ty
            if isinstance(ty, T.Vector) and ty.elem.is_float:
                found.append(n)
    return sorted(found, key=lambda n: n.span.start)


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    return [Site(NAME, item.name, index, call.span.line, call.span.start, call.span.end, (True,), None, NOTE)
            for item in functions(analysis, function) for index, call in enumerate(_calls(analysis, item))]


def why_not(analysis: Analysis, item) -> str:
    return "no `reduce_add` of a float vector"


def title(site: Site, choice) -> str:
    return "Use reduce_add_fast (lanes summed in any order)"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    for item in functions(analysis, site.function):
        call = next((c for c in _calls(analysis, item) if c.span.start == site.start), None)
        if call is not None:
            return [Edit(call.name_span.start, call.name_span.end, "reduce_add_fast")]
    raise NotApplicable(f"no reduce_add at line {site.line} of '{site.function}'")
