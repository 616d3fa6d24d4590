"""The analysis of a few items of a file, made without settling the rest.

A request about one place (a hover, the machine code of one function) reads
the item there, the functions it calls, directly or not, and the
declarations. After an edit the session (session.py) has moved the spans of
the items its diagnostics needed only; `Focus.analysis` settles the items a
request names and gives an `Analysis` of just them: exact for any question
about their text (tokens, trees, symbols with the references inside them,
expression types, the checker's decisions), with the whole file's
diagnostics, and `left_out(span)`: whether a span lies in a function it
leaves out (for rules that ask whether a diagnostic lies in another
function, `build.errors_blocking`). Linear in those items, not in the file.

Everything indexed here belongs to the declarations or to an item's head,
which an edit inside a body does not change: a `Focus` lasts as long as the
session's state.
"""
from __future__ import annotations

import dataclasses
from itertools import chain

from ..analysis import Analysis
from ..check.decisions import Decisions
from ..symbols import Symbol, SymbolTable
from ..syntax import ast as A
from .record import merged_decisions


class Focus:
    def __init__(self, st):
        b, owner = st.build, st.spans.owner
        self.st = st
        items = b.program.items
        self.defining = {body.func.name: st.item_of[k] for k, body in enumerate(b.bodies)}  # name -> item
        self.declarations = [n for n in range(len(items)) if n not in st.body_of]
        item_by_span = {id(item.span): n for n, item in enumerate(items)}
        self.desugared_of: list[list[int]] = [[] for _ in items]
        for j, d in enumerate(b.desugared.items):  # a desugared item keeps its item's span
            self.desugared_of[item_by_span[id(d.span)]].append(j)
        self.functions = {n for n, item in enumerate(items) if isinstance(item, (A.Func, A.Kernel))}
        self.symbols = _by_item(b.decl_symbols, lambda s: owner.get(id(s.span)), len(items))
        self.refs = _by_item(b.decl_refs, lambda r: owner.get(id(r[1])), len(items))
        self.types = _by_item(b.decl_types, lambda t: owner.get(id(t[0])), len(items))
        # The declarations' decisions (calls in constants and signatures), per item.
        self.decisions: dict[int, Decisions] = {}
        for part in ("_callees", "_context"):
            for key, (call, made) in getattr(b.decl_decisions, part).items():
                n = owner.get(id(call.span))
                if n is None:
                    raise LookupError("a declaration's call belongs to no item")
                getattr(self.decisions.setdefault(n, Decisions()), part)[key] = (call, made)

    def items(self, starts: list[int]) -> list[int]:
        """`starts`, the functions they call (directly or not) and every item without a body."""
        st = self.st
        bodies = st.build.bodies
        found, todo = set(self.declarations), list(starts)
        while todo:
            n = todo.pop()
            if n in found:
                continue
            found.add(n)
            k = st.body_of.get(n)
            if k is not None:
                todo += [self.defining[name] for name, _ in _callees(bodies[k]) if name in self.defining]
        return sorted(found)

    def analysis(self, whole: Analysis, items: list[int]) -> Analysis:
        st = self.st
        b, spans = st.build, st.spans
        for n in items:
            spans.settle(n)
        mine = set(items)
        bodies = [b.bodies[st.body_of[n]] for n in items if n in st.body_of]
        program_items, desugared_items = b.program.items, b.desugared.items
        first, count = spans.first_token, len(program_items)
        tokens = list(chain.from_iterable(b.tokens[first[n]:first[n + 1] if n + 1 < count else len(b.tokens)]
                                          for n in items))
        program = A.Program([program_items[n] for n in items], b.program.span)
        desugared = A.Program([desugared_items[j] for n in items for j in self.desugared_of[n]], b.program.span)
        references: dict[int, list] = {}
        for sym, span in chain(chain.from_iterable(self.refs[n] for n in items),
                               chain.from_iterable(x.refs for x in bodies)):
            if spans.owner.get(id(span)) in mine:
                references.setdefault(id(sym), []).append(span)
        symbols = SymbolTable()  # copies: the declarations' symbols are shared with the whole analysis
        symbols.symbols = [dataclasses.replace(s, references=references.get(id(s), []))
                           for n in items for s in self.symbols[n]]
        symbols.symbols += chain.from_iterable(x.symbols for x in bodies)
        expr_types = [t for n in items for t in self.types[n]] + list(chain.from_iterable(x.expr_types for x in bodies))
        decisions = merged_decisions([self.decisions[n] for n in items if n in self.decisions] +
                                     [x.decisions for x in bodies])
        pending, functions = spans.pending_by, self.functions

        def left_out(span) -> bool:  # an item not settled holds positions `pending` bytes back
            m = spans.item_at(span.start)
            if m < 0 or m in mine or m not in functions:
                return False
            whole_item = program_items[m].span
            return whole_item.start + pending[m] <= span.start and span.end <= whole_item.end + pending[m]

        return Analysis(whole.path, whole.source, whole.options, tokens, program, desugared, symbols,
                        whole.diagnostics, expr_types, decisions, left_out)


def _callees(body):
    return [(callee.name, callee) for _, callee in body.decisions._callees.values() if isinstance(callee, Symbol)]


def _by_item(things, item_of, count: int) -> list[list]:
    out: list[list] = [[] for _ in range(count)]
    for x in things:
        n = item_of(x)
        if n is None:
            raise LookupError("a declaration's span belongs to no item")  # the caller analyses the file whole
        out[n].append(x)
    return out
