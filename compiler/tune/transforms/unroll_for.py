"""Unroll a `for i in a..b step S { BODY }` loop ×k (the `unroll`
transformation's `for` sites; `unroll.py` holds the `while` ones).

    for i in 0..n step 8 {              let mut i: i32 = 0
        acc = acc .+ load(x, i)   ->    let mut acc_1: f32x8 = splat(0.0)
    }                                   while i + 8 < n {
                                            acc = acc .+ load(x, i)
                                            acc_1 = acc_1 .+ load(x, i + 8)
                                            i = i + 16
                                        }
                                        acc = acc .+ acc_1
                                        for i in i..n step 8 { ... }   (the original, from i)

A `for` runs BODY while `i < b` (LANGUAGE.md §8), so k copies fit while
`i + (k-1)*S < b`; the original loop, started at `i`, runs what is left.
Reductions get independent accumulators, as in a `while` unroll. The loop
body must not assign `i`, hold a loop or return, and `b` must not change
in the loop."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from .base import Edit, NotApplicable
from .copies import combine, copy_subs, start_value
from ...check.accumulators import accumulators
from .loopshape import assigned_in, body_lets, is_pure, names_in
from .text import (comment_spans, copy_range, first_on_line, fresh, identifiers, in_file_style, indent_at,
                   line_start, next_line, parents, text_of)


def for_loops(item) -> list[A.For]:
    return sorted((s for s in A.statements(item.body.stmts) if isinstance(s, A.For)), key=lambda f: f.span.start)


def analyse_for(analysis: Analysis, scope, f: A.For) -> tuple[list[str], list]:
    """(the body's lets, its accumulators); NotApplicable saying why the loop cannot be unrolled."""
    work = f.body.stmts
    if not work:
        raise NotApplicable("the loop body is empty")
    for s in A.statements(work):
        if isinstance(s, A.Return):
            raise NotApplicable("the loop body returns")
        if isinstance(s, (A.While, A.For, A.ForEach)):
            raise NotApplicable("the loop body holds a loop (unroll the inner loop instead)")
    assigned = assigned_in(work)
    if f.var in assigned:
        raise NotApplicable(f"the loop body assigns '{f.var}'")
    if not is_pure(f.end) or any(n.name in assigned or n.name == f.var for n in names_in([f.end])):
        raise NotApplicable("the loop's end changes in the loop")
    data = analysis.source.data
    indent_at(data, f.span.start)
    if not first_on_line(data, work[0].span.start) or b"\n" not in data[work[-1].span.end:f.body.span.end]:
        raise NotApplicable("the loop is not written one statement per line")
    if id(f) in scope.hints:
        raise NotApplicable("the loop carries an `unroll(N)` hint")
    _not_a_remainder(analysis, scope, f)
    declared = [s.name for s in A.statements(work) if isinstance(s, A.Let)]
    lets = body_lets(work, scope.names_outside(declared, f))
    return lets, accumulators(analysis.decisions, work, exclude={f.var, *lets})


def _not_a_remainder(analysis: Analysis, scope, f: A.For) -> None:
    """NotApplicable when `for i in j..N` finishes what an earlier loop advancing `j` to the
    same bound N left (fewer iterations than that loop's step)."""
    start = A.unparen(f.start)
    if not isinstance(start, A.Name):
        return
    data = analysis.source.data
    bound = data[f.end.span.start:f.end.span.end]
    siblings = scope.block_of(f)
    for s in reversed(siblings[:next(n for n, x in enumerate(siblings) if x is f)]):
        loop = s.loop if isinstance(s, A.Unroll) else s
        if isinstance(loop, A.While) and start.name in assigned_in(loop.body.stmts):
            cond = A.unparen(loop.cond)
            if isinstance(cond, A.Binary) and data[cond.right.span.start:cond.right.span.end] == bound:
                raise NotApplicable(f"the loop runs what the loop at line {loop.span.line} leaves "
                                    "(fewer iterations than its step)")
            return


def unroll_for(analysis: Analysis, scope, f: A.For, k: int) -> list[Edit]:
    lets, accs = analyse_for(analysis, scope, f)
    data = analysis.source.data
    ind = indent_at(data, f.span.start)
    work = f.body.stmts
    start, end = next_line(data, f.body.span.start), line_start(data, data.rindex(b"}", 0, f.body.span.end))
    inner = indent_at(data, work[0].span.start)
    taken = identifiers(analysis)
    names = {a.name: [a.name] + [fresh(a.name, j, taken) for j in range(1, k)] for a in accs}
    fresh_lets = {n: [n] + [fresh(n, j, taken) for j in range(1, k)] for n in lets}
    i, step, bound = f.var, f.step, text_of(analysis, f.end)
    lines = [f"{ind}let mut {i}: i32 = {text_of(analysis, f.start)}\n"]
    lines += [f"{ind}let mut {names[a.name][j]}: {a.ty} = {start_value(a)}\n" for a in accs for j in range(1, k)]
    lines.append(f"{ind}while {i} + {(k - 1) * step} < {bound} {{\n")
    lines.append(data[start:end].decode())
    up = parents(list(work))
    for j in range(1, k):
        renames = {n: v[j] for n, v in {**names, **fresh_lets}.items()}
        subs = copy_subs(analysis, work, i, step, up, renames, j)
        subs += [(s, e, "") for s, e in comment_spans(analysis, start, end)]
        lines.append(copy_range(data, start, end, subs, drop_blank=True))
    lines += [f"{inner}{i} = {i} + {k * step}\n", f"{ind}}}\n"]
    lines += [f"{ind}{a.name} = {combine(a, names[a.name])}\n" for a in accs]
    at = line_start(data, f.span.start)
    return [Edit(at, at, in_file_style(data, "".join(lines))), Edit(f.start.span.start, f.start.span.end, i)]
