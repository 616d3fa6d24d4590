"""The result document of `ea bench` (TOOLCHAIN.md §7) and the facts about
the machine and build it records; shared by both kinds of benchmark."""
from __future__ import annotations

import datetime
import json
import platform
import subprocess
from pathlib import Path

from ..codegen.target import flag_features, host_cpu_name
from ..options import Options
from ..version import __version__

SCHEMA_VERSION = 1
# Keys of a measurement with a meaning, in the order results list them; the
# harness may add any others, which pass through after these.
MEASUREMENT_COUNTS = ("median_ns", "p10_ns", "p90_ns", "n_inner", "n_runs")
_ARCH_NAMES = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}


def host_arch() -> str:
    """The host architecture as manifests spell it (macOS says arm64, Windows AMD64)."""
    machine = platform.machine().lower()
    return _ARCH_NAMES.get(machine, machine)


def cpu_model() -> str:
    """The model name /proc/cpuinfo gives (Linux), else the architecture."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "Model")):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return host_arch()


def target_features(opts: Options) -> str:
    """The extra feature string the flags produce (TOOLCHAIN.md §1.1), e.g.
    "+avx512f,+avx512vl,+avx512bw"."""
    return flag_features(opts)


def environment(opts: Options, pinned: bool) -> dict:
    return {
        "os": platform.system().lower(),
        "arch": host_arch(),
        "host_cpu": host_cpu_name(),
        "target_cpu": opts.target_cpu,
        "target_features": target_features(opts),
        "opt_level": opts.opt_level,
        "pinned": pinned,
    }


def git_sha(cwd: Path) -> str | None:
    """The short commit of the repository holding `cwd`; None outside one or without git."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=cwd,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() or None


def timestamp() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def result_document(name: str, env: dict, measurements: list[dict], cwd: Path) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "name": name,
        "eacompute_version": __version__,
        "git_sha": git_sha(cwd),
        "timestamp": timestamp(),
        "env": env,
        "measurements": measurements,
    }


def measurement_problem(m: object) -> str | None:
    """Why `m` is not a measurement (a string `kernel`, an integer `median_ns`,
    the other counts integers when present), or None."""
    if not isinstance(m, dict):
        return "not a JSON object"
    for key in ("kernel", "median_ns"):
        if key not in m:
            return f"missing '{key}'"
    if not isinstance(m["kernel"], str):
        return "'kernel' must be a string"
    for key in MEASUREMENT_COUNTS:
        value = m.get(key, 0)
        # JSON true/false arrive as bool, a subclass of int.
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"'{key}' must be a non-negative integer"
    return None


def document_json(doc: dict) -> str:
    """The text of a result document, as printed and as stored in baselines."""
    return json.dumps(doc, indent=2) + "\n"
