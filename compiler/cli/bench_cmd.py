"""`ea bench`: a NumPy suite (`x.bench.toml`, or found beside `x.ea`, or every
suite in a folder) or an upstream C-harness manifest (TOOLCHAIN.md §7, told
apart by its flat keys such as `harness`). Exit codes: 0 fine, 1 error or a result that
does not match its reference, 3 regressions with --fail-on-regression."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from .flags import HELP_FLAGS, wants_help

USAGE = """usage: ea bench <suite.bench.toml | file.ea | folder | manifest.toml> [options]
       ea bench --calibrate [--target CPU]   measure this machine for `ea inspect`'s predictions
  --bench NAME          only this benchmark (repeatable)
  --sizes 64K,16M       sizes to sweep instead of the suite's (benches sized by one n)
  --quick               short measurements (smoke runs; marked quick, compared only with quick runs)
  --reps N              exactly N samples per measurement
  --no-bandwidth        skip the triad bandwidth measurement
  --json                print the result JSON instead of the table
  --out PATH            also write the result JSON to PATH
  --baseline PATH       baseline file (default: the suite's `baseline`)
  --update-baseline     store this run as the baseline
  --no-diff             do not compare with the baseline
  --fail-on-regression[=PCT]  exit 3 when a result is PCT % (default 10) slower than the baseline
  --no-history          do not record this run in the history file
  --cycles              instead: cycles per main-loop iteration of each benchmark's function at an
                        L1-resident and a DRAM size, predicted vs measured (kept in the history file)
  target options as for `ea`: --target CPU --avx512 --opt-level N ...
  -h, --help            this help
An option's value may also be written --opt=value.
"""


def run_bench(args: list[str]) -> int:
    if not args or args[0] in HELP_FLAGS:
        sys.stderr.write(USAGE)
        return 0 if args else 1
    if args[0] == "--calibrate":
        return _calibrate(args[1:])
    target = Path(args[0])
    if target.suffix == ".toml" and _is_harness_manifest(target):
        from ..bench.harness import main as harness_main
        return harness_main(args[0], args[1:])
    if wants_help(args):
        sys.stderr.write(USAGE)
        return 0
    parsed = _parse(args)
    from .bench_run import run
    return run(parsed)


def _calibrate(args: list[str]) -> int:
    """Core clock, read bandwidth of L1, L2, L3 and DRAM, and a libm call's cost,
    measured (a few seconds) and cached per CPU (compiler/bench/calibrate.py)."""
    from ..options import Options
    opts = Options()
    for arg in joined(args, TARGET_VALUE_OPTIONS):
        new = parse_target_flag(arg, opts)
        if new is None:
            raise UsageError(f"unknown option '{arg}' for ea bench --calibrate")
        opts = new
    validate(opts)
    from ..bench.calibrate import calibrate
    calibrate(opts, tell=lambda line: print(line, flush=True))
    return 0


# Top-level keys only an upstream manifest has: a file with any of them is one, and
# the manifest loader names what is missing.
_MANIFEST_KEYS = {"harness", "name", "arch", "ea_flags", "cc_flags"}


def _is_harness_manifest(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return bool(_MANIFEST_KEYS & tomllib.load(fh).keys())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False  # the suite loader reports the problem


def _parse(args: list[str]):
    """The options of a NumPy-suite run, as bench_run's BenchArgs (imported here:
    bench_run loads rich and NumPy, which `--help` and the C harness do not need)."""
    from ..bench import parse_size
    from .bench_run import BenchArgs
    out = BenchArgs(args[0])
    for arg in joined(args[1:], ("--bench", "--sizes", "--reps", "--out", "--baseline", *TARGET_VALUE_OPTIONS)):
        name, eq, value = arg.partition("=")
        if name == "--bench":
            out.benches.append(value)
        elif name == "--sizes":
            try:
                out.sizes = [parse_size(s) for s in value.split(",") if s.strip()]
            except ValueError as err:
                raise UsageError(f"bad size '{err}' in --sizes (e.g. --sizes 64K,16M)") from None
            if not out.sizes:
                raise UsageError("--sizes needs at least one size")
        elif name == "--reps":
            if not value.isdigit() or int(value) < 1:
                raise UsageError("--reps takes a positive count")
            out.reps = int(value)
        elif name == "--out":
            out.out = value
        elif name == "--baseline":
            out.baseline = value
        elif name == "--fail-on-regression":
            try:
                out.fail_threshold = float(value) / 100 if eq else 0.10
            except ValueError:
                raise UsageError("--fail-on-regression takes a percentage, e.g. --fail-on-regression=5") from None
        elif arg in _SWITCHES:
            setattr(out, *_SWITCHES[arg])
        else:
            new = parse_target_flag(arg, out.options)
            if new is None:
                raise UsageError(f"unknown option '{arg}'")
            out.options = new
    if out.fail_threshold is not None and not out.diff:
        raise UsageError("--fail-on-regression needs the baseline diff that --no-diff skips")
    validate(out.options)
    return out


_SWITCHES = {"--quick": ("quick", True), "--no-bandwidth": ("bandwidth", False), "--json": ("json", True),
             "--update-baseline": ("update_baseline", True), "--no-diff": ("diff", False),
             "--no-history": ("history", False), "--cycles": ("cycles", True)}
