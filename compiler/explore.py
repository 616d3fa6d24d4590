"""The compiler explorer API: every stage of one compilation, as text.

    from ea_compiler import Options
    from ea_compiler.explore import explore
    st = explore(text, "k.ea", Options(target_cpu="haswell"))
    st.analysis                   # ea_compiler.analyze result (diagnostics, tokens, trees)
    st.tokens, st.ast, st.desugared          # always present
    st.ir, st.ir_opt, st.asm                 # None when the file does not compile
    st.listing                    # list[AsmLine]: the assembly, line by line, with kinds
    st.report                     # InspectReport (what `ea inspect` reports) or None
    st.error                      # why codegen stages are missing, e.g. "does not compile: 2 errors"

`explore` never raises for any input text: front-end problems are in
`analysis.diagnostics`, code generation problems in `error` (and, for
codegen errors, also as a diagnostic). A target LLVM does not know is
refused before LLVM sees it (compiler/target_check.py): LLVM would abort the
process. The file is compiled once; the assembly and the inspect report
come from that one module. Set `EA_DEBUG=1` to let internal errors propagate instead.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from .analysis import Analysis, analyze
from .build import compile_source
from .inspect import InspectReport, inspect_module
from .inspect.listing import AsmLine, listing
from .options import Options
from .syntax.lexer import token_dump
from .target_check import check_target
from .tree_dump import tree_dump


@dataclass
class Stages:
    analysis: Analysis
    tokens: str
    ast: str
    desugared: str
    ir: str | None = None
    ir_opt: str | None = None
    asm: str | None = None
    listing: list[AsmLine] = field(default_factory=list)
    report: InspectReport | None = None
    error: str | None = None


def explore(text: str | bytes, path: str, options: Options) -> Stages:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    problem = check_target(options)
    module = None
    if problem is not None:
        analysis = analyze(data, path, options)
    else:
        try:
            analysis, module = compile_source(data, path, options)
        except Exception as err:  # a bug in code generation must not take the tool down
            _reraise_when_debugging()
            analysis = analyze(data, path, options)
            problem = f"internal compiler error during code generation: {_first_line(err)}"
    stages = Stages(analysis, token_dump(analysis.tokens), tree_dump(analysis.ast),
                    tree_dump(analysis.desugared, types=True))
    if module is None:
        stages.error = problem or _why_not(analysis)
        return stages
    try:
        stages.ir = module.ir(optimized=False)
        stages.ir_opt = module.ir(optimized=True)
        stages.asm = module.asm()
        stages.listing = listing(stages.asm, options.is_arm)
    except Exception as err:
        _reraise_when_debugging()
        stages.error = f"internal compiler error while emitting code: {_first_line(err)}"
        return stages
    try:
        stages.report = inspect_module(analysis, module, asm=stages.asm)
    except Exception as err:
        _reraise_when_debugging()
        stages.error = f"inspect failed: {_first_line(err)}"
    return stages


def _why_not(analysis: Analysis) -> str:
    errors = analysis.errors
    codegen = [d for d in errors if d.kind in ("codegen", "target")]
    if codegen:
        return f"code generation failed: {codegen[0].message}"
    if errors:
        return f"does not compile: {len(errors)} error{'s' if len(errors) != 1 else ''}"
    return "does not compile"


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _reraise_when_debugging() -> None:
    if os.environ.get("EA_DEBUG"):
        raise


__all__ = ["AsmLine", "Stages", "explore"]
