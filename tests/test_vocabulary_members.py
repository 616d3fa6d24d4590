"""Token kinds and symbol kinds are enums in their home modules
(`TokenKind` in compiler/syntax/tokens.py, built from the keyword, operator
and vector tables; `SymbolKind` in compiler/symbols.py). A misspelt member
fails where it is read; this test reads every `TokenKind.X` / `SymbolKind.X`
in the sources, so a typo on a path no other test runs fails here too, and
a symbol made with a kind outside the vocabulary fails where it is made."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ea_compiler.source import Span
from ea_compiler.symbols import Symbol, SymbolKind
from ea_compiler.syntax.tokens import KEYWORDS, OPERATORS, TokenKind

ROOT = Path(__file__).resolve().parent.parent
ENUMS = {"TokenKind": TokenKind, "SymbolKind": SymbolKind}


def unknown_members(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [f"{path.name}:{n.lineno}: {n.value.id}.{n.attr}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ENUMS
            and not hasattr(ENUMS[n.value.id], n.attr)]


def test_every_member_read_exists():
    files = [p for folder in ("compiler", "eals", "tui") for p in (ROOT / folder).rglob("*.py")]
    assert [v for p in files for v in unknown_members(p)] == []


def test_a_misspelt_member_is_caught(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f(t, s):\n    return t.kind == TokenKind.LeftParn or s.kind == SymbolKind.LOOPVAR\n")
    assert unknown_members(planted) == ["planted.py:2: TokenKind.LeftParn", "planted.py:2: SymbolKind.LOOPVAR"]


def test_the_vocabularies_are_the_tables_and_compare_as_strings():
    assert set(KEYWORDS.values()) | set(OPERATORS.values()) <= set(TokenKind)
    assert TokenKind.LeftParen == "LeftParen" and f"{TokenKind.Func}" == "Func"  # what `--emit-tokens` prints
    assert SymbolKind.LOOP_VAR == "loop-var"
    with pytest.raises(ValueError):
        Symbol("x", "loopvar", Span(0, 1, 1, 1, 1, 2))
