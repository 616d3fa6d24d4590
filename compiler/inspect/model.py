"""The inspect report: per function, per loop, per source line."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


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
    role: str  # "main", "tail" or "loop"
    first_line: int | None
    last_line: int | None
    header_line: int | None
    depth: int
    per_iteration: Counts
    elements_per_iteration: int | None
    bottleneck: str  # "memory-bound", "compute-bound" or "mixed"
    mix: dict[str, int] = field(default_factory=dict)  # mnemonic -> count per iteration


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
    width_bits: int
    width_type: str | None  # e.g. "f32x8"
    loops: list[LoopReport]
    registers: list[str]
    hints: list[Hint]
    lines: dict[int, LineReport]
    inlined_into: list[str] = field(default_factory=list)  # private functions live in their callers

    @property
    def vector_width(self) -> str | None:
        if not self.width_bits:
            return None
        return f"{self.width_bits}-bit ({self.width_type})" if self.width_type else f"{self.width_bits}-bit"


@dataclass
class InspectReport:
    path: str
    target: str
    functions: list[FunctionReport]

    def to_json(self) -> dict:
        data = asdict(self)
        for fn, src in zip(data["functions"], self.functions):
            fn["vector_width"] = src.vector_width
            fn["lines"] = {str(k): v for k, v in fn["lines"].items()}
        return data
