"""`ea bench <manifest.toml>` for an upstream C-harness manifest (TOOLCHAIN.md §7):
build the kernel with `ea --lib`, link the harness against it, run it pinned to
CPU 0, turn its JSONL into the result JSON and compare that with the baseline.

Our addition for CI: `--fail-on-regression[=PCT]` makes regressions beyond PCT %
(default 10) exit 3; without it the diff only warns, as the spec says."""
from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..options import Options
from ..target_flags import UsageError, joined, parse_target_flag, validate
from .baseline import REGRESSION_EXIT, diff_against, write_baseline
from .envinfo import (MEASUREMENT_COUNTS, document_json, environment, host_arch,
                      measurement_problem, result_document)
from .manifest import Manifest, ManifestError, load_manifest
from .suite import BenchError

USAGE = """usage: ea bench <manifest.toml> [options]

options:
  --target CPU                 forwarded to the kernel build (default: native)
  --avx512 --fp16 --i8mm --dotprod
                               forwarded target features
  --opt-level N                forwarded optimisation level (default: 3)
  --update-baseline            overwrite the manifest's baseline with this run's result
  --no-diff                    skip the baseline comparison
  --out PATH                   write the result JSON to PATH instead of stdout
  --fail-on-regression[=PCT]   exit 3 when a kernel is more than PCT % (default 10)
                               slower than the baseline (otherwise the diff only warns)
  -h, --help                   this help
An option's value may also be written --opt=value.
"""

_FEATURE_FLAGS = ("--avx512", "--fp16", "--i8mm", "--dotprod")
_VALUE_FLAGS = ("--target=", "--opt-level=")
DEFAULT_REGRESSION_PCT = 10.0
STDERR_TAIL = 20
# Ceilings so a hung compiler or harness ends in a message instead of a stuck CI job.
BUILD_TIMEOUT_S = 600
RUN_TIMEOUT_S = 3600


@dataclass
class _Args:
    opts: Options = field(default_factory=Options)
    forwarded: list[str] = field(default_factory=list)  # target flags, verbatim, for `ea`
    update_baseline: bool = False
    diff: bool = True
    out: str | None = None
    fail_pct: float | None = None  # --fail-on-regression threshold in percent


def main(manifest_path: str, argv: list[str]) -> int:
    """Run the benchmark of `manifest_path` with the options after it; the exit code."""
    try:
        return _bench(manifest_path, argv)
    except UsageError as err:
        print(f"error[{err.kind}]: {err}" if err.kind else f"error: {err}", file=sys.stderr)
    except (ManifestError, BenchError) as err:
        print(f"error: {err}", file=sys.stderr)
    return 1


def _bench(manifest_path: str, argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:
        sys.stderr.write(USAGE)
        return 0
    args = _parse_args(argv)
    manifest = load_manifest(manifest_path)
    arch = host_arch()
    if arch not in manifest.arch:
        print(f"skipped: {manifest.name} (not applicable on {arch})", file=sys.stderr)
        return 0
    # The recorded build is what `ea` gets: the command line, then the manifest's flags.
    opts = args.opts
    for flag in manifest.ea_flags:
        opts = parse_target_flag(flag, opts) or opts
    validate(opts)
    pin = _pin_prefix()
    with tempfile.TemporaryDirectory(prefix=f"ea-bench-{manifest.name}-") as tmp:
        exe = _build(manifest, args.forwarded, Path(tmp))
        measurements = parse_output(_run_harness([*pin, str(exe)]))
    doc = result_document(manifest.name, environment(opts, bool(pin)), measurements,
                          manifest.path.parent)
    _emit(doc, args.out)
    code = 0
    if args.diff:
        gate = args.fail_pct is not None
        pct = args.fail_pct if gate else DEFAULT_REGRESSION_PCT
        diff = diff_against(doc, manifest.baseline, pct / 100, warn_only=not gate)
        for line in diff.lines:
            print(line, file=sys.stderr)
        if gate and diff.regressions:
            code = REGRESSION_EXIT
    if args.update_baseline:
        try:
            print(write_baseline(doc, manifest.baseline), file=sys.stderr)
        except OSError as err:
            raise BenchError(f"cannot write baseline '{manifest.baseline}': "
                             f"{err.strerror or err}") from None
    return code


def _parse_args(argv: list[str]) -> _Args:
    args = _Args()
    for arg in joined(argv, ("--out", "--target", "--opt-level")):
        if arg in _FEATURE_FLAGS or arg.startswith(_VALUE_FLAGS):
            args.opts = parse_target_flag(arg, args.opts)
            args.forwarded.append(arg)
        elif arg == "--update-baseline":
            args.update_baseline = True
        elif arg == "--no-diff":
            args.diff = False
        elif arg.startswith("--out="):
            args.out = arg.split("=", 1)[1]
        elif arg == "--fail-on-regression" or arg.startswith("--fail-on-regression="):
            args.fail_pct = _percent(arg)
        else:
            raise UsageError(f"unknown option '{arg}'")
    if args.fail_pct is not None and not args.diff:
        raise UsageError("--fail-on-regression needs the baseline diff that --no-diff skips")
    return args


def _percent(arg: str) -> float:
    _, eq, text = arg.partition("=")
    if not eq:
        return DEFAULT_REGRESSION_PCT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise UsageError("--fail-on-regression must be a percentage, e.g. --fail-on-regression=10")
    return value


def _pin_prefix() -> list[str]:
    """`taskset -c 0` on Linux when taskset exists and CPU 0 is ours to use
    (a container's cpuset may exclude it, and taskset would then fail)."""
    if sys.platform.startswith("linux") and shutil.which("taskset") \
            and 0 in os.sched_getaffinity(0):
        return ["taskset", "-c", "0"]
    return []


def _build(m: Manifest, forwarded: list[str], tmp: Path) -> Path:
    """The kernel library and the harness executable, built in `tmp`."""
    lib_name = f"{m.name}_bench"
    # Our own compiler, run as `ea` would be; in `tmp` because it writes its
    # intermediate object file to the current directory.
    ea = [sys.executable, "-c",
          "import sys; from ea_compiler.cli.main import main; sys.argv[0] = 'ea'; main()",
          str(m.kernel), "--lib", "-o", str(tmp / f"lib{lib_name}.so"), *forwarded, *m.ea_flags]
    _run_tool(ea, "ea --lib", tmp)
    exe = tmp / lib_name
    cc = [*shlex.split(os.environ.get("CC") or "cc"), str(m.harness), f"-L{tmp}",
          f"-l{lib_name}", f"-Wl,-rpath,{tmp}", "-o", str(exe), *m.cc_flags]
    _run_tool(cc, "cc", tmp)
    return exe


def _run_tool(cmd: list[str], what: str, cwd: Path) -> None:
    """Run a build step; its output is shown on success, part of the error otherwise."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=BUILD_TIMEOUT_S)
    except OSError as err:
        raise BenchError(f"{what} failed: cannot run '{cmd[0]}': {err.strerror or err}") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"{what} failed: timed out after {BUILD_TIMEOUT_S} s") from None
    output = proc.stdout.decode("utf-8", "replace").rstrip()
    if proc.returncode != 0:
        raise BenchError(f"{what} failed:\n{output}" if output else f"{what} failed")
    if output:
        print(output, file=sys.stderr)


def _run_harness(cmd: list[str]) -> bytes:
    """Run the harness, relay its stderr line by line; its stdout."""
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=RUN_TIMEOUT_S)
    except OSError as err:
        raise BenchError(f"cannot run the harness '{cmd[0]}': {err.strerror or err}") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"harness timed out after {RUN_TIMEOUT_S} s") from None
    lines = proc.stderr.decode("utf-8", "replace").splitlines()
    for line in lines:
        print(f"[harness] {line}", file=sys.stderr)
    if proc.returncode == 0:
        return proc.stdout
    if proc.returncode < 0:  # killed: there is no exit code to report
        message = f"harness was killed by {signal_name(-proc.returncode)}"
    else:
        message = f"harness exited with code {proc.returncode}"
    tail = lines[-STDERR_TAIL:]
    raise BenchError("\n".join([message, *tail]))


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # real-time signals have no name
        return f"signal {number}"


def parse_output(stdout: bytes) -> list[dict]:
    """Measurements from the harness's JSONL; blank lines are allowed, line
    numbers count them."""
    measurements = []
    for number, raw in enumerate(stdout.splitlines(), 1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise _malformed(number, "not UTF-8", raw.decode("utf-8", "replace")) from None
        if not line:
            continue
        try:
            obj = json.loads(line, parse_constant=_reject_constant)
        except ValueError as err:
            raise _malformed(number, str(err), line) from None
        problem = measurement_problem(obj)
        if problem:
            raise _malformed(number, problem, line)
        # The known keys first, in schema order; pass-through keys after them.
        measurements.append({**{k: obj[k] for k in ("kernel", *MEASUREMENT_COUNTS) if k in obj},
                             **obj})
    if not measurements:
        raise BenchError("harness printed no measurements")
    return measurements


def _reject_constant(name: str) -> float:
    # Python's json accepts NaN/Infinity; other readers of the result do not.
    raise ValueError(f"{name} is not valid JSON")


def _malformed(number: int, why: str, raw: str) -> BenchError:
    return BenchError(f"malformed harness output line {number} ({why}): {raw}")


def _emit(doc: dict, out: str | None) -> None:
    text = document_json(doc)
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as err:
        raise BenchError(f"cannot write '{out}': {err.strerror or err}") from None
    print(f"wrote {out}", file=sys.stderr)
