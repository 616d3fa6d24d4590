"""Scalar tails: the loop a kernel's `tail scalar` desugars to, as the
compiler emits it (LLVM told not to vectorise or unroll it) against LLVM left
to its defaults (the same IR without the loop's `!llvm.loop` metadata), on
kernels with a step of 8 (f32) and 32 (u8).

    .venv/bin/python bench/scalar_tail_bench.py [--target=CPU] [--json]

Reports the machine code size of each kernel and the time of one call at
n = 4 * step + r for every r < step (small n, so the tail is a visible part of
the call). A C driver (cc -O2) calls each kernel 200,000 times per sample;
the best of 7 samples in each of 3 runs (the variants taking turns) is
reported, in ns per call: the best, because on a shared machine every
disturbance only adds time.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.codegen import CompiledModule  # noqa: E402
from ea_compiler.build import compile_source  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

KERNELS = {
    "fma_f32x8": (8, "float", "const float *, const float *, const float *, float *, int", "k(a, b, c, o, n)", """\
export kernel k(a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32)
    over i in n step 8
    tail scalar { out[i] = fma(a[i], b[i], c[i]) }
{
    store(out, i, fma(load_f32x8(a, i), load_f32x8(b, i), load_f32x8(c, i)))
}
"""),
    "threshold_u8x32": (32, "unsigned char", "const unsigned char *, unsigned char *, unsigned char, int",
                        "k(a, o, 100, n)", """\
export kernel k(px: *restrict u8, out: *restrict mut u8, t: u8)
    over i in n step 32
    tail scalar { if px[i] > t { out[i] = 255 } else { out[i] = 0 } }
{
    let v: u8x32 = load(px, i)
    let hi: u8x32 = splat(255)
    let lo: u8x32 = splat(0)
    let limit: u8x32 = splat(t)
    store(out, i, select(v .> limit, hi, lo))
}
"""),
}

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void k(%(params)s);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static %(elem)s a[1024] __attribute__((aligned(64))), b[1024] __attribute__((aligned(64))),
    c[1024] __attribute__((aligned(64))), o[1024] __attribute__((aligned(64)));
int main(int argc, char **argv) {
    int step = atoi(argv[1]);
    for (int i = 0; i < 1024; i++) { a[i] = i; b[i] = 1; c[i] = 2; }
    for (int r = 0; r < step; r++) {
        int n = 4 * step + r;
        double best = 1e30;
        for (int rep = 0; rep < 7; rep++) {
            double t = now();
            for (int j = 0; j < 200000; j++) { %(call)s; __asm__ volatile("" ::: "memory"); }
            t = (now() - t) / 200000;
            if (t < best) best = t;
        }
        printf("%%d %%.3f\n", r, best);
    }
    return 0;
}
"""

_LOOP_MD = re.compile(r", !llvm\.loop !\d+")


def variants(source: str, options: Options) -> dict[str, CompiledModule]:
    analysis, module = compile_source(source, "tail.ea", options)
    if module is None:
        raise SystemExit(f"bench kernel does not compile: {analysis.errors[0].message}")
    plain_ir = module.ir(optimized=False)
    if not _LOOP_MD.search(plain_ir):
        raise SystemExit("the scalar tail loop carries no !llvm.loop metadata")
    return {"ea": module, "llvm-default": CompiledModule(_LOOP_MD.sub("", plain_ir), options)}


def function_bytes(obj: Path) -> int:
    out = subprocess.run(["nm", "-S", str(obj)], capture_output=True, text=True, check=True).stdout
    return next(int(ln.split()[1], 16) for ln in out.splitlines() if ln.endswith(" k"))


def run(name: str, options: Options, tmp: Path, rounds: int) -> dict:
    step, elem, params, call, source = KERNELS[name]
    (tmp / "driver.c").write_text(DRIVER % {"params": params, "elem": elem, "call": call})
    result: dict = {"step": step, "bytes": {}, "ns": {}}
    exes = {}
    for variant, module in variants(source, options).items():
        obj = tmp / f"{name}-{variant}.o"
        obj.write_bytes(module.object())
        exes[variant] = tmp / f"{name}-{variant}"
        subprocess.run(["cc", "-O2", str(tmp / "driver.c"), str(obj), "-o", str(exes[variant])], check=True)
        result["bytes"][variant] = function_bytes(obj)
    for _ in range(rounds):  # the variants take turns; the best of all rounds is kept
        for variant, exe in exes.items():
            lines = subprocess.run([str(exe), str(step)], capture_output=True, text=True, check=True).stdout
            times = [float(ln.split()[1]) for ln in lines.splitlines()]
            best = result["ns"].get(variant, times)
            result["ns"][variant] = [min(a, b) for a, b in zip(best, times)]
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="native", help="LLVM CPU name (default native)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each driver, taking turns (default 3)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    options = Options(target_cpu=args.target)
    with tempfile.TemporaryDirectory() as tmp:
        results = {name: run(name, options, Path(tmp), max(args.rounds, 1)) for name in KERNELS}
    if args.json:
        print(json.dumps({"target_cpu": args.target, "kernels": results}, indent=2))
        return 0
    for name, r in results.items():
        b = r["bytes"]
        print(f"{name}: machine code {b['ea']} bytes (ea) vs {b['llvm-default']} bytes (LLVM default)")
        print("   r    ea ns  LLVM ns")
        for k, (ours, theirs) in enumerate(zip(r["ns"]["ea"], r["ns"]["llvm-default"])):
            print(f"  {k:>2}  {ours:7.2f}  {theirs:7.2f}")
        mean = {v: sum(t) / len(t) for v, t in r["ns"].items()}
        print(f"  mean over r: {mean['ea']:.2f} ns (ea) vs {mean['llvm-default']:.2f} ns (LLVM default)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
