"""The sizes a cycles-per-iteration measurement uses: an L1-resident pair
and a DRAM-sized n, chosen by the bytes the bench's arguments take at n
(the arrays are made with zeros to count them: no random data is drawn)."""
from __future__ import annotations

import dataclasses

from ..host_caches import host_cache_sizes
from .inputs import make_args
from .suite import ArraySpec, BenchError, BenchSpec

L1_FILL = 0.75  # of the L1 data cache, for the larger of the L1 pair
L1_SMALL = 1 / 6  # the smaller of the pair, as a fraction of the larger n
DRAM_FACTOR = 4  # DRAM size: this many times the last-level cache
_DEFAULT_L1, _DEFAULT_LLC = 32 << 10, 32 << 20
_MAX_N = 1 << 30


def cache_sizes() -> tuple[int, int]:
    """(L1 data, last level) cache bytes of CPU 0, from sysfs; 32 KiB and 32 MiB where unknown."""
    sizes = host_cache_sizes()
    return sizes.get("L1", _DEFAULT_L1), sizes.get("L3") or sizes.get("L2") or _DEFAULT_LLC


def working_set(spec: BenchSpec, n: int) -> int:
    """Bytes of the bench's array arguments at n."""
    cheap = dataclasses.replace(spec, args={
        k: dataclasses.replace(v, dist="zeros") if isinstance(v, ArraySpec) and not isinstance(v.dtype, str) else v
        for k, v in spec.args.items()})
    if any(isinstance(v, ArraySpec) and isinstance(v.dtype, str) for v in spec.args.values()):
        raise BenchError(f"[[bench]] {spec.name}: struct arguments are not sized for cycle measurements")
    return sum(v.nbytes for v in make_args(cheap, n).values() if hasattr(v, "nbytes"))


def _candidates() -> list[int]:
    out, k = [], 16
    while k <= _MAX_N:
        out += [k, k * 3 // 2]
        k *= 2
    return out


def largest_within(spec: BenchSpec, limit: int, multiple: int = 1) -> int | None:
    """The largest candidate n (powers of two and 1.5x them, a multiple of
    `multiple`) whose working set is at most `limit` bytes."""
    best = None
    for n in _candidates():
        if n % multiple:
            continue
        if working_set(spec, n) > limit:
            break
        best = n
    return best


def smallest_beyond(spec: BenchSpec, limit: int, multiple: int = 1) -> int | None:
    return next((n for n in _candidates() if n % multiple == 0 and working_set(spec, n) >= limit), None)


def choose(spec: BenchSpec, elements_per_iteration: int) -> dict[str, list[int]]:
    """{"L1": [small, large], "DRAM": [n]} (a class is missing when no size fits); the suite's
    `cycle_sizes` where it gives them."""
    if spec.cycle_sizes:
        return dict(spec.cycle_sizes)
    l1, llc = cache_sizes()
    step = max(1, elements_per_iteration)
    out: dict[str, list[int]] = {}
    large = largest_within(spec, int(l1 * L1_FILL), step)
    small = next((n for n in reversed(_candidates()) if n % step == 0 and n <= (large or 0) * L1_SMALL), None)
    if large and small:
        out["L1"] = [small, large]
    dram = smallest_beyond(spec, llc * DRAM_FACTOR, step)
    if dram:
        out["DRAM"] = [dram]
    return out
