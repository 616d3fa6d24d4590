"""`ea bench --calibrate`: what this machine's memory and calls cost, for
`ea inspect`'s predictions (compiler/inspect/predict/), measured once (a few
seconds) and cached per CPU (predict/memory.py says where).

* the core clock: a chain of dependent scalar additions (calibrate.ea
  `addchain`) takes the model's latency per addition (llvm-mca); time /
  cycles gives the frequency (`cpu MHz` of /proc/cpuinfo without a model);
* read bandwidth per level: `readsum` over an array half the size of L1,
  half of L2, four times L2 and a quarter of L3 (the L3's near and far
  figures: a shared L3 serves a small set faster), and four times L3 (DRAM),
  in bytes per cycle;
  and at the same working sets, split over the streams, the patterns of
  MemoryModel.patterns: two reads (`read2`), a read and a write (`copy1`),
  two reads and a write (`or2`), a read and a non-temporal write (`copynt1`),
  bytes read and written counted once; and
  each of these with the arrays 16 bytes past a cache line (`read@16`, ...:
  half of the 32-byte accesses cross a line, as with NumPy's arrays);
  and beyond L2, two read streams with and without a software prefetch of
  each some bytes ahead (`read2s8pf`, `read2s32pf`: one every 32 or 128
  bytes of a stream; a prefetch far ahead slows a stream from DRAM);
* a libm call: `expmap` (one `expf` per element), its measured cycles per
  iteration less the model's cycles for the rest of the loop, per call;
* an op-cache fetch (predict/frontend.py): `fetchloop`, a loop of four ops
  that takes one fetch a trip, its cycles per trip (the slope between two
  trip counts) over the fetches the rule gives its loops: 1.0 on a Zen 3
  core alone, 2.0-2.4 while (likely) the core's other hardware thread is busy.
  It is probed before the bandwidths too (bench/core_state.py): while the
  core is shared the calibration waits up to 20 s for it to clear, and one
  taken in that state does not replace a calibration taken alone.

Times are the thread's CPU time (time.thread_time_ns, as `ea bench --cycles`
measures: the moments another process has the core do not count), the 10th
percentile of the samples: what the machine can do, less what other
processes took from it."""
from __future__ import annotations

import threading

import numpy as np

from ..options import Options
from .calibrate_source import SOURCE, load_kernel
from .inputs import place
from .timing import Budget, measure

CHAIN_N = 1 << 20
# MemoryModel.patterns name -> (calibrate.ea function, read arrays, written arrays)
PATTERNS = {"read2": ("read2", 2, 0), "copy": ("copy1", 1, 1), "read2_write": ("or2", 2, 1),
            "copy_nt": ("copynt1", 1, 1)}
EXP_N = 1 << 14


def _fastest_ns(fn, seconds: float, cancel) -> float:
    return measure({"f": fn}, Budget(seconds=seconds, min_samples=5, max_samples=200, sample_ns=1e6,
                                      warmup_ns=5e6, cpu_time=True), cancel)["f"].p10_ns


def _bandwidths(k, ws: int, reps: int, rng, cancel) -> dict[str, float]:
    """Bytes per nanosecond of each pattern (readsum and PATTERNS) over arrays of ws bytes in
    all (on a cache line, ea_compiler.bench.inputs.place, and SPLIT_OFFSET bytes past one:
    `<name>@16`), timed in alternating turns so a busy spell on the machine lands on all of them."""
    from ..inspect.predict.memory import SPLIT_OFFSET
    calls, moved = {}, {}
    for name, (fn, reads, writes) in {"read": ("readsum", 1, 0), **PATTERNS}.items():
        streams = reads + writes
        n = ws // 4 // streams // 64 * 64
        values = [rng.integers(0, 1 << 31, n, dtype=np.int32) for _ in range(streams)]
        for key, offset in ((name, 0), (f"{name}@{SPLIT_OFFSET}", SPLIT_OFFSET)):
            calls[key] = (lambda f, a: lambda: f(*a, reps))(getattr(k, fn), place(values, offset))
            moved[key] = 4 * n * streams * reps
    stats = measure(calls, Budget(seconds=0.4, min_samples=5, max_samples=80, sample_ns=1e6, warmup_ns=5e6,
                                  cpu_time=True), cancel)
    return {name: moved[name] / stats[name].p10_ns for name in calls}


def _prefetched(k, ws: int, reps: int, rng, cancel) -> dict[str, float]:
    """Bytes per nanosecond of two read streams over arrays of ws bytes in all, a trip moving
    `spacing` bytes of each (PREFETCH_SPACINGS), as they are (`read2/<spacing>`) and with each
    stream prefetched PREFETCH_DISTANCES bytes ahead (`read2/<spacing>+pf<distance>`), in
    alternating turns."""
    from ..inspect.predict.memory import PREFETCH_DISTANCES, PREFETCH_SPACINGS, prefetch_pattern
    n = ws // 4 // 2 // 64 * 64
    arrays = place([rng.integers(0, 1 << 31, n, dtype=np.int32) for _ in range(2)])
    calls = {}
    for spacing in PREFETCH_SPACINGS:
        fn = f"read2s{spacing // 4}"
        calls[prefetch_pattern(spacing)] = (lambda f: lambda: f(*arrays, reps))(getattr(k, fn))
        for distance in PREFETCH_DISTANCES:
            calls[prefetch_pattern(spacing, distance)] = (
                lambda f, d: lambda: f(*arrays, reps, d))(getattr(k, fn + "pf"), distance // 4)
    stats = measure(calls, Budget(seconds=0.25, min_samples=5, max_samples=60, sample_ns=1e6, warmup_ns=5e6,
                                  cpu_time=True), cancel)
    return {name: 8 * n * reps / stats[name].p10_ns for name in calls}


def _loop_model(options: Options, name: str):
    """(main loop's prediction, its instruction mix) of a calibration kernel, with no call cost."""
    from ..inspect import inspect
    from ..inspect.predict.memory import DEFAULT, MemoryModel
    free_calls = MemoryModel(DEFAULT.cache_bytes, DEFAULT.bytes_per_cycle, DEFAULT.ghz, 0.0, "calibration")
    report = inspect(SOURCE.read_bytes(), str(SOURCE), options, predict=True, memory=free_calls, alignment=64)
    fr = next(f for f in report.functions if f.name == name)
    k = fr.loops.index(fr.main_loop)
    return fr.prediction.loops[k], fr.main_loop.mix, fr.prediction.rough


def _cpuinfo_ghz() -> float:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace"):
            if line.startswith("cpu MHz"):
                return float(line.partition(":")[2]) / 1000
    except (OSError, ValueError):
        pass
    return 3.0


def calibrate(options: Options | None = None, cancel: threading.Event | None = None, tell=lambda s: None):
    """Measure, save in the per-CPU cache and return the MemoryModel."""
    from ..inspect.predict.memory import (L3_FAR, NEAR_L2, NEAR_L3, PREFETCH_DISTANCES, PREFETCH_SPACINGS,
                                          MemoryModel, calibration_path, host_cache_sizes, load_calibration,
                                          prefetch_pattern, save_calibration)
    from .core_state import FetchProbe, calibration_verdict, wait_until_alone
    from .envinfo import cpu_model, timestamp
    options = options or Options()
    k = load_kernel(options)

    chain, mix, rough = _loop_model(options, "addchain")
    adds = mix.get("vaddss", 0) or mix.get("addss", 0) or 1
    chain_ns = _fastest_ns(lambda: k.addchain(1e-7, CHAIN_N), 0.5, cancel)
    if rough:
        ghz, how = _cpuinfo_ghz(), "cpu MHz of /proc/cpuinfo"
    else:
        ghz, how = chain.latency_cycles / adds * CHAIN_N / chain_ns, "add chain"
    tell(f"core clock: {ghz:.2f} GHz ({how})")
    probe = FetchProbe(options, ghz, k)
    at_start = wait_until_alone(probe, tell, cancel=cancel)

    sizes = host_cache_sizes()
    rng = np.random.default_rng(7)
    bpc: dict[str, float] = {}
    patterns: dict[str, dict[str, float]] = {}
    near = sizes["L2"] * NEAR_L2 if sizes["L2"] * NEAR_L2 < sizes["L3"] // L3_FAR else 0
    for level, ws in (("L1", sizes["L1"] // 2), ("L2", sizes["L2"] // 2), *([(NEAR_L3, near)] if near else []),
                      ("L3", sizes["L3"] // L3_FAR), ("DRAM", max(sizes["L3"] * 4, 64 << 20))):
        reps = max(1, (8 << 20) // ws)  # about 8 MB moved per call
        got = {name: round(gbs / ghz, 2) for name, gbs in _bandwidths(k, ws, reps, rng, cancel).items()}
        if level not in ("L1", "L2"):  # a prefetch into L1 of data in L2 or closer: nothing to measure
            got.update({name: round(gbs / ghz, 2) for name, gbs in _prefetched(k, ws, reps, rng, cancel).items()})
        bpc[level] = got.pop("read")
        for name, value in got.items():
            patterns.setdefault(name, {})[level] = value
        tell(f"{'L3 (near)' if level == NEAR_L3 else level} bytes/cycle at {ws >> 10} KiB: read {bpc[level]:.1f}, "
             + ", ".join(f"{name} {value:.1f}" for name, value in got.items() if "/" not in name))
        if any("/" in name for name in got):
            ratios = ("one per {} B: ".format(s) + ", ".join(
                f"{d} B ahead {got[prefetch_pattern(s)] / got[prefetch_pattern(s, d)]:.2f}" for d in PREFETCH_DISTANCES)
                for s in PREFETCH_SPACINGS)
            tell("  two streams prefetched, time against none: " + "; ".join(ratios))

    loop, _, rough = _loop_model(options, "expmap")
    calls = sum(loop.calls.values()) or 1
    x, out = place([rng.uniform(-5, 5, EXP_N).astype(np.float32), np.zeros(EXP_N, np.float32)])
    per_iter = _fastest_ns(lambda: k.expmap(x, out), 1.0, cancel) * ghz / (EXP_N / calls)
    call_cycles = round(max(per_iter - loop.latency_cycles, 1.0) / calls, 1)
    tell(f"libm call (expf): {call_cycles:.1f} cycles")
    fetch_cycles = probe.cycles(0.5, cancel)
    if fetch_cycles is not None:
        tell(f"front end: {fetch_cycles:.2f} cycles per op-cache fetch")
    model = MemoryModel(cache_bytes={lv: sizes[lv] for lv in ("L1", "L2", "L3")}, bytes_per_cycle=bpc,
                        ghz=round(ghz, 3), call_cycles=call_cycles, patterns=patterns, l3_near_bytes=near,
                        source=f"calibrated on {cpu_model()} {timestamp()[:10]}",
                        **({"fetch_cycles": fetch_cycles} if fetch_cycles is not None else {}))
    previous = load_calibration()
    save, verdict = calibration_verdict([at_start, fetch_cycles], previous, calibration_path())
    if verdict:
        tell(verdict)
    if not save:
        return previous
    path = save_calibration(model)
    tell(f"saved {path}")
    return model
