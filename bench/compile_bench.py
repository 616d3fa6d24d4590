"""Per-process cost of the `ea` command and the import time of each public
entry point (issue 15 §3): what a build script or CI job pays per file.

    .venv/bin/python bench/compile_bench.py [--runs N] [--before REV] [--json]

Every command is run as its own process, N times (default 21), in rounds of
shuffled order so that load on the machine falls on all of them alike; the figure is the wall
median. Baselines measured in the same run: Python's own start-up (`python
-I -S -c pass`, the floor, and `python -c pass`, which adds `site` and this
checkout's editable-install finder) and `cc -shared` on the object alone (the
link step inside `ea k.ea --lib`). With `--before REV` the compiler of git
revision REV (its `compiler/` and `ea/`, unpacked to a temporary folder) runs
the same commands in the same rounds, for a before/after table.

Sources are byte-compiled first and the children run without
PYTHONDONTWRITEBYTECODE, as after `pip install` (a sandbox that sets it would
otherwise measure CPython compiling every module from source each time).

Reference (not runnable here): the reference compiler's static binary takes
25-30 ms for `ea k.ea --lib` on the same file, so the goal is <= 60 ms.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PY = str(BIN / "python")
GOAL_MS = 60.0          # 2x the reference binary's 25-30 ms
BEFORE_ISSUE = {"ea k.ea --lib": "120-150", "ea check k.ea": "~60"}  # issue 15's figures

# `ea ARGS` through a launcher that puts a compiler tree first on sys.path (PathFinder runs before
# the editable-install finder), so the current tree and --before's run the same way.
LAUNCH = "import sys; sys.path.insert(0, sys.argv.pop(1)); from ea_compiler.cli.main import main; main()"

EA_COMMANDS = [
    ("ea --version", ["--version"]),
    ("ea check k.ea", ["check", "k.ea"]),
    ("ea k.ea", ["k.ea"]),
    ("ea k.ea --lib", ["k.ea", "--lib"]),
    ("ea inspect k.ea", ["inspect", "k.ea"]),
]

# Import time of each public entry point, each a fresh process (the floor subtracted in the table).
ENTRY_POINTS = [
    ("import ea", "import ea"),
    ("import ea_compiler", "import ea_compiler"),
    ("ea_compiler.analyze, first call",
     "import ea_compiler; ea_compiler.analyze(open('k.ea','rb').read(), 'k.ea', ea_compiler.Options())"),
    ("eals start (server created)", "from eals.server import create_server; create_server()"),
    ("ea-tui start (app module)", "import ea_tui.app"),
]


def tree_for(rev: str | None, work: Path) -> Path:
    """A folder holding `ea_compiler` and `ea` of the working tree, or of git revision `rev`."""
    folder = work / (rev or "current")
    folder.mkdir()
    if rev is None:
        (folder / "ea_compiler").symlink_to(ROOT / "compiler")
        (folder / "ea").symlink_to(ROOT / "ea")
    else:
        blob = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "compiler", "ea"],
                              check=True, capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(blob)) as tar:
            tar.extractall(folder, filter="data")
        (folder / "compiler").rename(folder / "ea_compiler")
    compileall.compile_dir(str(folder), quiet=1)
    return folder


def run_once(cmd: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()}")
    return elapsed * 1000


def measure(commands: dict[str, list[str]], runs: int, cwd: Path, env: dict) -> dict[str, float]:
    """Median per command; each round runs every command once, in a new random order, so
    that bursts of load from other processes do not fall on the same commands each time."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, cmd in commands.items():  # one warm-up each (page cache, __pycache__)
        run_once(cmd, cwd, env)
    order = list(commands)
    shuffle = random.Random(15).shuffle
    for _ in range(runs):
        shuffle(order)
        for name in order:
            times[name].append(run_once(commands[name], cwd, env))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--before", metavar="REV", help="also measure the compiler of this git revision")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for folder in ("compiler", "ea", "eals", "tui"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)
    with tempfile.TemporaryDirectory(prefix="ea-compile-bench-") as tmp:
        work = Path(tmp)
        shutil.copy(ROOT / "examples" / "saxpy.ea", work / "k.ea")
        trees = {"after": tree_for(None, work)}
        if args.before:
            trees["before"] = tree_for(args.before, work)
        subprocess.run([PY, "-c", LAUNCH, str(trees["after"]), "k.ea"], cwd=work, env=env, check=True,
                       capture_output=True)
        (work / "k.o").rename(work / "base.o")  # the link baseline's object (`--lib` deletes k.o)
        commands = {"python -I -S -c pass": [PY, "-I", "-S", "-c", "pass"],
                    "python -c pass": [PY, "-c", "pass"],
                    "cc -shared k.o -lm": [os.environ.get("CC", "cc"), "-shared", "base.o", "-o", "libbase.so", "-lm"],
                    "ea k.ea --lib (console script)": [str(BIN / "ea"), "k.ea", "--lib"]}
        for label, tree in trees.items():
            for name, argv in EA_COMMANDS:
                commands[f"{name} [{label}]"] = [PY, "-c", LAUNCH, str(tree), *argv]
        for name, code in ENTRY_POINTS:
            commands[name] = [PY, "-c", code]
        result = measure(commands, args.runs, work, env)
        ten = [f"k{i}.ea" for i in range(10)]
        for name in ten:
            shutil.copy(work / "k.ea", work / name)
        result.update(measure({"ea build k0..k9.ea --lib (one process)": [str(BIN / "ea"), "build", *ten, "--lib"]},
                              max(5, args.runs // 4), work, env))
    if args.json:
        json.dump({"runs": args.runs, "median_ms": result}, sys.stdout, indent=2)
        print()
        return 0
    report(result, args.runs, "before" in {k.rsplit("[", 1)[-1].rstrip("]") for k in result})
    return 0


def report(r: dict[str, float], runs: int, with_before: bool) -> None:
    floor = r["python -c pass"]
    print(f"per-process wall medians of {runs} interleaved runs, ms (load average now: "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    print(f"  python -I -S -c pass   {r['python -I -S -c pass']:7.1f}   (interpreter floor)")
    print(f"  python -c pass         {floor:7.1f}   (+ site and the editable-install finder)")
    print(f"  cc -shared k.o -lm     {r['cc -shared k.o -lm']:7.1f}   (the link step alone)")
    print()
    head = f"  {'command':22s} {'after':>7s}" + (f" {'before':>7s} {'ratio':>6s}" if with_before else "")
    print(head + f"  {'minus python':>12s}  issue's figure")
    for name, _ in EA_COMMANDS:
        after = r[f"{name} [after]"]
        line = f"  {name:22s} {after:7.1f}"
        if with_before:
            before = r[f"{name} [before]"]
            line += f" {before:7.1f} {after / before:6.2f}"
        print(line + f"  {after - floor:12.1f}  {BEFORE_ISSUE.get(name, '')}")
    lib = r["ea k.ea --lib (console script)"]
    print(f"  ea k.ea --lib via the console script: {lib:.1f} ms; goal <= {GOAL_MS:.0f} ms "
          f"(2x the reference binary's 25-30 ms): {'met' if lib <= GOAL_MS else 'not met'}")
    per = r["ea build k0..k9.ea --lib (one process)"]
    print(f"  ea build k0..k9.ea --lib: {per:.1f} ms for 10 files, {per / 10:.1f} ms per file")
    print()
    print("  entry point                          median  minus python -c pass")
    for name, _ in ENTRY_POINTS:
        print(f"  {name:36s} {r[name]:7.1f}  {r[name] - floor:7.1f}")


if __name__ == "__main__":
    sys.exit(main())
