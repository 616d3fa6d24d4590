"""The tools depend on the compiler's API only: every module under eals/ and
tui/ imports `ea_compiler` (the package's public API) or `ea_compiler.tooling`,
never a deeper compiler module (docs: compiler/tooling.py); importing the
tooling API does not load LLVM.

The tools ask, they do not decide: eals/ and tui/ turn the IDE layer's
answers (compiler/ide/, through ea_compiler.tooling) into LSP types and
styles, and never walk a tree, scan tokens or resolve a name themselves.
`layering_violations` reads each tool module's syntax tree and reports:
- reaching into an analysis' trees, tokens, symbol table or decisions
  (`analysis.ast`, `.desugared`, `.tokens`, `.tokens_before`, `.symbols`,
  `.callee_at`, `.live_functions`, ...) or into tree nodes (`.stmts`, `.items`,
  `.then`, `.orelse`, `.tail_body`): the IDE layer answers those questions;
- a token-kind name as a string (`"LeftParen"`, `"Identifier"`), or a
  symbol-kind name compared with a `.kind` or used as a mapping key
  (`sym.kind == "param"`): the vocabularies are enums (TokenKind, SymbolKind);
- a generic walker (`dataclasses.fields`, `is_dataclass`);
- a name looked up in a table (`TABLE[name]`, `VECTORS.get(name)`,
  `lookup(...)`, `resolve_call(...)`): what a name means is the IDE layer's answer;
- an identifier regular expression (`[A-Za-z_]...`): the lexer decides what a name is.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from ea_compiler.symbols import SymbolKind
from ea_compiler.syntax.tokens import TokenKind

ROOT = Path(__file__).resolve().parent.parent
PKG = "ea_compiler"  # the import name of the compiler/ folder
ALLOWED = {PKG, f"{PKG}.tooling"}


def violations(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: module` for each import of a compiler submodule outside the API."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from ea_compiler import x` may name a submodule x: only the API's names are allowed.
            modules = [node.module] if node.module != PKG else \
                [f"{PKG}.{a.name}" for a in node.names if _is_submodule(a.name)]
        else:
            continue
        for module in modules:
            if (module == PKG or module.startswith(PKG + ".")) and module not in ALLOWED:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {module}")
    return found


def _is_submodule(name: str) -> bool:
    return (ROOT / "compiler" / f"{name}.py").exists() or (ROOT / "compiler" / name).is_dir()


def tool_files() -> list[Path]:
    return sorted(p for folder in ("eals", "tui") for p in (ROOT / folder).rglob("*.py"))


def test_tools_import_only_the_compiler_api():
    files = tool_files()
    assert len(files) > 20  # the walk found the tools
    bad = [v for path in files for v in violations(path)]
    assert bad == [], "tools must import only `ea_compiler` and `ea_compiler.tooling`:\n" + "\n".join(bad)


def test_the_check_catches_every_form_of_import(tmp_path):
    sample = tmp_path / "tui" / "sample.py"
    sample.parent.mkdir()
    sample.write_text("import ea_compiler.syntax.ast\n"
                      "from ea_compiler.inspect import model\n"
                      "from ea_compiler import analysis, Options\n"
                      "def f():\n    from ea_compiler.tooling import ast\n    import ea_compiler\n", encoding="utf-8")
    assert violations(sample, tmp_path) == ["tui/sample.py:1: ea_compiler.syntax.ast",
                                            "tui/sample.py:2: ea_compiler.inspect",
                                            "tui/sample.py:3: ea_compiler.analysis"]


def test_importing_the_tooling_api_does_not_load_llvm():
    code = "import sys, ea_compiler.tooling as t; assert 'llvmlite' not in sys.modules; t.explore; " \
           "assert 'llvmlite' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# ---- the tools ask the IDE layer ----------------------------------------------

INTERNALS = frozenset({"ast", "desugared", "tokens", "tokens_before", "token_at", "token_starts", "symbols",
                       "callee_at", "callee_of", "callee_named_from", "symbol_at", "type_at", "expr_types",
                       "decisions", "live_functions", "items", "stmts", "then", "orelse", "tail_body"})
# Attributes of the same spelling on other objects, by file (pygls' progress tokens).
NOT_AN_ANALYSIS = {("eals/jobs.py", "tokens")}
TOKEN_KINDS = frozenset(k.value for k in TokenKind)
SYMBOL_KINDS = frozenset(k.value for k in SymbolKind)
WALKERS = frozenset({"fields", "is_dataclass", "walk", "statements", "children"})
TABLES = frozenset({"TABLE", "VECTORS", "SCALARS", "KEYWORDS"})
RESOLVERS = frozenset({"lookup", "resolve_call", "intrinsic_wins"})


def _strings(node) -> list[str]:
    return [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]


def _name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def layering_violations(path: Path, root: Path = ROOT) -> list[str]:
    rel = path.relative_to(root).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []

    def bad(node, why: str) -> None:
        found.append(f"{rel}:{node.lineno}: {why}")

    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in INTERNALS and (rel, node.attr) not in NOT_AN_ANALYSIS \
                and not (node.attr == "items" and id(node) in called):  # dict.items()
            bad(node, f".{node.attr}: trees, tokens and names are the IDE layer's")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in TOKEN_KINDS:
            bad(node, f"token kind {node.value!r} as a string")
        elif isinstance(node, ast.Compare) and any(_name(x) == "kind" for x in [node.left, *node.comparators]):
            for s in _strings(node):
                if s in SYMBOL_KINDS:
                    bad(node, f"symbol kind {s!r} compared as a string")
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Constant) and key.value in SYMBOL_KINDS:
                    bad(key, f"symbol kind {key.value!r} as a mapping key")
        elif isinstance(node, ast.Call) and _name(node.func) in WALKERS | RESOLVERS:
            bad(node, f"{_name(node.func)}(): walking or resolving is the IDE layer's")
        elif isinstance(node, ast.Call) and _name(node.func) == "get" and \
                isinstance(node.func, ast.Attribute) and _name(node.func.value) in TABLES:
            bad(node, f"{_name(node.func.value)}.get(): a name looked up in a table")
        elif isinstance(node, ast.Subscript) and _name(node.value) in TABLES and isinstance(node.ctx, ast.Load):
            bad(node, f"{_name(node.value)}[...]: a name looked up in a table")
        elif isinstance(node, ast.ImportFrom) and node.module == "dataclasses" and \
                {a.name for a in node.names} & WALKERS:
            bad(node, "a generic dataclass walker")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "[A-Za-z_]" in node.value:
            bad(node, "an identifier regular expression")
    return sorted(found, key=lambda v: int(v.split(":")[1]))


def test_the_tools_neither_walk_nor_scan_nor_resolve():
    files = tool_files()
    assert len(files) > 20
    bad = [v for path in files for v in layering_violations(path)]
    assert bad == [], "eals/ and tui/ must ask the IDE layer (compiler/ide/):\n" + "\n".join(bad)


def test_the_check_catches_planted_violations(tmp_path):
    sample = tmp_path / "eals" / "sample.py"
    sample.parent.mkdir()
    sample.write_text(
        "import re\n"
        "from dataclasses import fields\n"
        "def f(analysis, tok, sym, name):\n"
        "    for item in analysis.ast.items:\n"                      # 4: .ast, .items
        "        pass\n"
        "    if tok.kind == 'LeftParen':\n"                          # 6: token kind literal
        "        pass\n"
        "    if sym.kind in ('param', 'local'):\n"                   # 8: symbol kind compared
        "        pass\n"
        "    words = {'const': 'constant'}\n"                        # 10: symbol kind key
        "    intr = TABLE[name] or lookup(name)\n"                   # 11: table lookup, resolver
        "    ident = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')\n"        # 12: identifier regex
        "    return analysis.tokens_before(3), VECTORS.get(name)\n",  # 13: token scan, table lookup
        encoding="utf-8")
    found = layering_violations(sample, tmp_path)
    assert [v.split(":")[1] for v in found] == ["2", "4", "4", "6", "8", "8", "10", "11", "11", "12", "13", "13"], found
    clean = tmp_path / "tui" / "clean.py"
    clean.parent.mkdir()
    clean.write_text("def f(event, found):\n    if event.kind == 'attempt':\n        return found.symbol.name\n",
                     encoding="utf-8")
    assert layering_violations(clean, tmp_path) == []
