"""The per-project tuning cache and the history of attempts, in
`__eatune__/` beside the kernel.

An evaluated variant is keyed by its normalised source (tokens without
comments or layout), the compiler version, the target CPU and features, the
suite's text and what was tuned; its entry holds the measured outcome and,
per current best it was compared with, the decision. Entries are written to
a temporary file and renamed into place, so parallel runs never read a
partial one; an entry that does not parse is ignored and rewritten."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ..analysis import Analysis
from ..syntax.tokens import COMMENT, EOF
from ..version import __version__

DIR = "__eatune__"


def normalised(analysis: Analysis) -> str:
    return " ".join(t.text for t in analysis.tokens if t.kind not in (COMMENT, EOF))


def digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


class Cache:
    def __init__(self, kernel: Path, context: dict):
        self.root = kernel.parent / DIR
        self.stem = kernel.stem
        self.context = dict(context, compiler=__version__)  # target CPU, features, suite text, tuned benches

    def key(self, norm_source: str) -> str:
        return digest(norm_source, self.context)

    def variant_path(self, key: str, text: str) -> Path:
        """Where the variant's source lives (the worker loads it from there)."""
        folder = self.root / "variants" / key[:20]
        path = folder / f"{self.stem}.ea"
        if not path.exists() or path.read_text() != text:
            folder.mkdir(parents=True, exist_ok=True)
            _atomic_write(path, text)
        return path

    def get(self, key: str) -> dict | None:
        path = self.root / "entries" / f"{key}.json"
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("outcome"), str):
            return None
        entry.setdefault("decisions", {})
        return entry if isinstance(entry["decisions"], dict) else None

    def put(self, key: str, entry: dict) -> None:
        folder = self.root / "entries"
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(folder / f"{key}.json", json.dumps(entry))

    @property
    def history_path(self) -> Path:
        return self.root / f"{self.stem}.history.jsonl"

    def append_history(self, record: dict) -> None:
        """One line per attempt, appended in a single write (O_APPEND keeps lines whole)."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record) + "\n").encode()
        fd = os.open(self.history_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
