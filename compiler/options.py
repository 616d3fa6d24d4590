"""Target and build options shared by every stage and tool."""
from __future__ import annotations

import platform
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    target_cpu: str = "native"
    target_triple: str | None = None
    avx512: bool = False
    fp16: bool = False
    dotprod: bool = False
    i8mm: bool = False
    opt_level: int = 3
    # Bytes a kernel's main loop must store in one call before its plain vector
    # stores become non-temporal (compiler/codegen/ntauto.py); None: half the
    # target's last-level cache, 0: never.
    stream_threshold: int | None = None

    @property
    def is_arm(self) -> bool:
        """True for AArch64/ARM targets: the triple, or the host without one."""
        arch = self.target_triple or platform.machine().lower()
        return arch.startswith(("aarch64", "arm"))

    @property
    def arch(self) -> str:
        return "aarch64" if self.is_arm else "x86_64"

    def key(self) -> tuple:
        """A hashable identity, for caches keyed by options."""
        return (self.target_cpu, self.target_triple, self.avx512, self.fp16, self.dotprod,
                self.i8mm, self.opt_level, self.stream_threshold)
