"""What a tuning run found: every attempt, the sizes table, the diff, the
JSON document, and writing the best kernel out."""
from __future__ import annotations

import difflib
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .outcome import Outcome
from ..bench.sizes import Size, as_size
from .judgement import Load, losing_sizes, tally


@dataclass
class Attempt:
    index: int
    label: str
    outcome: Outcome
    reason: str = ""
    times_us: dict[str, float] = field(default_factory=dict)  # size key -> median µs (the tuned function's bench)
    score_us: float | None = None
    cached: bool = False
    function: str = ""
    variant: str = ""  # the variant's source in the cache (`__eatune__/variants/...`), once it reached a worker
    measurements: int = 1  # 2: a marginal gain measured again (gate.confirmed)

    @property
    def accepted(self) -> bool:
        return self.outcome == Outcome.ACCEPTED

    def to_json(self) -> dict:
        data = asdict(self)
        data["times_us"] = {str(k): round(v, 3) for k, v in self.times_us.items()}  # keys: size keys
        data["accepted"] = self.accepted
        return data


@dataclass
class SizeRow:
    """One size of the final table: the original's and the best's medians, measured side by side."""
    function: str
    bench: str
    size: Size
    baseline_us: float
    best_us: float
    numpy_us: float | None = None
    ratio_lo: float | None = None  # the 95 % interval of `speedup` (ratio.py), when measured side by side
    ratio_hi: float | None = None
    largest: bool = False  # the size that decides
    flops: float | None = None  # of one call, when the suite counts them

    @property
    def speedup(self) -> float:
        return self.baseline_us / self.best_us if self.best_us else 1.0

    @property
    def gflops(self) -> float | None:
        """The best's GFLOP/s (flops per ns)."""
        return self.flops / (self.best_us * 1e3) if self.flops and self.best_us else None

    def to_json(self) -> dict:
        data = asdict(self)
        data.update(size=as_size(self.size).to_json(), speedup=round(self.speedup, 4), gflops=self.gflops)
        return data


@dataclass
class TuneResult:
    kernel: Path
    original_source: str
    best_source: str
    baseline_us: float
    best_us: float
    best_label: str = ""
    evaluated: int = 0
    cache_hits: int = 0
    accepted: int = 0
    history: list[Attempt] = field(default_factory=list)
    rows: list[SizeRow] = field(default_factory=list)
    bottleneck_before: dict[str, str] = field(default_factory=dict)
    bottleneck_after: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    note: str = ""  # e.g. why the best found was not kept
    elapsed_s: float = 0.0
    best_file: Path | None = None
    slower_at_end: bool = False  # the best found lost to the original side by side: the original kept
    rejected_label: str = ""  # what that best was
    search_speedup: float = 1.0  # the accepted steps' ratios multiplied: what the live line showed
    noise: float = 0.0  # the spread of the original's timings at the largest size (ratio.spread)
    load_before: Load | None = None
    load_after: Load | None = None
    cpu: int | None = None  # the core the workers were pinned to

    @property
    def speedup(self) -> float:
        return self.baseline_us / self.best_us if self.best_us else 1.0

    def improved(self) -> bool:
        return self.best_source != self.original_source

    @property
    def speedup_interval(self) -> tuple[float, float] | None:
        """The 95 % interval of `speedup` from the final measurement (None without one)."""
        largest = [r for r in self.rows if r.largest and r.ratio_lo is not None]
        if not largest:
            return None
        return min(r.ratio_lo for r in largest), max(r.ratio_hi for r in largest)

    def losing_sizes(self) -> list[SizeRow]:
        """Smaller sizes where the tuned kernel is slower than the original (improved results only)."""
        return losing_sizes(self.rows) if self.improved() else []

    def diff(self) -> str:
        if not self.improved():
            return ""
        return unified_diff(self.kernel.name, self.original_source, self.best_source)

    def to_json(self) -> dict:
        return {
            "kernel": str(self.kernel),
            "baseline_us": round(self.baseline_us, 3),
            "best_us": round(self.best_us, 3),
            "speedup": round(self.speedup, 4),
            "best_label": self.best_label,
            "best_file": str(self.best_file) if self.best_file else None,
            "speedup_interval": self.speedup_interval,
            "search_speedup": round(self.search_speedup, 4),
            "evaluated": self.evaluated,
            "cache_hits": self.cache_hits,
            "accepted": self.accepted,
            "tally": asdict(tally(self.history)),
            "interrupted": self.interrupted,
            "slower_at_end": self.slower_at_end,
            "note": self.note,
            "elapsed_s": round(self.elapsed_s, 2),
            "noise": round(self.noise, 4),
            "load_before": self.load_before.to_json() if self.load_before else None,
            "load_after": self.load_after.to_json() if self.load_after else None,
            "cpu": self.cpu,
            "sizes": [r.to_json() for r in self.rows],
            "bottleneck_before": self.bottleneck_before,
            "bottleneck_after": self.bottleneck_after,
            "diff": self.diff(),
            "history": [a.to_json() for a in self.history],
        }


def unified_diff(name: str, original: str, best: str) -> str:
    """The diff `ea tune` shows: the original against the best (also live, in the TUI)."""
    return "".join(difflib.unified_diff(original.splitlines(True), best.splitlines(True),
                                        f"{name} (original)", f"{name} (tuned)"))


def backup_path(kernel: Path) -> Path:
    """Where `write_result(..., apply=True)` keeps the original: `<stem>.ea.orig`."""
    return kernel.with_name(kernel.name + ".orig")


def write_result(result: TuneResult, apply: bool = False) -> Path:
    """The best kernel beside the original (`<stem>.tuned.ea`), or in place with the
    original kept as `<stem>.ea.orig` (an existing one is left as it is). Raises OSError."""
    kernel = result.kernel
    if apply:
        backup = backup_path(kernel)
        if not backup.exists():  # a second --apply keeps the first original, not the first tuned version
            shutil.copyfile(kernel, backup)
        target = kernel
    else:
        target = kernel.with_name(f"{kernel.stem}.tuned.ea")
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(result.best_source)
    tmp.replace(target)
    result.best_file = target
    return target
