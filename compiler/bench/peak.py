"""The machine's measured floating-point peak: GFLOP/s of an Eä kernel that
does nothing but independent f32 FMAs in registers (fma_peak.ea: 12 chains
of f32x8, or of f32x16 with --avx512), compiled by our `ea` for the host. A
compute-bound kernel's GFLOP/s is shown as a fraction of it.

Measured once per CPU and build (CPU model, LLVM's CPU name, target
features, opt level, compiler version) and kept in
`$XDG_CACHE_HOME/ea-bench/peak.json` (default `~/.cache`): the fastest
samples of a short run, since other processes only ever slow it down."""
from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

from ..options import Options
from ..version import __version__
from .timing import Budget, measure

SOURCES = {False: Path(__file__).with_name("fma_peak.ea"), True: Path(__file__).with_name("fma_peak512.ea")}
CHAINS = 12
ITERATIONS = 100_000


def flops_per_call(avx512: bool) -> int:
    lanes = 16 if avx512 else 8
    return ITERATIONS * CHAINS * lanes * 2


def cache_file() -> Path:
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "ea-bench" / "peak.json"


def cache_key(options: Options) -> str:
    from .cpuid import cpu_identity
    from .envinfo import target_features
    ident = cpu_identity()
    return "|".join([ident["slug"], options.target_cpu, target_features(options) or "-",
                     f"O{options.opt_level}", __version__])


def peak_gflops(options: Options, cancel: threading.Event | None = None, measure_fn=None) -> float:
    """The FMA peak in GFLOP/s: from the cache, else measured (by `measure_fn(options)`,
    default `measure_peak`) and cached."""
    key = cache_key(options)
    path = cache_file()
    known = _read(path)
    if isinstance(known.get(key), (int, float)) and known[key] > 0:
        return float(known[key])
    value = (measure_fn or measure_peak)(options, cancel)
    known = _read(path)  # another run may have written meanwhile
    known[key] = round(value, 3)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".peak-", suffix=".json")
        with os.fdopen(fd, "w") as fh:
            json.dump(known, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: measured again next time
    return value


def measure_peak(options: Options, cancel: threading.Event | None = None) -> float:
    from ..loader import load
    avx512 = bool(options.avx512)
    kernel = load(_source(SOURCES[avx512]), target=options.target_cpu, opt_level=options.opt_level,
                  avx512=options.avx512)
    x = np.linspace(0.5, 0.6, 16, dtype=np.float32)
    x[0], x[1] = 0.999, 0.001  # chains that converge instead of overflowing
    stats = measure({"fma": lambda: kernel.fma_peak(x, ITERATIONS)},
                    Budget(seconds=0.3, min_samples=15, max_samples=200, sample_ns=2e6, warmup_ns=2e7),
                    cancel)["fma"]
    return flops_per_call(avx512) / min(stats.samples)


def _source(path: Path) -> Path:
    """The kernel where the loader may write its cache beside it."""
    if os.access(path.parent, os.W_OK):
        return path
    copy = cache_file().parent / path.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    if not copy.exists() or copy.read_bytes() != path.read_bytes():
        copy.write_bytes(path.read_bytes())
    return copy


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
