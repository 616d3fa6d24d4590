"""An Eä file as CodeView rows: one row per source line (key and tag = the
line number) with syntax colours, each diagnostic's span underlined, and
the diagnostic under its line as note rows (not cursor stops):

    9 ● store(out, i, va * vb)
                      ^^^^^^^ error[type]: cannot use '*' on vectors ...
                      = help: use '.*'
"""
from __future__ import annotations

from rich.cells import cell_len

from ea_compiler import Analysis, Diagnostic

from ..highlight import source_spans
from ..widgets.code_row import Row, make_row

Mark = tuple[str, str]  # gutter character, style category

SEVERITY_MARK: dict[str, Mark] = {"error": ("●", "note-error"), "warning": ("▲", "note-warning")}


def line_count(analysis: Analysis) -> int:
    """Lines to show: a final newline does not start another line."""
    source = analysis.source
    count = source.line_count
    return count - 1 if count > 1 and source.data.endswith(b"\n") else count


def diagnostics_by_line(diagnostics: list[Diagnostic]) -> dict[int, list[Diagnostic]]:
    out: dict[int, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.span is not None:
            out.setdefault(d.span.line, []).append(d)
    return out


def source_rows(analysis: Analysis, *, notes: bool = True, marks: dict[int, Mark] | None = None) -> list[Row]:
    """Rows of the whole file. `marks` adds a gutter marker per line (e.g. the
    kind of machine code a line became); diagnostics' markers win."""
    source = analysis.source
    colours = source_spans(analysis)
    by_line = diagnostics_by_line(analysis.diagnostics)
    underline = _underlines(analysis)
    last = line_count(analysis)
    digits = len(str(last))
    rows: list[Row] = []
    for line in range(1, last + 1):
        text = source.line_text(line)
        here = by_line.get(line, [])
        mark = next((SEVERITY_MARK[d.severity] for d in here if d.severity in SEVERITY_MARK), None)
        mark = mark or (marks or {}).get(line) or (" ", "")
        spans = colours.get(line, []) + underline.get(line, [])
        rows.append(make_row(text, spans, key=line, tag=line, gutter=f"{line:>{digits}} {mark[0]}",
                             gutter_style=mark[1]))
        if notes:
            for d in here:
                rows.extend(_note_rows(text, d))
    return rows


def _underlines(analysis: Analysis) -> dict[int, list]:
    out: dict[int, list] = {}
    for d in analysis.diagnostics:
        s = d.span
        if s is None or d.severity not in SEVERITY_MARK:
            continue
        for line in range(s.line, max(s.end_line, s.line) + 1):
            start = s.col - 1 if line == s.line else 0
            end = s.end_col - 1 if line == s.end_line else len(analysis.source.line_text(line))
            out.setdefault(line, []).append((start, max(end, start + 1), d.severity))
    return out


def _note_rows(line_text: str, d: Diagnostic) -> list[Row]:
    s = d.span
    start = s.col - 1
    width = (s.end_col - s.col) if s.end_line == s.line else len(line_text) - start
    # Pad with the line's own tabs and cell widths, so the carets sit under the span.
    pad = "".join(ch if ch == "\t" else " " * cell_len(ch) for ch in line_text[:start])
    pad += " " * max(start - len(line_text), 0)
    style = "note-error" if d.is_error else "note-warning"
    rows = [make_row(f"{pad}{'^' * max(width, 1)} {d.severity}[{d.kind}]: {d.message}", style=style)]
    rows += [make_row(f"{pad}= note: {n}", style=style) for n in d.notes]
    rows += [make_row(f"{pad}= help: {sg.title}", style=style) for sg in d.suggestions[:1]]
    return rows


def describe(d: Diagnostic) -> str:
    """One line for the diagnostics list: `9:19  error[type]  message`."""
    where = f"{d.span.line}:{d.span.col}" if d.span is not None else "-"
    return f"{where:>7}  {d.severity}[{d.kind}]  {d.message}"
