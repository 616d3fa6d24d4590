"""Which CPU this is, as per-CPU records (kernel baselines, the FMA peak) name it."""
from __future__ import annotations

import re

from ..codegen.target import host_cpu_name
from .envinfo import cpu_model, host_arch  # noqa: F401 - cpu_model re-exported


def cpu_identity() -> dict:
    """The CPU as a baseline names it: its model, LLVM's name for it, the architecture."""
    model, llvm = cpu_model(), host_cpu_name()
    slug = re.sub(r"[^a-z0-9]+", "-", f"{model} {llvm}".lower()).strip("-")
    return {"cpu": model, "host_cpu": llvm, "arch": host_arch(), "slug": slug}
