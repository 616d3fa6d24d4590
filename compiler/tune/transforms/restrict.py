"""Mark a function's pointer parameters `restrict` (LLVM `noalias`), so loads
need not be re-read after every store through another pointer.

Whether the arrays can overlap is the callers' business, so nothing here
proves it: the site's note says what the user must confirm. What can be seen
is refused: a call in the file passing one array as two of the pointers."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from . import loopscan as L
from .base import Edit, NotApplicable, Site, bodies, functions

NAME = "restrict"
HINTS = ()


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    out = []
    for item in functions(analysis, function):
        pointers = [p for p in item.params if isinstance(p.type, A.PointerType)]
        if len(pointers) < 2 or all(p.type.restrict for p in pointers) or not _written(analysis, item):
            continue
        names = [p.name for p in pointers]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        note = f"restrict promises that {listed} never overlap: every caller must pass distinct arrays"
        out.append(Site(NAME, item.name, 0, item.name_span.line, item.span.start, item.span.end,
                        (True,), None, note))
    return out


def _written(analysis: Analysis, item) -> set[str]:
    """The pointer parameters the function stores through."""
    pointers = L.pointer_params(item)
    found = set()
    for n in A.walk(bodies(item)):
        if isinstance(n, A.Call) and L.writes(analysis.decisions.intrinsic_of(n)) and n.args:
            found.add(L.pointer_name(n.args[0]))
        elif isinstance(n, A.Assign):
            base = n.target.base if isinstance(n.target, (A.Index, A.Field)) else None
            found.add(L.pointer_name(base) if base is not None else None)
    return found & set(pointers)


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    item = next((f for f in functions(analysis, site.function)), None)
    if item is None or choice is not True:
        raise NotApplicable(f"no function {site.function}")
    pointers = [p for p in item.params if isinstance(p.type, A.PointerType)]
    positions = [i for i, p in enumerate(item.params) if isinstance(p.type, A.PointerType)]
    for call in analysis.decisions.calls_of(item.name):
        passed = [L.pointer_name(call.args[i]) for i in positions if i < len(call.args)]
        twice = next((n for n in passed if n is not None and passed.count(n) > 1), None)
        if twice is not None:
            raise NotApplicable(f"the call at line {call.span.line} passes {twice} as two of "
                                f"{item.name}'s pointers")
    # Right after the `*`: `*restrict mut f32`, the order the grammar fixes.
    data = analysis.source.data
    return [Edit(p.type.span.start + 1, p.type.span.start + 1,
                 "restrict" if data[p.type.span.start + 1:p.type.span.start + 2] in (b" ", b"\t") else "restrict ")
            for p in pointers if not p.type.restrict]


def title(site: Site, choice) -> str:
    return "Mark pointers restrict (confirm no overlap)"
