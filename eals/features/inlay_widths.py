"""Inlay type hints for context-typed calls: `load(data, i)` shows
`: f32x4` after it (the IDE layer's `width_hints`: the checker's decisions,
no codegen), as LSP inlay hints."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler import Analysis
from ea_compiler.tooling import width_hints as hints_of

from ..convert import position


def width_hints(analysis: Analysis, rng: lsp.Range) -> list[lsp.InlayHint]:
    return [lsp.InlayHint(position=position(analysis.source, h.line, h.col), label=h.label,
                          kind=lsp.InlayHintKind.Type)
            for h in hints_of(analysis, rng.start.line + 1, rng.end.line + 1)]
