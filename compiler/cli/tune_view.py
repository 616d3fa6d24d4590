"""`ea tune`'s output: a live status line on a terminal (one line per
attempt otherwise), then the sizes table, the bottlenecks before and after,
the diff and the file written; or the result JSON."""
from __future__ import annotations

import json
import sys
import threading

from ..bench.suite import size_label


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
    if as_json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(summary(result, show_diff))
    if written is not None:
        backup = f" (original kept as {written.name}.orig)" if apply else ""
        print(f"wrote {written}{backup}", file=sys.stderr)
    if result.interrupted:
        print("interrupted: run the same command again to resume (evaluated variants are cached)",
              file=sys.stderr)
        return 130
    return 0


class _Live:
    def __init__(self, stream):
        self.stream = stream
        self.tty = stream.isatty()
        self.width = 0

    def event(self, ev) -> None:
        if ev.kind == "attempt":
            a = ev.attempt
            best = f"best {ev.best_us:.1f} µs" if ev.best_us else ""
            gain = f" ({ev.baseline_us / ev.best_us:.2f}×)" if ev.best_us and ev.baseline_us else ""
            status = (f"[{a.index} tried · {ev.accepted} accepted · {ev.rejected} rejected · "
                      f"{ev.cache_hits} cached] {best}{gain}")
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


def summary(result, show_diff: bool = True) -> str:
    r = result
    lines = [f"ea tune {r.kernel.name}: {r.speedup:.2f}× at the largest size ({r.baseline_us:.1f} µs -> "
             f"{r.best_us:.1f} µs); {r.evaluated} evaluated, {r.cache_hits} from the cache, {r.accepted} accepted, "
             f"{r.elapsed_s:.0f} s"]
    header = ("function", "size", "original µs", "tuned µs", "speedup", "NumPy µs", "tuned vs NumPy")
    rows = [header]
    for row in r.rows:
        numpy = f"{row.numpy_us:.2f}" if row.numpy_us else "-"
        vs = f"{row.numpy_us / row.best_us:.2f}×" if row.numpy_us else "-"
        rows.append((row.function, size_label(row.size), f"{row.baseline_us:.2f}", f"{row.best_us:.2f}",
                     f"{row.speedup:.2f}×", numpy, vs))
    widths = [max(len(x[i]) for x in rows) for i in range(len(header))]
    for x in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(x, widths))))
    for fn, before in r.bottleneck_before.items():
        after = r.bottleneck_after.get(fn, before)
        if fn in {row.function for row in r.rows}:
            lines.append(f"bottleneck of {fn}: {before}" + (f" -> {after}" if after != before else " (unchanged)"))
    if r.note:
        lines.append(f"note: {r.note}")
    lines.append(f"best: {r.best_label}" if r.improved() else "no faster variant found; the kernel is unchanged")
    if show_diff and r.improved():
        lines += ["", r.diff().rstrip("\n")]
    return "\n".join(lines)
