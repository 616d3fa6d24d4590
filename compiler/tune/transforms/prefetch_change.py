"""An existing software prefetch in a loop, removed or moved to another
distance: `prefetch(p, I + D)` (or `prefetch_write`, `prefetch_nta`) with
D a constant (a literal or a `const`) becomes `prefetch(p, I + D')`, D' the
chosen distance in bytes over p's element size, or the statement goes.
A prefetch is a hint: neither change alters a result (`prefetch.py` adds
one where there is none)."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from . import loopscan as L
from .base import Edit, NotApplicable, Site, functions
from .prefetch import DISTANCES, _base
from .text import first_on_line, line_start, next_line, text_of

NAME = "prefetch_change"
HINTS = ()
CHOICES = ("remove",) + DISTANCES


def _hints(analysis: Analysis, item) -> list[tuple[A.ExprStmt, A.Call]]:
    """The prefetch statements written alone on their lines in the function's loops."""
    data = analysis.source.data
    out = []
    for lp in L.index_loops(item):
        for s in lp.body.stmts:
            call = s.expr if isinstance(s, A.ExprStmt) else None
            if isinstance(call, A.Call) and L.is_hint(analysis.decisions.intrinsic_of(call)) and len(call.args) == 2 \
                    and first_on_line(data, s.span.start) and not data[s.span.end:next_line(data, s.span.end)].strip():
                out.append((s, call))
    return sorted(out, key=lambda sc: sc[0].span.start)


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    return [Site(NAME, item.name, index, s.span.line, s.span.start, s.span.end, CHOICES)
            for item in functions(analysis, function) for index, (s, _) in enumerate(_hints(analysis, item))]


def why_not(analysis: Analysis, item) -> str:
    return "no prefetch statement on a line of its own in a loop"


def title(site: Site, choice) -> str:
    return "Remove the prefetch" if choice == "remove" else f"Prefetch {choice} bytes ahead instead"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice not in CHOICES:
        raise NotApplicable(f"{NAME} {choice!r} is not one of {CHOICES}")
    for item in functions(analysis, site.function):
        found = next(((s, c) for s, c in _hints(analysis, item) if s.span.start == site.start), None)
        if found is not None:
            return [_edit(analysis, item, *found, choice)]
    raise NotApplicable(f"no prefetch at line {site.line} of '{site.function}'")


def _edit(analysis: Analysis, item, stmt, call, choice) -> Edit:
    data = analysis.source.data
    if choice == "remove":
        return Edit(line_start(data, stmt.span.start), next_line(data, stmt.span.end), "")
    consts = {it.name for it in analysis.ast.items if isinstance(it, A.ConstDecl)}
    offset = call.args[1]
    base = _base(offset, consts)
    if base is None:
        raise NotApplicable("the prefetch's offset has no part that moves with the loop")
    pointee = call.args[0].ty.pointee if isinstance(call.args[0].ty, T.Pointer) else None
    size = pointee.bits // 8 if isinstance(pointee, T.Scalar) else 0
    if size <= 0:
        raise NotApplicable("the prefetched pointer's elements have no size")
    return Edit(offset.span.start, offset.span.end, f"{text_of(analysis, base)} + {choice // size}")
