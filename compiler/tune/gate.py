"""The gate every variant passes: run the worker (compile, verify, time)
with a time limit, then decide on the largest size. A variant that is wrong
anywhere is rejected before it is timed; one that is faster only within the
measured noise is not accepted, and one accepted for another reason than
speed (equal, with fewer lines) never leaves the result slower than the
original."""
from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..bench.harness import signal_name
from ..bench.suite import Size
from ..options import Options
from . import procs
from .outcome import Outcome
from .ratio import combined

MIN_GAIN = 0.005  # a variant must be at least 0.5 % faster beyond the noise
# "Equal" needs a measurement that can tell: a 95 % interval at most this wide, around a median
# no lower than 1 - EQUAL_WIDTH / 2 (under load, intervals of 0.4-2.8x once let a step measured at
# 0.46x through as equal)
# And a median at most MIN_GAIN below 1: with medians down to 0.95 allowed, dot_f32's search (4M,
# --quick) took 0.96-0.99x steps as equal, undid its unrolling for fewer lines, took it back as
# "faster", and had not stopped after 255 attempts.
EQUAL_WIDTH = 0.10
# A "faster" whose interval starts less than this far above 1 is measured a second time and kept
# only when that measurement's interval also lies above 1: one search compares hundreds of
# variants, so a 95 % interval lets a few in by chance (dot_f32, 4M, --quick: 13 accepted steps
# multiplied to 2.12x where the best measured 1.16x side by side at the end)
CONFIRM_BELOW = 0.03
RULES = 9  # the decision rules' version: part of the cache key, since cached decisions replay


@dataclass
class Evaluation:
    outcome: Outcome  # OK, WRONG, COMPILE_ERROR, CRASHED, TIMEOUT or ERROR
    reason: str = ""
    benches: dict = field(default_factory=dict)  # bench -> str(size) -> row (evaluate.time_sizes)
    facts: dict = field(default_factory=dict)  # function -> {"step", "bottleneck"}
    cpu: int | None = None  # the core the worker was pinned to

    def score_us(self, benches: list[str], sizes: dict[str, int]) -> float | None:
        """The variant's median µs at each tuned bench's largest size, summed."""
        try:
            return sum(self.benches[b][str(sizes[b])]["us"] for b in benches)
        except KeyError:
            return None


def run_worker(suite: Path, candidate: Path, incumbent: Path | None, tuned: list[str], options: Options,
               quick: bool, timeout_s: float, reference: bool = False, cancel=None, edges: bool = True,
               same_code: bool = True) -> Evaluation:
    """Raises bench.timing.Cancelled when `cancel` is set while the worker runs. With `same_code`,
    a candidate with the incumbent's machine code is a duplicate, not timed. The worker is
    pinned to one core (worker.pin_cpu) where the OS allows."""
    from .worker import pin_cpu
    with tempfile.TemporaryDirectory(prefix="ea-tune-") as tmp:
        req_path, result = Path(tmp) / "request.json", Path(tmp) / "result.json"
        req_path.write_text(json.dumps({
            "suite": str(suite), "candidate": str(candidate), "incumbent": str(incumbent) if incumbent else None,
            "tuned": tuned, "options": asdict(options), "quick": quick, "reference": reference,
            "edges": edges, "same_code": same_code, "result": str(result), "cpu": pin_cpu()}))
        try:
            code, _, err = procs.run([sys.executable, "-m", "ea_compiler.tune.worker", str(req_path)],
                                     timeout_s=timeout_s, cancel=cancel, keep_stdout=False)
        except procs.TimedOut:
            return Evaluation(Outcome.TIMEOUT, f"no result within {timeout_s:g} s (a hang or an endless loop?)")
        if code < 0:
            name = signal_name(-code)
            marker = result.with_suffix(".checking")
            if not marker.exists():
                return Evaluation(Outcome.CRASHED, f"the variant crashed the process ({name})")
            at = json.loads(marker.read_text())
            why = ("; the arrays end at an inaccessible page there, so it reads or writes past the end of one"
                   if at["guarded"] else "")
            return Evaluation(Outcome.CRASHED, f"{at['where']}: the variant crashed the process ({name}){why}",
                              facts={"guarded_crash": at["guarded"]})
        if code != 0 or not result.exists():
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            return Evaluation(Outcome.ERROR, f"the evaluation failed: {tail[0]}")
        data = json.loads(result.read_text())
    return Evaluation(Outcome(data["outcome"]), data.get("reason", ""), data.get("benches", {}), data.get("facts", {}),
                      data.get("cpu"))


@dataclass
class Decision:
    outcome: Outcome  # ACCEPTED, SLOWER or NOISE
    reason: str
    kind: str = ""  # of an acceptance: "faster", "smaller" (equal, faster at smaller sizes), "lines"


def decide(ev: Evaluation, benches: list[str], sizes: dict[str, Size], lines_before: int,
           lines_after: int, best_vs_original: float = 1.0) -> Decision:
    """Accept a gain of at least MIN_GAIN beyond the 95 % interval at the largest size of every
    tuned bench; or, at equal speed there, a gain as large at a smaller size with none of
    them slower in the median (the largest size still decides: a variant that only fits a cache
    better loses); or equal speed with fewer lines and no smaller size slower (dot_f32's search
    once traded unroll x8 for x2, 12 fewer lines, equal at 4M, with x8 at 30.5 µs and x2 at
    38.5 at 256K in the same run). Equal: the interval holds 1, is at most EQUAL_WIDTH wide,
    and the median is at most MIN_GAIN below 1.
    `best_vs_original`: the current best's ratio to the original (the accepted steps' ratios
    multiplied): an equal variant is accepted only when that chain times its own ratio stays at
    1 or above, so equal steps cannot add up to a slowdown."""
    mid, lo, hi, text = _largest(ev, benches, sizes)
    if lo >= 1 + MIN_GAIN:
        return Decision(Outcome.ACCEPTED, f"faster: {text}", "faster")
    if hi < 1.0:
        return Decision(Outcome.SLOWER, f"slower: {text}")
    vs_original = best_vs_original * mid
    drift = "" if vs_original >= 1.0 else \
        f"; equal, but it would leave the result at {vs_original:.3f}× the original"
    if not drift and (hi - lo > EQUAL_WIDTH or mid < 1 - EQUAL_WIDTH / 2):
        drift = f"; too noisy to call equal (interval wider than {EQUAL_WIDTH:.0%} or median below)"
    if not drift and mid < 1 - MIN_GAIN:
        drift = f"; {1 - mid:.1%} slower in the median, and equal means within {MIN_GAIN:.1%}"
    smaller = [(b, n, row) for b in benches for n, row in ev.benches[b].items() if n != str(sizes[b])]
    if not drift and smaller and all(row["ratio"] >= 1.0 and row["ratio_hi"] >= 1.0 for _, _, row in smaller) \
            and any(row["ratio_lo"] >= 1 + MIN_GAIN for _, _, row in smaller):
        gains = ", ".join(f"{Size.from_key(n).label} {row['ratio']:.2f}×" for _, n, row in smaller)
        return Decision(Outcome.ACCEPTED, f"equal at the largest size ({text}), faster at smaller sizes: {gains}",
                        "smaller")
    losses = [(n, row) for _, n, row in smaller if row["ratio_hi"] < 1.0 or row["ratio"] < 1 - MIN_GAIN]
    if not drift and lo <= 1.0 <= hi and lines_after < lines_before:
        if not losses:
            return Decision(Outcome.ACCEPTED, f"equal speed with {lines_before - lines_after} fewer lines: {text}",
                            "lines")
        drift = "; fewer lines, but slower at smaller sizes: " + ", ".join(
            f"{Size.from_key(n).label} {row['ratio']:.2f}×" for n, row in losses)
    return Decision(Outcome.NOISE, f"no gain of {MIN_GAIN:.1%} beyond the noise: {text}{drift}")


def _largest(ev: Evaluation, benches: list[str], sizes: dict[str, Size]) -> tuple[float, float, float, str]:
    """(ratio, low, high, text) of the tuned benches at their largest sizes."""
    rows = [ev.benches[b][str(sizes[b])] for b in benches]
    lo, hi, mid = min(r["ratio_lo"] for r in rows), max(r["ratio_hi"] for r in rows), combined(rows)
    return mid, lo, hi, f"{mid:.3f}× the current best (95 % interval {lo:.3f}–{hi:.3f})"


def needs_confirming(d: Decision, ev: Evaluation, benches: list[str], sizes: dict[str, Size]) -> bool:
    """A "faster" too close to the noise to stand on one measurement (CONFIRM_BELOW)."""
    return d.kind == "faster" and _largest(ev, benches, sizes)[1] < 1 + CONFIRM_BELOW


def confirmed(first: Decision, again: Evaluation, benches: list[str], sizes: dict[str, Size]) -> Decision:
    """A marginal "faster" after its second, independent measurement `again`: kept only when that
    interval also lies above 1."""
    if again.outcome != Outcome.OK:
        return Decision(Outcome.NOISE, f"{first.reason}; measured again: {again.outcome} ({again.reason})")
    _, lo, _, text = _largest(again, benches, sizes)
    if lo > 1.0:
        return Decision(Outcome.ACCEPTED, f"{first.reason}; measured again: {text}", "faster")
    return Decision(Outcome.NOISE, f"{first.reason}, but not in a second measurement: {text}")
