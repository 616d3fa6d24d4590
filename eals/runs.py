"""What the `ea.bench` and `ea.tune` commands run on, and what they leave
behind for hover.

- `file_path(uri)`: the file a `file:` URI names (None for any other scheme:
  an unsaved buffer has no suite beside it).
- `benched_functions(path)`: the functions of the kernel at `path` that the
  suite beside it (`<stem>.bench.toml`) benches (`tune_targets`); empty
  without a suite or with a broken one.
- `RunResults`: the last bench and tune of each (uri, function), as markdown
  hover shows under the function's signature.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from pygls.uris import to_fs_path

from ea_compiler.tooling import fmt_time, fmt_us, size_label, tune_targets

from .markdown import code, escape


def file_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


def benched_functions(path: Path) -> set[str]:
    """The functions of the kernel at `path` its suite benches."""
    return {target.function for target in tune_targets(path)}


def _stamp() -> str:
    return time.strftime("%H:%M:%S")


def bench_markdown(results) -> str:
    """One function's results of a bench run: median per size and × NumPy."""
    rows = []
    for r in results:
        size = size_label(r.size)
        if r.status != "ok":
            rows.append(f"{escape(r.bench)} {escape(size)}: **{escape(r.status)}** — {escape(r.message)}")
            continue
        ratio = f" · {r.speedup:.2f}× NumPy (NumPy {fmt_time(r.ref_median_ns)})" if r.speedup else ""
        rows.append(escape(f"{r.bench} {size}: median {fmt_time(r.median_ns)}{ratio}"))
    head = f"**Bench** (quick run at {_stamp()})"
    return head + "\n\n" + "\n".join(f"- {row}" for row in rows)


def bench_summary(function: str, results) -> str:
    """The one line a message shows: `ea.bench max_f32: 4K 1.2 µs (0.85× NumPy)`."""
    parts = []
    for r in results:
        if r.status != "ok":
            parts.append(f"{size_label(r.size)} {r.status}")
        else:
            ratio = f" ({r.speedup:.2f}× NumPy)" if r.speedup else ""
            parts.append(f"{size_label(r.size)} {fmt_time(r.median_ns)}{ratio}")
    return f"ea.bench {function}: " + ", ".join(parts)


def tune_markdown(result) -> str:
    """baseline -> best, speedup, the file written, accepted/evaluated."""
    head = f"**Tune** ({'interrupted' if result.interrupted else 'finished'} at {_stamp()})"
    rows = [escape(f"baseline {fmt_us(result.baseline_us)} → best {fmt_us(result.best_us)} ({result.speedup:.2f}×)")]
    if result.best_file is not None:
        rows.append(f"best variant: {escape(result.best_label or 'the original')}, written to "
                    f"{code(result.best_file.name)}")
    else:
        rows.append("no faster variant found: nothing written")
    rows.append(escape(f"accepted {result.accepted} of {result.evaluated} evaluated"
                       + (f" ({result.cache_hits} from the cache)" if result.cache_hits else "")))
    return head + "\n\n" + "\n".join(f"- {row}" for row in rows)


def tune_summary(function: str, result) -> str:
    if result.best_file is None:
        return f"ea.tune {function}: no faster variant in {result.evaluated} evaluated"
    return (f"ea.tune {function}: {result.speedup:.2f}× faster ({fmt_us(result.baseline_us)} → "
            f"{fmt_us(result.best_us)}), wrote {result.best_file.name}")


@dataclass
class RunResults:
    """The markdown of the last run of each kind, per (uri, function)."""
    entries: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)

    def record(self, uri: str, function: str, kind: str, markdown: str) -> None:
        self.entries.setdefault((uri, function), {})[kind] = markdown

    def markdown(self, uri: str, function: str) -> str | None:
        found = self.entries.get((uri, function))
        if not found:
            return None
        return "\n\n".join(found[kind] for kind in ("bench", "tune") if kind in found)


def unsaved_note(doc_text: str | None, path: Path) -> str:
    """What a message adds when the editor's text differs from the file that ran."""
    try:
        same = doc_text is None or path.read_text(encoding="utf-8") == doc_text
    except (OSError, UnicodeDecodeError):
        same = True
    return "" if same else " (the saved file ran; unsaved changes were not included)"
