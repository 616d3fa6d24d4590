"""Comparing a result document with a stored baseline, and storing one
(TOOLCHAIN.md §7, "Diff"); shared by both kinds of benchmark."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .envinfo import document_json, measurement_problem
from .history import is_quick

# The exit code of a run whose results regressed, with --fail-on-regression.
REGRESSION_EXIT = 3
# The env fields that make two runs comparable: the same machine code.
_COMPARED = ("arch", "target_features", "opt_level")


@dataclass
class Diff:
    lines: list[str]        # for stderr, in order
    regressions: list[str]  # kernels slower than the baseline by more than the threshold


def diff_against(result: dict, path: Path, threshold: float = 0.10,
                 warn_only: bool = True) -> Diff:
    """Compare `result` with the baseline at `path`. A missing, unreadable,
    malformed or incomparable baseline yields one explanatory line, no diff."""
    baseline, problem = _read(path)
    if problem:
        return Diff([problem], [])
    reasons = _mismatches(baseline["env"], result["env"])
    if reasons:
        return Diff([f"baseline mismatch: {'; '.join(reasons)} — skipping diff"
                     " (use --update-baseline to refresh)"], [])
    env = result["env"]
    lines = [f"{result['name']} ({env['arch']}, {env['target_cpu']}, opt={env['opt_level']}):"]
    regressions: list[str] = []
    before = {m["kernel"]: m["median_ns"] for m in baseline["measurements"]}
    for m in result["measurements"]:
        kernel, ns = m["kernel"], m["median_ns"]
        if kernel not in before:
            lines.append(f"  {kernel:<16} {ns:>10} ns  NEW kernel (no baseline)")
            continue
        old = before[kernel]
        change = _relative_change(ns, old)
        if change > threshold:
            regressions.append(kernel)
        lines.append(f"  {kernel:<16} {ns:>10} ns  (baseline {old} ns, {change * 100:+.1f}%)")
    current = {m["kernel"] for m in result["measurements"]}
    for kernel, old in before.items():
        if kernel not in current:
            lines.append(f"  {kernel:<16} MISSING from current run (baseline {old} ns)")
    if regressions:
        suffix = " (warn-only in v1.13.0)." if warn_only else "."
        lines.append(f"WARNING: {len(regressions)} regressions exceed {threshold * 100:g}%"
                     f" threshold{suffix}")
    return Diff(lines, regressions)


def write_baseline(result: dict, path: Path) -> str:
    """Store `result` as the baseline (OSError propagates); returns the status line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document_json(result), encoding="utf-8")
    return f"wrote baseline {path}"


def _relative_change(now: int, before: int) -> float:
    if before == 0:
        # A kernel too fast to time before: anything measurable now is a regression.
        return 0.0 if now == 0 else math.inf
    return (now - before) / before


def _mismatches(old: dict, new: dict) -> list[str]:
    """Why the baseline's build differs from this one, baseline value first."""
    reasons = []
    if is_quick(old) != is_quick(new):
        kinds = ("a --quick run", "a full run")
        reasons.append(f"the baseline is {kinds[not is_quick(old)]}, this is {kinds[not is_quick(new)]}")
    for key in _COMPARED:
        if old[key] != new[key]:
            if key == "target_features":
                reasons.append(f"{key}='{old[key]}' != current '{new[key]}'")
            else:
                reasons.append(f"{key}={old[key]} != current {new[key]}")
    return reasons


def _read(path: Path) -> tuple[dict, None] | tuple[None, str]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, f"no baseline yet — run with --update-baseline to create one ({path})"
    except OSError as err:
        return None, f"baseline {path} is unreadable: {err.strerror or err} — skipping diff"
    try:
        doc = json.loads(data)
    except ValueError as err:  # JSONDecodeError, or bytes that are not UTF-8/16/32
        return None, f"baseline {path} is not valid JSON: {err} — skipping diff"
    problem = _shape_problem(doc)
    if problem:
        return None, f"baseline {path} is not an ea bench result ({problem}) — skipping diff"
    return doc, None


def _shape_problem(doc: object) -> str | None:
    """What keeps `doc` from being diffed, or None."""
    if not isinstance(doc, dict):
        return "not a JSON object"
    env = doc.get("env")
    if not isinstance(env, dict):
        return "no 'env' object"
    for key in _COMPARED:
        if key not in env:
            return f"no 'env.{key}'"
    measurements = doc.get("measurements")
    if not isinstance(measurements, list):
        return "no 'measurements' array"
    for i, m in enumerate(measurements, 1):
        problem = measurement_problem(m)
        if problem:
            return f"measurement {i}: {problem}"
    return None
