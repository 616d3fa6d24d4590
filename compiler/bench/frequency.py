"""The core clock, measured: a chain of dependent integer adds (one cycle of
latency each on every x86 and AArch64 core) timed over a known number of
links gives cycles per nanosecond. The time stamp counter or
/proc/cpuinfo would give the nominal clock, not the one the core runs at
under boost. Cached per CPU (host CPU name and model name) in
~/.cache/ea-bench/frequency.json for a day: a clock does not change between
runs, but a cache shared by a quiet and a busy spell should not live forever."""
from __future__ import annotations

import ctypes
import json
import os
import platform
import statistics
import time
from pathlib import Path

LINKS_PER_ITERATION = 32
ITERATIONS = 200_000  # 6.4M adds: ~1.5 ms at 4 GHz
MAX_AGE_S = 24 * 3600
_ENGINES: list = []  # the JIT engine must outlive the function pointer


def _chain_ir(arm: bool) -> str:
    add = "add $0, $0, #1" if arm else "addq $$1, $0"
    body = "\n".join(["  %x{k} = call i64 asm sideeffect \"{add}\", \"=r,0\"(i64 %x{p})".format(
        k=k + 1, p=k, add=add) for k in range(LINKS_PER_ITERATION)])
    return f"""
define i64 @ea_clock_chain(i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %x0 = phi i64 [0, %entry], [%x{LINKS_PER_ITERATION}, %loop]
{body}
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret i64 %x{LINKS_PER_ITERATION}
}}
"""


def _chain():
    import llvmlite.binding as llvm

    from ..codegen import LLVM_LOCK
    from ..codegen.target import init, new_target_machine
    from ..options import Options
    init()
    llvm.initialize_native_asmparser()  # for the inline assembly
    arm = platform.machine().lower() in ("aarch64", "arm64")
    with LLVM_LOCK:
        mod = llvm.parse_assembly(_chain_ir(arm))
        mod.verify()
        engine = llvm.create_mcjit_compiler(mod, new_target_machine(Options(opt_level=1)))
        engine.finalize_object()
        address = engine.get_function_address("ea_clock_chain")
    _ENGINES.append(engine)
    return ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(address)


def measure_ghz(samples: int = 15) -> float:
    """Cycles per nanosecond: the fastest of several timed chains (the
    fastest is the one nothing else interrupted)."""
    chain = _chain()
    chain(ITERATIONS // 10)  # warm: page in the code, let the clock ramp up
    rates = []
    for _ in range(samples):
        t0 = time.perf_counter_ns()
        got = chain(ITERATIONS)
        dt = time.perf_counter_ns() - t0
        if got != ITERATIONS * LINKS_PER_ITERATION:
            raise RuntimeError(f"the clock chain computed {got}, not {ITERATIONS * LINKS_PER_ITERATION}")
        rates.append(ITERATIONS * LINKS_PER_ITERATION / dt)
    rates.sort()
    return statistics.median(rates[-3:])


def _cache_file() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ea-bench" / "frequency.json"


def cpu_key() -> str:
    """Which CPU a cached clock belongs to: LLVM's name for it and the model name."""
    from ..codegen.target import _real_host
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith(("model name", "Model")):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{_real_host()[0]}|{model}"


def core_ghz(refresh: bool = False) -> float:
    """The core clock in GHz (cycles per ns), measured once per CPU and cached."""
    path, key = _cache_file(), cpu_key()
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        cached = {}
    entry = cached.get(key) if isinstance(cached, dict) else None
    if not refresh and isinstance(entry, dict) and time.time() - entry.get("at", 0) < MAX_AGE_S:
        return float(entry["ghz"])
    ghz = measure_ghz()
    cached = cached if isinstance(cached, dict) else {}
    cached[key] = {"ghz": round(ghz, 4), "at": time.time()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cached, indent=1))
    except OSError:
        pass  # an unwritable cache only costs the next run a measurement
    return ghz
