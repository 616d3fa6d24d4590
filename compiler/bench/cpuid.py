"""Which CPU this is, as per-CPU records (kernel baselines, the FMA peak) name it."""
from __future__ import annotations

import re

from ..codegen.target import host_cpu_name
from .envinfo import host_arch


def cpu_model() -> str:
    """The model name /proc/cpuinfo gives (Linux), else the architecture."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "Model")):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return host_arch()


def cpu_identity() -> dict:
    """The CPU as a baseline names it: its model, LLVM's name for it, the architecture."""
    model, llvm = cpu_model(), host_cpu_name()
    slug = re.sub(r"[^a-z0-9]+", "-", f"{model} {llvm}".lower()).strip("-")
    return {"cpu": model, "host_cpu": llvm, "arch": host_arch(), "slug": slug}
