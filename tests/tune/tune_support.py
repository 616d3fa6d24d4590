"""Kernels, a suite and a scripted proposer for the tuner's tests."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ONE_ACC = textwrap.dedent("""\
    // The maximum of x (n >= 1), one accumulator.
    const LANES: i32 = 8

    export func max_f32(x: *restrict f32, n: i32) -> f32 {
        let mut best: f32x8 = splat(x[0])
        let mut i: i32 = 0
        while i + LANES <= n {
            best = max(best, load_f32x8(x, i))
            i = i + LANES
        }
        let mut m: f32 = reduce_max(best)
        for j in i..n {
            m = max(m, x[j])
        }
        return m
    }
    """)

# Four independent accumulators: what the unroll transformation makes of ONE_ACC.
FOUR_ACC = textwrap.dedent("""\
    const LANES: i32 = 8

    export func max_f32(x: *restrict f32, n: i32) -> f32 {
        let mut b0: f32x8 = splat(x[0])
        let mut b1: f32x8 = b0
        let mut b2: f32x8 = b0
        let mut b3: f32x8 = b0
        let mut i: i32 = 0
        while i + 4 * LANES <= n {
            b0 = max(b0, load_f32x8(x, i))
            b1 = max(b1, load_f32x8(x, i + LANES))
            b2 = max(b2, load_f32x8(x, i + 2 * LANES))
            b3 = max(b3, load_f32x8(x, i + 3 * LANES))
            i = i + 4 * LANES
        }
        let mut best: f32x8 = max(max(b0, b1), max(b2, b3))
        while i + LANES <= n {
            best = max(best, load_f32x8(x, i))
            i = i + LANES
        }
        let mut m: f32 = reduce_max(best)
        for j in i..n {
            m = max(m, x[j])
        }
        return m
    }
    """)

SUITE = textwrap.dedent("""\
    [[bench]]
    function = "max_f32"
    sizes = ["16K", "256K"]
    bytes_per_element = 4
    reference = "np.max(x)"
    [bench.args]
    x = { dtype = "float32", dist = "normal" }
    """)



def proposer(tmp_path: Path, reply: str, *, sleep: float = 0, status: int = 0) -> str:
    """A command that records its prompt (prompt.txt) and prints `reply`."""
    (tmp_path / "reply.txt").write_text(reply)
    script = tmp_path / "propose.py"
    script.write_text(textwrap.dedent(f"""\
        import sys, time, pathlib
        here = pathlib.Path({str(tmp_path)!r})
        (here / "prompt.txt").write_text(sys.stdin.read())
        time.sleep({sleep})
        sys.stdout.write((here / "reply.txt").read_text())
        sys.exit({status})
        """))
    return f"{sys.executable} {script}"
