"""`AnalysisSession`: one document analysed again after each edit, doing
only the work the edit needs, with results identical to `analyze()`.

    session = AnalysisSession("k.ea", options)
    a1 = session.update(text)        # a full analysis
    a2 = session.update(edited)      # an edit inside one function body: that body only

An edit that lies inside one function's body (between its braces, ending on
a line before the closing brace) re-lexes and re-parses that body,
re-checks that function against the declarations already made, moves the
spans of everything after it, and runs the lints again. Anything else (an
edit touching a signature, a struct, a constant, the text between items; a
syntax error in the edited body or anywhere in that item; more diagnostics
than the cap) is a full analysis. The session owns the objects of the
analyses it returns: the previous analysis is not valid after `update`
(its spans have moved); hold `lock` while reading one another thread may
replace.
"""
from __future__ import annotations

import dataclasses
import os
import threading
from bisect import bisect_left, bisect_right
from itertools import chain

from ..analysis import Analysis, analyze, finish_diagnostics
from ..desugar import desugar
from ..diagnostics import DiagnosticSink
from ..gc_pause import gc_paused
from ..options import Options
from ..source import SourceFile, Span
from ..symbols import SymbolTable
from ..syntax import ast as A
from ..syntax.lexer import lex_range
from ..syntax.parser import ItemParser
from ..syntax.tokens import EOF, Token
from .record import Body, Build, Capped, build, check_body, lint, merged_decisions
from .spans import bucket, collect, move, stretch


class _State:
    """A build, and the span objects of each of its items."""

    def __init__(self, data: bytes, b: Build):
        self.data, self.build = data, b
        self.declared = {id(s) for s in b.decl_symbols}
        items = b.program.items
        index = {id(item): n for n, item in enumerate(items)}
        self.body_of = {index[id(body.user)]: k for k, body in enumerate(b.bodies)}  # item -> body
        dindex = {id(f): n for n, f in enumerate(b.desugared.items)}
        self.desugared_at = [dindex[id(body.func)] for body in b.bodies]
        roots = [b.tokens, items, b.desugared.items, b.before_check, b.declared, b.decl_symbols,
                 [s for s, _ in b.decl_types]]
        for body in b.bodies:
            roots += [body.diagnostics, body.symbols, [s for s, _ in body.expr_types], body.coverage or ()]
        per_item = bucket(collect(roots, {}).values(), [i.span.start for i in items]) if items else []
        # Per item: its spans outside the body (`heads`) and inside it (`insides`, rebuilt by an edit there).
        self.heads, self.insides, self.head_ids = per_item, [[] for _ in items], [None] * len(items)
        for n, k in self.body_of.items():
            block = b.bodies[k].user.body.span
            spans = per_item[n]
            self.heads[n] = [s for s in spans if not block.start <= s.start < block.end]
            self.insides[n] = [s for s in spans if block.start <= s.start < block.end]
            self.head_ids[n] = {id(s) for s in self.heads[n]}


class AnalysisSession:
    def __init__(self, path: str = "<input>", options: Options | None = None):
        self.path = path
        self.options = options or Options()
        self.lock = threading.RLock()
        self.analysis: Analysis | None = None
        self.incremental_updates = 0  # how many updates re-checked one function only
        self._state: _State | None = None

    def update(self, text: str | bytes) -> Analysis:
        """The analysis of `text`, the document's new content. Never raises."""
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
        with self.lock, gc_paused():
            if self._state is not None and data == self._state.data and self.analysis is not None:
                return self.analysis
            result = None
            if self._state is not None:
                try:
                    result = self._edit(data)
                except Exception:  # the fast path is an optimisation: a full analysis is always right
                    if os.environ.get("EA_DEBUG"):
                        raise
                    result = None
                if result is not None:
                    self.incremental_updates += 1
            if result is None:
                result = self._full(data)
            self.analysis = result
            return result

    # ---- a full analysis ----
    def _full(self, data: bytes) -> Analysis:
        self._state = None
        try:
            state = _State(data, build(data, self.path, self.options))
            analysis = self._assemble(state.build)
        except (Capped, RecursionError):
            return analyze(data, self.path, self.options)
        except Exception:
            if os.environ.get("EA_DEBUG"):
                raise
            return analyze(data, self.path, self.options)  # reports the internal error as analyze does
        self._state = state
        return analysis

    def _assemble(self, b: Build) -> Analysis:
        symbols = SymbolTable()
        symbols.symbols = b.decl_symbols + list(chain.from_iterable(body.symbols for body in b.bodies))
        expr_types = b.decl_types + list(chain.from_iterable(body.expr_types for body in b.bodies))
        decisions = merged_decisions([b.decl_decisions] + [body.decisions for body in b.bodies])
        raw = b.before_check + b.declared + list(chain.from_iterable(body.diagnostics for body in b.bodies))
        sink = lint(b, raw, decisions, expr_types)
        return Analysis(self.path, b.source, self.options, b.tokens, b.program, b.desugared, symbols,
                        finish_diagnostics(sink, b.tokens, b.desugared), expr_types, decisions)

    # ---- an edit inside one function body ----
    def _edit(self, data: bytes) -> Analysis | None:
        st = self._state
        b, old = st.build, st.data
        p, old_end, new_end = _changed(old, data)
        items = b.program.items
        n = bisect_right([i.span.start for i in items], p) - 1
        k = st.body_of.get(n)
        if k is None:
            return None
        body = b.bodies[k]
        block = body.user.body.span
        after = items[n + 1].span.start if n + 1 < len(items) else len(old) + 1
        if not (block.start < p and old_end < block.end and b.source.line_of(old_end) < block.end_line):
            return None
        if any(d.span is not None and body.user.span.start <= d.span.start < after for d in b.before_check):
            return None  # a syntax error in this item: the parser's recovery may depend on the rest
        by = len(data) - len(old)
        lines = data.count(b"\n", p, new_end) - old.count(b"\n", p, old_end)
        source = SourceFile(self.path, data)
        parsed = _parse_body(source, block.start, block.end + by)
        if parsed is None:
            return None
        tokens, new_block = parsed
        user = dataclasses.replace(body.user, body=new_block)
        sink = DiagnosticSink()
        func = desugar(A.Program([user], b.program.span), sink).items[0]
        if sink.items:
            return None
        func.ret_ty = body.func.ret_ty
        for new, was in zip(func.params, body.func.params):
            new.ty = was.ty
        first = bisect_left(b.tokens, block.start, key=_start)
        last = bisect_left(b.tokens, block.end, key=_start)

        # From here on the previous analysis changes in place; a failure rebuilds from scratch.
        self._state = None
        move(chain.from_iterable(st.heads[n + 1:]), by, lines)
        move(chain.from_iterable(st.insides[n + 1:]), by, lines)
        for s in st.heads[n]:
            if s.start >= block.end:
                move((s,), by, lines)
            elif s.start < p and s.end >= old_end:
                stretch(s, by, lines)
        checker = b.checker
        checker.source = source
        checker.unknown_types = {key for key in checker.unknown_types if key[0] != id(body.func)}
        body.info.node = func
        fresh = Body(user, func, body.info, body.header_unknowns)
        check_body(checker, fresh, st.declared)
        for sym in b.decl_symbols:
            sym.references.clear()
        b.bodies[k] = fresh
        for sym, span in chain(b.decl_refs, chain.from_iterable(x.refs for x in b.bodies)):
            sym.references.append(span)

        span = b.program.span
        span = Span(span.start, span.end + by, span.line, span.col, span.end_line + lines, span.end_col)
        b.tokens = b.tokens[:first] + tokens + b.tokens[last:]
        user_items, desugared_items = list(items), list(b.desugared.items)
        user_items[n], desugared_items[st.desugared_at[k]] = user, func
        b.program, b.desugared, b.source = A.Program(user_items, span), A.Program(desugared_items, span), source
        hi = user_items[n + 1].span.start if n + 1 < len(user_items) else len(data) + 1
        made = collect([user, func, tokens, fresh.diagnostics, fresh.symbols, [s for s, _ in fresh.expr_types],
                        fresh.coverage or ()], {})
        head = st.head_ids[n]
        st.insides[n] = [s for key, s in made.items() if key not in head and user.span.start <= s.start < hi]
        analysis = self._assemble(b)
        st.data = data
        self._state = st
        return analysis


def _start(token: Token) -> int:
    return token.start


def _changed(old: bytes, new: bytes) -> tuple[int, int, int]:
    """The edit from `old` to `new`: the length of their common start, and
    where the differing part ends in each."""
    limit = min(len(old), len(new))
    lo, hi = 0, limit  # the common prefix is at least lo and at most hi long
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[lo:mid] == new[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, limit - prefix  # the common suffix, not overlapping the prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:len(old) - lo] == new[len(new) - mid:len(new) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, len(old) - lo, len(new) - lo


def _parse_body(source: SourceFile, start: int, end: int) -> tuple[list[Token], A.Block] | None:
    """The tokens and block of the function body at [start, end) of the new
    text, or None unless it lexes and parses cleanly and exactly."""
    sink = DiagnosticSink()
    tokens = lex_range(source, sink, True, start, end)
    if sink.items or not tokens or tokens[0].kind != "LeftBrace" or tokens[0].start != start \
            or tokens[-1].kind != "RightBrace" or tokens[-1].end != end:
        return None
    last = tokens[-1]
    parser = ItemParser(tokens + [Token(EOF, "", end, end, last.end_line, last.end_col, last.end_line,
                                        last.end_col, False)], sink)
    block = parser.parse_block("expected '{'", "the function")
    if sink.items or parser.tok.kind != EOF:
        return None
    return tokens, block
