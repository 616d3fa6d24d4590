"""The Eä compiler core.

Pipeline (one way through, each stage a module with a small API):

    source bytes --lex--> tokens --parse--> AST --desugar--> AST without
    kernel/for --check--> typed AST (+ symbols, diagnostics) --> [codegen]

Public API for tools (the language server, the TUI, scripts):

    from ea_compiler import analyze, Options
    result = analyze(text, "kernel.ea", Options(avx512=True))
    result.diagnostics    # list[Diagnostic]: severity, kind, code, message, span,
                          #   labels, notes, suggestions (quick fixes)
    result.tokens         # list[Token]; each token is its own Span
    result.ast            # Program as written;  result.desugared: after desugaring
    result.symbols        # SymbolTable: definitions with their references
    result.type_at(off)   # type of the innermost expression at a byte offset
    result.symbol_at(off) # Symbol defined or referenced at a byte offset
    result.source         # SourceFile: line/column/UTF-16 conversions

`analyze` never touches LLVM and returns a result for any input; an editor
keeps an `AnalysisSession` per document, whose `update(text)` gives the same
result re-doing only what an edit touched (ea_compiler.incremental). Spans
carry byte offsets [start, end) and 1-based line / character columns.

    from ea_compiler import load
    k = load("examples/saxpy.ea")       # cached in examples/__eacache__/, run by LLVM's JIT
    k.saxpy(x, y, 2.0)                  # same signature and checks as `ea bind --python`

Compiling in-process (module, object code, linking) is ea_compiler.build's
`compile_source`; the `ea` command line is ea_compiler.cli.
`ea_compiler.intrinsics` is the intrinsic table (names, signatures, docs, target
rules) that the checker, codegen, hover and completion read.
"""
from __future__ import annotations

import sys
import types

from .version import __version__

# Importing the package does no work: each name below is imported on first
# use (PEP 562), so `ea --version` or `import ea` do not pay for the front end.
_LAZY = ("Analysis", "AnalysisSession", "analyze", "Diagnostic", "Label", "Suggestion", "Options", "render_all", "SourceFile", "Span")


def __getattr__(name: str):
    if name in ("Analysis", "analyze"):
        from .analysis import Analysis, analyze
    elif name == "AnalysisSession":
        from .incremental import AnalysisSession
    elif name in ("Diagnostic", "Label", "Suggestion"):
        from .diagnostics import Diagnostic, Label, Suggestion
    elif name == "Options":
        from .options import Options
    elif name == "render_all":
        from .render import render_all
    elif name in ("SourceFile", "Span"):
        from .source import SourceFile, Span
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = locals()[name]
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"render"})


class _Package(types.ModuleType):
    """`render` names both a submodule and its function; the package attribute
    is the function, as when it was imported eagerly, even after the import
    system records the submodule under that name."""

    @property
    def render(self):
        from .render import render
        return render

    @render.setter
    def render(self, _submodule) -> None:
        pass


sys.modules[__name__].__class__ = _Package


def load(path, **options):
    """Compile (cached) and load an Eä file: see ea_compiler.loader.load."""
    from .loader import load as _load
    return _load(path, **options)


def compile(path, **options):  # noqa: A001 - the loader's documented name
    """Compile an Eä file into the cache and return the artefact: ea_compiler.loader.compile."""
    from .loader import compile as _compile
    return _compile(path, **options)


def clear_cache(path=None):
    """Delete the loader's __eacache__ folder: ea_compiler.loader.clear_cache."""
    from .loader import clear_cache as _clear
    _clear(path)


__all__ = ["Analysis", "Diagnostic", "Label", "Options", "SourceFile", "Span", "Suggestion",
           "__version__", "analyze", "clear_cache", "compile", "load", "render", "render_all"]
