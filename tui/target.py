"""Target options as the TUI offers them: presets, safe transitions between
them (a cross triple drops x86-only settings) and a one-line description
for the header."""
from __future__ import annotations

from dataclasses import replace

from ea_compiler import Options

CPU_PRESETS = ("native", "haswell", "skylake-avx512", "znver4")
ARM_TRIPLE = "aarch64-unknown-linux-gnu"
TRIPLES = (None, ARM_TRIPLE)  # None: the host
OPT_LEVELS = (0, 1, 2, 3)
_X86_PRESETS = frozenset(CPU_PRESETS) - {"native"}


def with_cpu(options: Options, cpu: str) -> Options:
    return replace(options, target_cpu=cpu.strip() or "native")


def with_triple(options: Options, triple: str | None) -> Options:
    """AArch64 has no AVX-512 and no x86 CPUs: switching there resets them."""
    new = replace(options, target_triple=triple or None)
    if new.is_arm:
        cpu = "native" if new.target_cpu in _X86_PRESETS else new.target_cpu
        new = replace(new, avx512=False, target_cpu=cpu)
    return new


def with_avx512(options: Options, on: bool) -> Options:
    return options if options.is_arm else replace(options, avx512=on)


def with_opt_level(options: Options, level: int) -> Options:
    return replace(options, opt_level=min(max(int(level), 0), 3))


def is_cross(options: Options) -> bool:
    """Code for another architecture than this machine's (cannot be run here)."""
    host = Options()
    return options.target_triple is not None and options.arch != host.arch


def describe(options: Options) -> str:
    """`x86-64 · haswell · -O3`, `aarch64 (cross) · native · -O3`."""
    arch = "aarch64" if options.is_arm else "x86-64"
    parts = [arch + (" (cross)" if is_cross(options) else ""), options.target_cpu]
    if options.avx512:
        parts.append("AVX-512")
    parts.append(f"-O{options.opt_level}")
    return " · ".join(parts)
