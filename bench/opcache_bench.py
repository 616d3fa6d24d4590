"""What a loop iteration costs the front end: asm loops with one thing varied at a time, where
the loop starts in its 64-byte window, how many bytes and ops its body has, how many loads and
stores, unrolled or not (the facts behind compiler/inspect/predict/frontend.py).

    .venv/bin/python bench/opcache_bench.py [--panel NAME ...] [--rounds 3] [--n 1536]

Each loop is written in assembly (gcc assembles it beside a small C timer, so the bytes and
their placement are exactly what the row says), run over L1-resident arrays (three of n f32,
placed apart so no load aliases a recent store's 4 KiB offset), timed by the thread's CPU time
at n and n/8 elements (the slope: call overhead and the loop's exit cancel), converted to cycles
with a chain of 16 dependent adds a trip measured in the same process (one cycle each). Each row
prints the rounds' figures and their minimum, with the rule's fetches and the loop's ops.

Panels:
  place    a 19-byte copy loop (load, store, add, cmp+jb) at 0..60 bytes past a window
  ops      a copy loop with 0..4 independent register ops added (6..10 ops), 16 bytes past a
           window, and the same with 32-bit displacements (more bytes, same ops)
  memory   1-4 loads, 1-2 stores, their mixes, not unrolled, in one window
  unroll   copy and two-loads-and-a-store loops unrolled 1x and 2x
  gather   FP-to-integer moves (vmovq/vpextrq) alone and with xmm loads: the written-out gather
  fma      four vector stores a trip of loaded data and of FMA results (the load apart or folded,
           xmm and ymm), of multiplies, adds, an FMA then an add; eight FMAs and no store
           (predict/pipes.py: an FMA takes half a cycle of the store-data pipe on Zen 3)
This shared virtual machine has a state (likely the core's other hardware thread busy with another
tenant) in which every fetch takes two cycles: rows then read about twice as slow; the `ld1` row of
every panel shows which state it was (1.07 or 2.0-2.3).
"""
from __future__ import annotations

import argparse
import ctypes as ct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TIMER = r"""
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
typedef void (*kernel)(float *, float *, float *, long);
double timeit(kernel f, float *a, float *b, float *c, long n, int reps, int trials) {
    double best = 1e300;
    for (int t = 0; t < trials; t++) {
        double t0 = now();
        for (int r = 0; r < reps; r++) f(a, b, c, n);
        double d = now() - t0;
        if (d < best) best = d;
    }
    return best / reps;
}
"""

_X = ["%rax", "%r9", "%r10", "%r11", "%rsi", "%rdi", "%rdx"]  # free registers for the transfer rows
BODIES = {
    "ld1": ["vmovups (%rdi,%rcx,4), %ymm0"],
    "ld2": ["vmovups (%rdi,%rcx,4), %ymm0", "vmovups (%rsi,%rcx,4), %ymm5"],
    "ld3": ["vmovups (%rdi,%rcx,4), %ymm0", "vmovups (%rsi,%rcx,4), %ymm5", "vmovups (%rdx,%rcx,4), %ymm6"],
    "ld4": ["vmovups (%rdi,%rcx,4), %ymm0", "vmovups (%rsi,%rcx,4), %ymm5", "vmovups (%rdx,%rcx,4), %ymm6",
            "vmovups 32(%rdx,%rcx,4), %ymm7"],
    "st1": ["vmovups %ymm2, (%rdx,%rcx,4)"],
    "st2": ["vmovups %ymm2, (%rdx,%rcx,4)", "vmovups %ymm2, (%rsi,%rcx,4)"],
    "copy": ["vmovups (%rdi,%rcx,4), %ymm0", "vmovups %ymm0, (%rdx,%rcx,4)"],
    "add": ["vmovups (%rdi,%rcx,4), %ymm0", "vaddps (%rsi,%rcx,4), %ymm0, %ymm0", "vmovups %ymm0, (%rdx,%rcx,4)"],
    "saxpy": ["vmovups (%rdi,%rcx,4), %ymm0", "vfmadd213ps (%rsi,%rcx,4), %ymm1, %ymm0",
              "vmovups %ymm0, (%rsi,%rcx,4)"],
    "ld2st2": ["vmovups (%rdi,%rcx,4), %ymm0", "vmovups %ymm0, (%rdx,%rcx,4)", "vmovups 32(%rdi,%rcx,4), %ymm5",
               "vmovups %ymm5, 32(%rdx,%rcx,4)"],
    "xfer16": [x for k in range(8) for x in (f"vmovq %xmm1, {_X[k % 7]}", f"vpextrq $1, %xmm1, {_X[(k + 3) % 7]}")],
}
BODIES["xfer16+ld8"] = BODIES["xfer16"] + [f"vmovss -{8 + 4 * k}(%rsp), %xmm{4 + k}" for k in range(8)]
BODIES["xfer16+ins8"] = BODIES["xfer16"] + [f"vinsertps $16, -{8 + 4 * k}(%rsp), %xmm13, %xmm{4 + k}"
                                            for k in range(8)]


def _four(*ops: str, reg: str = "ymm", width: int = 32) -> list[str]:
    """Four copies of `ops` (formats of k, the copy; r, its register; d, its displacement)."""
    return [op.format(k=k, r=f"%{reg}{4 + k}", d=width * k) for k in range(4) for op in ops]


# Stores of FMA results against stores of loaded, multiplied or added data (predict/pipes.py): y = x * a + b
# four vectors a trip (xmm and ymm) copied, with FMAs on three registers (as LLVM writes `fma(load(x, i),
# va, vb)` into a store), with the load folded into the FMA; FMAs, multiplies, adds from registers stored;
# an FMA then an add stored; a folded multiply and an add stored; eight FMAs into eight accumulators and
# no store, their loads apart and folded.
_LOAD, _STORE = "vmovups {d}(%rdi,%rcx,4), {r}", "vmovups {r}, {d}(%rdx,%rcx,4)"
for reg, w in (("xmm", 16), ("ymm", 32)):
    BODIES[f"cp4{reg[0]}"] = _four(_LOAD, _STORE, reg=reg, width=w)
    BODIES[f"fma4{reg[0]}"] = _four(_LOAD, f"vfmadd132ps %{reg}1, %{reg}2, {{r}}", _STORE, reg=reg, width=w)
    BODIES[f"fmam4{reg[0]}"] = _four(f"vmovaps %{reg}2, {{r}}", f"vfmadd231ps {{d}}(%rdi,%rcx,4), %{reg}1, {{r}}",
                                     _STORE, reg=reg, width=w)
BODIES["fst4y"] = _four("vmovaps %ymm2, {r}", "vfmadd231ps %ymm3, %ymm1, {r}", _STORE)
BODIES["mst4y"] = _four("vmulps %ymm3, %ymm1, {r}", _STORE)
BODIES["ast4y"] = _four("vaddps %ymm3, %ymm1, {r}", _STORE)
BODIES["fadd4y"] = _four(_LOAD, "vfmadd132ps %ymm1, %ymm2, {r}", "vaddps %ymm3, {r}, {r}", _STORE)
BODIES["madd4y"] = _four("vmulps {d}(%rdi,%rcx,4), %ymm1, {r}", "vaddps %ymm3, {r}, {r}", _STORE)
BODIES["ld8acc8"] = [x for k in range(8) for x in (f"vmovups {32 * k}(%rdi,%rcx,4), %ymm{4 + k % 4}",
                                                   f"vfmadd231ps %ymm{4 + k % 4}, %ymm1, %ymm{8 + k}")]
BODIES["ld8acc8m"] = [f"vfmadd231ps {32 * k}(%rdi,%rcx,4), %ymm1, %ymm{8 + k}" for k in range(8)]

# (body, bytes past a window, 32-bit displacements added, register ops added, unroll)
PANELS = {
    "place": [("copy", off, 0, 0, 1) for off in range(0, 64, 4)],
    "ops": [("copy", 16, widen, ops, 1) for widen in (0, 1, 2) for ops in range(5)],
    "memory": [(b, 0, 0, 0, 1) for b in ("ld1", "ld2", "ld3", "ld4", "st1", "st2", "copy", "add", "saxpy",
                                         "ld2st2")],
    "unroll": [(b, 0, 0, 0, u) for b in ("copy", "add") for u in (1, 2)],
    "gather": [(b, 0, 0, 0, 1) for b in ("xfer16", "xfer16+ld8", "xfer16+ins8")],
    "fma": [(b, 0, 0, 0, 1) for b in ("cp4x", "fma4x", "fmam4x", "cp4y", "fma4y", "fmam4y", "fst4y", "mst4y",
                                      "ast4y", "fadd4y", "madd4y", "ld8acc8", "ld8acc8m")],
}


def loop_asm(name: str, body: list[str], offset: int, widen: int, ops: int, unroll: int) -> str:
    """A function f(a, b, c, n) looping i = 0, 8, ... < n over `body` (unrolled), shaped like
    LLVM's loops (i + 2 steps computed, compared, i advanced), starting `offset` bytes past a
    64-byte window; `widen` memory operands get a 32-bit displacement, `ops` register ops added."""
    lines = [f".globl {name}", f".type {name},@function", ".p2align 6", f"{name}:", "movq %rcx, %r8",
             "xorl %ecx, %ecx", "jmp 1f", ".p2align 6", "1:"]
    if offset:
        lines.append(f".nops {offset}")
    lines.append(f"{name}_loop:")
    left = widen
    for u in range(unroll):
        for ins in body:
            ins = ins.replace("(%", f"{32 * u}(%") if u and "(%r" in ins and "%rsp" not in ins else ins
            if left and "(%" in ins:
                ins, left = "{disp32} " + ins, left - 1
            lines.append(ins)
    lines += [f"vpaddd %ymm3, %ymm3, %ymm{8 + j}" for j in range(ops)]
    step = 8 * unroll
    lines += ["movq %rcx, %r9", f"addq ${2 * step}, %r9", f"addq ${step}, %rcx", "cmpq %r8, %r9",
              f"jbe {name}_loop", f"{name}_end:", "vzeroupper", "ret", f".size {name}, .-{name}"]
    return "\n".join(lines) + "\n"


CHAIN = (".globl chain\n.p2align 6\nchain:\nmovq %rcx, %r8\nxorl %ecx, %ecx\nxorl %eax, %eax\n.p2align 6\n2:\n"
         + "addq %rdx, %rax\n" * 16 + "addq $1, %rcx\ncmpq %r8, %rcx\njb 2b\nret\n")


def build(rows: list[tuple], folder: Path):
    asm = ".text\n" + CHAIN + "".join(loop_asm(f"k{k}", BODIES[r[0]], *r[1:]) for k, r in enumerate(rows))
    (folder / "loops.S").write_text(asm + '.section .note.GNU-stack,"",@progbits\n')
    (folder / "timer.c").write_text(TIMER)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(folder / "loops.so"), str(folder / "timer.c"),
                    str(folder / "loops.S")], check=True)
    symbols = subprocess.run(["nm", str(folder / "loops.so")], capture_output=True, text=True, check=True).stdout
    where = {p[2]: int(p[0], 16) for p in map(str.split, symbols.splitlines()) if len(p) == 3}
    return ct.CDLL(str(folder / "loops.so")), where


def rule_fetches(placed: dict, name: str, widen: int) -> tuple[int, int]:
    """(fetches, ops) the rule of predict/frontend.py gives the loop: its instructions are those
    the disassembly lists under the `<name>_loop` symbol (up to `<name>_end`)."""
    from ea_compiler.inspect.predict.frontend import fetches
    rows = placed[f"{name}_loop"]
    wide = [1 if k < widen else 0 for k in range(len(rows))]  # the first `widen` are the {disp32} loads/stores
    mnemonics = [mn for _, _, mn in rows]
    fused = sum(1 for k in range(1, len(rows))
                if mnemonics[k].startswith("j") and mnemonics[k - 1].startswith(("cmp", "test")))
    return fetches([(o, s) for o, s, _ in rows], mnemonics, list(range(len(rows))), wide), len(rows) - fused


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panel", nargs="*", default=list(PANELS), choices=list(PANELS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=1536, help="f32 elements per array (three arrays: keep them in L1)")
    ap.add_argument("--trials", type=int, default=20)
    args = ap.parse_args()
    import platform
    import shutil
    if platform.machine().lower() not in ("x86_64", "amd64") or not shutil.which("gcc"):
        print("opcache_bench: needs an x86-64 host with gcc (the loops are x86 assembly); skipped")
        return 0
    rows = [("ld1", 0, 0, 0, 1)]
    for panel in args.panel:
        rows += [("ld1", 0, 0, 0, 1)] + PANELS[panel]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        lib, where = build(rows, folder)
        from ea_compiler.inspect.predict.frontend import _disassemble
        placed = _disassemble((folder / "loops.so").read_bytes())
        lib.timeit.restype = ct.c_double
        lib.timeit.argtypes = [ct.c_void_p] * 4 + [ct.c_long, ct.c_int, ct.c_int]
        span = (args.n * 4 + 4095) // 4096 * 4096
        buf = np.zeros((3 * span + 3 * 1024 + 8192) // 4, np.float32)
        base = buf.ctypes.data + (-buf.ctypes.data % 4096)
        ptr = [base + j * (span + 1024) for j in range(3)]  # apart by 1 KiB modulo 4 KiB: no 4K aliasing
        chain = ct.cast(lib.chain, ct.c_void_p).value
        t1, t2 = (lib.timeit(chain, *ptr, trips, 20, 10) for trips in (20000, 40000))
        ghz = 16 * 20000 / (t2 - t1)
        print(f"clock {ghz:.3f} GHz (16 dependent adds a trip)")
        print(f"{'body':<12} {'off':>3} {'bytes':>5} {'ops':>3} {'disp32':>6} {'unroll':>6} {'fetches':>7}  "
              f"cycles/iter (rounds)")
        small = args.n // 8
        for k, (body, offset, widen, ops, unroll) in enumerate(rows):
            name = f"k{k}"
            f = ct.cast(getattr(lib, name), ct.c_void_p).value
            step = 8 * unroll
            lo = small // step * step
            figures = []
            for _ in range(args.rounds):
                ts = lib.timeit(f, *ptr, lo, 200, args.trials)
                tl = lib.timeit(f, *ptr, args.n, 200, args.trials)
                figures.append((tl - ts) * ghz / ((args.n - lo) / step))
            start = where[f"{name}_loop"]
            size = where[f"{name}_end"] - start
            n_fetch, n_ops = rule_fetches(placed, name, widen)
            print(f"{body:<12} {start % 64:>3} {size:>5} {n_ops:>3} {widen:>6} {unroll:>6} {n_fetch:>7}  "
                  f"{min(figures):5.2f} ({' '.join(f'{x:.2f}' for x in figures)})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
