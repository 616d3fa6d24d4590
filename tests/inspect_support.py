"""What the inspect tests share: fixed CPUs (so machine code does not depend
on the host) and helpers for writing kernels inline."""
from __future__ import annotations

import textwrap

from ea_compiler.options import Options

# The code as written: no copy of a main loop streaming its stores on big calls (codegen/ntauto.py).
AVX2 = Options(target_cpu="haswell", stream_threshold=0)
AVX2_FAST_GATHER = Options(target_cpu="skylake", stream_threshold=0)
AVX512 = Options(target_cpu="skylake-avx512", avx512=True, stream_threshold=0)
ARM = Options(target_triple="aarch64-unknown-linux-gnu")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def line_of(text: str, fragment: str) -> int:
    """1-based line of the only line containing `fragment`."""
    hits = [n for n, ln in enumerate(text.splitlines(), 1) if fragment in ln]
    assert len(hits) == 1, (fragment, hits)
    return hits[0]
