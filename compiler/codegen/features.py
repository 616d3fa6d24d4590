"""Which x86 instruction-set extensions the selected CPU has.

LLVM aborts the whole process when asked to select an x86 intrinsic the
CPU lacks (e.g. vpshufb ymm with --target=x86-64), so codegen checks first
and reports a clear error at the call instead. Native: the host's features;
a named CPU: its level in the table below; --avx512 adds AVX-512 F/VL/BW.
"""
from __future__ import annotations

import functools

import llvmlite.binding as llvm

from ..options import Options

_BASE = frozenset({"sse", "sse2"})
_V2 = _BASE | {"sse3", "ssse3", "sse4.1", "sse4.2"}
_AVX = _V2 | {"avx"}
_AVX_F16C = _AVX | {"f16c"}
_V3 = _AVX_F16C | {"avx2", "fma"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}

_CPU_LEVELS = {
    "x86-64": _BASE, "generic": _BASE, "k8": _BASE, "core2": _BASE | {"sse3", "ssse3"},
    "nehalem": _V2, "westmere": _V2, "x86-64-v2": _V2, "btver2": _AVX_F16C,
    "sandybridge": _AVX, "ivybridge": _AVX_F16C,
    "haswell": _V3, "broadwell": _V3, "skylake": _V3, "alderlake": _V3, "raptorlake": _V3,
    "meteorlake": _V3, "znver1": _V3, "znver2": _V3, "znver3": _V3, "x86-64-v3": _V3,
    "skylake-avx512": _V4, "cascadelake": _V4, "cooperlake": _V4, "cannonlake": _V4,
    "icelake-client": _V4, "icelake-server": _V4, "tigerlake": _V4, "sapphirerapids": _V4,
    "emeraldrapids": _V4, "graniterapids": _V4, "znver4": _V4, "znver5": _V4, "x86-64-v4": _V4,
}

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
        found = _CPU_LEVELS.get(options.target_cpu, _BASE)
    if options.avx512:
        found = found | {"avx512f", "avx512vl", "avx512bw"}
    return found


def known_cpu(options: Options) -> bool:
    """A CPU name in the table above (x86): safe to hand to LLVM without probing it."""
    return not options.is_arm and options.target_cpu in _CPU_LEVELS


def cpu_label(options: Options) -> str:
    return "the host CPU" if options.target_cpu in ("", "native") else f"--target={options.target_cpu}"
