"""The explorer's stages (ea_compiler.explore.Stages) as CodeView rows, one
stage at a time, coloured for its language; the gutter numbers the lines."""
from __future__ import annotations

from ea_compiler.tooling import Stages

from ..highlight import ir_spans, token_dump_spans, tree_dump_spans
from ..widgets.code_row import Row, make_row
from .assembly import asm_rows

# (attribute of Stages, title), in pipeline order.
STAGES: list[tuple[str, str]] = [
    ("tokens", "Tokens"),
    ("ast", "AST"),
    ("desugared", "Desugared AST"),
    ("ir", "LLVM IR"),
    ("ir_opt", "LLVM IR (optimised)"),
    ("asm", "Assembly"),
]
TITLES = dict(STAGES)
_COLOURS = {"tokens": token_dump_spans, "ast": tree_dump_spans, "desugared": tree_dump_spans,
            "ir": ir_spans, "ir_opt": ir_spans}


def stage_text(stages: Stages, stage: str) -> str | None:
    return getattr(stages, stage)


def stage_rows(stages: Stages, stage: str) -> list[Row]:
    text = stage_text(stages, stage)
    if text is None:
        why = stages.error or "not available"
        return [make_row(f"No {TITLES[stage]}: {why}.", style="note-error"),
                make_row("Fix the diagnostics in the Source pane (1) or change the target (T).", style="muted")]
    if stage == "asm":
        return asm_rows(stages.listing, None, directives=True)
    if not text:
        return [make_row("(empty)", style="muted")]
    colour = _COLOURS[stage]
    lines = text.splitlines()
    digits = len(str(len(lines)))
    return [make_row(line, colour(line), key=n, gutter=f"{n:>{digits}}")
            for n, line in enumerate(lines, 1)]
