"""Software prefetch: at the top of a main loop's body, one
`prefetch(p, I + D)` per pointer parameter the loop loads from, D elements
(the chosen distance in bytes over the element size) ahead of where the loop
reads p now.

Where the loop reads p is the index of its first load of p with the constant
offsets dropped (`load(x, i + 8)` reads around `i`, `a[row + j]` around
`row + j`); that index must use the loop's variable and only names the loop
does not change, since the hint runs before anything in the body. A prefetch
never faults, so running ahead of the end of an array is harmless."""
from __future__ import annotations

from ...analysis import Analysis
from ...inspect.model import Bottleneck
from ...syntax import ast as A
from ...typesys import model as T
from . import loopscan as L
from .base import Edit, NotApplicable, Site, functions
from .text import first_on_line, in_file_style, line_start, next_line, text_of

NAME = "prefetch"
# `memory-heavy` is the hint inspect gives a loop with more memory than compute operations.
HINTS = (Bottleneck.MEMORY, "memory-heavy")
DISTANCES = (256, 512, 1024, 2048)


def _main_loops(analysis: Analysis, item) -> list[L.Loop]:
    """The main loops that load from a pointer parameter."""
    pointers = L.pointer_params(item)
    return [lp for lp in L.index_loops(item) if lp.main and _loads(analysis, lp, pointers)]


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    out = []
    for item in functions(analysis, function):
        for index, lp in enumerate(_main_loops(analysis, item)):
            out.append(Site(NAME, item.name, index, lp.line, lp.node.span.start, lp.node.span.end,
                            DISTANCES, HINTS[0]))
    return out


def _loads(analysis: Analysis, lp: L.Loop, pointers: dict) -> list[tuple[str, A.Expr]]:
    """(pointer, index expression) of every load from a pointer parameter in
    the loop's own body, in source order."""
    nodes = L.own_nodes(lp.body)
    stored = {id(n.target) for n in nodes if isinstance(n, A.Assign)}
    found = []
    for n in nodes:
        if isinstance(n, A.Call):
            intr = analysis.decisions.intrinsic_of(n)
            if L.is_access(intr) and not L.writes(intr) and len(n.args) >= 2:
                found.append((L.pointer_name(n.args[0]), n.args[1]))
        elif isinstance(n, A.Index) and id(n) not in stored:
            found.append((L.pointer_name(n.base), n.index))
    return [(p, e) for p, e in found if p in pointers]


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    item = next(iter(functions(analysis, site.function)), None)
    loops = _main_loops(analysis, item) if item is not None else []
    if site.index >= len(loops):
        raise NotApplicable(f"no loop {site.index} in {site.function}")
    if choice not in DISTANCES:
        raise NotApplicable(f"prefetch distance {choice} is not one of {DISTANCES}")
    lp = loops[site.index]
    for n in L.own_nodes(lp.body):
        if isinstance(n, A.Call) and L.is_hint(analysis.decisions.intrinsic_of(n)):
            raise NotApplicable(f"the loop at line {lp.line} already prefetches (line {n.span.line})")
    changing = _changed_in(lp)
    consts = {it.name for it in analysis.ast.items if isinstance(it, A.ConstDecl)}
    pointers = L.pointer_params(item)
    hints: dict[str, str] = {}
    for p, index in _loads(analysis, lp, pointers):
        base = _base(index, consts)
        if p in hints or base is None:
            continue
        used = L.names_in(base)
        if lp.var not in used or (used - {lp.var}) & changing:
            continue
        elem = pointers[p].ty.pointee
        size = elem.bits // 8 if isinstance(elem, T.Scalar) else 0
        if size <= 0:
            continue
        hints[p] = f"prefetch({p}, {text_of(analysis, base)} + {choice // size})"
    if not hints:
        raise NotApplicable(f"no load in the loop at line {lp.line} is indexed by {lp.var} "
                            "and names the loop does not change")
    return [_insert_top(analysis, lp.body, list(hints.values()))]


def _changed_in(lp: L.Loop) -> set[str]:
    """Names declared or assigned in the loop body (the index variable aside)."""
    out = set()
    for s in A.statements(lp.body.stmts):
        if isinstance(s, A.Let):
            out.add(s.name)
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Name) and s.target.name != lp.var:
            out.add(s.target.name)
        elif isinstance(s, (A.For, A.ForEach)):
            out.add(s.var)
    return out


def _base(index: A.Expr, consts: set[str]):
    """The index without its trailing constant offsets: `i + 8` -> `i`,
    `i + 2 * LANES` -> `i`."""
    e = A.unparen(index)
    while isinstance(e, A.Binary) and e.op in ("+", "-") and _constant(e.right, consts):
        e = A.unparen(e.left)
    return None if _constant(e, consts) else e


def _constant(e, consts: set[str]) -> bool:
    e = A.unparen(e)
    if isinstance(e, A.IntLit) or isinstance(e, A.Name) and e.name in consts:
        return True
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
        return _constant(e.left, consts) and _constant(e.right, consts)
    return False


def _insert_top(analysis: Analysis, body: A.Block, lines: list[str]) -> Edit:
    """The statements inserted first in the body: on lines of their own right
    after the line of its `{` (above any comment leading the body), indented
    like its first statement, when that statement starts a later line."""
    data = analysis.source.data
    first = body.stmts[0]
    after_brace = next_line(data, body.span.start)
    if first_on_line(data, first.span.start) and after_brace <= first.span.start:
        indent = data[line_start(data, first.span.start):first.span.start].decode()
        return Edit(after_brace, after_brace, in_file_style(data, "".join(f"{indent}{ln}\n" for ln in lines)))
    return Edit(first.span.start, first.span.start, "".join(f"{ln} " for ln in lines))


def title(site: Site, choice) -> str:
    return f"Prefetch {choice} bytes ahead"
