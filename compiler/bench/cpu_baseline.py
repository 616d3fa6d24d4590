"""The performance guard of the shipped kernels (bench/perf_guard.py, run by
`make bench`): figures of every example suite recorded per CPU in a
committed file (bench/baselines/<cpu>.json), and the comparison of a run
with them.

On the CPU a file was recorded on, a kernel regresses when its time (the
10th percentile of its samples) is more than THRESHOLD above the recorded one and its speedup over its
NumPy reference, measured in the same run, more than THRESHOLD below the
recorded one: a compiler regression slows the kernel, not NumPy, while a
machine busy with other processes (their memory traffic) slows both. On
another CPU times say nothing about the compiler: only the speedup is
compared, against the speedups recorded on the other CPUs of the same
architecture (a kernel regresses when it is worse than in every one)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .cpuid import cpu_identity, cpu_model  # noqa: F401 - re-exported: bench/perf_guard.py names them here
from .envinfo import timestamp
from .runner import RunReport

THRESHOLD = 0.05
SCHEMA = 1


def baseline_path(directory: Path, identity: dict) -> Path:
    return directory / f"{identity['slug']}.json"


def figures(reports: list[RunReport]) -> dict[str, dict]:
    """Per `suite:bench[size]`: the kernel's time and NumPy's, and the speedup,
    of the results timed. The times are the 10th percentiles of the samples:
    other processes only ever add time, so the fast end of a run is what
    repeats from run to run on a shared machine (the medians are kept too)."""
    out = {}
    for report in reports:
        for r in report.results:
            if r.status == "ok" and r.p10_ns and r.ref_p10_ns:
                out[f"{report.suite.name}:{r.key}"] = {"time_ns": round(r.p10_ns), "numpy_ns": round(r.ref_p10_ns),
                                                       "speedup": round(r.ref_p10_ns / r.p10_ns, 4),
                                                       "median_ns": round(r.median_ns),
                                                       "numpy_median_ns": round(r.ref_median_ns)}
    return out


def document(identity: dict, env: dict, kernels: dict[str, dict], load: str) -> dict:
    return {"schema": SCHEMA, **identity, "env": env, "recorded": timestamp(), "load_average": load,
            "threshold": THRESHOLD, "kernels": dict(sorted(kernels.items()))}


def read(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("schema") != SCHEMA or not isinstance(doc.get("kernels"), dict):
        raise ValueError(f"{path}: not a kernel baseline (schema {SCHEMA})")
    return doc


@dataclass
class Verdict:
    key: str
    speedup: float  # over NumPy, this run
    recorded_speedup: float  # the baseline's (the most favourable one on another CPU)
    source: str  # the baseline's CPU
    time_ns: float | None = None  # this run's time, when the baseline is this CPU's
    recorded_ns: float | None = None

    @property
    def ratio_change(self) -> float:
        """+0.07: 7 % less speedup over NumPy than recorded."""
        return 1 - self.speedup / self.recorded_speedup

    @property
    def time_change(self) -> float | None:
        """+0.07: 7 % slower than recorded (same CPU only)."""
        return None if self.time_ns is None else self.time_ns / self.recorded_ns - 1

    @property
    def change(self) -> float:
        """How far the verdict is from passing: the smaller of the changes that must both exceed THRESHOLD."""
        return self.ratio_change if self.time_ns is None else min(self.ratio_change, self.time_change)

    @property
    def regressed(self) -> bool:
        return self.change > THRESHOLD

    def text(self) -> str:
        ratio = f"{self.speedup:.2f}x NumPy vs {self.recorded_speedup:.2f}x ({self.ratio_change * 100:+.1f} %)"
        if self.time_ns is None:
            return f"{self.key:<34} {ratio} recorded on {self.source}"
        return (f"{self.key:<34} {self.time_ns / 1e6:.3f} ms vs {self.recorded_ns / 1e6:.3f} ms "
                f"({self.time_change * 100:+.1f} %), {ratio}")


def compare(now: dict[str, dict], baselines: list[dict], identity: dict) -> list[Verdict]:
    """Verdicts for the kernels measured now that a baseline has: time and
    speedup against this CPU's baseline, else speedup against the same
    architecture's (the best verdict among them)."""
    same = [b for b in baselines if b["slug"] == identity["slug"]]
    if same:
        base = same[0]["kernels"]
        return [Verdict(k, f["speedup"], base[k]["speedup"], same[0]["cpu"], f["time_ns"], base[k]["time_ns"])
                for k, f in now.items() if k in base]
    out = []
    for key, f in now.items():
        found = [Verdict(key, f["speedup"], b["kernels"][key]["speedup"], f"{b['cpu']} ({b['host_cpu']})")
                 for b in baselines if b["arch"] == identity["arch"] and key in b["kernels"]]
        if found:
            out.append(min(found, key=lambda v: v.change))
    return out
