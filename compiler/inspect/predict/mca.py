"""Throughput, port pressure and simulated cycles of loop bodies from
llvm-mca, LLVM's machine-code analyser, which uses the same scheduling
models as LLVM's code generator for the CPU.

One llvm-mca process per function: each loop body is a code region
(`# LLVM-MCA-BEGIN`). Calls are left out of the input (llvm-mca assumes a
100-cycle latency for them; their cost is measured instead, memory.py).
Results are cached by input text.

`EA_LLVM_MCA` names the binary to use; `EA_LLVM_MCA=none` makes the model
unavailable (the prediction falls back to the rough estimate)."""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from collections import OrderedDict
from dataclasses import dataclass, field

# In order of preference: 16 and 14 agree on Zen 3 (bench/predict_models.py), 16 also models Zen 4.
CANDIDATES = ("llvm-mca-16", "llvm-mca-14", "llvm-mca")
ITERATIONS = 200
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 256


class NoModel(Exception):
    """No machine model for this CPU (or no llvm-mca): why, for the report."""


class UnknownCPU(Exception):
    """This llvm-mca has no model for the CPU (another may)."""


@dataclass
class BlockTiming:
    rthroughput: float  # cycles per iteration the ports need (llvm-mca's Block RThroughput)
    simulated: float  # steady-state cycles per iteration the simulation took (dependencies included)
    ports: dict[str, float] = field(default_factory=dict)  # resource -> cycles busy per iteration
    latencies: list[int] = field(default_factory=list)  # per instruction of the input
    units: dict[str, int] = field(default_factory=dict)  # resource -> how many of it there are
    usage: list[dict[str, float]] = field(default_factory=list)  # per instruction: resource -> cycles
    dispatch: float = 0.0  # cycles per iteration the dispatch width needs (micro-ops / width)


@functools.cache
def _find(name: str | None) -> tuple[tuple[str, str], ...]:
    """(path, "llvm-mca 16") of each binary there is, preferred first."""
    if name and name.lower() == "none":
        return ()
    out, seen = [], set()
    for cand in ([name] if name else CANDIDATES):
        path = shutil.which(cand)
        if path and os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            text = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            m = re.search(r"LLVM version (\d+)", text)
            out.append((path, f"llvm-mca {m.group(1) if m else '?'}"))
    return tuple(out)


def available() -> tuple[str, str] | None:
    """(path, version text) of the preferred llvm-mca, or None."""
    found = _find(os.environ.get("EA_LLVM_MCA"))
    return found[0] if found else None


def run(bodies: list[list[str]], triple: str, cpu: str, mattr: str = "") -> tuple[list[BlockTiming], str]:
    """Timings of each body (instruction texts, one iteration of a loop) and
    the model's name (`llvm-mca 16 znver4`), from the first llvm-mca that
    models `cpu`. Raises NoModel when there is no llvm-mca or none has a model."""
    found = _find(os.environ.get("EA_LLVM_MCA"))
    if not found:
        raise NoModel("llvm-mca not found" if os.environ.get("EA_LLVM_MCA", "").lower() != "none"
                      else "llvm-mca disabled by EA_LLVM_MCA=none")
    if cpu in ("generic", "native", ""):
        raise NoModel(f"no scheduling model for '{cpu or 'generic'}'")
    unknown = []
    for binary in found:
        try:
            return _run_one(binary, bodies, triple, cpu, mattr), f"{binary[1]} {cpu}"
        except UnknownCPU:
            unknown.append(binary[1])
    raise NoModel(f"{' and '.join(unknown)} {'has' if len(unknown) == 1 else 'have'} no model for '{cpu}'")


def _run_one(found: tuple[str, str], bodies, triple: str, cpu: str, mattr: str) -> list[BlockTiming]:
    text = "".join(f"# LLVM-MCA-BEGIN r{k}\n" + "".join(f"{ins}\n" for ins in body) + "# LLVM-MCA-END\n"
                   for k, body in enumerate(bodies))
    key = (found[0], text, triple, cpu, mattr)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    args = [found[0], f"-mtriple={triple}", f"-mcpu={cpu}", f"-iterations={ITERATIONS}", "--json"]
    if mattr:
        args.append(f"-mattr={mattr}")
    proc = subprocess.run(args, input=text, capture_output=True, text=True, timeout=60)
    if "not a recognized processor" in proc.stderr:
        raise UnknownCPU(cpu)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit status {proc.returncode}"
        raise NoModel(f"{found[1]} failed: {last}")
    timings = _parse(json.loads(proc.stdout))
    _CACHE[key] = timings
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return timings


def _parse(doc: dict) -> list[BlockTiming]:
    names = [re.sub(r"\..*$", "", r, flags=re.S) for r in doc.get("TargetInfo", {}).get("Resources", [])]
    out = []
    for region in doc["CodeRegions"]:
        summary = region["SummaryView"]
        iters = summary["Iterations"] or 1
        n = len(region["Instructions"])
        ports: dict[str, float] = {}
        usage: list[dict[str, float]] = [{} for _ in range(n)]
        for p in region.get("ResourcePressureView", {}).get("ResourcePressureInfo", []):
            if p["InstructionIndex"] < n and p["ResourceIndex"] < len(names):
                name = names[p["ResourceIndex"]]
                ports[name] = round(ports.get(name, 0.0) + p["ResourceUsage"], 3)
                mine = usage[p["InstructionIndex"]]
                mine[name] = round(mine.get(name, 0.0) + p["ResourceUsage"], 3)
        lats = [i["Latency"] for i in region.get("InstructionInfoView", {}).get("InstructionList", [])]
        units = {name: names.count(name) for name in set(names)}
        dispatch = summary.get("TotaluOps", 0) / iters / (summary.get("DispatchWidth") or 1)
        out.append(BlockTiming(float(summary["BlockRThroughput"]), round(summary["TotalCycles"] / iters, 3),
                               ports, lats, units, usage, round(dispatch, 3)))
    return out
