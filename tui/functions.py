"""Which function a source line belongs to, and where its machine code is
(a private function is inlined: its code lives in its callers)."""
from __future__ import annotations

from ea_compiler import Analysis
from ea_compiler.tooling import FunctionReport, Stages, functions

from .rows.assembly import functions as listing_functions


def function_at(analysis: Analysis, line: int) -> str | None:
    """The function compiled for the target whose text covers `line` (a
    function of the other architecture has no code to show)."""
    return next((f.name for f in functions(analysis, line, line) if f.live), None)


def report_for(stages: Stages, name: str | None) -> FunctionReport | None:
    if stages.report is None or name is None:
        return None
    return next((f for f in stages.report.functions if f.name == name), None)


def code_owner(stages: Stages, name: str | None) -> str | None:
    """The function whose assembly shows `name`'s code: itself, or its first caller."""
    emitted = listing_functions(stages.listing)
    if name in emitted:
        return name
    report = report_for(stages, name)
    if report is not None and report.inlined_into:
        return report.inlined_into[0]
    return None
