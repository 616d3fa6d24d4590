"""The tuning chart: the best time so far against the attempt number, as a
step line that drops where a variant was accepted, each timed attempt's
own score as a dot, and the baseline as a dotted line. Plain Rich text,
like the bench chart; scores far above the baseline are pinned to the top
row (marked ↑) so one slow variant does not flatten the line that matters.

    render_tune_chart([(0, 40.0), (1, 40.0), (2, 21.0)], [(1, 44.0), (2, 21.0)], 40.0, width=50, height=12)
"""
from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ..tune_format import Point, fmt_us

BEST_STYLE = "bold green3"
SCORE_STYLE = "dark_orange"
_CEILING = 1.25  # the top of the plot, relative to the baseline (or the best line's highest point)


def render_tune_chart(best: list[Point], scores: list[Point], baseline: float | None, width: int,
                      height: int) -> Text:
    if not best or width < 24 or height < 6:
        return Text("The best time by attempt shows here once the baseline is measured.", style="dim")
    line_top = max([v for _, v in best] + ([baseline] if baseline else []))
    values = [v for _, v in best] + [v for _, v in scores if v <= line_top * _CEILING]
    lo, hi = min(values), max(values + ([baseline] if baseline else []))
    pad = (hi - lo) * 0.08 or hi * 0.02 or 1.0
    lo, hi = max(lo - pad, 0.0), hi + pad
    last = max([i for i, _ in best] + [i for i, _ in scores] + [1])
    labels = [fmt_us(hi), fmt_us((lo + hi) / 2), fmt_us(lo)]
    label_w = max(len(s) for s in labels) + 1
    plot_w, plot_h = width - label_w - 2, height - 3  # y labels and axis; x axis, x labels, legend
    grid = [[(" ", "")] * plot_w for _ in range(plot_h)]

    def x_of(i: int) -> int:
        return round(i / last * (plot_w - 1))

    def y_of(v: float) -> int:
        return min(max(round((hi - v) / (hi - lo) * (plot_h - 1)), 0), plot_h - 1)

    if baseline:
        by = y_of(baseline)
        for x in range(0, plot_w, 2):
            grid[by][x] = ("┄", "dim")
    for i, v in scores:
        grid[y_of(v)][x_of(i)] = ("↑" if v > hi else "·", SCORE_STYLE)
    steps = best + [(last, best[-1][1])]
    drops = []
    for (i0, v0), (i1, v1) in zip(steps, steps[1:]):
        y0 = y_of(v0)
        for x in range(x_of(i0), x_of(i1) + 1):
            grid[y0][x] = ("━", BEST_STYLE)
        if v1 < v0:
            y1 = y_of(v1)
            for y in range(y0 + 1, y1):
                grid[y][x_of(i1)] = ("┃", BEST_STYLE)
            drops.append((x_of(i1), y1))
    for x, y in drops:  # where a variant was accepted, drawn over the line
        grid[y][x] = ("●", BEST_STYLE)
    text = Text(no_wrap=True, overflow="crop")
    marks = {0: labels[0], plot_h // 2: labels[1], plot_h - 1: labels[2]}
    for row, line in enumerate(grid):
        label = marks.get(row, "")
        text.append(f"{label:>{label_w}} ┤" if label else f"{'':>{label_w}} │", style="dim")
        for ch, style in line:
            text.append(ch, style=style)
        text.append("\n")
    text.append(" " * label_w + " └" + "─" * plot_w + "\n", style="dim")
    end, middle = str(last), "attempt"
    gap = plot_w - 1 - len(end) - len(middle)
    if gap >= 2:
        axis = "0" + " " * (gap // 2) + middle + " " * (gap - gap // 2) + end
    else:
        axis = "0".ljust(plot_w - len(end)) + end
    text.append(" " * (label_w + 2) + axis + "\n", style="dim")
    text.append("━ best", style=BEST_STYLE)
    text.append("  · score", style=SCORE_STYLE)
    if baseline:
        text.append(f"  ┄ baseline {fmt_us(baseline)}", style="dim")
    return text


class TuneChart(Widget):
    """Shows `render_tune_chart` of the data given to `plot`, sized to the widget."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.best: list[Point] = []
        self.scores: list[Point] = []
        self.baseline: float | None = None

    def plot(self, best: list[Point], scores: list[Point], baseline: float | None) -> None:
        self.best, self.scores, self.baseline = list(best), list(scores), baseline
        self.refresh()

    def render(self) -> Text:
        return render_tune_chart(self.best, self.scores, self.baseline, self.size.width, self.size.height)
