"""The inspect summary of one function: the facts `ea inspect` prints
(counts, vector width, registers, loops with their bottleneck, hints),
laid out for a pane."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from compiler.inspect.model import FunctionReport

_BOTTLENECK_STYLE = {"memory-bound": "$text-warning", "compute-bound": "$text-success", "mixed": "$text-accent",
                     "latency-bound": "$text-error"}
_LOOP_HEADER = "loop  role    lines    instrs  vector  loads  stores  fma  bytes/iter  elems/iter  bottleneck"


def _loops_label(fr: FunctionReport) -> str:
    n = len(fr.loops)
    top = [lp for lp in fr.loops if lp.depth == 0]
    tails = sum(1 for lp in top if lp.role == "tail")
    nested = n - len(top)
    if n <= 1 or not (tails or nested):
        return f"{n} loop{'s' * (n != 1)}"
    return f"{n} loops (1 main, {tails} tail" + (f", {nested} nested)" if nested else ")")


def summary_content(fr: FunctionReport | None, note: str = "") -> Content:
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
    vregs = [r for r in fr.registers if r[:1] in "xyzvq"]
    if vregs:
        parts += [("vector registers ", "$text-muted"), f"{', '.join(vregs)} ({len(vregs)} used)\n"]
    if fr.loops:
        parts.append((_LOOP_HEADER + "\n", "$text-muted"))
        for k, lp in enumerate(fr.loops, 1):
            p = lp.per_iteration
            lines = f"{lp.first_line}-{lp.last_line}" if lp.first_line else "-"
            elems = str(lp.elements_per_iteration) if lp.elements_per_iteration else "-"
            role = "  " * lp.depth + lp.role
            parts.append(f"{k:<4}  {role:<6}  {lines:<7}  {p.instructions:>6}  {p.vector:>6}  {p.loads:>5}  "
                         f"{p.stores:>6}  {p.fma:>3}  {p.bytes_loaded + p.bytes_stored:>10}  {elems:>10}  ")
            parts.append((lp.bottleneck + "\n", _BOTTLENECK_STYLE.get(lp.bottleneck, "")))
    for h in fr.hints:
        where = f" (line {h.line})" if h.line else ""
        parts += [("hint ", "$text-warning bold"), f"{h.message}{where}\n"]
    if not fr.hints:
        parts.append(("no hints\n", "$text-muted"))
    return Content.assemble(*parts).rstrip()


class InspectSummary(Static):
    """Shows `summary_content` of the function given to `show`."""

    def show(self, fr: FunctionReport | None, note: str = "") -> None:
        self.update(summary_content(fr, note))
