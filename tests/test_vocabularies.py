"""Vocabularies are enums in their home modules: the tuner's outcomes
(compiler/tune/outcome.py) and inspect's bottleneck classes
(compiler/inspect/model.py). Code names members, so a typo fails when the
line runs (at import, for the tables the TUI and the server build), never
silently matches nothing; on disk (JSON, the tune cache) they stay the
plain strings."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from ea_compiler.inspect.model import Bottleneck
from ea_compiler.tune.outcome import Outcome
from ea_compiler.tune.result import Attempt

ROOT = Path(__file__).resolve().parents[1]
# Outcome strings no other vocabulary of the tree uses ("ok", "error", "wrong"
# and "timeout" are also bench statuses and proposer problems' words).
OUTCOME_WORDS = {o.value for o in Outcome} - {"ok", "error", "wrong", "timeout"}
HOMES = {"compiler/tune/outcome.py", "compiler/inspect/model.py"}
# The result's JSON fields `accepted` (a bool beside the outcome) and `noise` (the timing spread) are keys,
# not outcomes.
ALLOWED = {("compiler/tune/result.py", "accepted"), ("compiler/tune/result.py", "noise")}


def _literals(path: Path, words: set[str]) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    skip = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and id(n) not in skip and n.value in words]


def _spelled(words: set[str], folders) -> dict[str, list]:
    out = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            found = [(line, w) for line, w in _literals(path, words) if (rel, w) not in ALLOWED]
            if found and rel not in HOMES:
                out[rel] = found
    return out


def test_bottleneck_classes_are_spelled_once():
    assert _spelled({b.value for b in Bottleneck}, ("compiler", "eals", "tui", "ea")) == {}


def test_tune_outcomes_are_spelled_once():
    assert _spelled(OUTCOME_WORDS, ("compiler/tune", "compiler/cli", "eals", "tui")) == {}


def test_the_scan_sees_a_literal(tmp_path):
    probe = tmp_path / "p.py"
    probe.write_text('"""memory-bound in a docstring"""\nif x == "memory-bound":\n    y = "noise"\n'
                     'd = {"noise": 1}\n')
    assert _literals(probe, {"memory-bound", "noise"}) == [(2, "memory-bound"), (3, "noise"), (4, "noise")]


def test_on_disk_they_are_the_plain_strings():
    attempt = Attempt(1, "unroll x2", Outcome.ACCEPTED)
    assert json.loads(json.dumps(attempt.to_json()))["outcome"] == "accepted"
    assert json.dumps({"bottleneck": Bottleneck.MEMORY}) == '{"bottleneck": "memory-bound"}'
    assert Outcome("compile-error") is Outcome.COMPILE_ERROR  # read back from a cache entry
    with pytest.raises(ValueError):
        Outcome("acepted")


def test_a_misspelt_member_fails():
    with pytest.raises(AttributeError):
        getattr(Bottleneck, "MEMORY_BOUNDED")


def test_the_tui_styles_every_attempt_outcome():
    from ea_tui.tune_format import OUTCOME_STYLES
    assert set(OUTCOME_STYLES) == set(Outcome) - {Outcome.OK}  # OK is an evaluation, never an attempt's
