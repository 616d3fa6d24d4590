"""The latest measured cycles per main-loop iteration of a function, beside
the prediction, as `ea bench --cycles` / `ea inspect --measure` recorded
them in the history file of the kernel's bench suite. Read only: the
language server and the TUI show these figures and never run a benchmark.

    pairs = latest_measured("k.ea", "dot", current_text)   # [] before any run
    pair_label(pairs)    # "L1 ≈2.1 c/iter predicted · 2.3 measured · load ports | DRAM ..."
    pair_markdown(pairs) # the hover's section"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

_KIND = "cycles"  # the result documents of cycle runs (compiler/bench/cycle_report.py)
_TAIL_BYTES = 1 << 20  # only the newest runs matter: read the end of a long history


@dataclass(frozen=True)
class MeasuredPair:
    size_class: str  # "L1" or "DRAM"
    n: int
    predicted: float | None
    measured: float | None
    limit: str | None
    rough: bool  # the prediction is the rough estimate (no calibrated model)
    stale: bool  # the source changed since the measurement
    timestamp: str
    note: str = ""
    run_notes: tuple[str, ...] = ()  # of the whole run, e.g. the core's state (bench/core_state.py)

    @property
    def error_pct(self) -> float | None:
        if self.predicted is None or not self.measured:
            return None
        return (self.predicted - self.measured) / self.measured * 100.0


def _history_file(source: Path) -> Path | None:
    from ..bench.suite import BenchError, find_suite, load_suite
    found = find_suite(source)
    if found is None:
        return None
    try:
        return load_suite(found).history
    except BenchError:
        return None


def _newest_first(path: Path):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - _TAIL_BYTES))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return
    for line in reversed(text.splitlines()):
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            continue  # the first line of the tail may be cut
        if isinstance(doc, dict) and doc.get("kind") == _KIND and isinstance(doc.get("cycles"), list):
            yield doc


def latest_measured(source, function: str, text: str | bytes | None = None) -> list[MeasuredPair]:
    """The pairs of the newest cycle run that measured `function` of the
    kernel at `source` (a path); `text`, the source as it is now, marks
    pairs measured on other code as stale. Never raises: [] when nothing is known."""
    try:
        history = _history_file(Path(source))
    except OSError:
        return []
    if history is None or not history.exists():
        return []
    now = None
    if text is not None:
        data = text.encode() if isinstance(text, str) else text
        now = hashlib.blake2b(data, digest_size=8).hexdigest()
    for doc in _newest_first(history):
        rows = [r for r in doc["cycles"] if isinstance(r, dict) and r.get("function") == function]
        if not rows:
            continue
        stale = now is not None and doc.get("source_hash") != now
        return [MeasuredPair(str(r.get("size_class")), int(r.get("n") or 0), _num(r.get("predicted")),
                             _num(r.get("cycles_per_iter")), r.get("limit"), r.get("predicted_by") == "rough",
                             stale, str(doc.get("timestamp", "")), str(r.get("note") or ""),
                             tuple(str(n) for n in doc.get("notes") or () if n))
                for r in rows]
    return []


def _num(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def pair_text(p: MeasuredPair) -> str:
    """`≈2.1 c/iter predicted · 2.3 measured · load ports`"""
    rough = " (rough)" if p.rough else ""
    parts = [f"≈{_fmt(p.predicted)} c/iter predicted{rough}", f"{_fmt(p.measured)} measured"]
    if p.limit:
        parts.append(p.limit)
    return " · ".join(parts)


def pair_label(pairs: list[MeasuredPair]) -> str | None:
    """One line for an inlay hint or a pane: each size class's pair."""
    if not pairs:
        return None
    text = " | ".join(f"{p.size_class} {pair_text(p)}" for p in pairs)
    return text + (" (older code)" if any(p.stale for p in pairs) else "")


def pair_markdown(pairs: list[MeasuredPair]) -> str | None:
    """The hover's section: one list item per size class, with the error."""
    if not pairs:
        return None
    rows = []
    for p in pairs:
        err = "" if p.error_pct is None else f" ({p.error_pct:+.0f}%)"
        note = f" — {p.note}" if p.note else ""
        rows.append(f"- {p.size_class} (n={p.n}): {pair_text(p)}{err}{note}")
    when = pairs[0].timestamp
    stale = " — measured on an older version of this code" if any(p.stale for p in pairs) else ""
    notes = "".join(f"\n\nNote: {n}" for n in pairs[0].run_notes)
    return (f"**Cycles per main-loop iteration** (last `ea bench --cycles`, {when}{stale})\n\n" + "\n".join(rows)
            + notes)
