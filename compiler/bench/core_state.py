"""Whether the core runs as it did when it was calibrated.

A Zen core's op-cache fetch (predict/frontend.py) takes about 1 cycle while
this thread has the core to itself and 2.0-2.4 while the core's other
hardware thread is busy (on a virtual machine: another guest's vCPU on the
same core). In that state the other per-core rates drop too: L1 reads
measured 54.7 bytes per cycle instead of 63.1 on the Zen 3 host this was
found on. A calibration taken then is wrong for the quiet state that most
measurements see. A measurement taken then cannot be compared with a
prediction from a quiet calibration.

The fetch is the cheapest clear signal of that state. `FetchProbe` times it
(0.3-0.5 s) without compiling again: `fetchloop` of calibrate.ea, the
calibration's own measure of the fetch (its `fetch_cycles`). It gives no figure where the fetch rule
has no placement for the target (not a Zen core), and then no note is made."""
from __future__ import annotations

import functools
import threading
import time

import numpy as np

from ..options import Options
from .calibrate_source import SOURCE, load_kernel
from .inputs import place
from .timing import Budget, measure

SHARED_FETCH = 1.5  # cycles per fetch above which the core is taken as shared (1.0 alone, 2.0-2.4 shared)
STEADY = 0.15  # probes within this fraction of the calibration's figure: measured in the calibration's state
WAIT_SECONDS = 20.0
FETCH_N = (256, 2048)  # i32 elements of fetchloop's array: trips of 32 and 256 (8 KiB, in L1)
FETCH_REPS = 1024  # a multiple of 8: LLVM unrolls the repetitions eight times, each copy a loop of its own


@functools.lru_cache(maxsize=8)  # a run of many suites (predict_bench) probes around each: inspect once
def fetches_per_trip(options: Options) -> float | None:
    """The op-cache fetches one trip of `fetchloop` takes by the rule (predict/frontend.py): the
    mean over the copies of its loop that LLVM made unrolling the repetitions (each is one fetch
    unless it crosses a 64-byte window). None where the rule has no placement for the code (not a
    Zen target, no disassembler): the default stays."""
    from ..inspect import inspect
    from ..inspect.predict.memory import DEFAULT
    report = inspect(SOURCE.read_bytes(), str(SOURCE), options, predict=True, memory=DEFAULT, alignment=64)
    fr = next(f for f in report.functions if f.name == "fetchloop")
    inner = [lp.fetches for lp, rep in zip(fr.prediction.loops, fr.loops) if rep.depth >= 1 and lp.fetches]
    return sum(inner) / len(inner) if inner else None


def fetch_cycles(k, fetches: float, ghz: float, rng, cancel, seconds: float = 0.5) -> float:
    """Cycles per op-cache fetch: `fetchloop`'s cycles per trip (the slope between two trip counts)
    over the fetches its trip takes (`fetches_per_trip`)."""
    a = place([rng.integers(0, 1 << 31, FETCH_N[1], dtype=np.int32)])[0]
    calls = {str(n): (lambda x: lambda: k.fetchloop(x, FETCH_REPS))(a[:n]) for n in FETCH_N}  # n: the length of x
    stats = measure(calls, Budget(seconds=seconds, min_samples=5, max_samples=100, sample_ns=1e6, warmup_ns=5e6,
                                  cpu_time=True), cancel)
    trips = FETCH_REPS * (FETCH_N[1] - FETCH_N[0]) / 8
    per_trip = (stats[str(FETCH_N[1])].p10_ns - stats[str(FETCH_N[0])].p10_ns) * ghz / trips
    return round(per_trip / fetches, 2)


class FetchProbe:
    """Times `fetchloop` of calibrate.ea, compiled and placed by the rule once."""

    def __init__(self, options: Options, ghz: float, kernel=None):
        self.options, self.ghz, self._kernel = options, ghz, kernel
        self.fetches = fetches_per_trip(options)
        self._rng = np.random.default_rng(7)

    def cycles(self, seconds: float = 0.3, cancel: threading.Event | None = None) -> float | None:
        """Cycles per op-cache fetch now; None without a placement rule for the target."""
        if self.fetches is None:
            return None
        if self._kernel is None:
            self._kernel = load_kernel(self.options)
        return fetch_cycles(self._kernel, self.fetches, self.ghz, self._rng, cancel, seconds)


def is_shared(fetch: float | None) -> bool:
    return fetch is not None and fetch > SHARED_FETCH


def shared_text(fetch: float) -> str:
    return (f"the core was shared with a busy hardware thread (op-cache fetch {fetch:.2f} cycles; "
            "about 1.0 when the core is not shared)")


def wait_until_alone(probe: FetchProbe, tell, seconds: float = WAIT_SECONDS,
                     cancel: threading.Event | None = None, sleep=time.sleep) -> float | None:
    """Probe until the core is not shared or `seconds` have passed; the last figure."""
    fetch = probe.cycles(cancel=cancel)
    if is_shared(fetch):
        tell(f"{shared_text(fetch).replace('was', 'is', 1)}: waiting up to {seconds:.0f} s for it to clear")
    deadline = time.monotonic() + seconds
    while is_shared(fetch) and time.monotonic() < deadline and not (cancel is not None and cancel.is_set()):
        sleep(1.0)
        fetch = probe.cycles(cancel=cancel)
    return fetch


def drift_note(probes: list[float | None], calibrated: float | None) -> str | None:
    """A note for a measurement whose probes (before and after) are more than STEADY away from
    the calibration's cycles per fetch; None when they agree or nothing was probed."""
    seen = [p for p in probes if p is not None]
    if not seen or not calibrated or calibrated <= 0:
        return None
    worst = max(seen, key=lambda p: abs(p / calibrated - 1))
    if abs(worst / calibrated - 1) <= STEADY:
        return None
    figures = "/".join(f"{p:.2f}" for p in seen)
    if worst > calibrated:
        why = ("the core was likely shared with a busy hardware thread, so the measured cycles "
               "can be up to twice the quiet machine's")
    else:
        why = "the calibration was likely taken while the core was shared: run `ea bench --calibrate` again"
    return f"op-cache fetch {figures} cycles during the measurement, {calibrated:g} in the calibration: {why}"


def calibration_verdict(probes: list[float | None], previous, path) -> tuple[bool, str | None]:
    """(save, what to tell) for a calibration whose fetch probes were `probes`: one taken while
    the core was shared does not replace `previous` (the calibration saved at `path`, or None)
    when that was taken alone; without such a one it is saved, with a warning."""
    shared = max((f for f in probes if is_shared(f)), default=None)
    if shared is None:
        return True, None
    if previous is not None and not is_shared(previous.fetch_cycles):
        return False, (f"not saved: {shared_text(shared)}, so these figures are not the machine's own; "
                       f"kept {path} ({previous.source}). Run again when the machine is idle, "
                       "or delete that file to keep a calibration taken in this state.")
    return True, f"warning: {shared_text(shared)}: these figures are lower than the machine's own; run again when it is idle"
