"""The files the editor tests of the tuning features (test_nvim_tune.py,
test_emacs_tune.py) open, and what the server must make of them.

The kernel is examples/reductions.ea with non-ASCII comments added on the
lines the unroll rewrite touches (before and after its edits), so a client
that counts columns in another encoding than the server would get the text
wrong. The suite is examples/reductions.bench.toml without its baseline, at
one small size, and without sum_f32's bench: its function gets no lens."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ea_compiler import Options
from ea_compiler.tooling import analyze, apply_transform, find_sites

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HASWELL = Options(target_cpu="haswell", target_triple="x86_64-unknown-linux-gnu")
SETTINGS = {"target_cpu": "haswell", "target_triple": "x86_64-unknown-linux-gnu"}  # what the editors send
TITLE = "Unroll \u00d74 with 4 accumulators"
UNROLL_TITLES = [TITLE, "Unroll \u00d72 with 2 accumulators", "Unroll \u00d78 with 8 accumulators"]
BENCHED = ("max_f32", "min_f32")


def kernel_source() -> str:
    text = (EXAMPLES / "reductions.ea").read_text()
    head = "export func max_f32("
    start = text.index(head)
    end = text.index("\n}\n", start)
    body = text[start:end]
    for needle, note in (("splat(x[0])", "// naïve: one accumulator 🐢"),
                         ("while i + LANES <= n {", "// ×1 — latency-bound"),
                         ("best = max(best, load_f32x8(x, i))", "// 𝔪𝔞𝔵"),
                         ("i = i + LANES", "// → next 8")):
        body = body.replace(needle, f"{needle} {note}", 1)
    return "// Réductions — ∑, max, min (UTF-8: é, ×, 🐢)\n" + text[:start] + body + text[end:]


def small_suite() -> str:
    head, *benches = (EXAMPLES / "reductions.bench.toml").read_text().split("[[bench]]")
    head = "".join(line for line in head.splitlines(keepends=True) if not line.startswith("baseline"))
    kept = [b for b in benches if 'function = "sum_f32"' not in b]
    text = re.sub(r'(?m)^sizes = \[.*\]$', 'sizes = ["4K"]', "[[bench]]".join([head, *kept]))
    assert tuple(b["function"] for b in tomllib.loads(text)["bench"]) == BENCHED
    return text


def write_files(work: Path) -> Path:
    path = work / "reductions.ea"
    path.write_text(kernel_source())
    (work / "reductions.bench.toml").write_text(small_suite())
    return path


def rewritten(path: Path, choice: int = 4) -> str:
    """What the transformation itself makes of the file: the text an editor must show."""
    analysis = analyze(path.read_text(), str(path), HASWELL)
    (site,) = [s for s in find_sites(analysis, "max_f32") if s.transform == "unroll"]
    rewrite = apply_transform(analysis, site, choice)
    assert rewrite.title == TITLE
    return rewrite.text


def name_positions(text: str) -> dict[str, tuple[int, int]]:
    """(0-based line, column) of each exported function's name (ASCII lines: any encoding)."""
    out = {}
    for number, line in enumerate(text.splitlines()):
        match = re.match(r"export func (\w+)", line)
        if match:
            out[match.group(1)] = (number, match.start(1))
    return out
