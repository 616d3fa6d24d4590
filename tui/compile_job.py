"""One compilation for the UI, run in a worker thread; a request superseded
before it starts is skipped. (The compiler serialises its own use of LLVM,
so this may run while a benchmark loads its kernels.)
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ea_compiler import Options
from ea_compiler.tooling import Stages, explore

from .workspace import display_path

MAX_BYTES = 8 * 1024 * 1024


@dataclass
class CompileResult:
    generation: int
    path: Path
    options: Options
    stages: Stages | None
    read_error: str | None
    seconds: float


def compile_file(path: Path, options: Options, generation: int,
                 wanted: Callable[[], bool]) -> CompileResult | None:
    """Read and explore `path`; None when no longer wanted."""
    start = time.perf_counter()
    try:
        data = _read(path)
    except OSError as err:
        return CompileResult(generation, path, options, None, _reason(path, err), 0.0)
    if not wanted():
        return None
    try:
        stages = explore(data, str(path), options)
    except Exception as err:  # explore guards itself; this is the last line of defence
        if os.environ.get("EA_DEBUG"):
            raise
        return CompileResult(generation, path, options, None, f"internal error: {err}", 0.0)
    return CompileResult(generation, path, options, stages, None, time.perf_counter() - start)


def _read(path: Path) -> bytes:
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise OSError(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB")
    return data


def _reason(path: Path, err: OSError) -> str:
    return f"cannot read {display_path(path)}: {err.strerror or err}"
