"""How benchmark results read in the Bench pane: table cells, chart series,
history lines, and the suite template offered when a file has none."""
from __future__ import annotations

from rich.text import Text

from ea_compiler.tooling import Result, fmt_gflops, fmt_percent, size_label
from ea_compiler.tooling import fmt_time as fmt_ns

COLUMNS = ("bench", "size", "median", "p10–p90", "GB/s", "% bw", "GFLOP/s", "% peak", "vs NumPy", "bottleneck",
           "change", "note")
_NOTE_WIDTH = 48


def fmt_change(change: float | None) -> Text:
    if change is None:
        return Text("-", style="dim")
    style = "red" if change > 0.05 else "green" if change < -0.05 else ""
    return Text(f"{change * 100:+.1f}%", style=style)


def row_cells(r: Result) -> list:
    """One table row; results that are not "ok" show their status and message, not timings."""
    head = [r.bench, size_label(r.size)]
    if r.status != "ok":
        note = r.message if len(r.message) <= _NOTE_WIDTH else r.message[: _NOTE_WIDTH - 1] + "…"
        return head + [Text(r.status, style="bold red")] + ["-"] * 8 + [Text(note, style="red")]
    spread = f"{fmt_ns(r.p10_ns)}–{fmt_ns(r.p90_ns)}"
    bw = f"{r.bandwidth_fraction * 100:.0f}%" if r.bandwidth_fraction is not None else "-"
    speed = Text(f"{r.speedup:.2f}×", style="green" if r.speedup >= 1 else "yellow") if r.speedup else "-"
    return head + [fmt_ns(r.median_ns), spread, f"{r.gbps:.1f}" if r.gbps else "-", bw, fmt_gflops(r.gflops),
                   fmt_percent(r.peak_fraction), speed, r.bottleneck or "-", fmt_change(r.change), ""]


def chart_series(results: list[Result]) -> dict[str, list[tuple[int, float]]]:
    series: dict[str, list[tuple[int, float]]] = {}
    for r in results:
        if r.status == "ok" and r.gbps:
            series.setdefault(r.bench, []).append((r.size, r.gbps))
    return series


def history_lines(history: list[dict], limit: int = 20) -> list[str]:
    """Newest first, one headline per bench (its last, largest size):
    `2025-06-01 12:00  fma[16M] 11.2 GB/s · dot[16M] 9.8 GB/s`; `--quick` runs
    are marked `(quick)` (their numbers are not comparable with full runs)."""
    out = []
    for doc in reversed(history[-limit:]):
        when = str(doc.get("timestamp", "?"))[:16].replace("T", " ")
        last: dict[str, dict] = {}
        for m in doc.get("measurements", []):
            if isinstance(m, dict):
                last[str(m.get("kernel", "?")).split("[")[0]] = m
        marks = [f"{m.get('kernel')} {m['gbps']:.1f} GB/s" if isinstance(m.get("gbps"), (int, float))
                 else f"{m.get('kernel')} {m.get('status', '?')}" for m in last.values()]
        if doc.get("kind") == "cycles":  # `ea bench --cycles`: measured cycles per main-loop iteration
            marks = [f"{c.get('function')} {c.get('size_class')} {c['cycles_per_iter']:.1f} c/iter"
                     for c in doc.get("cycles", []) if isinstance(c, dict)
                     and isinstance(c.get("cycles_per_iter"), (int, float))]
        quick = " (quick)" if (doc.get("env") or {}).get("quick") else ""
        out.append(f"{when}{quick}  {' · '.join(marks) or 'no measurements'}")
    return out


def suite_template(stem: str, function: str | None) -> str:
    name = function or "my_kernel"
    return (f'# {stem}.bench.toml, beside {stem}.ea\n'
            f'[[bench]]\nfunction = "{name}"\nsizes = ["16K", "1M", "16M"]\n'
            f'bytes_per_element = 12          # bytes read + written per element\n'
            f'reference = "a * x + y"         # NumPy expression of the result\n'
            f'check = "y"                     # the argument holding the result, or "return"\n'
            f'[bench.args]\nx = {{ dtype = "float32", dist = "uniform", low = -1, high = 1 }}\n'
            f'y = {{ dtype = "float32", dist = "zeros" }}\na = 0.5\n')
