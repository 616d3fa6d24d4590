"""What a tuning run found: every attempt, the sizes table, the diff, the
JSON document, and writing the best kernel out."""
from __future__ import annotations

import difflib
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .outcome import Outcome


@dataclass
class Attempt:
    index: int
    label: str
    outcome: Outcome
    reason: str = ""
    times_us: dict[int, float] = field(default_factory=dict)  # size -> median µs (the tuned function's bench)
    score_us: float | None = None
    cached: bool = False
    function: str = ""
    variant: str = ""  # the variant's source in the cache (`__eatune__/variants/...`), once it compiled

    @property
    def accepted(self) -> bool:
        return self.outcome == Outcome.ACCEPTED

    def to_json(self) -> dict:
        data = asdict(self)
        data["times_us"] = {str(k): round(v, 3) for k, v in self.times_us.items()}
        data["accepted"] = self.accepted
        return data


@dataclass
class SizeRow:
    function: str
    bench: str
    size: int
    baseline_us: float
    best_us: float
    numpy_us: float | None = None

    @property
    def speedup(self) -> float:
        return self.baseline_us / self.best_us if self.best_us else 1.0


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

    @property
    def speedup(self) -> float:
        return self.baseline_us / self.best_us if self.best_us else 1.0

    def improved(self) -> bool:
        return self.best_source != self.original_source

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
            "evaluated": self.evaluated,
            "cache_hits": self.cache_hits,
            "accepted": self.accepted,
            "interrupted": self.interrupted,
            "note": self.note,
            "elapsed_s": round(self.elapsed_s, 2),
            "sizes": [dict(asdict(r), speedup=round(r.speedup, 4)) for r in self.rows],
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
