"""`import ea`: the Python loader API of the Eä toolchain (TOOLCHAIN.md §5).

    import ea
    k = ea.load("fma.ea")          # compiled once, cached in __eacache__/ beside the file
    k.fma_f32x8(a, b, c, out)      # NumPy arrays, checked like `ea bind --python`

A thin facade over `ea_compiler.loader`; importing it loads neither llvmlite
nor NumPy (they are imported when a kernel is first compiled or loaded).
"""
from __future__ import annotations

from ea_compiler import __version__
from ea_compiler.loader import (CompileError, CompileWarning, HostCPUError, Kernel, clear_cache, compile,  # noqa: A004
                             compiler_version, load)

__all__ = ["CompileError", "CompileWarning", "HostCPUError", "Kernel", "__version__", "clear_cache", "compile",
           "compiler_version", "load"]
