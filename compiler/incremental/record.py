"""A full analysis that remembers which function produced what.

It runs the passes of `analysis.analyze` (lex, parse, desugar, the checker's
declarations, each body, the lints) in the same order, but gives each body
check its own diagnostic sink, symbol list, expression types and decisions,
and logs the references it adds to declared symbols (structs, fields,
constants, functions). Concatenated in order, the segments are what one
shared checker would have produced; replacing one function's segment is
re-checking that function.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..check.checker import Checker
from ..check.decisions import Decisions
from ..check.lint_kernels import lint_coverage
from ..check.lint_widths import first_uses
from ..check.lints import run_lints
from ..check.scope import FuncInfo
from ..desugar import desugar
from ..diagnostics import Diagnostic, DiagnosticSink
from ..options import Options
from ..source import SourceFile, Span
from ..symbols import Symbol, SymbolTable
from ..syntax import ast as A
from ..syntax.lexer import lex
from ..syntax.parser import parse
from ..syntax.tokens import Token


class Capped(Exception):
    """More diagnostics than the sink keeps: the incremental model does not
    reproduce which ones the cap drops, so the file is analysed whole."""


class RecordingTable(SymbolTable):
    """A symbol table that also logs each reference to a declared symbol
    (all references, when `declared` is None: the declaration pass)."""

    def __init__(self, declared: set[int] | None):
        super().__init__()
        self.declared = declared
        self.refs: list[tuple[Symbol, Span]] = []

    def reference(self, sym: Symbol | None, span: Span) -> None:
        if sym is not None and span is not sym.span:
            sym.references.append(span)
            if self.declared is None or id(sym) in self.declared:
                self.refs.append((sym, span))


@dataclass
class Body:
    """One function's body check: its segment of every output."""
    user: A.Func | A.Kernel  # the item as written
    func: A.Func  # desugared, as checked
    info: FuncInfo
    header_unknowns: frozenset[str]  # unknown types its signature reported
    diagnostics: list[Diagnostic] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    refs: list[tuple[Symbol, Span]] = field(default_factory=list)
    expr_types: list = field(default_factory=list)
    decisions: Decisions = field(default_factory=Decisions)
    # Its own lints, kept: the kernel coverage warnings (None: worked out when linting,
    # as for a body with errors) and the vector types it uses first (lint_widths).
    coverage: list[Diagnostic] | None = None
    uses: dict | None = None


@dataclass
class Build:
    source: SourceFile
    tokens: list[Token]
    program: A.Program
    desugared: A.Program
    checker: Checker
    before_check: list[Diagnostic]  # lex, parse, desugar
    declared: list[Diagnostic]  # the declaration pass
    decl_symbols: list[Symbol]
    decl_refs: list[tuple[Symbol, Span]]
    decl_types: list
    decl_decisions: Decisions
    bodies: list[Body]


def check_body(checker: Checker, body: Body, declared: set[int]) -> None:
    """Check one function alone, into its own segment."""
    table = RecordingTable(declared)
    checker.sink, checker.symbols, checker.expr_types, checker.decisions = \
        DiagnosticSink(), table, [], Decisions()
    checker.unknown_types.update((id(body.func), name) for name in body.header_unknowns)
    checker.check_func(body.func, body.info)
    body.diagnostics, body.symbols, body.refs = checker.sink.items, table.symbols, table.refs
    body.expr_types, body.decisions = checker.expr_types, checker.decisions
    f = body.func
    body.uses = first_uses(f, [e for e in body.expr_types if f.span.start <= e[0].start < f.span.end])
    if f.origin is not None and not any(d.is_error for d in body.diagnostics):
        checker.sink = DiagnosticSink()
        checker.options = checker.liveness.options_of(f)
        lint_coverage(f, checker)
        checker.options = checker.base_options
        body.coverage = checker.sink.items


def build(text: bytes, path: str, options: Options) -> Build:
    source = SourceFile(path, text)
    sink = DiagnosticSink()
    tokens = lex(source, sink, trivia=True)
    program = parse(tokens, sink)
    desugared = desugar(program, sink)
    before = list(sink.items)
    table = RecordingTable(None)
    checker = Checker(source, options, sink, table)
    funcs, infos = checker.declare(desugared)
    declared_diags = sink.items[len(before):]
    if sink.dropped:
        raise Capped()
    declared = {id(s) for s in table.symbols}
    unknown: dict[int, set[str]] = {}
    for owner, name in checker.unknown_types:
        unknown.setdefault(owner, set()).add(name)
    decl_types, decl_decisions = checker.expr_types, checker.decisions
    written = {id(i.span): i for i in program.items}  # a desugared function keeps its item's span
    bodies = []
    for f, info in zip(funcs, infos):
        body = Body(written[id(f.span)], f, info, frozenset(unknown.get(id(f), ())))
        check_body(checker, body, declared)
        bodies.append(body)
    return Build(source, tokens, program, desugared, checker, before, declared_diags, table.symbols,
                 table.refs, decl_types, decl_decisions, bodies)


def merged_decisions(segments) -> Decisions:
    out = Decisions()
    for seg in segments:
        out._callees.update(seg._callees)
        out._context.update(seg._context)
    return out


class OnDemand:
    """An object made on its first use (the merged decisions: the lints of
    an edit rarely read them)."""

    def __init__(self, make):
        self._make, self._made = make, None

    def __getattr__(self, name: str):
        if self._made is None:
            self._made = self._make()
        return getattr(self._made, name)


def lint(b: Build, raw: list[Diagnostic], decisions, expr_types: list, has_errors=None,
         bodies: list[Body] | None = None, wide: list[Body] | None = None) -> DiagnosticSink:
    """The lints, run on the assembled outputs as the checker runs them after
    the last body: a sink holding every diagnostic so far, plus theirs.
    `has_errors`: see run_lints. `bodies` (in source order): the only ones
    whose kernel lints may report anything, and `wide` the only ones using a
    vector type lint_widths reports (None: all of them)."""
    sink = DiagnosticSink()
    if len(raw) > sink.LIMIT:
        raise Capped()
    sink.items = raw
    checker = b.checker
    checker.sink, checker.decisions, checker.expr_types = sink, decisions, expr_types
    checker.options = checker.base_options
    of = {id(body.func): body for body in (b.bodies if bodies is None and wide is None else
                                           (bodies or []) + (wide or []))}

    def coverage(func: A.Func, checker: Checker) -> None:
        kept = of[id(func)].coverage
        if kept is None:
            lint_coverage(func, checker)
        else:
            for d in kept:
                checker.sink.add(d)

    run_lints(checker, b.desugared, coverage, lambda f: of[id(f)].uses, has_errors,
              None if bodies is None else [x.func for x in bodies], None if wide is None else [x.func for x in wide])
    if sink.dropped:
        raise Capped()
    return sink
