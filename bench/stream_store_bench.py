"""`stream_store` on the arrays users have: does it stay non-temporal, and is
it never slower than a plain store loop?

    .venv/bin/python bench/stream_store_bench.py [--sizes 16M,64M] [--reps N] [--width 32|64] [--json]

One kernel, `out[i] = x[i] * s` in f32 vectors of `--width` bytes (64 needs
an AVX-512 machine: rerun it there for the zmm row of
compiler/codegen/lower/ntplan.py's table), loaded with `ea.load` twice: with
`stream_store` and with `store` (the plain-store loop). Input and output come
from np.empty / np.zeros, which start 16 bytes past a 64-byte boundary
(glibc's mmap header; the row `numpy`), and are viewed inside those same
buffers at 0 bytes past a boundary (`loader`: how the loader and
`ea bind --python` allocate outputs) and at 4 and 8 bytes (slices): every
placement uses the same memory, so page placement (NumPy asks for huge
pages; some buffers get them, some not) cannot favour one. Each placement
twice: the input at the output's offset (`same`), and the input aligned
(`aligned`: the store's own cost); and for `numpy` the output aligned, the
input not (`misaligned`: the loads' share, which no store can win back). All cases are timed in rounds, each once per
round in a rotating order; medians of the thread's CPU time (other
processes' turns on the core do not count; their memory traffic does, so
the machine's load is printed). Also measured: the triad bandwidth of
`ea bench` (compiler/bench/bandwidth.py) and a C reference, gcc -O3
-march=native with _mm256_stream_ps (_mm512_stream_ps for --width 64) on
the aligned placement.
Targets: stream at numpy within 3 % of stream at loader; stream no slower
than plain at any placement (2 % allowed for noise).
"""
from __future__ import annotations

import argparse
import ctypes as ct
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.bench.bandwidth import measure_bandwidth  # noqa: E402
from ea_compiler.loader import load  # noqa: E402
from ea_compiler.cpu_levels import host_features_from_os  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

TARGETS = {"numpy_vs_loader": 1.03, "stream_vs_plain": 1.02}
SIZES = {"16M": 16 << 20, "64M": 64 << 20}

KERNEL = """\
export kernel scale(x: *f32, out: *mut f32, s: f32)
    over i in n step {lanes}
    tail scalar {{ out[i] = x[i] * s }}
{{
    let v: f32x{lanes} = load(x, i) .* splat(s)
    {store}(out, i, v)
}}
"""


def cpu_name() -> str:
    """The model name /proc/cpuinfo gives (Linux), else the machine type."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    import platform
    return platform.machine()


def kernels(width: int, workdir: Path) -> dict:
    lanes = width // 4
    out = {}
    for name, store in (("stream", "stream_store"), ("plain", "store")):
        path = workdir / f"{name}{width}.ea"
        path.write_text(KERNEL.format(lanes=lanes, store=store), encoding="utf-8")
        out[name] = load(path, avx512=width == 64).scale
    return out


def c_reference(width: int, workdir: Path):
    """The C kernel through ctypes, or None without a C compiler."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None
    lib = workdir / "libstream_ref.so"
    flags = ["-DSTREAM_REF_ZMM"] if width == 64 else []
    subprocess.run([cc, "-O3", "-march=native", "-shared", "-fPIC", *flags, str(ROOT / "bench/c/stream_ref.c"),
                    "-o", str(lib)], check=True)
    dll = ct.CDLL(str(lib))
    if dll.stream_ref_lanes() * 4 != width:
        raise SystemExit(f"the C reference has no {width}-byte vectors on this machine")
    fn = dll.stream_ref
    fn.argtypes = (ct.c_void_p, ct.c_void_p, ct.c_float, ct.c_int64)
    return lambda x, out, s: fn(x.ctypes.data, out.ctypes.data, s, x.size)


def buffers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, out) as users allocate them, with room to view them at any offset."""
    x = np.empty(n + 32, np.float32)
    x[...] = np.random.default_rng(3).random(n + 32, dtype=np.float32)
    return x, np.zeros(n + 32, np.float32)


def view(buf: np.ndarray, n: int, offset: int | None) -> np.ndarray:
    """n elements of `buf` from `offset` bytes past a 64-byte boundary (None: where NumPy put it)."""
    start = 0 if offset is None else (offset - buf.ctypes.data) % 64 // 4
    return buf[start:start + n]


def timed(cases: dict, reps: int) -> dict[tuple, float]:
    """Median ms per case (placement, variant): every case once per round, the
    order rotating from round to round, so a busy spell on the machine (other
    processes share the memory bus) lands on all of them alike."""
    samples = {key: [] for key in cases}
    keys = list(cases)
    for rep in range(reps):
        k = rep % len(keys)
        for key in keys[k:] + keys[:k]:
            fn, x, out = cases[key]
            start = time.thread_time_ns()
            fn(x, out, 0.5)
            samples[key].append(time.thread_time_ns() - start)
    return {key: statistics.median(s) / 1e6 for key, s in samples.items()}


def run(width: int, sizes: list[str], reps: int, workdir: Path) -> dict:
    fns = kernels(width, workdir)
    ref = c_reference(width, workdir)
    offsets = {"numpy": None, "loader": 0, "+4": 4, "+8": 8} | ({"+32": 32} if width == 64 else {})
    rows = []
    for size in sizes:
        n = SIZES[size]
        xbuf, obuf = buffers(n)
        if view(obuf, n, None).ctypes.data % 64 in (0, 4, 8):
            offsets["+16"] = 16  # this NumPy did not give 16 mod 64: measure that too
        cases = {}
        for place, offset in offsets.items():
            for mode in ("same", "aligned") + (("misaligned",) if place == "numpy" else ()):
                x = view(xbuf, n, {"same": offset, "aligned": 0, "misaligned": None}[mode])
                out = view(obuf, n, 0 if mode == "misaligned" else offset)
                want = x * np.float32(0.5)
                variants = dict(fns) | ({"c": ref} if ref is not None and place == "loader" else {})
                for name, fn in variants.items():  # warm-up, and each variant computes the right thing
                    out[...] = 0
                    fn(x, out, 0.5)
                    if not np.array_equal(out, want):
                        raise SystemExit(f"{name} at {place} ({mode}) gives wrong results")
                    if mode != "aligned" or place != "loader":  # loader/aligned is loader/same
                        cases[place, mode, name] = (fn, x, out)
        for (place, mode, name), value in timed(cases, reps).items():
            out = cases[place, mode, name][2]
            rows.append({"size": size, "place": place, "input": mode, "misalignment": out.ctypes.data % 64,
                         "variant": name, "median_ms": value, "gbs": 2 * n * 4 / (value * 1e6)})
        del xbuf, obuf, cases
    return {"rows": rows, **verdict(rows, width)}


def verdict(rows: list[dict], width: int) -> dict:
    ms = {(r["size"], r["place"], r["input"], r["variant"]): r["median_ms"] for r in rows}
    ratios, ok, slower = {}, True, set()
    for size in sorted({r["size"] for r in rows}):
        r = {"numpy/loader": ms[size, "numpy", "same", "stream"] / ms[size, "loader", "same", "stream"]}
        ok &= r["numpy/loader"] <= TARGETS["numpy_vs_loader"]
        for (s, place, mode, v), value in ms.items():
            if s == size and v == "stream":
                key = f"stream/plain {place} {mode}"
                r[key] = value / ms[size, place, mode, "plain"]
                ok &= r[key] <= TARGETS["stream_vs_plain"]
                if r[key] > TARGETS["stream_vs_plain"]:
                    slower.add(next(x["misalignment"] for x in rows if (x["size"], x["place"]) == (size, place)))
        if (size, "loader", "same", "c") in ms:
            r["stream/C loader"] = ms[size, "loader", "same", "stream"] / ms[size, "loader", "same", "c"]
        ratios[size] = r
    # The rule these numbers support (ntplan.RULES[width].min_align): the smallest
    # alignment at which every offset it allows streams no slower than plain.
    align = 4
    while any(off % align == 0 for off in slower) and align < width:
        align *= 2
    return {"ratios": ratios, "meets_targets": ok, "supported_min_align": align}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="16M,64M", help="of 16M, 64M (f32 elements)")
    ap.add_argument("--reps", type=int, default=21, help="calls per variant and placement (default 21)")
    ap.add_argument("--width", type=int, choices=(32, 64), default=32, help="vector bytes (64: AVX-512)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    if args.width == 64 and "avx512f" not in (host_features_from_os() or ()):
        raise SystemExit("--width 64 runs AVX-512 code: this machine has no AVX-512F")
    with tempfile.TemporaryDirectory(prefix="ea-stream-bench-") as tmp:
        bandwidth = measure_bandwidth(Options(avx512=args.width == 64))
        result = {"cpu": cpu_name(), "width": args.width, "reps": args.reps,
                  "load": " ".join(f"{v:.1f}" for v in os.getloadavg()),
                  "triad_gbs": bandwidth, "targets": TARGETS, **run(args.width, sizes, max(args.reps, 1), Path(tmp))}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"stream_store, {args.width}-byte vectors, {result['reps']} reps, medians of thread CPU time; "
          f"triad {bandwidth:.1f} GB/s; load average {result['load']}")
    for r in result["rows"]:
        print(f"  {r['size']:>4} {r['place']:<7} (out at {r['misalignment']:>2} mod 64, input {r['input']:<10}) "
              f"{r['variant']:<7}{r['median_ms']:9.2f} ms {r['gbs']:6.1f} GB/s")
    for size, ratios in result["ratios"].items():
        print(f"  {size}: " + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))
    print(f"  rule supported by these numbers: non-temporal pieces from {result['supported_min_align']}-byte "
          "alignment up (compiler/codegen/lower/ntplan.py)")
    print("meets targets" if result["meets_targets"] else "MISSES a target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
