"""Text output of `ea inspect` (TOOLCHAIN.md §6 layout, then a loop table)
and assembly annotated with the source lines it came from."""
from __future__ import annotations

import re

from .model import FunctionReport, InspectReport


def _function(fr: FunctionReport) -> list[str]:
    c = fr.counts
    tag = " (exported)" if fr.exported else f" (inlined into {', '.join(fr.inlined_into)})" if fr.inlined_into else ""
    out = [f"=== {fr.name}{tag} ===",
           f"  vector instructions:  {c.vector}",
           f"  scalar instructions:  {c.scalar}",
           f"  loads:                {c.loads}",
           f"  stores:               {c.stores}"]
    if c.fma:
        out.append(f"  FMA operations:       {c.fma}")
    if fr.vector_width:
        out.append(f"  vector width:         {fr.vector_width}")
    for auto in fr.auto_vectorised:  # scalar source code LLVM vectorised, apart from the width written
        out.append(f"  scalar code:          {auto.text}")
    n = len(fr.loops)
    top = [lp for lp in fr.loops if lp.depth == 0]
    tails = sum(1 for lp in top if lp.role == "tail")
    nested = n - len(top)
    if n <= 1 or not (tails or nested):
        loops = str(n)
    else:
        loops = f"{n} (1 main, {tails} tail" + (f", {nested} nested)" if nested else ")")
    out.append(f"  loops:                {loops}")
    vregs = [r for r in fr.registers if r[:1] in "xyzvq"]
    if vregs:
        out.append(f"  vector registers:     {', '.join(vregs)} ({len(vregs)} used)")
    for h in fr.hints:
        where = f" (line {h.line})" if h.line else ""
        out.append(f"  hint:                 {h.message}{where}")
    if fr.loops:
        out.append("")
        out.append("  loop  role  lines     instrs  vector  loads  stores  fma  bytes/iter  elems/iter  bottleneck")
        for k, lp in enumerate(fr.loops, 1):
            p = lp.per_iteration
            lines = f"{lp.first_line}-{lp.last_line}" if lp.first_line else "-"
            elems = str(lp.elements_per_iteration) if lp.elements_per_iteration else "-"
            role = ("  " * lp.depth) + lp.role
            out.append(f"  {k:<4}  {role:<4}  {lines:<8}  {p.instructions:>6}  {p.vector:>6}  {p.loads:>5}  "
                       f"{p.stores:>6}  {p.fma:>3}  {p.bytes_loaded + p.bytes_stored:>10}  {elems:>10}  "
                       f"{lp.bottleneck}")
    return out


def render_text(report: InspectReport) -> str:
    blocks = ["\n".join(_function(fr)) for fr in report.functions]
    return "\n\n".join(blocks) + "\n"


_LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")


def annotate(asm: str, source_lines: list[str], comment: str = "#") -> str:
    """The assembly with each source line shown (once per run) where its
    instructions start."""
    out = []
    shown = None
    for raw in asm.splitlines():
        m = _LOC.match(raw)
        if m:
            line = int(m.group(1))
            if line and line != shown and line <= len(source_lines):
                out.append(f"{comment} {line:>4} | {source_lines[line - 1].rstrip()}")
                shown = line
        out.append(raw)
    return "\n".join(out) + "\n"
