"""Front-end benchmark: how long `analyze()` takes on a realistic 1,000-line
Eä file, next to CPython's `ast.parse` on a 1,000-line Python file of similar
content, with the lexer and parser timed alone to show where time goes.

    .venv/bin/python bench/frontend.py [--reps N] [--lines N] [--json]

Target: analyze median <= 30 ms for 1,000 lines.
"""
from __future__ import annotations

import argparse
import ast
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ea_compiler import Options, analyze  # noqa: E402
from ea_compiler.diagnostics import DiagnosticSink  # noqa: E402
from ea_compiler.source import SourceFile  # noqa: E402
from ea_compiler.syntax.lexer import lex  # noqa: E402
from ea_compiler.syntax.parser import parse  # noqa: E402

TARGET_MS = 30.0

# ---- Eä source: one template per kind of item, cycled with varied names/types -----------

EA_TEMPLATES = [
    # kernel, scalar tail
    """export kernel axpy{k}(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 8
    tail scalar {{ y[i] = fma(a, x[i], y[i]) }}
{{
    let va: f32x8 = splat(a)
    store(y, i, fma(va, load(x, i), load(y, i)))
}}
""",
    # kernel, mask tail
    """export kernel clip{k}(v: *f32, o: *mut f32, hi: f32, lo: f32)
    over j in count step 4
    tail mask {{
        let left: i32 = count - j
        let x: f32x4 = load_masked(v, j, left)
        store_masked(o, j, max(min(x, splat(hi)), splat(lo)), left)
    }}
{{
    let x: f32x4 = load(v, j)
    store(o, j, max(min(x, splat(hi)), splat(lo)))
}}
""",
    # kernel, padded (no tail code) and kernel without a tail
    """export kernel scale{k}(x: *restrict f32, out: *restrict mut f32, s: f32)
    over i in n step 8
    tail pad
{{
    let vs: f32x8 = splat(s)
    store(out, i, load_f32x8(x, i) .* vs)
}}

kernel add{k}(a: *i32, b: *i32, c: *mut i32) over i in len step 4 {{
    let va: i32x4 = load(a, i)
    let vb: i32x4 = load(b, i)
    store(c, i, va .+ vb)
}}
""",
    # dot product with two accumulators
    """export func dot{k}(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {{
    let mut acc0: f32x8 = splat(0.0)
    let mut acc1: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 16 <= n {{
        acc0 = fma(load_f32x8(a, i), load_f32x8(b, i), acc0)
        acc1 = fma(load_f32x8(a, i + 8), load_f32x8(b, i + 8), acc1)
        i = i + 16
    }}
    let mut total: f32 = reduce_add(acc0 .+ acc1)
    while i < n {{
        total = fma(a[i], b[i], total)
        i = i + 1
    }}
    return total
}}
""",
    # struct and an update through a pointer to structs
    """struct Body{k} {{
    x: f32, y: f32
    vx: f32, vy: f32
}}

export func integrate{k}(ps: *mut Body{k}, n: i32, dt: f32) {{
    foreach (i in 0..n) {{
        let p: Body{k} = ps[i]
        ps[i] = Body{k} {{ x: p.x + p.vx * dt, y: p.y + p.vy * dt, vx: p.vx, vy: p.vy * 0.99 }}
    }}
}}
""",
    # constants, static_assert and a reduction
    """const LANES{k}: i32 = 8
const SCALE{k}: f32 = 0.5
static_assert(LANES{k} % 4 == 0 && LANES{k} <= 16, "LANES{k} must be a multiple of 4")

export func sum{k}(x: *f32, n: i32) -> f32 {{
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + LANES{k} <= n {{
        acc = acc .+ load(x, i)
        i = i + LANES{k}
    }}
    let mut total: f32 = reduce_add(acc)
    for j in i..n {{
        total = total + x[j]
    }}
    return total * SCALE{k}
}}
""",
    # scalar helper with branches and an 8-bit select kernel
    """func clamp{k}(v: i32, lo: i32, hi: i32) -> i32 {{
    if v < lo {{
        return lo
    }} else if v > hi {{
        return hi
    }}
    return v
}}

export kernel threshold{k}(px: *restrict u8, out: *restrict mut u8, t: u8)
    over i in len step 16
    tail scalar {{
        if px[i] > t {{ out[i] = 255 }} else {{ out[i] = 0 }}
    }}
{{
    let v: u8x16 = load(px, i)
    let hi: u8x16 = splat(255)
    let lo: u8x16 = splat(0)
    store(out, i, select(v .> splat(t), hi, lo))
}}
""",
]

# ---- Python source of comparable shape ---------------------------------------------------

PY_TEMPLATES = [
    """def axpy{k}(x, y, a, n):
    i = 0
    while i + 8 <= n:
        for j in range(8):
            y[i + j] = a * x[i + j] + y[i + j]
        i = i + 8
    while i < n:
        y[i] = a * x[i] + y[i]
        i = i + 1

""",
    """def clip{k}(v, o, hi, lo, count):
    for j in range(0, count, 4):
        left = count - j
        for t in range(min(4, left)):
            o[j + t] = max(min(v[j + t], hi), lo)
    return o

""",
    """def dot{k}(a, b, n):
    acc0 = [0.0] * 8
    acc1 = [0.0] * 8
    i = 0
    while i + 16 <= n:
        for j in range(8):
            acc0[j] = a[i + j] * b[i + j] + acc0[j]
            acc1[j] = a[i + j + 8] * b[i + j + 8] + acc1[j]
        i = i + 16
    total = sum(acc0) + sum(acc1)
    while i < n:
        total = a[i] * b[i] + total
        i = i + 1
    return total

""",
    """class Body{k}:
    __slots__ = ("x", "y", "vx", "vy")

    def __init__(self, x, y, vx, vy):
        self.x, self.y, self.vx, self.vy = x, y, vx, vy


def integrate{k}(ps, n, dt):
    for i in range(n):
        p = ps[i]
        ps[i] = Body{k}(p.x + p.vx * dt, p.y + p.vy * dt, p.vx, p.vy * 0.99)

""",
    """LANES{k} = 8
SCALE{k} = 0.5
assert LANES{k} % 4 == 0 and LANES{k} <= 16, "LANES{k} must be a multiple of 4"


def clamp{k}(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v


def threshold{k}(px, out, t, n):
    for i in range(n):
        out[i] = 255 if px[i] > t else 0

""",
]


def generate(templates: list[str], lines: int) -> str:
    """Cycle through the templates, numbering each copy, until `lines` lines."""
    parts, count, k = [], 0, 0
    while count < lines:
        text = templates[k % len(templates)].format(k=k) + "\n"
        parts.append(text)
        count += text.count("\n")
        k += 1
    return "".join(parts)


# ---- timing ------------------------------------------------------------------------------

def measure(fns: dict, reps: int, warmup: int = 3) -> dict[str, list[float]]:
    """Wall-clock milliseconds of `reps` calls of each fn, after `warmup` calls.
    The functions take turns (round robin), so a burst of load from elsewhere
    on the machine hits every row alike and the ratios stay meaningful."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1000.0)
    return times


def summary(times: list[float]) -> dict:
    deciles = statistics.quantiles(times, n=10)
    return {"median_ms": statistics.median(times), "p10_ms": deciles[0], "p90_ms": deciles[-1],
            "reps": len(times)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=40, help="timed repetitions per row (default 40)")
    ap.add_argument("--lines", type=int, default=1000, help="lines per generated file (default 1000)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)

    ea_text = generate(EA_TEMPLATES, args.lines)
    py_text = generate(PY_TEMPLATES, ea_text.count("\n"))  # as many lines as the Eä file
    ea_bytes = ea_text.encode()
    # The benchmark only means something on a valid file.
    result = analyze(ea_bytes, "bench.ea", Options())
    if result.diagnostics:
        for d in result.diagnostics[:10]:
            print(f"bench.ea:{d.span.line if d.span else '?'}: {d.message}", file=sys.stderr)
        print("error: the generated Eä file does not analyse cleanly", file=sys.stderr)
        return 1
    ast.parse(py_text)  # likewise for the Python file

    tokens = lex(SourceFile("bench.ea", ea_bytes), DiagnosticSink())
    reps = max(args.reps, 2)  # "lex" includes building the SourceFile (line table)
    times = measure({
        "ea analyze": lambda: analyze(ea_bytes, "bench.ea", Options()),
        "ea lex": lambda: lex(SourceFile("bench.ea", ea_bytes), DiagnosticSink()),
        "ea parse": lambda: parse(tokens, DiagnosticSink()),
        "python ast.parse": lambda: ast.parse(py_text, "bench.py"),
    }, reps)
    texts = {"ea analyze": ea_text, "ea lex": ea_text, "ea parse": ea_text, "python ast.parse": py_text}
    rows = {name: (texts[name], t) for name, t in times.items()}
    out = {name: {"lines": text.count("\n"), "bytes": len(text.encode()), **summary(times)}
           for name, (text, times) in rows.items()}
    ratio = out["ea analyze"]["median_ms"] / out["python ast.parse"]["median_ms"]
    report = {"results": out, "tokens": len(tokens) - 1, "ratio_analyze_to_ast_parse": ratio,
              "target_ms": TARGET_MS, "meets_target": out["ea analyze"]["median_ms"] <= TARGET_MS,
              "python": sys.version.split()[0]}

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"front end on {out['ea analyze']['lines']} lines of Eä ({report['tokens']} tokens), "
          f"{reps} runs each, CPython {report['python']}")
    print(f"{'':18} {'lines':>6} {'median ms':>10} {'p10':>8} {'p90':>8}")
    for name, r in out.items():
        print(f"{name:18} {r['lines']:>6} {r['median_ms']:>10.2f} {r['p10_ms']:>8.2f} {r['p90_ms']:>8.2f}")
    rest = out["ea analyze"]["median_ms"] - out["ea lex"]["median_ms"] - out["ea parse"]["median_ms"]
    print(f"{'(desugar+check)':18} {'':>6} {rest:>10.2f}   analyze minus lex and parse medians")
    verdict = "meets" if report["meets_target"] else "MISSES"
    print(f"analyze / ast.parse = {ratio:.1f}x; analyze median {verdict} the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
