"""Which way should a misaligned `stream_store` go? The measurements behind
compiler/codegen/lower/ntplan.py's table, rerunnable on any machine
(`--width 64` on an AVX-512 one decides the zmm row).

    .venv/bin/python bench/stream_store_paths.py [--width 32|64] [--size 16M] [--reps N] [--json]

One kernel, `out[i] = x[i] * s` (one stream_store a trip: a run), compiled
in this process four ways and run on the same two buffers viewed at every
offset from a 64-byte boundary that is a multiple of 4 below the vector
size, and at 1 and 2:
  realigned  the table's choice for runs: full-width stores of realigned blocks;
  pieces     each store as the widest aligned non-temporal pieces (the table with realign off);
  llvm-nt    an element-aligned `!nontemporal` store, as LLVM lowers it: 8-byte
             movntsd/movnti pieces at whatever alignment (the reference compiler's way);
  plain      `store`.
The input at the output's offset (multiples of 4) and aligned. Cases take turns in rounds
(rotating order); medians of the thread's CPU time. The verdict: per offset
the fastest, whether runs should be realigned, and from which alignment up
non-temporal stores beat plain ones (ntplan.Rule.min_align).
"""
from __future__ import annotations

import argparse
import ctypes as ct
import dataclasses
import json
import os
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.build import compile_source  # noqa: E402
from ea_compiler.codegen import LLVM_LOCK  # noqa: E402
from ea_compiler.codegen.lower import LOWERINGS, memaccess, ntplan  # noqa: E402
from ea_compiler.codegen.target import init, new_target_machine  # noqa: E402
from ea_compiler.intrinsics import TABLE  # noqa: E402
from ea_compiler.cpu_levels import host_features_from_os  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

KERNEL = """\
export kernel scale(x: *f32, out: *mut f32, s: f32)
    over i in n step {lanes}
    tail scalar {{ out[i] = x[i] * s }}
{{
    {store}(out, i, load_f32x{lanes}(x, i) .* splat(s))
}}
"""


MODES = ("same", "aligned")  # the input at the output's offset, or aligned


def _llvm_nontemporal(em, call, want):
    """An element-aligned non-temporal store, left to LLVM (bench only)."""
    addr = memaccess.element_address(em, call.args[0], call.args[1], call.args[0].ty.pointee)
    store = em.builder.store(em.expr(call.args[2]), addr, align=call.args[0].ty.pointee.bits // 8)
    store.set_metadata("nontemporal", em.module.add_metadata([memaccess.const_int(1)]))


@contextmanager
def variant(name: str, width: int):
    """The lowering of `name` for the duration of one compile."""
    entry, saved_lowering, saved_rule = TABLE["stream_store"], LOWERINGS[TABLE["stream_store"]], ntplan.RULES[width]
    if name in ("pieces", "llvm-nt"):  # (llvm-nt: the loop copies stay, each with LLVM's stores)
        ntplan.RULES[width] = dataclasses.replace(saved_rule, realign=False)
    if name == "llvm-nt":
        LOWERINGS[entry] = _llvm_nontemporal
    try:
        yield
    finally:
        LOWERINGS[entry], ntplan.RULES[width] = saved_lowering, saved_rule


class Jitted:
    """One compiled variant; keeps its engine alive."""

    def __init__(self, source: str, options: Options):
        import llvmlite.binding as llvm
        analysis, module = compile_source(source, "stream_store_paths.ea", options)
        if module is None:
            raise SystemExit(f"the kernel does not compile: {analysis.errors[0].message}")
        with LLVM_LOCK:
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine(options))
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(module.object()))
            self.engine.finalize_object()
            address = self.engine.get_function_address("scale")
        self.fn = ct.CFUNCTYPE(None, ct.c_void_p, ct.c_void_p, ct.c_float, ct.c_int32)(address)


def build(width: int) -> dict[str, Jitted]:
    init()
    options = Options(avx512=width == 64)
    out = {}
    for name in ("realigned", "pieces", "llvm-nt", "plain"):
        with variant(name, width):
            store = "store" if name == "plain" else "stream_store"
            out[name] = Jitted(KERNEL.format(lanes=width // 4, store=store), options)
    return out


def run(width: int, n: int, reps: int) -> dict:
    fns = build(width)
    xbuf = np.random.default_rng(5).random(n + 32, dtype=np.float32)
    obuf = np.zeros(n + 32, np.float32)

    offsets = list(range(0, width, 4)) + [1, 2]
    cases = {}
    for offset in offsets:
        for mode in MODES if offset % 4 == 0 else ("aligned",):  # no f32 input at an odd address
            x, out = at(xbuf, offset if mode == "same" else 0, n), at(obuf, offset, n)
            want = x * np.float32(0.5)
            for name, jit in fns.items():
                out[...] = 0
                jit.fn(x.ctypes.data, out.ctypes.data, 0.5, n)
                if not np.array_equal(out, want):
                    raise SystemExit(f"{name} at offset {offset} gives wrong results")
                cases[offset, mode, name] = (jit.fn, x, out)
    samples = {key: [] for key in cases}
    keys = list(cases)
    for rep in range(reps):
        k = rep * 7 % len(keys)
        for key in keys[k:] + keys[:k]:
            fn, x, out = cases[key]
            start = time.thread_time_ns()
            fn(x.ctypes.data, out.ctypes.data, 0.5, n)
            samples[key].append(time.thread_time_ns() - start)
    ms = {key: statistics.median(s) / 1e6 for key, s in samples.items()}
    return {"median_ms": {f"{o}/{m}/{v}": t for (o, m, v), t in ms.items()}, **verdict(ms, offsets, width)}


def at(buf: np.ndarray, offset: int, n: int) -> np.ndarray:
    """n f32 of `buf` from `offset` bytes past a 64-byte boundary (any offset:
    NumPy marks an array at an odd address unaligned; the kernel does not mind)."""
    raw = buf.view(np.uint8)
    return np.ndarray((n,), np.float32, raw.data, (offset - raw.ctypes.data) % 64)


def verdict(ms: dict, offsets: list[int], width: int) -> dict:
    best, realign_wins, nt_ok = {}, [], {}
    for offset in offsets:
        for mode in MODES:
            if (offset, mode, "plain") not in ms:
                continue
            times = {v: ms[offset, mode, v] for v in ("realigned", "pieces", "llvm-nt", "plain")}
            best[f"{offset}/{mode}"] = min(times, key=times.get)
            if offset % 4 == 0 and offset % width:
                realign_wins.append(times["realigned"] <= times["pieces"])
            # not 4-byte aligned, realigned and pieces are plain stores: LLVM's are the non-temporal ones
            nontemporal = ("realigned", "pieces", "llvm-nt") if offset % 4 == 0 else ("llvm-nt",)
            nt_ok.setdefault(offset, []).append(min(times[v] for v in nontemporal) <= times["plain"] * 1.02)
    align = 1
    while align < width and not all(all(nt_ok[o]) for o in offsets if o % align == 0):
        align *= 2
    return {"fastest": best, "realign": sum(realign_wins) * 2 >= len(realign_wins),
            "min_align": align, "table": dataclasses.asdict(ntplan.RULES[width])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, choices=(32, 64), default=32, help="vector bytes (64: AVX-512)")
    ap.add_argument("--size", default="16M", help="f32 elements: 4M, 16M or 64M")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    n = {"4M": 4 << 20, "16M": 16 << 20, "64M": 64 << 20}[args.size]
    if args.width == 64 and "avx512f" not in (host_features_from_os() or ()):
        raise SystemExit("--width 64 runs AVX-512 code: this machine has no AVX-512F")
    result = {"width": args.width, "n": n, "reps": args.reps,
              "load": " ".join(f"{v:.1f}" for v in os.getloadavg()), **run(args.width, n, max(args.reps, 1))}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"stream_store paths, {args.width}-byte vectors, {args.size} f32, {args.reps} reps, medians of thread "
          f"CPU time (ms); load average {result['load']}")
    names = ("realigned", "pieces", "llvm-nt", "plain")
    print("  offset input    " + "".join(f"{v:>11}" for v in names) + "   fastest")
    for key, fastest in result["fastest"].items():
        offset, mode = key.split("/")
        cells = "".join(f"{result['median_ms'][f'{key}/{v}']:11.2f}" for v in names)
        print(f"  {offset:>6} {mode:<8}{cells}   {fastest}")
    table = result["table"]
    print(f"  measured: realign runs {'yes' if result['realign'] else 'no'}; non-temporal from "
          f"{result['min_align']}-byte alignment up")
    print(f"  ntplan.RULES[{args.width}]: realign {'yes' if table['realign'] else 'no'}, min_align "
          f"{table['min_align']} ({table['measured']})")
    agree = result["realign"] == table["realign"] and result["min_align"] == table["min_align"]
    print("the table agrees with these numbers" if agree else "THE TABLE DISAGREES with these numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
