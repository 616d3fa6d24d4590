"""`AnalysisSession`: one document analysed again after each edit, doing
only the work the edit needs, with results identical to `analyze()`.

    session = AnalysisSession("k.ea", options)
    a1 = session.update(text)        # a full analysis
    a2 = session.update(edited)      # an edit inside one function body: that body only

An edit that lies inside one function's body (between its braces, ending on
a line before the closing brace) re-lexes and re-parses that body,
re-checks that function against the declarations already made, adds the
edit's shift to the items after it (items.py: their spans move when read),
and runs the lints of the functions that may report something. The
analysis it returns has its diagnostics; its other fields are filled when
one is first read (`_Filler`: every pending shift settled, the lists
joined). Anything else (an edit touching a signature, a struct, a
constant, the text between items; a syntax error in the edited body or
anywhere in that item; more diagnostics than the cap) is a full analysis.
The session owns the objects of the analyses it returns: the previous
analysis is not valid after `update` (its spans move, its token list is
edited in place); hold `lock` while reading one another thread may replace.
"""
from __future__ import annotations

import dataclasses
import os
import threading
from bisect import bisect_left
from itertools import chain

from ..analysis import Analysis, analyze, finish_diagnostics
from ..desugar import desugar
from ..diagnostics import DiagnosticSink
from ..gc_pause import gc_paused
from ..options import Options
from ..source import SourceFile, Span
from ..check.lint_tails import needs_callers
from ..check.lint_widths import wide_names
from ..symbols import Symbol, SymbolTable
from ..syntax import ast as A
from ..syntax.lexer import lex_range
from ..syntax.parser import ItemParser
from ..syntax.tokens import EOF, Token
from .focus import Focus
from .items import ItemSpans
from .record import Body, Build, Capped, OnDemand, build, check_body, lint, merged_decisions
from .spans import collect, move, stretch


class _State:
    """A build, and the span objects of each of its items (moved lazily)."""

    def __init__(self, data: bytes, b: Build):
        self.data, self.build = data, b
        self.declared = {id(s) for s in b.decl_symbols}
        items = b.program.items
        index = {id(item): n for n, item in enumerate(items)}
        self.body_of = {index[id(body.user)]: k for k, body in enumerate(b.bodies)}  # item -> body
        self.item_of = {k: n for n, k in self.body_of.items()}  # body -> item
        dindex = {id(f): n for n, f in enumerate(b.desugared.items)}
        self.desugared_at = [dindex[id(body.func)] for body in b.bodies]
        roots = [b.tokens, items, b.desugared.items, b.before_check, b.declared, b.decl_symbols,
                 [s for s, _ in b.decl_types]]
        for body in b.bodies:
            roots += [body.diagnostics, body.symbols, [s for s, _ in body.expr_types], body.coverage or ()]
        blocks = {n: b.bodies[k].user.body.span for n, k in self.body_of.items()}
        self.spans = ItemSpans(roots, items, b.tokens, blocks)
        # Items holding a lex, parse or desugar diagnostic: an edit there is a full analysis.
        self.syntax_items = {self.spans.item_at(d.span.start) for d in b.before_check if d.span is not None}
        # Function name -> the items whose code calls it (the tail lint reads the calls of a kernel).
        self.callers: dict[str, set[int]] = {}
        for call, callee in b.decl_decisions._callees.values():
            if isinstance(callee, Symbol):
                self.callers.setdefault(callee.name, set()).add(self.spans.item_at(call.span.start))
        for k, body in enumerate(b.bodies):
            for name in _called(body):
                self.callers.setdefault(name, set()).add(self.item_of[k])
        self.wide = wide_names(b.checker.base_options)
        self.focus: Focus | None = None  # made when a request first reads one place (focus.py)
        # The bodies whose kernel lints or width lint may report something (the others are not linted).
        self.kernel_lints, self.width_lints = set(), set()
        self.reporting: set[int] = set()  # the bodies with diagnostics of their own
        for k, body in enumerate(b.bodies):
            self.track(k, body)

    def track(self, k: int, body: Body) -> None:
        f = body.func
        _put(self.kernel_lints, k, f.origin is not None and (body.coverage is None or bool(body.coverage)
                                                              or needs_callers(f)))
        _put(self.width_lints, k, bool(body.uses) and not self.wide.isdisjoint(body.uses))
        _put(self.reporting, k, bool(body.diagnostics))


def _put(s: set, k: int, there: bool) -> None:
    if there:
        s.add(k)
    else:
        s.discard(k)


def _called(body: Body) -> set[str]:
    return {callee.name for _, callee in body.decisions._callees.values() if isinstance(callee, Symbol)}


def _spans_of(diagnostics):
    for d in diagnostics:
        if d.span is not None:
            yield d.span
        for x in d.labels:
            yield x.span
        for x in d.suggestions:
            yield x.span


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
        b, old, spans = st.build, st.data, st.spans
        p, old_end, new_end = _changed(old, data)
        items = b.program.items
        n = spans.item_at(p)
        k = st.body_of.get(n)
        if k is None or n in st.syntax_items:  # a syntax error in this item: the parser's recovery may depend on the rest
            return None
        spans.settle(n)
        body = b.bodies[k]
        block = body.user.body.span
        if not (block.start < p and old_end < block.end and b.source.line_of(old_end) < block.end_line):
            return None
        by = len(data) - len(old)
        lines = data.count(b"\n", p, new_end) - old.count(b"\n", p, old_end)
        source = b.source.edited(data, p, old_end, new_end)
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
        lo = spans.first_token[n]
        hi = spans.first_token[n + 1] if n + 1 < len(items) else len(b.tokens)
        first = bisect_left(b.tokens, block.start, lo, hi, key=_start)
        last = bisect_left(b.tokens, block.end, lo, hi, key=_start)

        # From here on the previous analysis changes in place; a failure rebuilds from scratch.
        self._state = None
        spans.shift_after(n, by, lines, len(tokens) - (last - first))
        for s in spans.heads[n]:
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
        for name in _called(body):
            st.callers[name].discard(n)
        for name in _called(fresh):
            st.callers.setdefault(name, set()).add(n)
        b.bodies[k] = fresh
        st.track(k, fresh)

        span = b.program.span
        span = Span(span.start, span.end + by, span.line, span.col, span.end_line + lines, span.end_col)
        b.tokens[first:last] = tokens  # in place: the previous analysis is not valid after an update
        user_items, desugared_items = list(items), list(b.desugared.items)
        user_items[n], desugared_items[st.desugared_at[k]] = user, func
        b.program, b.desugared, b.source = A.Program(user_items, span), A.Program(desugared_items, span), source
        end = spans.starts[n + 1] if n + 1 < len(user_items) else len(data) + 1
        made = collect([user, func, tokens, fresh.diagnostics, fresh.symbols, [s for s, _ in fresh.expr_types],
                        fresh.coverage or ()], {})
        head = spans.head_ids[n]
        spans.replace_insides(n, [s for key, s in made.items() if key not in head and user.span.start <= s.start < end])
        analysis = self._assemble_edit(st)
        st.data = data
        self._state = st
        return analysis

    def _assemble_edit(self, st: _State) -> Analysis:
        """The analysis after an edit: its diagnostics, with the spans they and
        the lints read settled; the rest is joined and settled when first read."""
        b, spans = st.build, st.spans
        raw = b.before_check + b.declared + [d for k in sorted(st.reporting) for d in b.bodies[k].diagnostics]
        if not spans.settle_owners(_spans_of(raw)):
            spans.settle_all()
        settle = spans.settle
        kernels = [b.bodies[k] for k in sorted(st.kernel_lints)]
        wide = [b.bodies[k] for k in sorted(st.width_lints)]
        for k in st.kernel_lints:  # its coverage lint reports its spans; the tail lint reads its header
            settle(st.item_of[k])
            f = b.bodies[k].func
            if needs_callers(f):  # ... and the calls of it
                for m in st.callers.get(f.name, ()):
                    settle(m)
        for k in st.width_lints:  # lint_widths compares the first uses in these
            settle(st.item_of[k])
        owner = spans.owner
        errors: dict[int | None, list[Span]] = {}  # item -> the spans of the errors it holds
        for d in raw:
            if d.is_error and d.span is not None:
                errors.setdefault(owner.get(id(d.span)), []).append(d.span)
        if None in errors:  # an error whose span no item holds: compare positions as analyze() does
            spans.settle_all()
            has_errors = None
        else:
            item_of_func = {id(b.bodies[k].func): st.item_of[k] for k in st.kernel_lints}

            def has_errors(func: A.Func) -> bool:  # its errors are in its item, settled with the diagnostics
                return any(func.span.start <= s.start < func.span.end
                           for s in errors.get(item_of_func[id(func)], ()))
        decisions = OnDemand(lambda: merged_decisions([b.decl_decisions] + [x.decisions for x in b.bodies]))
        sink = lint(b, raw, decisions, [], has_errors, kernels, wide)
        parse_items = {owner.get(id(d.span)) for d in sink.items if d.kind == "parse" and d.span is not None}
        if None in parse_items:
            spans.settle_all()
            regions = None
        else:  # a syntax error's cascade region lies in the item holding it
            regions = [b.desugared.items[m] for m in sorted(parse_items)]
        diagnostics = finish_diagnostics(sink, b.tokens, b.desugared, regions)
        analysis = Analysis.__new__(Analysis)
        analysis.__dict__.update(path=self.path, source=b.source, options=self.options, diagnostics=diagnostics,
                                 _fill=_Filler(self, st, b.tokens, b.program, b.desugared, list(b.bodies)))
        return analysis


class _Filler:
    """Fills the span-holding fields of an analysis made by an edit when one
    is first read: every item's spans settled, the per-function segments
    joined, the declarations' references gathered again."""

    def __init__(self, session: AnalysisSession, st: _State, tokens, program, desugared, bodies):
        self.session, self.st, self.parts = session, st, (tokens, program, desugared, bodies)
        self.focused: dict[tuple[int, ...], Analysis] = {}  # items -> their analysis (focus)

    def __call__(self, analysis: Analysis) -> None:
        with self.session.lock, gc_paused():
            if "_fill" not in analysis.__dict__:
                return  # another thread filled it
            tokens, program, desugared, bodies = self.parts
            b = self.st.build
            self.st.spans.settle_all()
            # The declarations' symbols are shared with the analyses before: their references are
            # the newest bodies' (an analysis filled after a newer update is stale in any case).
            for sym in b.decl_symbols:
                sym.references.clear()
            for sym, span in chain(b.decl_refs, chain.from_iterable(x.refs for x in b.bodies)):
                sym.references.append(span)
            symbols = SymbolTable()
            symbols.symbols = b.decl_symbols + list(chain.from_iterable(x.symbols for x in bodies))
            expr_types = b.decl_types + list(chain.from_iterable(x.expr_types for x in bodies))
            decisions = merged_decisions([b.decl_decisions] + [x.decisions for x in bodies])
            analysis.__dict__.update(tokens=tokens, ast=program, desugared=desugared, symbols=symbols,
                                     expr_types=expr_types, decisions=decisions)
            del analysis.__dict__["_fill"]

    def focus(self, analysis: Analysis, offset: int | None, names) -> Analysis:
        """`Analysis.focus` of an analysis made by an edit (focus.py); the
        whole analysis when it is no longer the session's newest."""
        with self.session.lock, gc_paused():
            st = self.st
            if "_fill" not in analysis.__dict__ or self.session.analysis is not analysis or self.session._state is not st:
                return analysis
            if st.focus is None:
                try:
                    st.focus = Focus(st)
                except (KeyError, LookupError):
                    return analysis
            starts = [max(0, st.spans.item_at(offset))] if offset is not None and st.spans.starts else []
            starts += [st.focus.defining[name] for name in names if name in st.focus.defining]
            items = tuple(st.focus.items(starts))
            made = self.focused.get(items)
            if made is None:
                made = self.focused[items] = st.focus.analysis(analysis, list(items))
            return made


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
