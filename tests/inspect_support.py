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


def dot_source(accumulators: int, ahead: tuple[int | None, int | None] = (None, None)) -> str:
    """`dot(x, y, n)` with this many f32x8 accumulators, one fma each an iteration; x and y
    prefetched `ahead` elements ahead (None: that array not prefetched)."""
    names = [f"acc{k}" for k in range(accumulators)]
    hints = "".join(f"        prefetch({a}, i + {d})\n" for a, d in zip("xy", ahead) if d is not None)
    body = "\n".join(f"        {a} = fma(load_f32x8(x, i + {8 * k}), load_f32x8(y, i + {8 * k}), {a})"
                     for k, a in enumerate(names))
    total = names[0]
    for a in names[1:]:
        total = f"({total} .+ {a})"
    return ("export func dot(x: *restrict f32, y: *restrict f32, n: i32) -> f32 {\n"
            + "".join(f"    let mut {a}: f32x8 = splat(0.0)\n" for a in names)
            + f"    let mut i: i32 = 0\n    while i + {8 * accumulators} <= n {{\n{hints}{body}\n"
            + f"        i = i + {8 * accumulators}\n    }}\n    return reduce_add({total})\n}}\n")
