"""The tooling API: what the language server (eals/) and the TUI (tui/) use of
the compiler besides the package's public API (`ea_compiler`). The tools import
only `ea_compiler` and this module (tests/test_import_boundary.py enforces it):

- the IDE layer (compiler/ide/): every question an editor or the TUI asks of
  a file, answered as plain data with spans; its vocabularies (`TokenClass`,
  `Modifier`, `SymbolKind`) and the tables a tool lists (intrinsics, type
  names, `PositionEncoding` for columns);
- the run APIs: the explorer (`explore`, `Stages`), `inspect` per function for
  editors (`inspect_function`) and its report model with its one text rendering
  (`render_text`, `LOOP_HEADER`, `loop_rows`, ...), `ea bench`'s API for the
  TUI's bench pane, `ea tune`'s for its tune pane and the code actions.

The run APIs load LLVM: they are imported on first use (PEP 562 `__getattr__`),
so a tool that only analyses (the language server answering a hover) starts
without llvmlite.
"""
from __future__ import annotations

import importlib

from .analysis import Analysis, analyze
from .diagnostics import Diagnostic
from .gc_pause import gc_paused
from .ide import *  # noqa: F403 (the IDE layer is this API's first half)
from .ide import __all__ as _IDE
from .intrinsics import TABLE, Intrinsic
from .source import PositionEncoding, SourceFile
from .symbols import CALLABLE_KINDS, Symbol, SymbolKind
from .typesys.model import SCALARS
from .typesys.vectors import VECTORS

# name -> (module under ea_compiler, attribute): the run APIs, loaded on first use.
_LAZY = {
    "Stages": ("explore", "Stages"), "explore": ("explore", "explore"),
    "InspectError": ("inspect", "InspectError"), "AsmLine": ("inspect", "AsmLine"),
    "inspect_function": ("inspect.incremental", "inspect_function"),
    "target_description": ("inspect.incremental", "target_description"),
    "INSTRUCTION_KINDS": ("inspect.listing", "INSTRUCTION_KINDS"),
    "FunctionReport": ("inspect.model", "FunctionReport"),
    **{n: ("inspect.render", n) for n in ("LOOP_HEADER", "hint_text", "loop_breakdown", "loop_rows",
                                          "render_text", "vector_registers")},
    **{n: ("bench", n) for n in ("BenchError", "Cancelled", "Progress", "Result", "RunReport", "Suite",
                                 "append_history", "find_suite", "load_suite", "read_history", "run_suite",
                                 "size_label")},
    "fmt_time": ("bench.table", "fmt_time"), "fmt_us": ("bench.table", "fmt_us"),
    **{n: ("tune", n) for n in ("Attempt", "TuneConfig", "TuneError", "TuneEvent", "TuneResult", "backup_path",
                                "tune", "tune_targets", "unified_diff", "write_result")},
    "SPACES": ("tune.config", "SPACES"), "STRATEGIES": ("tune.config", "STRATEGIES"),
    "NotApplicable": ("tune.transforms", "NotApplicable"), "Site": ("tune.transforms", "Site"),
    "find_sites": ("tune.transforms", "find_sites"), "apply_transform": ("tune.transforms", "apply"),
    "locate_site": ("tune.transforms", "locate"), "transform_title": ("tune.transforms", "title"),
    "Bottleneck": ("inspect.model", "Bottleneck"), "Counts": ("inspect.model", "Counts"),
    "Hint": ("inspect.model", "Hint"), "LoopReport": ("inspect.model", "LoopReport"),
    **{n: ("inspect.measured", n) for n in ("MeasuredPair", "latest_measured", "pair_label", "pair_markdown")},
    "fmt_gflops": ("bench.table", "fmt_gflops"), "fmt_percent": ("bench.table", "fmt_percent"),
    "Outcome": ("tune.outcome", "Outcome"), "SizeRow": ("tune", "SizeRow"), "Target": ("tune", "Target"), "tally": ("tune.judgement", "tally"),
    "TuneReason": ("tune.explain", "Reason"), "explain_transforms": ("tune.explain", "explain"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(importlib.import_module(f"{__package__}.{module}"), attr)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    *_IDE,
    # analysis, positions, vocabularies, tables
    "Analysis", "CALLABLE_KINDS", "Diagnostic", "Intrinsic", "PositionEncoding", "SCALARS", "SourceFile", "Symbol",
    "SymbolKind", "TABLE", "VECTORS", "analyze", "gc_paused",
    # the run APIs (loaded on first use)
    *_LAZY,
]
