"""The history file: one result document per line (JSONL), appended after every
run, so later runs show their change against the last comparable one."""
from __future__ import annotations

import json
from pathlib import Path

# Runs are comparable when they measured the same code on the same machine, and
# both for as long (a --quick run's short samples read slower at large sizes).
_SAME_ENV = ("arch", "host_cpu", "target_cpu", "target_features", "opt_level")


def read_history(suite) -> list[dict]:
    """Earlier runs' documents, oldest first; unreadable lines are skipped."""
    path: Path | None = suite.history
    if path is None or not path.exists():
        return []
    out = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("measurements"), list):
            out.append(doc)
    return out


def previous_medians(history: list[dict], env: dict) -> dict[str, float]:
    """kernel -> median_ns of its latest comparable successful measurement."""
    out: dict[str, float] = {}
    for doc in history:
        other = doc.get("env") or {}
        if any(other.get(k) != env.get(k) for k in _SAME_ENV) or is_quick(other) != is_quick(env):
            continue
        for m in doc["measurements"]:
            if isinstance(m, dict) and m.get("status", "ok") == "ok" and isinstance(m.get("median_ns"), (int, float)):
                out[str(m.get("kernel"))] = float(m["median_ns"])
    return out


def is_quick(env: dict) -> bool:
    """Whether a document's env is of a --quick run (documents before the mark were full runs)."""
    return env.get("quick") is True


def append_history(suite, document: dict) -> Path | None:
    path: Path | None = suite.history
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(document, separators=(",", ":")) + "\n")
    return path
