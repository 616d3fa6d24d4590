"""The x86 instruction-set extensions of the CPU names `--target` accepts
without probing LLVM, and the host's, read without loading LLVM.

Code generation (compiler/codegen/features.py) checks intrinsics against
these levels; the analysis uses them to tell when a vector type is wider
than the target's registers (compiler/check/lint_widths.py) and whether the
CPU has the VNNI dot products (compiler/intrinsics/vnni.py).
"""
from __future__ import annotations

import functools
import platform

from .options import Options

BASE = frozenset({"sse", "sse2"})
_V2 = BASE | {"sse3", "ssse3", "sse4.1", "sse4.2"}
_AVX = _V2 | {"avx"}
_AVX_F16C = _AVX | {"f16c"}
_V3 = _AVX_F16C | {"avx2", "fma"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}
# VNNI dot products: AVX512-VNNI (EVEX; 128/256-bit forms with AVX512-VL) and
# AVX-VNNI (VEX, 128/256-bit only). LLVM's CPU definitions say which has which.
_ADL = _V3 | {"avxvnni"}
_V4_VNNI = _V4 | {"avx512vnni"}
_BOTH_VNNI = _V4_VNNI | {"avxvnni"}
# AMD's SSE4a (movntss/movntsd: 4/8-byte non-temporal stores from xmm, compiler/codegen/lower/ntstore.py).
_SSE4A = frozenset({"sse4a"})

CPU_LEVELS = {
    "x86-64": BASE, "generic": BASE, "k8": BASE, "core2": BASE | {"sse3", "ssse3"},
    "nehalem": _V2, "westmere": _V2, "x86-64-v2": _V2, "btver2": _AVX_F16C | _SSE4A,
    "sandybridge": _AVX, "ivybridge": _AVX_F16C,
    "haswell": _V3, "broadwell": _V3, "skylake": _V3, "alderlake": _ADL, "raptorlake": _ADL,
    "meteorlake": _ADL, "znver1": _V3 | _SSE4A, "znver2": _V3 | _SSE4A, "znver3": _V3 | _SSE4A,
    "x86-64-v3": _V3,
    "skylake-avx512": _V4, "cascadelake": _V4_VNNI, "cooperlake": _V4_VNNI, "cannonlake": _V4,
    "icelake-client": _V4_VNNI, "icelake-server": _V4_VNNI, "tigerlake": _V4_VNNI,
    "sapphirerapids": _BOTH_VNNI, "emeraldrapids": _BOTH_VNNI, "graniterapids": _BOTH_VNNI,
    "znver4": _V4_VNNI | _SSE4A, "znver5": _BOTH_VNNI | _SSE4A, "x86-64-v4": _V4,
    "arrowlake": _ADL, "arrowlake-s": _ADL, "lunarlake": _ADL, "pantherlake": _ADL, "gracemont": _ADL,
    "sierraforest": _ADL, "grandridge": _ADL, "clearwaterforest": _ADL, "diamondrapids": _BOTH_VNNI,
}

# /proc/cpuinfo spells a few features differently from LLVM.
_CPUINFO_NAMES = {"sse4_1": "sse4.1", "sse4_2": "sse4.2", "pni": "sse3", "avx512_vnni": "avx512vnni",
                  "avx_vnni": "avxvnni"}


def target_features(options: Options) -> frozenset[str] | None:
    """The x86 features code is generated for, or None when unknown: `--target`'s
    level, LLVM's generic CPU when cross-compiling, else the host's; `--avx512`
    adds AVX-512 F/VL/BW."""
    if options.target_cpu not in ("", "native"):
        found = CPU_LEVELS.get(options.target_cpu)
    elif options.target_triple and not options.target_triple.startswith(platform.machine().lower()):
        found = BASE  # cross-compiling: LLVM's generic CPU
    else:
        found = host_features_from_os()
    if found is not None and options.avx512:
        found = found | {"avx512f", "avx512vl", "avx512bw"}
    return found


def cpu_label(options: Options) -> str:
    """The CPU as messages name it: `the host CPU`, `--target=haswell`."""
    return "the host CPU" if options.target_cpu in ("", "native") else f"--target={options.target_cpu}"


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
