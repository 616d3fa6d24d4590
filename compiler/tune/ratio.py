"""How much faster, measured: the ratio of two implementations' median times
(the incumbent's over the variant's: above 1 the variant is faster), with a
95 % bootstrap interval around it, and how noisy a run of samples was.

One definition serves every figure `ea tune` shows (a step's verdict, the
live best, the final table): a ratio of medians. Its interval comes from
resampling the rounds of the measurement (a round times both in turn, so a
round's two samples are resampled together), which keeps both bounds
positive and the ratio itself inside them."""
from __future__ import annotations

import numpy as np

LEVEL = 0.95
RESAMPLES = 2000


def ratio_interval(variant: list[float], incumbent: list[float], seed: int = 0) -> tuple[float, float, float]:
    """(ratio, low, high): median(incumbent) / median(variant) and its 95 % interval.
    The samples are per-call times of the same rounds, in order; seeded, so the same
    samples give the same interval."""
    n = min(len(variant), len(incumbent))
    if n == 0:
        raise ValueError("no samples")
    v = np.maximum(np.asarray(variant[:n], dtype=np.float64), 1e-9)
    i = np.maximum(np.asarray(incumbent[:n], dtype=np.float64), 1e-9)
    mid = float(np.median(i) / np.median(v))
    if n == 1:
        return mid, mid, mid
    picks = np.random.default_rng(seed).integers(0, n, (RESAMPLES, n))
    ratios = np.median(i[picks], axis=1) / np.median(v[picks], axis=1)
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(ratios, [tail, 100 - tail])
    return mid, min(float(lo), mid), max(float(hi), mid)


def spread(samples: list[float]) -> float:
    """The noise of a run of samples: half its 10th–90th percentile range, relative to the median
    (0.05: the middle 80 % of the samples lie within about ±5 % of it)."""
    if not samples:
        return 0.0
    p10, med, p90 = np.percentile(np.asarray(samples, dtype=np.float64), [10, 50, 90])
    return float((p90 - p10) / 2 / med) if med > 0 else 0.0


def combined(rows: list[dict]) -> float:
    """Several benches' ratio at their largest sizes as one: the sum of the incumbent's
    medians over the sum of the variant's (a weighted mean of the ratios, so within
    the lowest and highest of them, and so within their intervals)."""
    return sum(r["incumbent_us"] for r in rows) / sum(r["us"] for r in rows)
