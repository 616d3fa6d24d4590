"""No source file over 500 lines (the house rule: split along a real seam
before reaching it). Prose (Markdown) and data are not code and not counted."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = (".py", ".lua", ".el", ".ts", ".js", ".sh", ".ea", ".c", ".rs", ".cpp", ".h")
LIMIT = 500


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:  # not a git checkout (an unpacked copy): every file below the root
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts and ".cache" not in p.parts]
    return [ROOT / line for line in out.stdout.splitlines()]


def test_no_source_file_over_500_lines():
    long = {}
    for path in tracked():
        if path.suffix in CODE and path.is_file() and "node_modules" not in path.parts:
            lines = path.read_bytes().count(b"\n")
            if lines > LIMIT:
                long[str(path.relative_to(ROOT))] = lines
    assert not long, f"over {LIMIT} lines: {long}"
