"""The tooling API: what the language server (eals/) and the TUI (tui/) use of
the compiler besides the package's public API (`ea_compiler`). The tools import
only `ea_compiler` and this module (tests/test_import_boundary.py enforces it),
so the compiler decides once and the tools ask it:

- tokens: kinds, keyword sets, contextual words, `token_class` (the class a
  token kind is coloured as), `comments` / `significant` (the token stream
  carries comments as trivia tokens);
- positions: `PositionEncoding` (columns in UTF-8/16/32), `unit_width`;
- trees and names: the AST module (`ast`, for walking), `Symbol`, the
  intrinsic table (`lookup`, `resolve_call`, `TABLE`), type names;
- compiled code: the explorer (`explore`, `Stages`), `inspect` (per file, or
  per function and cached for editors: `inspect_function`) and its report
  model (`FunctionReport`, ...) with its one text rendering (`render_text`,
  `LOOP_HEADER`, `loop_rows`, ...), the listing's `INSTRUCTION_KINDS`;
- `ea bench`'s API for the TUI's bench pane, `ea tune`'s for its tune pane;
  `gc_paused`.
"""
from __future__ import annotations

from .analysis import Analysis, analyze
from .bench import (BenchError, Cancelled, Progress, Result, RunReport, Suite, append_history, find_suite,
                    load_suite, read_history, run_suite, size_label)
from .bench.table import fmt_gflops, fmt_percent, fmt_time, fmt_us
from .diagnostics import Diagnostic
from .explore import Stages, explore
from .gc_pause import gc_paused
from .inspect import AsmLine, InspectError, InspectReport, inspect
from .inspect.incremental import inspect_function, target_description
from .inspect.listing import INSTRUCTION_KINDS
from .inspect.measured import MeasuredPair, latest_measured, pair_label, pair_markdown
from .inspect.model import Bottleneck, Counts, FunctionReport, Hint, LoopReport
from .inspect.render import LOOP_HEADER, hint_text, loop_breakdown, loop_rows, render_text, vector_registers
from .intrinsics import TABLE, Intrinsic, lookup, resolve_call
from .source import PositionEncoding, SourceFile, Span, unit_width
from .symbols import Symbol
from .syntax import ast
from .syntax.tokens import (COMMENT, CONTEXTUAL_WORDS, EOF, HEADER_WORDS, IDENT, KEYWORDS, NUMBER_KINDS,
                            PARAM_WORDS, SCALAR_TYPE_KINDS, STRING, TAIL_WORDS, TYPE_IDENTIFIERS, TYPE_KINDS,
                            VECTOR_TYPE_KINDS, Token)
from .typesys import model as types
from .typesys.model import SCALARS, Pointer, Struct
from .typesys.vectors import VECTORS
from .tune import (Attempt, Outcome, SizeRow, Target, TuneConfig, TuneError, TuneEvent, TuneResult, backup_path,
                   tally, tune, tune_targets, unified_diff, write_result)
from .tune.explain import Reason as TuneReason
from .tune.explain import explain as explain_transforms
from .tune.transforms import NotApplicable, Rewrite, Site, find_sites
from .tune.transforms import apply as apply_transform
from .tune.transforms import locate as locate_site
from .tune.transforms import title as transform_title

# Reserved words that are not type names (`func`, `return`, `splat`, ...).
KEYWORD_KINDS = frozenset(KEYWORDS.values()) - TYPE_KINDS


def token_class(kind: str) -> str | None:
    """The class of a token kind as the tools colour it: "type", "number",
    "string", "keyword", "comment", or None (identifiers, operators, punctuation)."""
    if kind in TYPE_KINDS:
        return "type"
    if kind in NUMBER_KINDS:
        return "number"
    if kind == STRING:
        return "string"
    if kind in KEYWORD_KINDS:
        return "keyword"
    if kind == COMMENT:
        return "comment"
    return None


def comments(tokens: list[Token]) -> list[Token]:
    """The comment tokens (`//` to the end of the line, the line end excluded)."""
    return [t for t in tokens if t.kind == COMMENT]


def significant(tokens: list[Token]) -> list[Token]:
    """The tokens the parser reads: every token but comments."""
    return [t for t in tokens if t.kind != COMMENT]


__all__ = [
    "Intrinsic",
    # tokens
    "COMMENT", "CONTEXTUAL_WORDS", "EOF", "HEADER_WORDS", "IDENT", "KEYWORDS", "KEYWORD_KINDS", "NUMBER_KINDS",
    "PARAM_WORDS", "SCALAR_TYPE_KINDS", "STRING", "TAIL_WORDS", "TYPE_IDENTIFIERS", "TYPE_KINDS", "Token",
    "VECTOR_TYPE_KINDS", "comments", "significant", "token_class",
    # positions
    "PositionEncoding", "SourceFile", "Span", "unit_width",
    # trees, names, types
    "Analysis", "Diagnostic", "Pointer", "SCALARS", "Struct", "Symbol", "TABLE", "VECTORS",
    "analyze", "ast", "lookup", "resolve_call", "types",
    # compiled code: explorer, inspect report and its rendering, listing
    "AsmLine", "Bottleneck", "Counts", "FunctionReport", "Hint", "INSTRUCTION_KINDS", "InspectError", "InspectReport",
    "LOOP_HEADER", "LoopReport", "Stages", "explore", "hint_text", "inspect", "inspect_function",
    "loop_breakdown", "loop_rows", "render_text", "target_description", "vector_registers",
    "MeasuredPair", "latest_measured", "pair_label", "pair_markdown",
    # ea bench
    "BenchError", "Cancelled", "Progress", "Result", "RunReport", "Suite", "append_history", "find_suite",
    "fmt_gflops", "fmt_percent", "fmt_time", "fmt_us", "load_suite", "read_history", "run_suite", "size_label",
    # ea tune: the engine, and the transformations (code actions)
    "Attempt", "NotApplicable", "Outcome", "Rewrite", "Site", "SizeRow", "Target", "TuneConfig", "TuneError", "TuneEvent",
    "TuneResult", "TuneReason", "apply_transform", "explain_transforms", "find_sites", "locate_site",
    "transform_title", "tune", "tune_targets", "write_result", "backup_path", "tally", "unified_diff",
    # helpers
    "gc_paused",
]
