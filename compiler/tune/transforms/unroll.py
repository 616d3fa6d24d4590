"""Unroll a `while` main loop ×k, with independent accumulators for its
reductions: the fix for inspect's `one-accumulator` hint.

    while i + LANES <= n {                  let mut best_1: f32x8 = best
        best = max(best, load(x, i))   ->   ...
        i = i + LANES                       while i + 4 * LANES <= n {
    }                                           best = max(best, load(x, i))
                                                best_1 = max(best_1, load(x, i + LANES))
                                                ...
                                                i = i + 4 * LANES
                                            }
                                            best = max(max(best, best_1), max(best_2, best_3))
                                            while i + LANES <= n { ... }   (the original, verbatim)

The original loop stays, unchanged, after the unrolled one: it runs the up
to k-1 steps left over. Everything is inserted above the loop's line, so no
existing byte changes. A `kernel ... step S tail scalar` is unrolled by
multiplying its step and copying its body (`kernels.py`); its scalar tail
handles any remainder."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from . import kernels, unroll_for
from .base import Edit, NotApplicable, Site, functions
from .copies import combine, copy_subs, start_value, times
from .loopshape import WhileLoop, analyse_while, loops_of, scope_of
from .text import (comment_spans, copy_range, first_on_line, fresh, identifiers, in_file_style, indent_at,
                   line_start, next_line, parents)

NAME = "unroll"
HINTS = ("one-accumulator", "small-step")
CHOICES = (2, 4, 8)


@dataclass(frozen=True)
class LoopSite(Site):
    """A site that also names the loop's accumulators (for the title)."""
    accumulators: tuple[str, ...] = ()


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []  # a rewrite must check clean, so a file with errors offers none
    out: list[Site] = []
    for item in functions(analysis, function):
        found: list[tuple[int, dict]] = []
        if isinstance(item, A.Kernel):
            try:
                kernels.analyse_kernel(analysis, item)
                hint = "small-step" if item.step <= 2 else None
                found.append((item.span.start, dict(line=item.step_span.line, start=item.span.start,
                                                    end=item.span.end, hint=hint)))
            except NotApplicable:
                pass
        scope = scope_of(item)
        for w in loops_of(item):
            try:
                lp = analyse_while(analysis, scope, w)
                _layout(analysis.source.data, lp)
            except NotApplicable:
                continue
            accs = tuple(a.name for a in lp.accumulators)
            found.append((w.span.start, dict(line=w.span.line, start=w.span.start, end=w.span.end,
                                             hint="one-accumulator" if accs else None, accumulators=accs)))
        for f in unroll_for.for_loops(item):
            try:
                _, accs = unroll_for.analyse_for(analysis, scope, f)
            except NotApplicable:
                continue
            names = tuple(a.name for a in accs)
            found.append((f.span.start, dict(line=f.span.line, start=f.span.start, end=f.span.end,
                                             hint="one-accumulator" if names else None, accumulators=names)))
        for index, (_, fields) in enumerate(sorted(found, key=lambda f: f[0])):
            out.append(LoopSite(NAME, item.name, index, choices=CHOICES, **fields))
    return out


def title(site: Site, choice) -> str:
    accs = getattr(site, "accumulators", ())
    if accs:
        return f"Unroll \u00d7{choice} with {choice * len(accs)} accumulators"
    return f"Unroll \u00d7{choice}"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if not isinstance(choice, int) or isinstance(choice, bool) or choice < 2:
        raise NotApplicable(f"unroll needs a factor of 2 or more, got {choice!r}")
    item = next(iter(functions(analysis, site.function)), None)
    if item is None:
        raise NotApplicable(f"no function '{site.function}'")
    if isinstance(item, A.Kernel) and item.span.start == site.start:
        return kernels.unroll_kernel(analysis, item, choice)
    w = next((w for w in loops_of(item) if w.span.start == site.start), None)
    f = next((f for f in unroll_for.for_loops(item) if f.span.start == site.start), None)
    if f is not None:
        return unroll_for.unroll_for(analysis, scope_of(item), f, choice)
    if w is None:
        raise NotApplicable(f"no while loop at line {site.line} of '{site.function}'")
    return [_unroll_while(analysis, item, analyse_while(analysis, scope_of(item), w), choice)]


# ---- the while loop ---------------------------------------------------------

def _layout(data: bytes, lp: WhileLoop) -> tuple[int, int, str, str]:
    """(start of the body's work, start of the advance line, the loop's
    indentation, the body's indentation); NotApplicable unless the loop is
    written one statement per line, which the copies rely on."""
    indent = indent_at(data, lp.start)
    first, adv = lp.work[0], lp.advance
    if not first_on_line(data, first.span.start) or not first_on_line(data, adv.span.start) \
            or b"\n" not in data[adv.span.end:lp.node.body.span.end]:
        raise NotApplicable("the loop is not written one statement per line")
    # The body as written from the line after `{`: comments above its first statement come along.
    return next_line(data, lp.node.body.span.start), line_start(data, adv.span.start), indent, \
        indent_at(data, adv.span.start)


def _unroll_while(analysis: Analysis, func, lp: WhileLoop, k: int) -> Edit:
    data = analysis.source.data
    start, end, indent, inner = _layout(data, lp)
    taken = identifiers(analysis)
    names = {a.name: [a.name] + [fresh(a.name, j, taken) for j in range(1, k)] for a in lp.accumulators}
    lets = {n: [n] + [fresh(n, j, taken) for j in range(1, k)] for n in lp.lets}
    lines = [f"{indent}let mut {names[a.name][j]}: {a.ty} = {start_value(a)}\n"
             for a in lp.accumulators for j in range(1, k)]
    cond = lp.node.cond.span
    if lp.strict:  # `i < n`: k steps of 1 fit while `i + k <= n`
        bound = data[lp.bound.span.start:lp.bound.span.end].decode()
        lines.append(f"{indent}while {lp.index} + {times(analysis, lp.step, k)} <= {bound} {{\n")
    else:
        lines.append(f"{indent}while {data[cond.start:lp.step.span.start].decode()}{times(analysis, lp.step, k)}"
                     f"{data[lp.step.span.end:cond.end].decode()} {{\n")
    lines.append(data[start:end].decode())
    up = parents(list(lp.work))
    for j in range(1, k):
        renames = {n: v[j] for n, v in {**names, **lets}.items()}
        subs = copy_subs(analysis, lp.work, lp.index, lp.step, up, renames, j)
        subs += [(s, e, "") for s, e in comment_spans(analysis, start, end)]
        lines.append(copy_range(data, start, end, subs, drop_blank=True))
    lines.append(f"{inner}{lp.index} = {lp.index} + {times(analysis, lp.step, k)}\n")
    lines.append(f"{indent}}}\n")
    lines += [f"{indent}{a.name} = {combine(a, names[a.name])}\n" for a in lp.accumulators]
    at = line_start(data, lp.start)
    return Edit(at, at, in_file_style(data, "".join(lines)))
