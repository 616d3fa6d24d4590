"""Interchange a reduction loop out of the element loop around it, the sum
kept in the array element: the loop order behind the article's matmul gain.

    while j < n {                                   while j < n {
        let mut sum: f32 = 0.0                          c[i * n + j] = 0.0
        let mut k: i32 = 0                              j = j + 1
        while k < n {                               }
            sum = sum + a[i * n + k] * b[k * n + j] let mut k: i32 = 0
            k = k + 1                         ->    while k < n {
        }                                               let a_k: f32 = a[i * n + k]
        c[i * n + j] = sum                              j = 0
        j = j + 1                                       while j < n {
    }                                                       c[i * n + j] = c[i * n + j] + a_k * b[k * n + j]
                                                            j = j + 1
                                                        }
                                                        k = k + 1
                                                    }

The inner loop now walks `c` and `b` contiguously, which LLVM vectorises;
the conditions that keep the results equal are in `nest.py`. The parts of E
that do not depend on j (`a[i * n + k]`) are read once per k, into a `let`,
when the j loop is known to run whenever the k loop does (the same start and
bound), so nothing is read that the original would not read. `j` ends with
the value it had. The nest is rewritten in place; comments inside it move
above it."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .base import Edit, NotApplicable, Site, bodies, functions
from .loopshape import loop_refusals, loops_of, names_in, scope_of
from .nest import Nest, analyse_nest
from .text import comment_spans, copy_range, identifiers, in_file_style, indent_at, line_start

NAME = "interchange"
HINTS = ()
CHOICES = (True,)


@dataclass(frozen=True)
class NestSite(Site):
    """A site that also names the two loops' indices (for the title)."""
    outer_var: str = ""
    inner_var: str = ""


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []  # a rewrite must check clean, so a file with errors offers none
    out: list[Site] = []
    for item in functions(analysis, function):
        found = []
        scope = scope_of(item)
        for w in loops_of(item):
            try:
                nest = analyse_nest(analysis, scope, w)
                indent_at(analysis.source.data, w.span.start)
            except NotApplicable:
                continue
            found.append(nest)
        for index, nest in enumerate(found):
            w = nest.outer
            out.append(NestSite(NAME, item.name, index, w.span.line, w.span.start, w.span.end, CHOICES,
                                outer_var=nest.j, inner_var=nest.k))
    return out


def title(site: Site, choice) -> str:
    k, j = getattr(site, "inner_var", "") or "k", getattr(site, "outer_var", "") or "j"
    return f"Interchange loops: {k} outside {j} (contiguous inner loop)"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice is not True:
        raise NotApplicable(f"interchange has one choice, True; got {choice!r}")
    items = functions(analysis, site.function)
    for item in items:
        w = next((w for w in loops_of(item) if w.span.start == site.start), None)
        if w is not None:
            return [_interchange(analysis, item, analyse_nest(analysis, scope_of(item), w))]
    if not items:
        raise NotApplicable(f"no function '{site.function}'")
    raise NotApplicable(f"no while loop at line {site.line} of '{site.function}'")


def _interchange(analysis: Analysis, func, nest: Nest) -> Edit:
    data = analysis.source.data
    w = nest.outer
    indent = indent_at(data, w.span.start)
    first = w.body.stmts[0].span.start
    written = data[line_start(data, first):first].decode()  # the body's indentation, if it starts its line
    step = written[len(indent):] if written.startswith(indent) and not written[len(indent):].strip() else ""
    step = step or "    "
    inner, inner2 = indent + step, indent + step + step
    taken = identifiers(analysis)
    k = _counter_name(analysis, func, nest, taken)
    hoisted = _hoisted(analysis, nest, k, taken)

    def text(node, extra=()) -> str:
        """The node's source with the counter renamed and the `extra` (node, name) replaced."""
        spans = [(n.span.start, n.span.end, name) for n, name in extra]
        subs = list(spans)
        if k != nest.k:
            counter = analysis.symbol_at(nest.counter.name_span.start)
            subs += [(n.span.start, n.span.end, k) for n in names_in([node])
                     if analysis.symbol_at(n.span.start) is counter
                     and not any(s <= n.span.start < e for s, e, _ in spans)]
        return copy_range(data, node.span.start, node.span.end, subs)

    element = text(nest.store.target)
    let = nest.counter
    lines = [f"{indent}{data[s:e].decode().strip()}\n" for s, e in comment_spans(analysis, w.span.start, w.span.end)]
    lines += [f"{indent}while {text(w.cond)} {{\n",
              f"{inner}{element} = {text(nest.acc.value)}\n",
              f"{inner}{text(nest.advance)}\n",
              f"{indent}}}\n",
              f"{indent}{data[let.span.start:let.name_span.start].decode()}{k}"
              f"{data[let.name_span.end:let.span.end].decode()}\n",
              f"{indent}while {text(nest.inner.cond)} {{\n"]
    lines += [f"{inner}let {name}: {node.ty} = {text(node)}\n" for node, name in hoisted]
    lines += [f"{inner}{nest.j} = {text(nest.start)}\n",
              f"{inner}while {text(w.cond)} {{\n",
              f"{inner2}{element} = {text(nest.update.value, hoisted + [(nest.acc_read, element)])}\n",
              f"{inner2}{text(nest.advance)}\n",
              f"{inner}}}\n",
              f"{inner}{text(nest.k_advance)}\n",
              f"{indent}}}"]
    return Edit(line_start(data, w.span.start), w.span.end, in_file_style(data, "".join(lines)))


def _counter_name(analysis: Analysis, func, nest: Nest, taken: set[str]) -> str:
    """K, unless the name K means something else somewhere in the function
    (START or N read inside K's loop after the rewrite could mean the counter)."""
    counter = analysis.symbol_at(nest.counter.name_span.start)
    others = [n for n in names_in(bodies(func)) if n.name == nest.k and analysis.symbol_at(n.span.start) is not counter]
    if not others and nest.k not in {p.name for p in func.params}:
        return nest.k
    name, n = f"{nest.k}_2", 3
    while name in taken:
        name, n = f"{nest.k}_{n}", n + 1
    taken.add(name)
    return name


def _hoisted(analysis: Analysis, nest: Nest, k: str, taken: set[str]) -> list[tuple[object, str]]:
    """(node, name) for each largest part of the sum's term that reads memory
    but not j, when the j loop runs whenever the k loop does (else nothing)."""
    data = analysis.source.data

    def same(x, y) -> bool:
        return data[x.span.start:x.span.end] == data[y.span.start:y.span.end]

    if not (same(nest.start, nest.counter.value) and same(nest.outer_bound, nest.inner_bound)):
        return []
    found = []
    stack = [nest.update.value]
    while stack:
        node = stack.pop()
        if node is nest.acc_read:
            continue
        free = nest.j not in {n.name for n in names_in([node])}
        reads = any(isinstance(n, A.Index) for n in A.walk([node]))
        if free and reads and isinstance(node.ty, T.Scalar):
            found.append(node)
        elif reads:
            stack += A.children(node)
    out = []
    for node in sorted(found, key=lambda n: n.span.start):
        first = min((n for n in A.walk([node]) if isinstance(n, A.Index)), key=lambda n: n.span.start)
        base = first.base.name if isinstance(first.base, A.Name) else "t"
        name, n = f"{base}_{k}", 2
        while name in taken:
            name, n = f"{base}_{k}_{n}", n + 1
        taken.add(name)
        out.append((node, name))
    return out


def why_not(analysis: Analysis, item) -> str:
    """Why no loop of `item` can be interchanged (the first two loops' reasons)."""
    return loop_refusals(analysis, item, analyse_nest, "no `while` loop")
