"""The memory side of a prediction: cache sizes and the bytes per cycle each
level sustains, and the cycles a libm call costs, measured on this machine
(compiler/bench/calibrate.py, `ea bench --calibrate`) and cached per CPU.

The cache file is `$XDG_CACHE_HOME/ea-bench/calibration-<cpu>.json` (the
folder bandwidth.py copies triad.ea to). Without a calibration for the CPU
the figures are DEFAULT's, and the prediction says so (`memory` field)."""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ... import host_caches
from .frontend import DEFAULT_FETCH_CYCLES
from .model import LEVELS, Limit


@dataclass(frozen=True)
class MemoryModel:
    cache_bytes: dict[str, int]  # "L1", "L2", "L3" -> capacity of the level (per core for L1/L2)
    bytes_per_cycle: dict[str, float]  # "L1".."DRAM" -> sustained read bandwidth, bytes per core cycle
    ghz: float  # core frequency measured while the calibration ran
    call_cycles: float  # cycles one scalar libm call (expf) takes, call and return included
    source: str = "default (not calibrated)"
    extra: dict = field(default_factory=dict)
    # Access pattern -> level -> bytes per cycle, bytes read and written each counted once:
    # "read2" two read streams, "copy" one read and one write stream, "read2_write" two reads
    # and a write (a store's line is read for ownership and written back: stores cost more).
    # "<pattern>@16" (read@16, copy@16, ...): the same with every array 16 bytes past a 64-byte
    # line, so half of the 32-byte accesses cross a line (split_ratio).
    patterns: dict[str, dict[str, float]] = field(default_factory=dict)
    # Cycles one op-cache fetch takes (frontend.py): 1.0 on a Zen 3 core alone, 2.0-2.4 in a state
    # a shared VM enters and leaves; a calibration from before it was measured has the default.
    fetch_cycles: float = DEFAULT_FETCH_CYCLES
    # The working set (bytes) of the L3's second calibration, NEAR_L3 (its figures under the level
    # "L3near"); 0 where it was not measured: then the L3's one figure serves every set it holds.
    l3_near_bytes: int = 0

    def bandwidth(self, pattern: str, level: str) -> float:
        """Bytes per cycle `level` sustains for `pattern` ("read" = bytes_per_cycle); a pattern not
        calibrated is estimated from the read figure (RATIOS)."""
        if level == NEAR_L3 and NEAR_L3 not in self.bytes_per_cycle:
            level = "L3"
        if pattern == "read":
            return self.bytes_per_cycle[level]
        got = self.patterns.get(pattern, {}).get(level)
        return got if got else self.bytes_per_cycle[level] * RATIOS[pattern][_as_level(level)]

    def prefetch_ratio(self, level: str, distance: int, spacing: float) -> float:
        """How many times longer two streams take from `level` each prefetched `distance` bytes
        ahead, a prefetch every `spacing` bytes of a stream, than not prefetched: the calibration's
        grid (PREFETCH_DISTANCES x PREFETCH_SPACINGS), linear in log2 of both between its points,
        its edge beyond them; 1 where the level was not measured (L1, L2, an older calibration).
        AMD EPYC Zen 3 from DRAM, two streams, a prefetch every 128 bytes: 1.00 / 1.04 / 1.25 / 1.35 at
        256 / 512 / 1024 / 2048 bytes ahead; every 32 bytes: 0.98 / 0.97 / 1.06 / 1.12."""
        if level == NEAR_L3 and NEAR_L3 not in self.patterns.get(prefetch_pattern(PREFETCH_SPACINGS[0]), {}):
            level = "L3"
        rows = []
        for s in PREFETCH_SPACINGS:
            base = self.patterns.get(prefetch_pattern(s), {}).get(level)
            got = [self.patterns.get(prefetch_pattern(s, d), {}).get(level) for d in PREFETCH_DISTANCES]
            if not base or not all(got):
                return 1.0
            rows.append((s, _log_between(distance, [(d, base / g) for d, g in zip(PREFETCH_DISTANCES, got)])))
        return _log_between(spacing, rows)

    def l3_far_weight(self, working_set_bytes: int | None) -> float:
        """How much of a loop's L3 figure at this working set is the L3's far calibration (at
        L3_FAR of the L3) rather than its near one (l3_near_bytes): 0 up to the near set, 1 from the
        far one, linear in log2 of the working set between. The L3 of a shared, many-core part serves
        a small set faster than a large one (AMD EPYC Zen 3, 32 MiB L3, bytes per cycle of one read
        stream: 21.9 at 1 MiB, 19.8 at 2, 17.5 at 4, 12.8 at 8)."""
        far = self.cache_bytes["L3"] // L3_FAR
        if not self.l3_near_bytes or not working_set_bytes or far <= self.l3_near_bytes:
            return 1.0
        ratio = math.log2(working_set_bytes / self.l3_near_bytes) / math.log2(far / self.l3_near_bytes)
        return min(1.0, max(0.0, ratio))

    def split_ratio(self, pattern: str, level: str) -> float:
        """How many times longer `pattern`'s traffic takes in `level` with its arrays SPLIT_OFFSET
        bytes past a line (half of its 32-byte accesses cross a line) than line-aligned: measured
        where the calibration has it, else SPLIT_RATIOS; never below 1."""
        got = self.patterns.get(f"{pattern}@{SPLIT_OFFSET}", {}).get(level)
        if got:
            return max(1.0, self.bandwidth(pattern, level) / got)
        return SPLIT_RATIOS[pattern][_as_level(level)]

    def last_level_share(self, working_set_bytes: int | None) -> float:
        """The share of a loop's bytes the last-level cache still serves at this working set: 1 up
        to LLC_FULL of its capacity, 0 from LLC_NONE times it, falling with log2 of the working set
        in between. A shared L3 does not keep a working set near its own size (bench/l3_edge_bench.py:
        12 read-only loops on AMD EPYC Zen 3, 32 MiB L3, three runs; the share each measurement
        implies between the loop's L3 and DRAM figures, median at 0.5 / 0.75 / 1 / 1.5 times the
        L3: 0.78 / 0.31 / 0.22 / 0.05; this rule: 0.80 / 0.43 / 0.17 / 0)."""
        if not working_set_bytes:
            return 1.0
        ratio = working_set_bytes / self.cache_bytes["L3"]
        return min(1.0, max(0.0, 1.0 - math.log2(ratio / LLC_FULL) / math.log2(LLC_NONE / LLC_FULL)))

    def level(self, working_set_bytes: int | None) -> Limit:
        """The level the data lives in: the first that holds the working set."""
        if working_set_bytes is None:
            return Limit.L1
        for lv in (Limit.L1, Limit.L2, Limit.L3):
            if working_set_bytes <= self.cache_bytes[lv.value]:
                return lv
        return Limit.DRAM

    def bounds(self, level: Limit) -> tuple[int, int | None]:
        """The working sets (low, high] bytes that live in `level`."""
        sizes = [0] + [self.cache_bytes[lv.value] for lv in (Limit.L1, Limit.L2, Limit.L3)] + [None]
        k = LEVELS.index(level)
        return (sizes[k] + (1 if k else 0), sizes[k + 1])

    def to_json(self) -> dict:
        return asdict(self)


# The L3's two calibrations: at 1/L3_FAR of its size, and ("L3near") at NEAR_L2 times the L2's.
L3_FAR, NEAR_L2, NEAR_L3 = 4, 4, "L3near"


def _as_level(level: str) -> str:
    """The level whose estimates (RATIOS, SPLIT_RATIOS) serve `level`: the L3's for its near figure."""
    return "L3" if level == NEAR_L3 else level


# The prefetch calibration (MemoryModel.prefetch_ratio): two read streams from each level beyond L2,
# a trip moving PREFETCH_SPACINGS bytes of each, with each stream prefetched PREFETCH_DISTANCES
# bytes ahead and without (calibrate.ea read2s8pf, read2s32pf; bytes per cycle under
# prefetch_pattern's names).
PREFETCH_DISTANCES = (256, 512, 1024, 2048)
PREFETCH_SPACINGS = (32, 128)


def prefetch_pattern(spacing: int, distance: int | None = None) -> str:
    """The calibration's name of two streams moving `spacing` bytes each a trip, prefetched
    `distance` bytes ahead (None: not prefetched)."""
    return f"read2/{spacing}" + (f"+pf{distance}" if distance else "")


def _log_between(x: float, points: list[tuple[float, float]]) -> float:
    """y at x on the polyline through (x, y) `points` (x ascending), x on a log2 scale; the
    first or last y outside them."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * math.log2(x / x0) / math.log2(x1 / x0)
    return points[-1][1]


# The working sets, as fractions of the L3's size, up to which the L3 serves a loop's bytes and
# from which DRAM does (MemoryModel.last_level_share)
LLC_FULL, LLC_NONE = 0.4, 1.2

# Uncalibrated patterns relative to one read stream: in L1 one 256-bit store a cycle (Zen 3) against
# two loads; beyond, a store moves its line twice (read for ownership, write back).
RATIOS = {"read2": {"L1": 1.0, "L2": 1.0, "L3": 1.0, "DRAM": 1.0},
          "copy": {"L1": 0.75, "L2": 0.67, "L3": 0.67, "DRAM": 0.67},
          "read2_write": {"L1": 0.75, "L2": 0.75, "L3": 0.75, "DRAM": 0.75},
          "copy_nt": {"L1": 1.0, "L2": 1.0, "L3": 1.0, "DRAM": 1.0}}

# Where the arrays start, in bytes past a 64-byte line, is an input of the prediction: NumPy
# guarantees 16-byte alignment (its large arrays start 16 bytes past a page: malloc's mmap
# header), ea_compiler.bench.inputs.place puts them on a line. A 32-byte load or store that
# crosses a line takes two cache accesses; the calibration measures what that costs per pattern.
NUMPY_ALIGNMENT = 16
SPLIT_OFFSET = 16


def line_offset(alignment: int) -> int:
    """Bytes past a 64-byte line where arrays aligned to `alignment` bytes (and no more) start."""
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a power of two, not {alignment}")
    return alignment % 64

# Uncalibrated split ratios: AMD EPYC Zen 3 at half L1 (calibrate.ea kernels, 16 KiB, 16 vs 0 bytes
# past a line: read 63.2 -> 31.9 B/cycle, read2 59.2 -> 39.4, copy 62.3 -> 48.5, read2_write
# 93.6 -> 59.3); beyond L1 the line moves whole, within the noise of the measurement.
_BEYOND = {"L2": 1.0, "L3": 1.0, "DRAM": 1.0}
SPLIT_RATIOS = {"read": {"L1": 1.98, **_BEYOND}, "read2": {"L1": 1.5, **_BEYOND},
                "copy": {"L1": 1.28, **_BEYOND}, "read2_write": {"L1": 1.58, **_BEYOND},
                "copy_nt": {"L1": 1.0, **_BEYOND}}

# Zen 3-like figures, only for when nothing was measured (the prediction then reports `memory` as default).
DEFAULT = MemoryModel(cache_bytes={"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                      bytes_per_cycle={"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 5.0}, ghz=3.0, call_cycles=20.0)


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ea-bench"


def cpu_key() -> str:
    """The host CPU as a file name: `/proc/cpuinfo`'s model name and LLVM's name for it."""
    from ...bench.envinfo import cpu_model
    from ...codegen.target import host_cpu_name
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{cpu_model()}-{host_cpu_name()}").strip("-").lower()


def calibration_path() -> Path:
    return cache_dir() / f"calibration-{cpu_key()}.json"


def load_calibration() -> MemoryModel | None:
    """The host's calibration, if `ea bench --calibrate` (or `calibrate()`) has run on this CPU."""
    try:
        data = json.loads(calibration_path().read_text())
        return MemoryModel(**data)
    except (OSError, ValueError, TypeError):
        return None


def save_calibration(model: MemoryModel) -> Path:
    path = calibration_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.to_json(), indent=2) + "\n")
    return path


def host_cache_sizes() -> dict[str, int]:
    """Data-cache capacities from sysfs (Linux); DEFAULT's where it says nothing."""
    return {**DEFAULT.cache_bytes, **host_caches.host_cache_sizes()}
