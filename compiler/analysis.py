"""The analysis API: source text -> tokens, AST, desugared AST, symbols,
types and diagnostics, without touching LLVM. Returns a result for any input.
"""
from __future__ import annotations

import functools
from itertools import compress
from operator import attrgetter

import os
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable

from . import intrinsics
from .check.checker import Checker
from .check.decisions import Callee, Decisions
from .check.liveness import Liveness
from .desugar import desugar
from .diagnostics import Diagnostic, DiagnosticSink
from .gc_pause import gc_paused
from .options import Options
from .source import SourceFile, Span
from .symbols import Symbol, SymbolTable
from .syntax import ast as A
from .syntax.lexer import lex
from .syntax.parser import parse
from .syntax.tokens import COMMENT, Token


_START, _KIND = attrgetter("start"), attrgetter("kind")


@dataclass
class Analysis:
    path: str
    source: SourceFile
    options: Options
    tokens: list[Token]
    ast: A.Program
    desugared: A.Program
    symbols: SymbolTable
    diagnostics: list[Diagnostic]
    expr_types: list = field(default_factory=list)
    decisions: Decisions = field(default_factory=Decisions)
    # A focused analysis (`focus`): whether a span lies in a function it leaves out.
    left_out: Callable[[Span], bool] | None = None

    def __getattr__(self, name: str):
        # Only for an attribute not set: the incremental analysis (incremental/session.py) makes
        # an analysis whose span-holding fields are filled when first read (`_fill`).
        fill = self.__dict__.get("_fill")
        if fill is None or name not in _FILLED:
            raise AttributeError(f"'Analysis' object has no attribute '{name}'")
        fill(self)
        return self.__dict__[name]

    def focus(self, offset: int | None = None, names=()) -> "Analysis":
        """What a request about one place reads: an analysis of the item at
        `offset` and of the functions `names`, with the functions they call
        and every declaration, exact for any question about their text. The
        analysis itself, unless it was made by an edit and not yet read whole:
        then only those items are settled (incremental/focus.py)."""
        fill = self.__dict__.get("_fill")
        return self if fill is None else fill.focus(self, offset, names)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    @property
    def ok(self) -> bool:
        return not self.errors

    def offset(self, line: int, col: int) -> int:
        """Byte offset of a 1-based line and character column."""
        return self.source.offset_at(line, col)

    def type_at(self, offset: int):
        """The type of the innermost expression covering `offset`, or None."""
        best = None
        for span, t in self.expr_types:
            if span.start <= offset < span.end or span.start == offset:
                if best is None or (span.end - span.start) < (best[0].end - best[0].start):
                    best = (span, t)
        if best is None:
            sym = self.symbols.at(offset)
            return sym.type if sym is not None else None
        return best[1]

    # ---- which items the target compiles (check/liveness.py, LANGUAGE.md §3.6) ----
    @functools.cached_property
    def liveness(self) -> Liveness:
        return Liveness(self.options)

    def is_live(self, item) -> bool:
        """`item` (of `ast` or `desugared`) is compiled for the target: a
        function without `#[cfg]` or with the target's; every kernel, struct,
        const and static_assert."""
        return self.liveness.is_live(item)

    @functools.cached_property
    def live_functions(self) -> list[A.Func]:
        """The functions of the desugared program compiled for the target
        (kernels included), in source order: what the object code holds."""
        return [f for f in self.desugared.items if isinstance(f, A.Func) and self.liveness.is_live(f)]

    # ---- the checker's decisions (check/decisions.py): read them, never re-decide ----
    def callee_of(self, call: A.Call) -> Callee | None:
        """What a call calls: an `Intrinsic` or a user function's `Symbol`
        (None when the name is undefined or the call was not checked)."""
        return self.decisions.callee_of(call)

    def inferred_type(self, call: A.Call):
        """The type a context-typed call (`splat`, `load`, `load_masked`) was
        given, from its context or the 4-lane default (LANGUAGE.md §5.6); None
        for any other call."""
        return self.decisions.inferred_type(call)

    def context_calls(self) -> list[A.Call]:
        """Every checked context-typed call, in source order."""
        return self.decisions.context_calls()

    def intrinsic_called_at(self, offset: int) -> intrinsics.Intrinsic | None:
        """The intrinsic called by the call whose name covers `offset` (a cursor
        just after the name counts), or None."""
        return self.decisions.intrinsic_named_at(offset)

    def callee_named_from(self, start: int):
        """The recorded callee (Intrinsic or user-function Symbol) of the call
        whose name token starts at byte `start`, or None where the checker
        decided nothing (no call there, or text it could not check)."""
        return self.decisions.callee_named_from(start)

    def callee_at(self, name_token):
        """What the call named by `name_token` calls: the checker's recorded
        decision, or, for text it could not check (a call being typed), the
        same rule applied to the name (intrinsics first, `abs` shadowable)."""
        callee = self.decisions.callee_named_from(name_token.start)
        if callee is not None:
            return callee
        functions = [s for s in self.symbols.named(name_token.text) if s.kind in ("function", "kernel")]
        return intrinsics.resolve_call(name_token.text, bool(functions)) or (functions[0] if functions else None)

    @staticmethod
    def intrinsic_wins(name: str) -> bool:
        """A call to `name` would call an intrinsic even where the file declares
        a function named `name` (INTRINSICS.md §0.1: only `abs` is shadowable)."""
        return intrinsics.resolve_call(name, user_defined=True) is not None

    def symbol_at(self, offset: int) -> Symbol | None:
        return self.symbols.at(offset)

    @functools.cached_property
    def token_starts(self) -> list[int]:
        """The start of every token, for bisecting (built once per analysis)."""
        return list(map(_START, self.tokens))

    @functools.cached_property
    def _code(self) -> tuple[list[Token], list[int]]:
        """The tokens without comments, and their starts (built once per analysis)."""
        tokens = self.tokens
        code = list(compress(tokens, [kind != COMMENT for kind in map(_KIND, tokens)]))
        return code, list(map(_START, code))

    def tokens_before(self, offset: int) -> list[Token]:
        """The non-comment tokens that start before `offset` (the text a cursor follows)."""
        code, starts = self._code
        return code[:bisect_right(starts, offset - 1)] if offset > 0 else []

    def token_at(self, offset: int) -> Token | None:
        i = bisect_right(self.tokens, offset, key=_start) - 1  # no list of starts: one hover needs one token
        if 0 <= i < len(self.tokens) and self.tokens[i].start <= offset <= self.tokens[i].end:
            return self.tokens[i]
        return None


_FILLED = frozenset({"tokens", "ast", "desugared", "symbols", "expr_types", "decisions"})


def _start(token: Token) -> int:
    return token.start


def analyze(text: str | bytes, path: str = "<input>", options: Options | None = None) -> Analysis:
    """Analyse one source text. Never raises for any input."""
    with gc_paused():
        return _analyze(text, path, options)


def _analyze(text: str | bytes, path: str, options: Options | None) -> Analysis:
    options = options or Options()
    source = SourceFile(path, text)
    sink = DiagnosticSink()
    symbols = SymbolTable()
    tokens: list[Token] = []
    empty = A.Program([], Span(0, 0, 1, 1, 1, 1))
    program = desugared = empty
    expr_types: list = []
    decisions = Decisions()
    try:
        tokens = lex(source, sink, trivia=True)
        program = parse(tokens, sink)
        desugared = desugar(program, sink)
        checker = Checker(source, options, sink, symbols)
        checker.run(desugared)
        expr_types = checker.expr_types
        decisions = checker.decisions
    except RecursionError:
        sink.error("parse", "too-complex", "the program is nested too deeply to analyse", None)
    except Exception:  # a compiler bug must not take down an editor session
        if os.environ.get("EA_DEBUG"):
            raise
        sink.error("internal", "internal-error",
                   "internal compiler error while analysing this file (please report it with the file)", None)
    return Analysis(path, source, options, tokens, program, desugared, symbols,
                    finish_diagnostics(sink, tokens, desugared), expr_types, decisions)


def finish_diagnostics(sink: DiagnosticSink, tokens: list[Token], desugared: A.Program,
                       items: list | None = None) -> list[Diagnostic]:
    """What every pass reported, as the analysis shows it: cascades after a
    syntax error dropped, in source order, the count of those over the cap.
    `items`: the items a syntax error may lie in, when not all (the
    incremental analysis passes those holding one)."""
    diagnostics = _drop_cascades(sink.items, desugared.items if items is None else items)
    diagnostics.sort(key=lambda d: -1 if d.span is None else d.span.start)
    if sink.dropped:
        diagnostics.append(Diagnostic("error", "lex" if not tokens else "parse", "too-many-errors",
                                      f"{sink.dropped} more errors not shown", None))
    return diagnostics


def _drop_cascades(items: list[Diagnostic], program_items: list) -> list[Diagnostic]:
    """Type errors after a syntax error in the same function are usually its
    consequences; keep the syntax error and what precedes it."""
    # Lex errors do not count: the lexer drops the bad text and parsing goes on undamaged.
    parse_starts = sorted(d.span.start for d in items if d.kind == "parse" and d.span is not None)
    if not parse_starts:
        return items
    regions = []
    for item in program_items:
        i = bisect_right(parse_starts, item.span.start - 1)
        if i < len(parse_starts) and parse_starts[i] <= item.span.end:
            regions.append((parse_starts[i], item.span.end))
    if not regions:
        return items
    out = []
    for d in items:
        if d.kind in ("type", "target") and d.span is not None and \
                any(lo <= d.span.start <= hi for lo, hi in regions):
            continue
        out.append(d)
    return out
