"""What `predict` tells about a loop: cycles per iteration at a working set,
the binding limit, the cycles if the data lived in each cache level, and
where each limit applies."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Limit(str, Enum):
    """What bounds a loop's iteration time."""
    PORTS = "ports"  # execution ports / issue width (the model's block throughput)
    LATENCY = "latency"  # a loop-carried dependency chain
    FRONT_END = "front end"  # op-cache fetches: 64-byte windows, 8 ops each (frontend.py)
    L1 = "L1"  # bandwidth of the cache level the data lives in
    L2 = "L2"
    L3 = "L3"
    DRAM = "DRAM"
    CALLS = "calls"  # time inside called functions (expf, other libm calls)


LEVELS = (Limit.L1, Limit.L2, Limit.L3, Limit.DRAM)


@dataclass(frozen=True)
class SizeRange:
    """Working sets from `low` to `high` bytes (high None: no upper bound) where `limit` binds."""
    limit: Limit
    low: int
    high: int | None
    cycles_per_iter: float  # at the level of the range's low end

    def to_json(self) -> dict:
        return {"limit": self.limit.value, "low": self.low, "high": self.high, "cycles_per_iter": self.cycles_per_iter}


@dataclass
class LoopPrediction:
    function: str
    index: int  # 1-based, the row of the loop in `ea inspect`'s loop table
    label: str | None  # the assembly label of the loop header, e.g. ".LBB0_2"
    role: str  # "main", "copy", "tail" or "loop" (as in the inspect report)
    first_line: int | None  # source lines the loop's instructions come from
    last_line: int | None
    header_line: int | None
    elements_per_iter: int | None
    cycles_per_iter: float  # at the working set asked about (L1-resident when none was given)
    limit: Limit  # what binds at that working set
    level: Limit  # where the data lives at that working set (L1..DRAM)
    ports_cycles: float  # issue/port throughput of one iteration (model's block reciprocal throughput)
    latency_cycles: float  # simulated steady-state cycles/iter including carried dependencies
    call_cycles: float  # cycles/iter spent inside the called functions
    bytes_per_iter: int  # memory traffic of the kernel (spills and reloads excluded)
    by_level: dict[str, float]  # cycles/iter if the data lived in "L1", "L2", "L3", "DRAM"
    ranges: list[SizeRange]  # the size ranges where each limit binds, smallest first
    calls: dict[str, int] = field(default_factory=dict)  # callee -> calls per iteration
    spills: int = 0  # stores to the stack frame per iteration
    reloads: int = 0  # loads from the stack frame per iteration
    ports: dict[str, float] = field(default_factory=dict)  # port/resource -> cycles busy per iteration
    chain: str | None = None  # the longest carried chain, e.g. "ymm0: vfmadd231ps"
    model: str = ""  # e.g. "llvm-mca 14 znver3", or "rough" when no model was available
    rough: bool = False  # True: the fallback estimate (machine.py), not a machine model
    fetches: int | None = None  # op-cache fetches per iteration (frontend.py); None: placement not known
    front_end_cycles: float = 0.0  # fetches x the machine's cycles per fetch
    prefetch_ahead: list[int] = field(default_factory=list)  # bytes each prefetched stream is prefetched ahead
    # level ("L3near", "L3", "DRAM") -> how many times longer the loop's bytes take there with its
    # prefetches than without (calibrated; levels where nothing changes left out)
    prefetch_slowdown: dict[str, float] = field(default_factory=dict)
    # FMAs whose share of the store-data pipe makes it the loop's port bound (pipes.py); 0: it does not bind
    store_data_fmas: int = 0

    def to_json(self) -> dict:
        data = {k: v for k, v in vars(self).items() if k not in ("ranges", "limit", "level")}
        data["limit"], data["level"] = self.limit.value, self.level.value
        data["ranges"] = [r.to_json() for r in self.ranges]
        return data


@dataclass
class FunctionPrediction:
    name: str
    working_set_bytes: int | None
    loops: list[LoopPrediction]
    model: str
    rough: bool
    memory: str  # where the bandwidths came from: "calibrated <cpu> <date>" or "default (not calibrated)"
    alignment: int = 16  # the arrays' start alignment the prediction is for (NumPy's 16; 64: on a line)

    @property
    def main(self) -> LoopPrediction | None:
        return next((lp for lp in self.loops if lp.role == "main"), self.loops[0] if self.loops else None)

    def to_json(self) -> dict:
        return {"name": self.name, "working_set_bytes": self.working_set_bytes, "alignment": self.alignment,
                "model": self.model,
                "rough": self.rough, "memory": self.memory, "loops": [lp.to_json() for lp in self.loops]}
