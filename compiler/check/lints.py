"""Warnings about code that type-checks but does not do what it seems to:
run by the checker after every function is typed, on the typed, desugared
tree. Each lint is its own module; a kernel with type errors is not linted
(its types are incomplete)."""
from __future__ import annotations

from ..syntax import ast as A
from .lint_kernels import lint_coverage
from .lint_tails import lint_tail, needs_callers
from .lint_widths import lint_widths


def run_lints(checker, program: A.Program, coverage=lint_coverage, uses=None, has_errors=None,
              kernels=None, wide=None) -> None:
    """`coverage` and `uses` (see lint_widths) let the incremental analysis
    answer a function's own lints from what it kept of its last check;
    `has_errors(func)`, whether an error lies in the function (it has not
    settled the spans of every function: see incremental/items.py);
    `kernels` and `wide`, the functions whose kernel lints and width lint
    may report something (it knows which; None: every function)."""
    if has_errors is None:
        errors = [d.span for d in checker.sink.items if d.is_error and d.span is not None]

        def has_errors(func: A.Func) -> bool:
            return any(func.span.start <= s.start < func.span.end for s in errors)
    for func in program.items if kernels is None else kernels:
        if not isinstance(func, A.Func) or func.origin is None:
            continue
        if has_errors(func):
            continue
        checker.options = checker.liveness.options_of(func)
        coverage(func, checker)
        if needs_callers(func):
            lint_tail(func, checker.decisions.calls_of(func.name), checker)
        checker.options = checker.base_options
    lint_widths(program, checker, uses, wide)
