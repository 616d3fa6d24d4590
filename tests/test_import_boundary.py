"""The tools depend on the compiler's API only: every module under eals/ and
tui/ imports `ea_compiler` (the package's public API) or `ea_compiler.tooling`,
never a deeper compiler module (docs: compiler/tooling.py)."""
from __future__ import annotations

import ast
from pathlib import Path

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
