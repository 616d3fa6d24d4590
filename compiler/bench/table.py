"""The results table `ea bench` prints, and the number formats it shares with the TUI."""
from __future__ import annotations

from rich.table import Table

from .runner import Result, RunReport
from .suite import size_label


def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def fmt_us(us: float | None) -> str:
    """A time given in µs, as fmt_time shows it (`250 ns`, `21 µs`, `1.53 ms`)."""
    return "-" if us is None else fmt_time(us * 1e3)


def fmt_spread(r: Result) -> str:
    if r.p10_ns is None or r.p90_ns is None:
        return "-"
    return f"{fmt_time(r.p10_ns)} – {fmt_time(r.p90_ns)}"


def fmt_gbps(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def fmt_percent(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.0f}%"


def fmt_gflops(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def fmt_speedup(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}×"


def fmt_change(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:+.1f}%"


COLUMNS = ("bench", "size", "median", "p10 – p90", "GB/s", "% of bw", "NumPy", "speedup", "bound", "vs last")
# Beside GB/s when a bench of the run counts its flops (`flops`, `flops_per_element`).
FLOP_COLUMNS = ("GFLOP/s", "% of peak")


def row(r: Result, flops: bool = False) -> tuple[str, ...]:
    if r.status != "ok":
        cells = (r.bench, size_label(r.size), r.status.upper(), "-", "-", "-", "-", "-", r.bottleneck or "-", "-")
    else:
        cells = (r.bench, size_label(r.size), fmt_time(r.median_ns), fmt_spread(r), fmt_gbps(r.gbps),
                 fmt_percent(r.bandwidth_fraction), fmt_time(r.ref_median_ns), fmt_speedup(r.speedup),
                 r.bottleneck or "-", fmt_change(r.change))
    if not flops:
        return cells
    return cells[:6] + (fmt_gflops(r.gflops), fmt_percent(r.peak_fraction)) + cells[6:]


def columns(report: RunReport) -> tuple[str, ...]:
    return COLUMNS[:6] + FLOP_COLUMNS + COLUMNS[6:] if has_flops(report) else COLUMNS


def has_flops(report: RunReport) -> bool:
    return any(r.gflops is not None for r in report.results)


def results_table(report: RunReport) -> Table:
    bw = f"triad bandwidth {report.bandwidth_gbs:.1f} GB/s" if report.bandwidth_gbs else "bandwidth not measured"
    if report.peak_gflops:
        bw += f", FMA peak {report.peak_gflops:.1f} GFLOP/s"
    quick = " — QUICK run: short measurements, compared only with quick runs" if report.quick else ""
    table = Table(title=f"{report.suite.name} — {report.suite.kernel.name}, {bw}{quick}", title_justify="left")
    names = columns(report)
    for name in names:
        table.add_column(name, justify="left" if name in ("bench", "size", "bound") else "right", no_wrap=True)
    for r in report.results:
        style = None if r.status == "ok" else "bold red"
        if r.status == "ok" and r.change is not None and r.change > 0.10:
            style = "yellow"
        table.add_row(*row(r, has_flops(report)), style=style)
    return table


def failure_lines(report: RunReport) -> list[str]:
    return [f"{r.key}: {r.status}: {r.message}" for r in report.results if r.status != "ok"]
