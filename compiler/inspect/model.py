"""The inspect report: per function, per loop, per source line."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

from ..runtime_paths import RuntimePath


class Bottleneck(StrEnum):
    """What limits a loop (machine.py decides): the one spelling of each
    class. A `StrEnum`: JSON (`ea inspect --json`, the tuner's facts, bench
    results) keeps the plain strings."""
    MEMORY = "memory-bound"
    COMPUTE = "compute-bound"
    MIXED = "mixed"
    LATENCY = "latency-bound"
    CALL = "call-bound"  # the loop calls functions (libm `expf`, ...)


@dataclass
class Counts:
    instructions: int = 0
    vector: int = 0
    scalar: int = 0
    loads: int = 0
    stores: int = 0
    fma: int = 0
    bytes_loaded: int = 0
    bytes_stored: int = 0
    flops: int = 0


@dataclass
class Hint:
    code: str
    message: str
    line: int | None


@dataclass
class LoopReport:
    role: str  # "main", "copy" (of the main loop, one per alignment: compiler/codegen/ntloop.py), "tail" or "loop"
    first_line: int | None
    last_line: int | None
    header_line: int | None
    depth: int
    per_iteration: Counts
    elements_per_iteration: int | None
    bottleneck: Bottleneck
    mix: dict[str, int] = field(default_factory=dict)  # mnemonic -> count per iteration
    cycles: dict[str, float] = field(default_factory=dict)  # estimated cycles/iteration: memory, compute, latency
    chain: str | None = None  # the longest loop-carried chain, e.g. "ymm0: vmaxps -> vmovaps"
    llvm_vector_bits: int = 0  # widest vector LLVM made of scalar source code in this loop
    calls: dict[str, int] = field(default_factory=dict)  # callee -> calls per iteration (`expf`: libm)
    spills: int = 0  # stores to the stack frame per iteration (spills)
    reloads: int = 0  # loads from the stack frame per iteration (reloads)
    kernel_bytes: int = 0  # bytes the kernel moves per iteration: spills and reloads left out
    elements_any: int | None = None  # elements per iteration, scalar accesses counted too (a scalar loop's step)
    nontemporal: bool = False  # every store of the loop is non-temporal (a copy made for streaming stores)
    asm_line: int | None = None  # line of the assembly text where the loop's first instruction is


@dataclass
class AutoVector:
    """A loop whose scalar source code LLVM vectorised (the user wrote no vector type there)."""
    role: str
    first_line: int | None
    last_line: int | None
    width_bits: int
    width_type: str | None

    @property
    def text(self) -> str:
        """`tail at lines 17-18 vectorised by LLVM to 512-bit (f32x16)`"""
        lines = f" at lines {self.first_line}-{self.last_line}" if self.first_line else ""
        width = f"{self.width_bits}-bit" + (f" ({self.width_type})" if self.width_type else "")
        return f"{self.role}{lines} vectorised by LLVM to {width}"


@dataclass
class LineReport:
    line: int
    counts: Counts
    mix: dict[str, int]  # "vfmadd231ps ymm" -> count
    summary: str


@dataclass
class FunctionReport:
    name: str
    exported: bool
    counts: Counts
    width_bits: int  # widest vector register of the code the user wrote with vector types
    width_type: str | None  # the source's widest vector type there, e.g. "f32x8"
    loops: list[LoopReport]
    registers: list[str]
    hints: list[Hint]
    lines: dict[int, LineReport]
    inlined_into: list[str] = field(default_factory=list)  # private functions live in their callers
    auto_vectorised: list[AutoVector] = field(default_factory=list)
    runtime_paths: list[RuntimePath] = field(default_factory=list)  # choices the machine code makes as it runs
    prediction: object | None = None  # predict.FunctionPrediction when asked for (inspect_module(predict=True))

    @property
    def vector_width(self) -> str | None:
        if not self.width_bits:
            return None
        return f"{self.width_bits}-bit ({self.width_type})" if self.width_type else f"{self.width_bits}-bit"

    @property
    def main_loop(self) -> LoopReport | None:
        """The loop that matters for speed: the one marked main, else the first."""
        return next((lp for lp in self.loops if lp.role == "main"), self.loops[0] if self.loops else None)

    @property
    def tail_note(self) -> str | None:
        """What LLVM did to scalar code, e.g. `tail at lines 17-18 vectorised by LLVM to 512-bit (f32x16)`."""
        return "; ".join(a.text for a in self.auto_vectorised) or None


@dataclass
class InspectReport:
    path: str
    target: str
    functions: list[FunctionReport]

    def to_json(self) -> dict:
        data = asdict(self)
        for fn, src in zip(data["functions"], self.functions):
            fn["vector_width"] = src.vector_width
            fn["llvm_vectorised"] = src.tail_note
            fn["lines"] = {str(k): v for k, v in fn["lines"].items()}
            fn["runtime_paths"] = [p.to_json() for p in src.runtime_paths]
            fn["prediction"] = src.prediction.to_json() if src.prediction is not None else None
        return data
