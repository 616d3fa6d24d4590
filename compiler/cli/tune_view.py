"""`ea tune`'s output: a live status line on a terminal (one line per
attempt otherwise), then the sizes table, the bottlenecks before and after,
the diff and the file written; or the result JSON."""
from __future__ import annotations

import json
import sys
import threading

from ..bench.suite import size_label
from ..tune.judgement import tally

# The exit status when the best found was slower than the original side by side at the end
# (nothing written); documented in tune_cmd.USAGE.
SLOWER_AT_END_EXIT = 3


def run(cfg, apply: bool, as_json: bool, show_diff: bool) -> int:
    from ..target_flags import UsageError
    from ..tune import TuneError, tune, write_result
    live = _Live(sys.stderr)
    cancel = threading.Event()
    try:
        result = tune(cfg, progress=live.event, cancel=cancel)
    except TuneError as err:
        live.clear()
        raise UsageError(str(err)) from None
    live.clear()
    try:
        written = write_result(result, apply=apply) if result.improved() else None
    except OSError as err:
        raise UsageError(f"cannot write the tuned kernel beside {result.kernel}: {err.strerror or err}") from None
    peak = _peak(cfg, result)
    if as_json:
        print(json.dumps(dict(result.to_json(), peak_gflops=peak), indent=2))
    else:
        print(summary(result, show_diff, peak))
    if written is not None:
        backup = f" (original kept as {written.name}.orig)" if apply else ""
        print(f"wrote {written}{backup}", file=sys.stderr)
    if result.interrupted:
        print("interrupted: run the same command again to resume (evaluated variants are cached)",
              file=sys.stderr)
        return 130
    if result.slower_at_end:
        print(f"not written: {result.rejected_label or 'the best variant'} was slower than the original "
              "measured side by side at the largest size", file=sys.stderr)
        return SLOWER_AT_END_EXIT
    return 0


def live_status(history, ev) -> str:
    """`[5 tried (3 evaluated, 1 from the cache, 1 rejected unmeasured) · 2 not applicable · 1 accepted ·
    3 rejected] best 10.2 µs (1.79× the original)`: the ratio is the best against the original, the
    measure of the final table (ratio.py); tried counts the evaluated, cached and unmeasured attempts,
    not the inapplicable ones."""
    t = tally(history)
    unmeasured = f", {t.unmeasured} rejected unmeasured" if t.unmeasured else ""
    na = f" · {t.not_applicable} not applicable" if t.not_applicable else ""
    best = f" best {ev.best_us:.1f} µs" if ev.best_us else ""
    gain = f" ({ev.speedup:.2f}× the original)" if ev.speedup is not None else ""
    return (f"[{t.tried} tried ({t.evaluated} evaluated, {t.cached} from the cache{unmeasured}){na} · "
            f"{ev.accepted} accepted · {ev.rejected} rejected]{best}{gain}")


class _Live:
    def __init__(self, stream):
        self.stream = stream
        self.tty = stream.isatty()
        self.width = 0
        self.history: list = []

    def event(self, ev) -> None:
        if ev.kind == "attempt":
            a = ev.attempt
            self.history.append(a)
            status = live_status(self.history, ev)
            line = f"#{a.index} {a.label}: {a.outcome}{' (cached)' if a.cached else ''}"
            if not self.tty:
                self._line(f"{line} — {a.reason}" if a.reason else line)
            else:
                if a.accepted:
                    self._line(f"{line} — {a.reason}")
                self._status(f"{status} — {line}")
        elif ev.kind in ("baseline", "message"):
            self._line(ev.message)

    def _status(self, text: str) -> None:
        text = text[:200]
        self.stream.write("\r" + text.ljust(self.width) + "\r")
        self.width = len(text)
        self.stream.flush()

    def _line(self, text: str) -> None:
        self.clear()
        self.stream.write(text + "\n")
        self.stream.flush()

    def clear(self) -> None:
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0


def _peak(cfg, result) -> float | None:
    """The machine's FMA peak (cached per CPU, bench/peak.py) when the suite counts flops."""
    if not any(row.flops for row in result.rows):
        return None
    from ..bench.peak import peak_gflops
    return peak_gflops(cfg.options)


def summary(result, show_diff: bool = True, peak: float | None = None) -> str:
    """The report; `peak`: the FMA peak in GFLOP/s, for the % of peak column."""
    r = result
    interval = r.speedup_interval
    within = f" (95 % interval {interval[0]:.2f}–{interval[1]:.2f})" if interval else ""
    if r.slower_at_end:
        head = (f"ea tune {r.kernel.name}: the original is kept: the best found was slower side by side at the "
                f"largest size")
    else:
        head = (f"ea tune {r.kernel.name}: {r.speedup:.2f}× at the largest size{within} ({r.baseline_us:.1f} µs -> "
                f"{r.best_us:.1f} µs)")
    lines = [f"{head}; {tally(r.history).text()}, {r.accepted} accepted, {r.elapsed_s:.0f} s"]
    if r.improved() or r.slower_at_end:
        measured = "not measured side by side (interrupted)" if r.interrupted else \
            f"{_final_ratio(r):.2f}× measured side by side"
        lines.append(f"the search's steps multiplied to {r.search_speedup:.2f}×; {measured}")
    lines.append(_machine(r) + (f", FMA peak {peak:.1f} GFLOP/s" if peak else ""))
    what = "rejected variant" if r.slower_at_end else "tuned"
    flops = any(row.flops for row in r.rows)
    header = ("function", "size", "original µs", f"{what} µs", "speedup", "95 % interval") + \
        ((f"{what} GFLOP/s", "% of peak") if flops else ()) + ("NumPy µs", f"{what} vs NumPy")
    rows = [header]
    for row in r.rows:
        numpy = f"{row.numpy_us:.2f}" if row.numpy_us else "-"
        vs = f"{row.numpy_us / row.best_us:.2f}×" if row.numpy_us else "-"
        span = f"{row.ratio_lo:.2f}–{row.ratio_hi:.2f}" if row.ratio_lo is not None else "-"
        mark = " *" if row.largest and len(r.rows) > 1 else ""
        work = ()
        if flops:
            gflops = row.gflops
            work = (f"{gflops:.1f}" if gflops else "-", f"{gflops / peak:.0%}" if gflops and peak else "-")
        rows.append((row.function, size_label(row.size) + mark, f"{row.baseline_us:.2f}", f"{row.best_us:.2f}",
                     f"{row.speedup:.2f}×", span) + work + (numpy, vs))
    widths = [max(len(x[i]) for x in rows) for i in range(len(header))]
    for x in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(x, widths))))
    if len(r.rows) > 1:
        lines.append("(* the size that decides)")
    for fn, before in r.bottleneck_before.items():
        after = r.bottleneck_after.get(fn, before)
        if fn in {row.function for row in r.rows}:
            lines.append(f"bottleneck of {fn}: {before}" + (f" -> {after}" if after != before else " (unchanged)"))
    losing = r.losing_sizes()
    if losing:
        lines.append("faster at the largest size only: slower at " +
                     ", ".join(f"{size_label(x.size)} ({x.speedup:.2f}×)" for x in losing))
    noise = _noise_note(r)
    if noise:
        lines.append(noise)
    if r.note:
        lines.append(f"note: {r.note}")
    if r.slower_at_end:
        lines.append(f"not written: {r.rejected_label}")
    else:
        lines.append(f"best: {r.best_label}" if r.improved() else "no faster variant found; the kernel is unchanged")
    if show_diff and r.improved():
        lines += ["", r.diff().rstrip("\n")]
    return "\n".join(lines)


def _final_ratio(r) -> float:
    largest = [row for row in r.rows if row.largest]
    return sum(x.baseline_us for x in largest) / sum(x.best_us for x in largest) if largest else r.speedup


def _machine(r) -> str:
    """`machine: load 1.52 -> 2.03 on 2 CPUs, timing noise ±4.1 %, workers pinned to CPU 1`."""
    load = "load unknown"
    if r.load_before is not None and r.load_before.average is not None:
        after = r.load_after.average if r.load_after is not None and r.load_after.average is not None else None
        load = f"load {r.load_before.average:.2f}" + (f" -> {after:.2f}" if after is not None else "") + \
            f" on {r.load_before.cpus} CPUs"
    pinned = f", workers pinned to CPU {r.cpu}" if r.cpu is not None else ", workers not pinned"
    busy = " (busy: other processes share the CPUs)" if r.load_before is not None and r.load_before.busy else ""
    return f"machine: {load}{busy}, timing noise ±{r.noise:.1%} (the original at the largest size){pinned}"


def _noise_note(r) -> str:
    """A mark on a gain that the noise could explain: within its interval, or below the machine's noise."""
    if not r.improved():
        return ""
    interval = r.speedup_interval
    gain = r.speedup - 1.0
    if interval is not None and interval[0] < 1.0:
        return (f"within the noise: the interval reaches {interval[0]:.2f}×; measure again on a quiet machine "
                "before relying on this gain")
    if gain < r.noise:
        return (f"within the noise: the gain ({gain:.1%}) is smaller than the machine's timing noise "
                f"(±{r.noise:.1%}); measure again on a quiet machine")
    return ""
