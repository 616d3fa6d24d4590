"""`stream_store` benchmark: the lowering that never faults against the one it
replaced, at 16M f32 (64 MiB out, well beyond the last-level cache).

    .venv/bin/python bench/stream_store_bench.py [--reps N] [--n N] [--json]

One kernel, `out[i] = data[i] * factor` with f32x8 vectors, compiled three ways
in this process and run through MCJIT on the same arrays:
  stream       stream_store as the compiler lowers it now (alignment test, then
               vmovntps when the address is 32-byte aligned, a plain store otherwise);
  stream-old   the lowering it replaced (always a 32-byte-aligned `!nontemporal`
               store), rebuilt here only: it faults on a misaligned address, so it
               runs on the aligned output only;
  store        the same kernel with `store` (a plain store loop).
Outputs are at byte offset 0 (64-byte aligned) and 4 (misaligned). The variants
are timed in pairs taking turns (stream vs stream-old aligned, stream vs store
misaligned, and for reference stream vs store aligned); medians of the thread's CPU
time are reported (time.thread_time_ns, so moments when another process has the
core do not count).
Targets: stream/stream-old (aligned) <= 1.02; stream/store (offset 4) <= 1.15.
"""
from __future__ import annotations

import argparse
import ctypes as ct
import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.bench.inputs import place  # noqa: E402
from ea_compiler.codegen import LLVM_LOCK  # noqa: E402
from ea_compiler.codegen.lower import LOWERINGS, memaccess  # noqa: E402
from ea_compiler.codegen.target import init, new_target_machine  # noqa: E402
from ea_compiler.build import compile_source  # noqa: E402
from ea_compiler.intrinsics import TABLE  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

TARGETS = {"aligned_vs_old": 1.02, "misaligned_vs_store": 1.15}

KERNEL = """\
export kernel scale(data: *f32, out: *mut f32, factor: f32)
    over i in n step 8
    tail scalar {{ out[i] = data[i] * factor }}
{{
    let v: f32x8 = load(data, i) .* splat(factor)
    {store}(out, i, v)
}}
"""


def _old_stream_store(em, call, want):
    """The replaced lowering, kept here for the comparison only."""
    ptr_t, vt = call.args[0].ty, call.args[2].ty
    addr = memaccess.element_address(em, call.args[0], call.args[1], ptr_t.pointee)
    store = em.builder.store(em.expr(call.args[2]), addr, align=max(vt.bits // 8, 1))
    store.set_metadata("nontemporal", em.module.add_metadata([memaccess.const_int(1)]))


@contextmanager
def old_lowering():
    entry = TABLE["stream_store"]
    saved = LOWERINGS[entry]
    LOWERINGS[entry] = _old_stream_store
    try:
        yield
    finally:
        LOWERINGS[entry] = saved


class Jitted:
    """One compiled variant; keeps its engine alive."""

    def __init__(self, source: str, options: Options):
        analysis, module = compile_source(source, "stream_store_bench.ea", options)
        if module is None:
            raise SystemExit(f"bench kernel does not compile: {analysis.errors[0].message}")
        import llvmlite.binding as llvm
        self.asm = module.asm()
        with LLVM_LOCK:
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine(options))
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(module.object()))
            self.engine.finalize_object()
            address = self.engine.get_function_address("scale")
        self.fn = ct.CFUNCTYPE(None, ct.c_void_p, ct.c_void_p, ct.c_float, ct.c_int32)(address)


def build(options: Options) -> dict[str, Jitted]:
    init()
    variants = {"stream": Jitted(KERNEL.format(store="stream_store"), options),
                "store": Jitted(KERNEL.format(store="store"), options)}
    with old_lowering():
        variants["stream-old"] = Jitted(KERNEL.format(store="stream_store"), options)
    return variants


def run(variants: dict[str, Jitted], n: int, reps: int) -> dict:
    rng = np.random.default_rng(1)
    data, buf = place([rng.uniform(-1, 1, n).astype(np.float32), np.zeros(n + 16, np.float32)])
    outs = {0: buf[:n], 4: buf[1:n + 1]}
    cases = [("stream", 0), ("stream-old", 0), ("store", 0), ("stream", 4), ("store", 4)]
    expected = data * np.float32(0.5)
    for name, offset in cases:  # warm-up, and proof that each variant computes the right thing
        out = outs[offset]
        out[...] = 0
        variants[name].fn(data.ctypes.data, out.ctypes.data, 0.5, n)
        if not np.array_equal(out, expected):
            raise SystemExit(f"{name} at offset {offset} gives wrong results")
    # Pairs, each timed in alternation: a call's speed depends on what the one
    # before it left in the cache (dirty lines of a plain store loop slow down
    # the non-temporal stores after them), so each variant is compared with one
    # whose stores leave the cache in the same state.
    pairs = [[("stream", 0), ("stream-old", 0)], [("stream", 4), ("store", 4)], [("store", 0), ("stream", 0)]]
    samples: dict[tuple, list[int]] = {}
    for k, pair in enumerate(pairs):
        for rep in range(reps):
            for name, offset in (pair if rep % 2 else pair[::-1]):
                fn, out = variants[name].fn, outs[offset]
                start = time.thread_time_ns()
                fn(data.ctypes.data, out.ctypes.data, 0.5, n)
                samples.setdefault((k, name, offset), []).append(time.thread_time_ns() - start)
    med = {f"{name}@{offset}" + ("" if k < 2 else " (ref)"): statistics.median(s) / 1e6
           for (k, name, offset), s in samples.items()}
    ratios = {"aligned_vs_old": med["stream@0"] / med["stream-old@0"],
              "misaligned_vs_store": med["stream@4"] / med["store@4"],
              "aligned_vs_store": med["stream@0 (ref)"] / med["store@0 (ref)"]}
    gbs = {k: 2 * n * 4 / (v * 1e6) for k, v in med.items()}  # bytes read + written, RFO not counted
    return {"n": n, "reps": reps, "median_ms": med, "gbs": gbs, "ratios": ratios,
            "meets_targets": all(ratios[k] <= t for k, t in TARGETS.items())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=41, help="calls per variant (default 41)")
    ap.add_argument("--n", type=int, default=16 << 20, help="f32 elements (default 16M)")
    ap.add_argument("--target", default="native", help="LLVM CPU name (default native)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    options = Options(target_cpu=args.target)
    variants = build(options)
    if "vmovntps" not in variants["stream"].asm or "vmovntps" not in variants["stream-old"].asm:
        raise SystemExit("the stream_store kernels do not use vmovntps on this target")
    result = {"target_cpu": args.target, "targets": TARGETS, **run(variants, args.n, max(args.reps, 1))}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"stream_store at n = {args.n} f32, {result['reps']} reps, medians (thread CPU time)")
    for key, ms in result["median_ms"].items():
        name, where = key.split("@")
        print(f"  {name:<11} offset {where:<8}  {ms:8.3f} ms  {result['gbs'][key]:6.1f} GB/s")
    r = result["ratios"]
    print(f"  aligned:    stream / stream-old = {r['aligned_vs_old']:.3f}  (target <= {TARGETS['aligned_vs_old']})")
    print(f"  misaligned: stream / store      = {r['misaligned_vs_store']:.3f}  "
          f"(target <= {TARGETS['misaligned_vs_store']})")
    print(f"  aligned:    stream / store      = {r['aligned_vs_store']:.3f}  (what non-temporal stores buy)")
    print("meets targets" if result["meets_targets"] else "MISSES a target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
