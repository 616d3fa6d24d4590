"""The x86 instruction-set extensions of the CPU names `--target` accepts
without probing LLVM, and the host's, read without loading LLVM.

Code generation (compiler/codegen/features.py) checks intrinsics against
these levels; the analysis uses them to tell when a vector type is wider
than the target's registers (compiler/check/lint_widths.py).
"""
from __future__ import annotations

import functools

BASE = frozenset({"sse", "sse2"})
_V2 = BASE | {"sse3", "ssse3", "sse4.1", "sse4.2"}
_AVX = _V2 | {"avx"}
_AVX_F16C = _AVX | {"f16c"}
_V3 = _AVX_F16C | {"avx2", "fma"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}

CPU_LEVELS = {
    "x86-64": BASE, "generic": BASE, "k8": BASE, "core2": BASE | {"sse3", "ssse3"},
    "nehalem": _V2, "westmere": _V2, "x86-64-v2": _V2, "btver2": _AVX_F16C,
    "sandybridge": _AVX, "ivybridge": _AVX_F16C,
    "haswell": _V3, "broadwell": _V3, "skylake": _V3, "alderlake": _V3, "raptorlake": _V3,
    "meteorlake": _V3, "znver1": _V3, "znver2": _V3, "znver3": _V3, "x86-64-v3": _V3,
    "skylake-avx512": _V4, "cascadelake": _V4, "cooperlake": _V4, "cannonlake": _V4,
    "icelake-client": _V4, "icelake-server": _V4, "tigerlake": _V4, "sapphirerapids": _V4,
    "emeraldrapids": _V4, "graniterapids": _V4, "znver4": _V4, "znver5": _V4, "x86-64-v4": _V4,
}

# /proc/cpuinfo spells a few features differently from LLVM.
_CPUINFO_NAMES = {"sse4_1": "sse4.1", "sse4_2": "sse4.2", "pni": "sse3"}


@functools.cache
def host_features_from_os() -> frozenset[str] | None:
    """The host's x86 features as the kernel reports them (Linux), or None
    where that is not available."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.partition(":")[2].split()
                    return frozenset(_CPUINFO_NAMES.get(x, x) for x in flags)
    except OSError:
        return None
    return None
