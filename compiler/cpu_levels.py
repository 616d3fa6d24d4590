"""The x86 instruction-set extensions of the CPU names `--target` accepts
without probing LLVM, and the host's, read without loading LLVM.

`native` means the host CPU, unless the environment names another one:
`EA_HOST_CPU=haswell` makes every stage treat `native` as `--target=haswell`
(a CPU of the table below), so a test run or a build on an AVX-512 machine
sees what an AVX2 host would. Code still runs on the real CPU:
`missing_on_host` says what code for given options needs that it lacks.

Code generation (compiler/codegen/features.py) checks intrinsics against
these levels; the analysis uses them to tell when a vector type is wider
than the target's registers (compiler/check/lint_widths.py) and whether the
CPU has the VNNI dot products (compiler/intrinsics/vnni.py).
"""
from __future__ import annotations

import functools
import os
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
CPUINFO_NAMES = {"sse4_1": "sse4.1", "sse4_2": "sse4.2", "pni": "sse3", "avx512_vnni": "avx512vnni",
                  "avx_vnni": "avxvnni"}


HOST_CPU_VARIABLE = "EA_HOST_CPU"
# What `--avx512` means (TOOLCHAIN.md §1.1: the extra feature string
# `+avx512f,+avx512vl,+avx512bw`), written once: codegen's feature string,
# the intrinsic and lint checks and the host gate read it.
AVX512_FLAG = ("avx512f", "avx512vl", "avx512bw")


def flag_features(options: Options) -> frozenset[str]:
    """The x86 features the flags add to the CPU's: AVX-512 F/VL/BW with `--avx512`."""
    return frozenset(AVX512_FLAG) if options.avx512 and not options.is_arm else frozenset()


def native_override() -> str | None:
    """The CPU `native` stands for when `EA_HOST_CPU` names one, else None."""
    return os.environ.get(HOST_CPU_VARIABLE, "").strip() or None


def override_problem() -> str | None:
    """Why `EA_HOST_CPU` cannot be used, or None (unset, or a CPU of the table)."""
    name = native_override()
    if name is None or name in CPU_LEVELS:
        return None
    return (f"{HOST_CPU_VARIABLE}={name}: not a CPU this compiler knows the features of; "
            f"use one of: {', '.join(sorted(CPU_LEVELS))}")


def is_native(options: Options) -> bool:
    return options.target_cpu in ("", "native")


def target_features(options: Options) -> frozenset[str] | None:
    """The x86 features code is generated for, or None when unknown: `--target`'s
    level, LLVM's generic CPU when cross-compiling, else the host's (or
    `EA_HOST_CPU`'s, host_features_from_os: the one reading of the host,
    for the lints and codegen alike); `--avx512` adds `flag_features`."""
    if not is_native(options):
        found = CPU_LEVELS.get(options.target_cpu)
    elif options.target_triple and not options.target_triple.startswith(platform.machine().lower()):
        found = BASE  # cross-compiling: LLVM's generic CPU
    elif native_override() is not None:
        found = CPU_LEVELS.get(native_override())
    else:
        found = host_features_from_os()
    if found is not None:
        found = found | flag_features(options)
    return found


def missing_on_host(options: Options) -> frozenset[str]:
    """The x86 features code compiled for `options` uses that this machine's
    CPU lacks (running it would die of SIGILL); empty when it can run here,
    for code of another architecture, or where the host cannot be read."""
    if options.is_arm or platform.machine().lower() not in ("x86_64", "amd64"):
        return frozenset()
    host = host_features_from_os()
    if host is None:
        return frozenset()
    if is_native(options) and native_override() is None and not options.target_triple:
        return frozenset(flag_features(options) - host)
    wanted = target_features(options)
    return frozenset(wanted - host) if wanted is not None else frozenset()


def cpu_label(options: Options) -> str:
    """The CPU as messages name it: `the host CPU`, `--target=haswell`."""
    return "the host CPU" if is_native(options) else f"--target={options.target_cpu}"


@functools.cache
def host_features_from_os() -> frozenset[str] | None:
    """The real host's x86 features as the kernel reports them (Linux), or
    None where that is not available. `EA_HOST_CPU` does not change them."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.partition(":")[2].split()
                    return frozenset(CPUINFO_NAMES.get(x, x) for x in flags)
    except OSError:
        return None
    return None
