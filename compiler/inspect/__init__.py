"""`inspect`: what the machine will execute, per function, loop and line.

    from ea_compiler.inspect import inspect, inspect_module
    report = inspect(text, "k.ea", Options(avx512=True))   # InspectReport
    report = inspect_module(analysis, module)   # a compiled module (ea_compiler.build)
    inspect_function(analysis, "k")   # one function, while others have errors (incremental.py)
    report.functions[0].counts.fma, .loops[0].bottleneck, .lines[12].summary
    render_text(report)   # the `ea inspect` text; report.to_json() for tools
    listing(asm, arm)     # every assembly line with its function, source line, kind

Counts come from the assembly LLVM emits for the chosen target (what
`--emit-asm` shows), attributed to source lines through the DWARF line
table. `inspect` compiles through ea_compiler.build and caches its reports by
source text, options and bandwidth (`clear_report_cache()` empties that);
`inspect_module` reports on a module the caller has already compiled.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict

from ..analysis import Analysis
from ..build import compile_source
from ..codegen import CompiledModule, callee_closure
from ..codegen.target import describe as describe_target
from ..diagnostics import Diagnostic
from ..options import Options
from ..syntax import ast as A
from .asm import parse
from .cfg import natural_loops
from .classify import classifier
from .function import analyse
from .hints import hints_for
from .listing import AsmLine, listing
from .machine import machine_for
from .model import Counts, FunctionReport, InspectReport
from .predict import NUMPY_ALIGNMENT, FunctionPrediction, MemoryModel, layout_for, memory_for, predict_loops
from .render import render_text
from .runtime import masked_expansions, module_paths
from .source import source_facts

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 64


class InspectError(Exception):
    """The source does not compile; `diagnostics` says why."""

    def __init__(self, diagnostics: list[Diagnostic], analysis=None):
        super().__init__(diagnostics[0].message if diagnostics else "does not compile")
        self.diagnostics = diagnostics
        self.analysis = analysis


def inspect(text: str | bytes, path: str = "<input>", options: Options | None = None,
            bandwidth_gbs: float | None = None, predict: bool = False,
            working_set_bytes: int | None = None, memory=None, alignment: int = NUMPY_ALIGNMENT) -> InspectReport:
    """`predict`: each function's `prediction` (predict/), at `working_set_bytes`
    with `memory` (a predict.MemoryModel; default: the host's calibration), the arrays
    aligned to `alignment` bytes (NumPy's 16 by default; 64: on a cache line)."""
    options = options or Options()
    data = text.encode() if isinstance(text, str) else text
    key = (hashlib.blake2b(data, digest_size=16).digest(), path, options.key(), bandwidth_gbs, predict,
           working_set_bytes, repr(memory), alignment)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    analysis, module = compile_source(data, path, options)
    if module is None:
        raise InspectError(analysis.errors or analysis.diagnostics, analysis)
    report = inspect_module(analysis, module, bandwidth_gbs, predict=predict, working_set_bytes=working_set_bytes,
                            memory=memory, alignment=alignment)
    _CACHE[key] = report
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return report


def inspect_module(analysis: Analysis, module: CompiledModule | None, bandwidth_gbs: float | None = None,
                   asm: str | None = None, names=None, paths=None, predict: bool = False,
                   working_set_bytes: int | None = None, memory=None,
                   alignment: int = NUMPY_ALIGNMENT) -> InspectReport:
    """The report of a module compiled from `analysis` (for its options);
    `asm` is `module.asm()` when the caller already has it. With `names`
    (a module of those functions and their callees, `compile_functions`),
    only the machine code of the named functions is reported. Without a
    module, `asm` and `paths` (its `module_paths`) stand for it."""
    options = analysis.options
    arm = options.is_arm
    machine = machine_for(options, bandwidth_gbs)
    if predict and memory is None:
        memory = memory_for(options, bandwidth_gbs)
    funcs = {f.name: f for f in analysis.live_functions}
    classify = classifier(arm)
    only = None
    if names is not None:
        closure = callee_closure(list(funcs.values()), analysis.decisions, names)  # their code is inlined too
        only = [f for f in funcs.values() if f.name in closure]
    facts = source_facts(analysis, only)
    paths = module_paths(module, analysis) if module is not None else (paths or {})
    reports: list[FunctionReport] = []
    functions = [fn for fn in parse(module.asm() if asm is None else asm, arm) if names is None or fn.name in names]
    layout = layout_for(functions, module, options) if predict else {}
    for fn in functions:
        infos = [classify(ins) for ins in fn.instrs]
        func = funcs.get(fn.name)
        body = None
        if func is not None and func.origin is not None:
            span = func.origin.body.span
            body = range(span.line + 1, span.end_line)  # inside the braces
        loops = natural_loops(fn, infos, arm)
        found = paths.get(fn.name, []) + masked_expansions(fn, infos, facts)
        report = analyse(fn, infos, machine, loops, body, facts, arm,
                         versioned=_versioned(found))
        report.runtime_paths = sorted(found, key=lambda p: (p.line or 0, p.source))
        report.hints = hints_for(report, func, fn, infos, loops, machine, arm, analysis.decisions, facts)
        if predict:
            report.prediction = predict_loops(fn, infos, loops, report, options, machine, memory, working_set_bytes,
                                              alignment, layout.get(fn.name))
        reports.append(report)
    if names is not None:
        return InspectReport(analysis.path, describe_target(options), reports)
    emitted = {r.name for r in reports}
    for func in funcs.values():
        if func.name not in emitted:
            report = inlined_report(func, reports)
            report.runtime_paths = list(paths.get(func.name, []))  # its code lives in its callers
            reports.append(report)
    return InspectReport(analysis.path, describe_target(options), reports)


def inlined_report(func: A.Func, reports: list[FunctionReport]) -> FunctionReport:
    """A private function is always inlined: report the machine code of its
    own source lines inside each caller."""
    first, last = func.span.line, func.span.end_line
    lines, callers, total = {}, [], Counts()
    for r in reports:
        mine = {ln: rep for ln, rep in r.lines.items() if first <= ln <= last}
        if mine:
            callers.append(r.name)
        for ln, rep in mine.items():
            lines.setdefault(ln, rep)
            for name in vars(total):
                setattr(total, name, getattr(total, name) + getattr(rep.counts, name))
    return FunctionReport(func.name, False, total, 0, None, [], [], [], dict(sorted(lines.items())),
                          inlined_into=callers)


def predict_function(analysis: Analysis, module, name: str, working_set_bytes: int | None = None,
                     memory: MemoryModel | None = None, alignment: int = NUMPY_ALIGNMENT) -> FunctionPrediction:
    """The prediction for function `name` of a compiled module (ea_compiler.build), its arrays
    aligned to `alignment` bytes (NumPy's 16 by default; 64: on a cache line)."""
    report = inspect_module(analysis, module, names=[name], predict=True, working_set_bytes=working_set_bytes,
                            memory=memory, alignment=alignment)
    found = next((f for f in report.functions if f.name == name), None)
    if found is None or found.prediction is None:
        raise KeyError(f"no machine code for function '{name}'")
    return found.prediction


def clear_report_cache() -> None:
    """Forget the reports `inspect` cached (not the loader's `__eacache__`;
    `incremental.clear_function_cache()` forgets those of `inspect_function`)."""
    _CACHE.clear()


__all__ = ["AsmLine", "InspectError", "InspectReport", "clear_report_cache", "inspect", "inspect_module", "listing",
           "predict_function", "render_text"]


def _versioned(found) -> str | None:
    """How the main loop was copied (function.analyse's `versioned`): "plain"
    when a copy runs it as written, "nontemporal" for alignment copies only."""
    copied = [p for p in found if p.loop_versions]
    if not copied:
        return None
    return "plain" if any(p.main_copy == "plain" for p in copied) else "nontemporal"
