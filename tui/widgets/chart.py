"""The throughput chart: GB/s against problem size (log scale), one series
per benchmark, with the memory bandwidth measured in the same run drawn as
a horizontal line. Plain Rich text (no plotting dependency): a marker per
measurement, dots joining a series' points, axis labels from the data.

    render_chart({"fma": [(16384, 21.5), (16777216, 11.2)]}, bandwidth=14.0, width=60, height=12)
"""
from __future__ import annotations

import math

from rich.text import Text
from textual.widget import Widget

from ea_compiler.tooling import size_label

SERIES_STYLES = ("bold dodger_blue2", "bold dark_orange", "bold green3", "bold magenta", "bold cyan",
                 "bold red", "bold yellow4", "bold purple")
MARKERS = "●■▲◆✚✖★◉"
Point = tuple[int, float]  # (size in elements, GB/s)


def render_chart(series: dict[str, list[Point]], bandwidth: float | None, width: int, height: int) -> Text:
    points = [p for pts in series.values() for p in pts if p[1] is not None and p[1] > 0]
    if not points or width < 24 or height < 6:
        return Text("No timed results to chart yet.", style="dim")
    top = max([g for _, g in points] + ([bandwidth] if bandwidth else [])) * 1.1
    sizes = sorted({n for n, _ in points})
    lo, hi = math.log2(sizes[0]), math.log2(sizes[-1])
    label_w = len(f"{top:.0f}") + 1
    plot_w, plot_h = width - label_w - 2, height - 3  # y labels and axis; x axis, x labels, legend
    grid = [[(" ", "")] * plot_w for _ in range(plot_h)]

    def cell(n: float, g: float) -> tuple[int, int]:
        x = 0 if hi == lo else round((math.log2(n) - lo) / (hi - lo) * (plot_w - 1))
        y = plot_h - 1 - round(g / top * (plot_h - 1))
        return x, min(max(y, 0), plot_h - 1)

    if bandwidth:
        _, by = cell(sizes[0], bandwidth)
        for x in range(plot_w):
            grid[by][x] = ("─", "dim")
    for k, (name, pts) in enumerate(series.items()):
        style, marker = SERIES_STYLES[k % len(SERIES_STYLES)], MARKERS[k % len(MARKERS)]
        cells = [cell(n, g) for n, g in sorted(pts) if g]
        for (x0, y0), (x1, y1) in zip(cells, cells[1:]):
            steps = max(abs(x1 - x0), abs(y1 - y0))
            for s in range(1, steps):
                x, y = x0 + round((x1 - x0) * s / steps), y0 + round((y1 - y0) * s / steps)
                if grid[y][x][0] in " ─":
                    grid[y][x] = ("·", style)
        for x, y in cells:
            grid[y][x] = (marker, style)
    text = Text(no_wrap=True, overflow="crop")
    for row, line in enumerate(grid):
        g = top * (plot_h - 1 - row) / (plot_h - 1)
        label = f"{g:.0f}" if row in (0, plot_h // 2, plot_h - 1) else ""
        text.append(f"{label:>{label_w}} ┤" if label else f"{'':>{label_w}} │", style="dim")
        for ch, style in line:
            text.append(ch, style=style)
        text.append("\n")
    text.append(" " * label_w + " └" + "─" * plot_w + "\n", style="dim")
    axis = [" "] * plot_w
    for n in sizes:
        x, _ = cell(n, 0)
        label = size_label(n)
        start = min(max(x - len(label) // 2, 0), max(plot_w - len(label), 0))
        if all(c == " " for c in axis[max(start - 1, 0): start + len(label) + 1]):
            axis[start: start + len(label)] = list(label)
    text.append(" " * (label_w + 2) + "".join(axis) + "\n", style="dim")
    text.append("GB/s by elements:", style="dim")
    for k, name in enumerate(series):
        text.append(f"  {MARKERS[k % len(MARKERS)]} {name}", style=SERIES_STYLES[k % len(SERIES_STYLES)])
    if bandwidth:
        text.append(f"  ── memory bandwidth {bandwidth:.1f} GB/s", style="dim")
    return text


class BandwidthChart(Widget):
    """Shows `render_chart` of the data given to `plot`, sized to the widget."""

    DEFAULT_CSS = "BandwidthChart { height: 1fr; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.series: dict[str, list[Point]] = {}
        self.bandwidth: float | None = None

    def plot(self, series: dict[str, list[Point]], bandwidth: float | None) -> None:
        self.series, self.bandwidth = series, bandwidth
        self.refresh()

    def render(self) -> Text:
        return render_chart(self.series, self.bandwidth, self.size.width, self.size.height)
