"""The inspect summary of one function: the facts `ea inspect` prints
(counts, vector width, registers, loops with their bottleneck, hints),
laid out for a pane. The loop table and the phrasing are `ea inspect`'s
(ea_compiler.tooling: LOOP_HEADER, loop_rows, ...), so the two never differ."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ea_compiler.tooling import LOOP_HEADER, FunctionReport, hint_text, loop_breakdown, loop_rows, vector_registers

_BOTTLENECK_STYLE = {"memory-bound": "$text-warning", "compute-bound": "$text-success", "mixed": "$text-accent",
                     "latency-bound": "$text-error", "call-bound": "$text-error"}


def _loops_label(fr: FunctionReport) -> str:
    n = len(fr.loops)
    breakdown = loop_breakdown(fr)
    return f"{n} loop{'s' * (n != 1)}" + (f" {breakdown}" if breakdown else "")


def summary_content(fr: FunctionReport | None, note: str = "", measured: str | None = None) -> Content:
    if fr is None:
        return Content.assemble((note or "No machine code to inspect.", "$text-muted"))
    c = fr.counts
    tag = "exported" if fr.exported else (f"inlined into {', '.join(fr.inlined_into)}" if fr.inlined_into
                                          else "private")
    parts: list = [(fr.name, "bold"), (f"  {tag}", "$text-muted")]
    if fr.vector_width:
        parts.append(f"  ·  {fr.vector_width}")
    parts.append(f"  ·  {_loops_label(fr)}\n")
    parts += [("instructions ", "$text-muted"), f"{c.instructions}", ("   vector ", "$text-muted"), f"{c.vector}",
              ("   scalar ", "$text-muted"), f"{c.scalar}", ("   loads ", "$text-muted"), f"{c.loads}",
              ("   stores ", "$text-muted"), f"{c.stores}", ("   FMA ", "$text-muted"), f"{c.fma}\n"]
    vregs = vector_registers(fr)
    if vregs:
        parts += [("vector registers ", "$text-muted"), f"{', '.join(vregs)} ({len(vregs)} used)\n"]
    if fr.loops:
        parts.append((LOOP_HEADER + "\n", "$text-muted"))
        for cells, bottleneck in loop_rows(fr):
            parts += [cells, (bottleneck + "\n", _BOTTLENECK_STYLE.get(bottleneck, ""))]
    if measured:  # the main loop's cycles per iteration from the last `ea bench --cycles`
        parts += [("main loop ", "$text-muted"), f"{measured}\n"]
    for h in fr.hints:
        parts += [("hint ", "$text-warning bold"), f"{hint_text(h)}\n"]
    if not fr.hints:
        parts.append(("no hints\n", "$text-muted"))
    return Content.assemble(*parts).rstrip()


class InspectSummary(Static):
    """Shows `summary_content` of the function given to `show`."""

    def show(self, fr: FunctionReport | None, note: str = "", measured: str | None = None) -> None:
        self.update(summary_content(fr, note, measured))
