"""Unroll a `kernel ... over i in n step S tail scalar { T } { BODY }` ×k:
step S*k and k copies of the body (copy j reads `i + j*S`). Only with a
scalar tail, which runs whatever is left (up to S*k - 1 elements); a
`tail mask` runs once and covers less than one step, and `tail pad` or no
tail promise multiples of S that S*k would not (LANGUAGE.md §7)."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from .base import Edit, NotApplicable
from .copies import copy_subs
from .loopshape import assigned_in, body_lets, names_in
from .text import (comment_spans, copy_range, first_on_line, fresh, identifiers, in_file_style, line_start, next_line,
                   parents)


def analyse_kernel(analysis: Analysis, k: A.Kernel) -> list[str]:
    """The names the body declares; NotApplicable when the kernel cannot be unrolled."""
    if k.tail != "scalar" or k.tail_body is None:
        what = "no tail" if k.tail is None else f"`tail {k.tail}`"
        raise NotApplicable(f"kernel '{k.name}' has {what}: only a `tail scalar` handles the remainder "
                            "of a larger step")
    work = k.body.stmts
    if not work:
        raise NotApplicable(f"kernel '{k.name}' has an empty body")
    if any(isinstance(s, A.Return) for s in A.statements(work)):
        raise NotApplicable("the kernel body returns")
    if k.var in assigned_in(work):
        raise NotApplicable(f"the kernel body redeclares '{k.var}'")
    data = analysis.source.data
    if not first_on_line(data, work[0].span.start) or b"\n" not in data[work[-1].span.end:k.body.span.end]:
        raise NotApplicable("the kernel body is not written one statement per line")
    return body_lets(work, _tail_reads(k))


def _tail_reads(k: A.Kernel) -> list[A.Name]:
    """Names the tail reads before declaring them itself (they would see the body's value)."""
    declared = {}
    for s in A.statements(k.tail_body.stmts):
        if isinstance(s, A.Let):
            declared.setdefault(s.name, s.span.start)
    return [n for n in names_in(k.tail_body.stmts) if n.span.start < declared.get(n.name, k.tail_body.span.end)]


def unroll_kernel(analysis: Analysis, k: A.Kernel, factor: int) -> list[Edit]:
    lets = analyse_kernel(analysis, k)
    data = analysis.source.data
    work = k.body.stmts
    start, end = line_start(data, work[0].span.start), next_line(data, work[-1].span.end)
    taken = identifiers(analysis)
    fresh_lets = {n: [fresh(n, j, taken) for j in range(1, factor)] for n in lets}
    up = parents(list(work))
    copies = []
    for j in range(1, factor):
        renames = {n: v[j - 1] for n, v in fresh_lets.items()}
        subs = copy_subs(analysis, work, k.var, k.step, up, renames, j)
        subs += [(s, e, "") for s, e in comment_spans(analysis, start, end)]
        copies.append(copy_range(data, start, end, subs, drop_blank=True))
    step = k.step_span
    return [Edit(step.start, step.end, str(k.step * factor)), Edit(end, end, in_file_style(data, "".join(copies)))]
