"""Which x86 instruction-set extensions the selected CPU has.

LLVM aborts the whole process when asked to select an x86 intrinsic the
CPU lacks (e.g. vpshufb ymm with --target=x86-64), so codegen checks first
and reports a clear error at the call instead. Native: the host's features;
a named CPU: its level in compiler/cpu_levels.py; --avx512 adds AVX-512 F/VL/BW.
"""
from __future__ import annotations

import functools

import llvmlite.binding as llvm

from ..cpu_levels import BASE, CPU_LEVELS
from ..options import Options

# The feature an `llvm.x86.<group>.*` intrinsic needs, by its group name.
INTRINSIC_GROUP_FEATURE = {"sse": "sse", "sse2": "sse2", "ssse3": "ssse3", "sse41": "sse4.1",
                           "avx": "avx", "avx2": "avx2", "avx512": "avx512bw"}


@functools.cache
def _host() -> frozenset[str]:
    return frozenset(name for name, on in llvm.get_host_cpu_features().items() if on)


def x86_features(options: Options) -> frozenset[str]:
    if options.target_cpu in ("", "native") and not options.target_triple:
        found = _host()
    else:
        found = CPU_LEVELS.get(options.target_cpu, BASE)
    if options.avx512:
        found = found | {"avx512f", "avx512vl", "avx512bw"}
    return found


def known_cpu(options: Options) -> bool:
    """A CPU name in the table of levels (x86): safe to hand to LLVM without probing it."""
    return not options.is_arm and options.target_cpu in CPU_LEVELS


def cpu_label(options: Options) -> str:
    return "the host CPU" if options.target_cpu in ("", "native") else f"--target={options.target_cpu}"
