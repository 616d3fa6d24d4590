"""Which x86 instruction-set extensions the selected CPU has.

LLVM aborts the whole process when asked to select an x86 intrinsic the
CPU lacks (e.g. vpshufb ymm with --target=x86-64), so codegen checks first
and reports a clear error at the call instead. The features are the front
end's (compiler/cpu_levels.py `target_features`: a named CPU's level, or the
host's as the OS reports them, and what the flags add), so the lints and
codegen never disagree about the CPU.
"""
from __future__ import annotations

from ..cpu_levels import BASE, CPU_LEVELS, cpu_label, flag_features, target_features  # noqa: F401 (cpu_label: re-exported)
from ..options import Options

# The feature an `llvm.x86.<group>.*` intrinsic needs, by its group name.
INTRINSIC_GROUP_FEATURE = {"sse": "sse", "sse2": "sse2", "ssse3": "ssse3", "sse41": "sse4.1",
                           "avx": "avx", "avx2": "avx2", "avx512": "avx512bw"}


def x86_features(options: Options) -> frozenset[str]:
    """As the front end sees them (cpu_levels.target_features); a CPU whose
    features are unknown (outside the table, or a host that does not report
    them) counts as the baseline: refusing is safe, selecting a missing
    instruction aborts LLVM."""
    found = target_features(options)
    return found if found is not None else BASE | flag_features(options)


def known_cpu(options: Options) -> bool:
    """A CPU name in the table of levels (x86): safe to hand to LLVM without probing it."""
    return not options.is_arm and options.target_cpu in CPU_LEVELS


def vector_registers(options: Options) -> tuple[int, int]:
    """(how many vector registers, their width in bits) that code for `options`
    allocates: 32 ymm with AVX-512 (ymm16-31), else 16 ymm on x86 (vectors wider
    than 256 bits count as several: LLVM prefers 256-bit registers unless
    told otherwise); 32 q registers of 128 bits on AArch64."""
    if options.is_arm:
        return 32, 128
    return (32 if "avx512f" in x86_features(options) else 16), 256
