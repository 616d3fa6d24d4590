"""Assembly listings as CodeView rows: key = the listing index, tag = the
instruction's source line (so a source line highlights its instructions),
gutter = that source line's number.

By default only what a reader needs is kept, like a compiler explorer's
filters: instructions, comments and branch-target labels of the function;
with `directives=True` every line of it is shown.
"""
from __future__ import annotations

from collections import Counter

from ea_compiler.tooling import INSTRUCTION_KINDS, AsmLine

from ..highlight import asm_display
from ..widgets.code_row import Row, make_row

_NOISE_LABELS = (".Ltmp", ".Lfunc_begin", ".Lfunc_end")


def functions(listing: list[AsmLine]) -> list[str]:
    """Names of the functions in the listing, in order."""
    return list(dict.fromkeys(r.function for r in listing if r.function))


def shown(row: AsmLine, directives: bool) -> bool:
    if directives:
        return True
    if row.kind in ("directive", "blank"):
        return False
    return not (row.kind == "label" and row.text.strip().startswith(_NOISE_LABELS))


def asm_rows(listing: list[AsmLine], function: str | None = None, *, directives: bool = False) -> list[Row]:
    """Rows of `function` (every line outside functions too when None)."""
    rows: list[Row] = []
    digits = len(str(max((r.source_line or 0 for r in listing), default=0)))
    for index, line in enumerate(listing):
        if function is not None and line.function != function:
            continue
        if not shown(line, directives):
            continue
        text, spans = asm_display(line.text, line.kind)
        gutter = f"{line.source_line:>{digits}}" if line.source_line else " " * digits
        rows.append(make_row(text, spans, key=index, tag=line.source_line, gutter=gutter, gutter_style="muted"))
    return rows


def line_kinds(listing: list[AsmLine], function: str | None = None) -> dict[int, str]:
    """Per source line, the dominant kind of its instructions (fma > vector > memory > scalar)."""
    kinds: dict[int, Counter] = {}
    for line in listing:
        if line.source_line and line.kind in INSTRUCTION_KINDS and (function is None or line.function == function):
            kinds.setdefault(line.source_line, Counter())[line.kind] += 1
    out = {}
    for ln, counts in kinds.items():
        out[ln] = next(k for k in INSTRUCTION_KINDS if counts[k])
    return out
