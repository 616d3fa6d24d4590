"""Vectorise a scalar sum loop along its index: u vector sums of W lanes,
each a block of W consecutive elements a step, added into the scalar at
the end; the original loop, verbatim, sums what is left (fewer than u*W).

    while i < n {                      let mut s_0: f32x8 = splat(0.0)
        s = s + x[i] * y[i]     ->     while i + 8 <= n {
        i = i + 1                          let x_0: f32x8 = load_f32x8(x, i)
    }                                      let y_0: f32x8 = load_f32x8(y, i)
                                           s_0 = fma(x_0, y_0, s_0)
                                           i = i + 8
                                       }
                                       s = s + reduce_add_fast(s_0)
                                       while i < n { s = s + x[i] * y[i]; i = i + 1 }

The lanes' total is `reduce_add_fast` (a tree): the sum is reordered
already, and the ordered `reduce_add`, a chain of W dependent adds, cost the
batched dot product 12-16 % at rows of 64 (and `fast_reduce`, the rewrite
that would change it, only finds the call once this one has written it).

The loop: `while I < N { S = S + E; I = I + 1 }` (or `I + 1 <= N`) with S
a scalar f32 or f64, E free of S and made of contiguous reads along I
(`P[Q + I]`), splats of what does not depend on I, `+ - * /`, `fma`. The
sum is reordered (lanes, then the lanes' total), so the results are not
equal bit for bit: the tuner keeps the variant only within the suite's
float tolerance (the site's note says so). Choices are (W, u, fused)."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .base import Edit, NotApplicable, Site, functions
from ...check.accumulators import reduction
from .loopshape import _not_a_remainder, const_value, loops_of, names_in, scope_of
from .nest import _step_one
from .text import fresh, identifiers, in_file_style, indent_at, line_start
from .tile import registers
from .tile_emit import VectorText
from .tile_shape import check_vectorisable

NAME = "vectorise_sum"
HINTS = ()
NOTE = "reorders the sum (lanes, then their total in any order): kept only within the suite's float tolerance"


@dataclass(frozen=True)
class SumLoop:
    node: A.While
    index: str
    bound: A.Expr
    update: A.Assign
    advance: A.Assign
    acc_read: A.Name
    elem: T.Scalar
    term: object
    fusable: bool


def analyse_sum(analysis: Analysis, scope, w: A.While) -> SumLoop:
    i, bound, advance = _step_one(analysis, w, "sum")
    _not_a_remainder(analysis, scope, w, i, bound)
    if len(w.body.stmts) != 2:
        raise NotApplicable("the loop body is not `s = s + ...; i = i + 1`")
    update = w.body.stmts[0]
    if not (isinstance(update, A.Assign) and isinstance(update.target, A.Name)):
        raise NotApplicable("the loop body is not `s = s + ...; i = i + 1`")
    s = update.target.name
    elem = update.target.ty
    if not (isinstance(elem, T.Scalar) and elem.name in ("f32", "f64")) or reduction(analysis.decisions, update, s) != ("sum", "+"):
        raise NotApplicable(f"'{s}' is not an f32 or f64 sum (`{s} = {s} + ...`)")
    value = A.unparen(update.value)
    if not isinstance(value, A.Binary):
        raise NotApplicable(f"the update of '{s}' is an fma: use the fma form `{s} = {s} + a * b`")
    reads = [n for n in names_in([value]) if n.name == s]
    acc = A.unparen(value.left) if A.unparen(value.left) in reads else A.unparen(value.right)
    if len(reads) != 1 or acc not in reads:
        raise NotApplicable(f"'{s}' is read in its own term")
    term = value.right if acc is A.unparen(value.left) else value.left
    if i in {n.name for n in names_in([bound])} or s in {n.name for n in names_in([bound])}:
        raise NotApplicable("the loop bound changes in the loop")
    check_vectorisable(analysis, term, i, elem)
    if i not in {n.name for n in names_in([term])}:
        raise NotApplicable(f"the term does not read along '{i}'")
    t = A.unparen(term)
    return SumLoop(w, i, bound, update, advance, acc, elem, term, isinstance(t, A.Binary) and t.op == "*")


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []
    out: list[Site] = []
    count, bits = registers(analysis.options)
    for item in functions(analysis, function):
        index = 0
        scope = scope_of(item)
        for w in loops_of(item):
            try:
                lp = analyse_sum(analysis, scope, w)
                indent_at(analysis.source.data, w.span.start)
            except NotApplicable:
                continue
            width = bits // lp.elem.bits
            fused = (False, True) if lp.fusable else (False,)
            trips = const_value(analysis, lp.bound)
            if trips is not None and trips < width:
                continue  # `while k < 3`: no whole vector ever
            choices = tuple((width, u, f) for u in (1, 2, 4) if trips is None or trips >= u * width for f in fused)
            out.append(Site(NAME, item.name, index, w.span.line, w.span.start, w.span.end, choices, None, NOTE))
            index += 1
    return out


def why_not(analysis: Analysis, item) -> str:
    reasons = []
    scope = scope_of(item)
    for w in loops_of(item):
        try:
            lp = analyse_sum(analysis, scope, w)
        except NotApplicable as err:
            reasons.append(f"line {w.span.line}: {err}")
            continue
        trips = const_value(analysis, lp.bound)
        reasons.append(f"line {w.span.line}: the loop runs {trips} times, fewer than a vector's lanes")
    return "; ".join(reasons[:4]) or "no `while` loop"


def title(site: Site, choice) -> str:
    width, u, fused = choice
    return f"Vectorise the sum: {u} × {width} lanes{' with fma' if fused else ''} (reorders the sum)"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice not in site.choices:
        raise NotApplicable(f"{NAME} {choice!r} is not one of this site's choices")
    for item in functions(analysis, site.function):
        w = next((w for w in loops_of(item) if w.span.start == site.start), None)
        if w is not None:
            return [_edit(analysis, analyse_sum(analysis, scope_of(item), w), *choice)]
    raise NotApplicable(f"no sum loop at line {site.line} of '{site.function}'")


def _edit(analysis: Analysis, lp: SumLoop, width: int, u: int, fused: bool) -> Edit:
    data = analysis.source.data
    w = lp.node
    ind = indent_at(data, w.span.start)
    inner = indent_at(data, lp.update.span.start) if lp.update.span.start > line_start(data, lp.update.span.start) \
        else ind + "    "
    taken = identifiers(analysis)
    s, i = lp.update.target.name, lp.index
    vt = VectorText(analysis, "", i, lp.acc_read, lp.elem.name, width, taken)
    accs = [fresh(s, q, taken) for q in range(u)]
    term = A.unparen(lp.term)
    updates = []
    for q, acc in enumerate(accs):
        if fused:
            updates.append(f"{acc} = fma({vt.vec(term.left, 0, q)}, {vt.vec(term.right, 0, q)}, {acc})")
        else:
            updates.append(f"{acc} = {acc} .+ {vt.vec(term, 0, q)}")
    bound = data[lp.bound.span.start:lp.bound.span.end].decode()
    total = accs[0] if u == 1 else _tree(accs)
    lines = [f"{ind}let mut {a}: {vt.vt} = splat(0.0)\n" for a in accs]
    lines += [f"{ind}while {i} + {u * width} <= {bound} {{\n"]
    lines += [f"{inner}{let}\n" for let in vt.lets] + [f"{inner}{up}\n" for up in updates]
    lines += [f"{inner}{i} = {i} + {u * width}\n", f"{ind}}}\n", f"{ind}{s} = {s} + reduce_add_fast({total})\n"]
    at = line_start(data, w.span.start)
    return Edit(at, at, in_file_style(data, "".join(lines)))


def _tree(names: list[str]) -> str:
    level = list(names)
    while len(level) > 1:
        level = [f"({x} .+ {y})" for x, y in zip(level[0::2], level[1::2])] + (level[-1:] if len(level) % 2 else [])
    return level[0][1:-1] if level[0].startswith("(") else level[0]
