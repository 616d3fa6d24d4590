"""Non-temporal stores: in a function's main loops, every store through a
pointer parameter that the loops store whole vectors to becomes
`stream_store` (INTRINSICS.md §10), so a large output does not evict the
inputs from the cache on its way to memory.

`store(p, i, v)` becomes `stream_store(p, i, v)`; a scalar `p[i] = v` to the
same pointer in those loops becomes `stream_store(p, i, v)` too, so all of
the pointer's stores bypass the cache alike; the checker then decides whether
stream_store takes v's type (scalars: integers of 16 bits and more). Our
compiler tests the alignment of a vector stream_store at run time on x86 (a
plain store when the address is not aligned to the vector), so no alignment
is assumed here. Remainder loops and kernel tails keep their plain stores."""
from __future__ import annotations

from ...analysis import Analysis, analyze
from ...intrinsics import TABLE
from ...syntax import ast as A
from ...typesys import model as T
from . import loopscan as L
from .base import Edit, NotApplicable, Site, functions, splice
from .text import text_of

NAME = "stream_store"
HINTS = ()


def _plan(analysis: Analysis, item) -> tuple[list[str], list]:
    """The pointers the main loops store vectors to, and those loops' stores
    to them: `store` calls and scalar index assignments."""
    pointers = L.pointer_params(item)
    vector_to: list[str] = []
    stores = []
    for lp in L.index_loops(item):
        if not lp.main:
            continue
        for n in L.own_nodes(lp.body):
            if isinstance(n, A.Call) and analysis.decisions.intrinsic_of(n) is TABLE["store"] and n.args:
                p = L.pointer_name(n.args[0])
                if p in pointers and isinstance(n.args[2].ty if len(n.args) > 2 else None, T.Vector):
                    stores.append(n)
                    vector_to += [p] if p not in vector_to else []
            elif isinstance(n, A.Assign) and isinstance(n.target, A.Index):
                stores.append(n)
    keep = [s for s in stores if _pointer(s) in vector_to]
    return vector_to, keep


def _pointer(store) -> str | None:
    return L.pointer_name(store.args[0] if isinstance(store, A.Call) else store.target.base)


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    out = []
    for item in functions(analysis, function):
        pointers, _ = _plan(analysis, item)
        if pointers:
            out.append(Site(NAME, item.name, 0, item.name_span.line, item.span.start, item.span.end,
                            (", ".join(pointers),)))
    return out


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    item = next(iter(functions(analysis, site.function)), None)
    if item is None:
        raise NotApplicable(f"no function {site.function}")
    pointers, stores = _plan(analysis, item)
    named = [p.strip() for p in str(choice).split(",")]
    wanted = [p for p in named if p in pointers]
    if not wanted:
        raise NotApplicable(f"{site.function}'s main loops store no vectors through {choice}")
    out = []
    for s in stores:
        if _pointer(s) not in wanted:
            continue
        if isinstance(s, A.Call):
            out.append(Edit(s.name_span.start, s.name_span.end, "stream_store"))
            continue
        t = s.target
        out.append(Edit(s.span.start, s.span.end,
                        f"stream_store({text_of(analysis, t.base)}, {text_of(analysis, t.index)}, "
                        f"{text_of(analysis, s.value)})"))
    _check_scalars(analysis, out, stores)
    return out


def _check_scalars(analysis: Analysis, edits: list[Edit], stores: list) -> None:
    """Which scalar types stream_store takes is the intrinsic's own rule:
    check the rewritten scalar stores and say which one it refuses."""
    scalar = {s.span.start for s in stores if isinstance(s, A.Assign)}
    if not scalar:
        return
    after = analyze(splice(analysis.source.data, edits), analysis.path, analysis.options)
    shift = 0
    for e in sorted(edits, key=lambda e: e.start):
        bad = next((d for d in after.errors if d.span is not None
                    and e.start + shift <= d.span.start < e.start + shift + len(e.text.encode())), None)
        if bad is not None and e.start in scalar:
            line = analysis.source.data.count(b"\n", 0, e.start) + 1
            raise NotApplicable(f"the scalar store at line {line} cannot be non-temporal: {bad.message}")
        shift += len(e.text.encode()) - (e.end - e.start)


def title(site: Site, choice) -> str:
    return f"Use non-temporal stores (stream_store) for {choice}"
