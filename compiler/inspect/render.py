"""Text output of `ea inspect` (TOOLCHAIN.md §6 layout, then a loop table)
and assembly annotated with the source lines it came from."""
from __future__ import annotations

from .asm import _LOC
from .model import FunctionReport, InspectReport


LOOP_HEADER = "loop  role  lines     instrs  vector  loads  stores  fma  bytes/iter  elems/iter  bottleneck"


def loop_rows(fr: FunctionReport) -> list[tuple[str, str]]:
    """The loop table's rows under LOOP_HEADER: (the cells up to the bottleneck, the bottleneck)."""
    rows = []
    for k, lp in enumerate(fr.loops, 1):
        p = lp.per_iteration
        lines = f"{lp.first_line}-{lp.last_line}" if lp.first_line else "-"
        elems = str(lp.elements_per_iteration) if lp.elements_per_iteration else "-"
        role = ("  " * lp.depth) + lp.role
        rows.append((f"{k:<4}  {role:<4}  {lines:<8}  {p.instructions:>6}  {p.vector:>6}  {p.loads:>5}  "
                     f"{p.stores:>6}  {p.fma:>3}  {lp.kernel_bytes:>10}  {elems:>10}  ",
                     lp.bottleneck))
    return rows


def loop_breakdown(fr: FunctionReport) -> str | None:
    """`(1 main, 3 tail, 1 nested)` when there is more than the main loop to
    tell apart (`8 copies` of it when it was copied per alignment)."""
    n = len(fr.loops)
    top = [lp for lp in fr.loops if lp.depth == 0]
    tails = sum(1 for lp in top if lp.role == "tail")
    copies = sum(1 for lp in top if lp.role == "copy")
    nested = n - len(top)
    if n <= 1 or not (tails or nested or copies):
        return None
    return ("(1 main" + (f", {copies} cop{'ies' if copies > 1 else 'y'}" if copies else "")
            + f", {tails} tail" + (f", {nested} nested)" if nested else ")"))


def vector_registers(fr: FunctionReport) -> list[str]:
    return [r for r in fr.registers if r[:1] in "xyzvq"]


def runtime_path_text(p) -> str:
    return p.text + (f" (line {p.line})" if p.line else "")


def hint_text(h) -> str:
    return h.message + (f" (line {h.line})" if h.line else "")


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
    breakdown = loop_breakdown(fr)
    out.append(f"  loops:                {len(fr.loops)}" + (f" {breakdown}" if breakdown else ""))
    vregs = vector_registers(fr)
    if vregs:
        out.append(f"  vector registers:     {', '.join(vregs)} ({len(vregs)} used)")
    for h in fr.hints:
        out.append(f"  hint:                 {hint_text(h)}")
    for p in fr.runtime_paths:
        out.append(f"  runtime path:         {runtime_path_text(p)}")
    if fr.loops:
        out.append("")
        out.append("  " + LOOP_HEADER)
        out += [f"  {cells}{bottleneck}" for cells, bottleneck in loop_rows(fr)]
    if fr.prediction is not None and fr.prediction.loops:
        out.append("")
        out += prediction_lines(fr.prediction)
    return out


def size_text(n: int) -> str:
    """`32K`, `512K`, `32M`, `1.5M` (binary units)."""
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f}{unit}" if v == int(v) else f"{v:.1f}{unit}"
    return f"{n}B"


def limit_text(limit) -> str:
    """How a limit reads: `ports`, `latency`, `front end`, `calls`, `L2 bandwidth`."""
    return limit.value if limit.value in ("ports", "latency", "front end", "calls") else f"{limit.value} bandwidth"


def prediction_lines(fp) -> list[str]:
    """The predicted cycles per iteration of each loop and where each limit applies:
      predicted: llvm-mca 14 znver3; memory default (not calibrated); arrays 16-byte aligned (NumPy)
        loop 1 main: ports 4.07 c/iter up to 32K, L2 bandwidth 8 to 512K, ..., DRAM bandwidth 51.2 beyond
    """
    rough = " (rough)" if fp.rough else ""
    where = "on a cache line" if fp.alignment >= 64 else f"{fp.alignment}-byte aligned"
    numpy = " (NumPy)" if fp.alignment == 16 else ""
    out = [f"  predicted{rough}: {fp.model}; memory {fp.memory}; arrays {where}{numpy}"]
    for lp in fp.loops:
        spans = []
        for k, r in enumerate(lp.ranges):
            where = ("at every size" if r.low == 0 and r.high is None else
                     "beyond " + size_text(r.low - 1) if r.high is None else
                     "up to " + size_text(r.high) if r.low == 0 else "to " + size_text(r.high))
            spans.append(f"{limit_text(r.limit)} {r.cycles_per_iter:g} c/iter {where}" if k == 0 else
                         f"{limit_text(r.limit)} {r.cycles_per_iter:g} {where}")
        at = ""
        if fp.working_set_bytes is not None:
            at = f"{lp.cycles_per_iter:g} c/iter at {size_text(fp.working_set_bytes)} ({limit_text(lp.limit)}); "
        n = lp.elements_per_iter
        elems = f" ({n} element{'s' if n != 1 else ''})" if n else ""
        out.append(f"    loop {lp.index} {lp.role}{elems}: {at}{', '.join(spans)}{rough}")
        extra = []
        if lp.calls:
            extra.append("calls " + ", ".join(f"{name} x{n}" for name, n in lp.calls.items())
                         + f" ({lp.call_cycles:g} cycles)")
        if lp.spills or lp.reloads:
            extra.append(f"{lp.spills} spills and {lp.reloads} reloads (stack traffic, not the kernel's)")
        if lp.prefetch_ahead:
            extra.append(_prefetches(lp))
        if lp.store_data_fmas:
            extra.append(f"{lp.store_data_fmas} FMAs beside the stores bind the store-data pipe "
                         f"({lp.ports_cycles:g} cycles: an FMA takes half a cycle of it on Zen 3)")
        if extra:
            out.append(f"      per iteration: {'; '.join(extra)}")
    return out


def _prefetches(lp) -> str:
    """`prefetches 1024 B ahead of 2 streams: their bytes take x1.06 the time from the L3, x1.25 from DRAM
    (measured)`."""
    ahead = sorted(set(lp.prefetch_ahead))
    text = (f"prefetches {' and '.join(f'{b} B' for b in ahead)} ahead of {len(lp.prefetch_ahead)} "
            f"stream{'s' if len(lp.prefetch_ahead) != 1 else ''}")
    if not lp.prefetch_slowdown:
        return text + " (not calibrated: no time counted for them)"
    levels = {"L3near": "a near set in the L3", "L3": "the L3", "DRAM": "DRAM"}
    costs = (f"x{f:g}{' the time' if k == 0 else ''} from {levels.get(lv, lv)}"
             for k, (lv, f) in enumerate(lp.prefetch_slowdown.items()))
    return text + ": their bytes take " + ", ".join(costs) + " (measured)"


def render_text(report: InspectReport) -> str:
    blocks = ["\n".join(_function(fr)) for fr in report.functions]
    return "\n\n".join(blocks) + "\n"


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
