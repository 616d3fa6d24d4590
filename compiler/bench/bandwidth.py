"""The machine's memory bandwidth, measured in the same run as the benchmarks
by a STREAM-like triad `a[i] = b[i] + s * c[i]` written in Eä (triad.ea),
over arrays far larger than any cache. Counted like STREAM: 3 arrays × 4
bytes per element (the write-allocate read of `a` is not counted)."""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import numpy as np

from ..options import Options
from .inputs import place
from .timing import Budget, measure

TRIAD_SOURCE = Path(__file__).with_name("triad.ea")
BYTES_PER_ELEMENT = 12
SIZE = 16 << 20  # 192 MiB over three arrays
QUICK_SIZE = 4 << 20  # 48 MiB: still beyond a 32 MiB L3


def _source() -> Path:
    """triad.ea where the loader may write its cache beside it."""
    if os.access(TRIAD_SOURCE.parent, os.W_OK):
        return TRIAD_SOURCE
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ea-bench"
    home.mkdir(parents=True, exist_ok=True)
    copy = home / TRIAD_SOURCE.name
    if not copy.exists() or copy.read_bytes() != TRIAD_SOURCE.read_bytes():
        shutil.copyfile(TRIAD_SOURCE, copy)
    return copy


def measure_bandwidth(options: Options, quick: bool = False,
                      cancel: threading.Event | None = None) -> float:
    """Triad GB/s (median)."""
    from ..loader import load
    kernel = load(_source(), target=options.target_cpu, opt_level=options.opt_level, avx512=options.avx512)
    n = QUICK_SIZE if quick else SIZE
    rng = np.random.default_rng(7)
    a, b, c = place([np.zeros(n, np.float32), rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)])
    budget = Budget.quick() if quick else Budget(seconds=0.6)
    stats = measure({"triad": lambda: kernel.triad(a, b, c, 3.0)}, budget, cancel)["triad"]
    return BYTES_PER_ELEMENT * n / stats.median_ns
