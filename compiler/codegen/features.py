"""Which x86 instruction-set extensions the selected CPU has.

LLVM aborts the whole process when asked to select an x86 intrinsic the
CPU lacks (e.g. vpshufb ymm with --target=x86-64), so codegen checks first
and reports a clear error at the call instead. Native: the host's features;
a named CPU: its level in compiler/cpu_levels.py; --avx512 adds AVX-512 F/VL/BW.
"""
from __future__ import annotations

import functools

import llvmlite.binding as llvm

from ..cpu_levels import (BASE, CPU_LEVELS, cpu_label, is_native, native_override,  # noqa: F401 (cpu_label: re-exported)
                          target_features)
from ..options import Options

# The feature an `llvm.x86.<group>.*` intrinsic needs, by its group name.
INTRINSIC_GROUP_FEATURE = {"sse": "sse", "sse2": "sse2", "ssse3": "ssse3", "sse41": "sse4.1",
                           "avx": "avx", "avx2": "avx2", "avx512": "avx512bw"}


@functools.cache
def _host() -> frozenset[str]:
    return frozenset(name for name, on in llvm.get_host_cpu_features().items() if on)


def x86_features(options: Options) -> frozenset[str]:
    """As the front end sees them (cpu_levels.target_features), except that the
    host's come from LLVM itself, and a CPU outside the table counts as the
    baseline: refusing is safe, selecting a missing instruction aborts LLVM."""
    if is_native(options) and not options.target_triple and native_override() is None:
        return _host() | ({"avx512f", "avx512vl", "avx512bw"} if options.avx512 else frozenset())
    found = target_features(options)
    if found is None:
        found = BASE | ({"avx512f", "avx512vl", "avx512bw"} if options.avx512 else frozenset())
    return found


def known_cpu(options: Options) -> bool:
    """A CPU name in the table of levels (x86): safe to hand to LLVM without probing it."""
    return not options.is_arm and options.target_cpu in CPU_LEVELS
