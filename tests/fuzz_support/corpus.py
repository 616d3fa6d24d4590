"""The sources the call fuzzer (tests/test_call_fuzz.py) calls: every example,
every `.ea` file under tests/, and the Eä sources embedded in test modules
as module-level string constants that check cleanly and export something.
Collected by analysis only (no LLVM), for an AVX2 CPU on every host: a
source that needs more (VNNI, AVX-512) is left out, so the corpus does not
depend on the machine. A source's key names where it lives."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ea_compiler import Options, analyze
from ea_compiler.syntax import ast as A

ROOT = Path(__file__).resolve().parents[2]

# Sources and functions ("source::function") the fuzzer must not call, and why.
EXCLUDED = {
    "tests/tune/test_agent.py:HANG": "loops forever by design (the tuner's time-limit test)",
    "tests/e2e/test_aarch64_scalar.py:SCALAR_EA::collatz": "loops forever from a negative start (-1 -> -2 -> -1)",
    "tests/lsp/test_symbols.py:SOURCE::loops": "prints n lines: 2^31 - 1 of them take minutes",
}


@dataclass(frozen=True)
class Source:
    key: str  # "examples/dot.ea", "tests/test_loader.py:OUTS"
    stem: str  # a file name stem unique in the corpus
    text: str
    exports: tuple[str, ...]


def collect() -> list[Source]:
    files = sorted((ROOT / "examples").rglob("*.ea")) + sorted((ROOT / "tests").rglob("*.ea"))
    found = [_source(str(p.relative_to(ROOT)), p.read_text()) for p in files]
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                    and "export " in node.value.value):
                key = f"{path.relative_to(ROOT)}:{node.targets[0].id}"
                if key not in EXCLUDED:
                    found.append(_source(key, node.value.value))
    return [s for s in found if s is not None]


def _source(key: str, text: str) -> Source | None:
    analysis = analyze(text.encode(), key if key.endswith(".ea") else "embedded.ea", Options(target_cpu="haswell"))
    if analysis.errors:
        return None
    exports = tuple(f.name for f in analysis.desugared.items if isinstance(f, A.Func) and f.export)
    if not exports:
        return None
    stem = "".join(c if c.isalnum() else "_" for c in key.removesuffix(".ea")).lower()
    return Source(key, stem, text, exports)


def live_exports(analysis) -> list[str]:
    """The exports compiled for the analysis' target: what `ea.load` offers (a `#[cfg]` pair gives one)."""
    return [f.name for f in analysis.live_functions if f.export]
