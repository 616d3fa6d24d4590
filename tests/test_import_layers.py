"""The `ea_compiler` package's (the compiler/ folder's) imports go one way: no module imports itself
back through others, the command line (ea_compiler.cli) sits on top, and
analysis stays clear of LLVM. The graph is read from the source with `ast`
(imports inside functions count: they run sooner or later), and the LLVM
rule is also checked at run time."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "compiler"
NAME = "ea_compiler"  # its import name (pyproject.toml's package-dir)


def module_name(path: Path) -> str:
    parts = [NAME] + list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(edges between the package's modules, external top-level packages each imports)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in files}
    external: dict[str, set[str]] = {name: set() for name in files}

    def add(src: str, target: str) -> None:
        if target.split(".")[0] != NAME:
            external[src].add(target.split(".")[0])
            return
        while target not in files:  # `import ea_compiler.x.y` of a name inside a module
            target = target.rpartition(".")[0]
        if target != src:
            edges[src].add(target)

    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(name, alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module
                for alias in node.names:  # `from pkg import submodule` imports the submodule
                    full = f"{origin}.{alias.name}"
                    add(name, full if full in files else origin)
    return edges, external


EDGES, EXTERNAL = import_graph()


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def closure(start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in EDGES[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_graph_is_read():
    # guards the reader itself: known edges, of each import form, are found
    assert "ea_compiler.analysis" in EDGES["ea_compiler"]                      # from .analysis import
    assert "ea_compiler.loader" in EDGES["ea_compiler"]                        # inside a function
    assert "ea_compiler.syntax.ast" in EDGES["ea_compiler.analysis"]           # from .syntax import ast
    assert "ea_compiler.build" in EDGES["ea_compiler.cli.build_cmd"]           # from ..build import
    assert "ea_compiler.inspect.render" in EDGES["ea_compiler.cli.build_cmd"]  # from ..inspect.render, in a function
    assert "llvmlite" in EXTERNAL["ea_compiler.codegen"]


def test_find_cycle_reports_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycle = find_cycle(EDGES)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_nothing_below_cli_imports_cli():
    upward = sorted(f"{src} -> {dst}" for src, targets in EDGES.items() for dst in targets
                    if not src.startswith("ea_compiler.cli") and dst.startswith("ea_compiler.cli"))
    assert upward == []


def test_compile_api_is_below_inspect_and_cli():
    below = closure("ea_compiler.build")
    assert sorted(m for m in below if m.startswith(("ea_compiler.cli", "ea_compiler.inspect", "ea_compiler.loader"))) == []


def test_analysis_never_imports_llvmlite():
    reached = sorted(m for m in closure("ea_compiler.analysis") if "llvmlite" in EXTERNAL[m])
    assert reached == []


def test_analysis_never_loads_llvm():
    """At run time: analysing a correct file and a broken one leaves llvmlite unloaded."""
    code = ("import sys, ea_compiler\n"
            "ok = ea_compiler.analyze(open(sys.argv[1], 'rb').read(), sys.argv[1])\n"
            "bad = ea_compiler.analyze('export func f(x: i32) -> i32 { return y }', 'bad.ea')\n"
            "assert ok.diagnostics == [] and bad.errors, (ok.diagnostics, bad.diagnostics)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'llvmlite'))\n")
    saxpy = str(ROOT / "examples" / "saxpy.ea")
    run = subprocess.run([sys.executable, "-c", code, saxpy], capture_output=True, text=True, cwd=ROOT)
    assert (run.returncode, run.stderr, run.stdout) == (0, "", "[]\n")
