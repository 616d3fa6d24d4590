"""The VS Code extension (editors/vscode): TextMate grammar tests with
vscode-tmgrammar-test, the grammar's word lists against the compiler's, the
snippets through the compiler, src/extension.js against the real `eals`, and
the .vsix built by `vsce package` (contents, bundled runtime dependencies).
The tests that run Node.js are skipped without node/npm; `make test` installs
editors/vscode/node_modules (`make vscode-deps`), and the fixture runs `npm ci`
itself if it is missing."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.intrinsics import TABLE
from ea_compiler.syntax.tokens import KEYWORDS, SCALAR_TYPE_KINDS
from ea_compiler.typesys.vectors import VECTORS

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "editors" / "vscode"
GRAMMAR = EXT / "syntaxes" / "ea.tmLanguage.json"
SAMPLES = sorted((EXT / "tests").glob("*.ea"))

needs_node = pytest.mark.skipif(
    not (shutil.which("node") and shutil.which("npm") and shutil.which("npx")),
    reason="Node.js/npm not installed: the VS Code extension (editors/vscode) tests need node and npm")


def run(cmd: list[str], timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=EXT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """editors/vscode/node_modules, installed from package-lock.json when missing."""
    modules = EXT / "node_modules"
    if not (modules / "vscode-languageclient").is_dir() or not (modules / ".bin" / "vsce").exists():
        r = run(["npm", "ci", "--no-audit", "--no-fund"], timeout=300)
        assert r.returncode == 0, f"npm ci failed:\n{r.stdout}\n{r.stderr}"
    return modules


@needs_node
def test_grammar_unit_tests(node_modules):
    assert len(SAMPLES) >= 2
    for sample in SAMPLES:
        head = sample.read_text().splitlines()[0]
        assert head.startswith('// SYNTAX TEST "source.ea"'), f"{sample.name}: missing test header"
        assertions = [ln for ln in sample.read_text().splitlines() if re.match(r"//\s*(\^|<-|<~)", ln)]
        assert len(assertions) >= 30, f"{sample.name}: only {len(assertions)} scope assertions"
    r = run(["npx", "--no-install", "vscode-tmgrammar-test", "-g", "syntaxes/ea.tmLanguage.json", "tests/*.ea"])
    assert r.returncode == 0, r.stdout + r.stderr
    for sample in SAMPLES:
        assert f"tests/{sample.name} run successfuly" in r.stdout, r.stdout


@needs_node
def test_grammar_unit_tests_catch_a_wrong_scope(node_modules, tmp_path):
    wrong = tmp_path / "wrong.ea"
    wrong.write_text('// SYNTAX TEST "source.ea" "deliberately wrong"\n'
                     "let v: f32x8 = a .+ b\n"
                     "//     ^^^^^ storage.type.scalar.ea\n")
    r = run(["npx", "--no-install", "vscode-tmgrammar-test", "-g", "syntaxes/ea.tmLanguage.json", str(wrong)])
    assert r.returncode != 0
    assert "missing required scopes: storage.type.scalar.ea" in r.stdout
    assert "storage.type.vector.ea" in r.stdout


def _rule(name: str, index: int) -> str:
    return json.loads(GRAMMAR.read_text())["repository"][name]["patterns"][index]["match"]


def test_grammar_knows_every_type_keyword_and_intrinsic():
    """The word lists in the grammar are hand-written; they must match the compiler's."""
    grammar = json.loads(GRAMMAR.read_text())
    vector, scalar = _rule("types", 0), _rule("types", 1)
    intrinsic = _rule("intrinsic-calls", 0)
    keyword_rules = [p["match"] for p in grammar["repository"]["keywords"]["patterns"]] + [_rule("numbers", 4)]

    assert [v for v in VECTORS if not re.fullmatch(vector, v)] == []
    assert not re.fullmatch(vector, "f32x2") and not re.fullmatch(vector, "u32x8")  # not Eä types
    scalars = [w for w, kind in KEYWORDS.items() if kind in SCALAR_TYPE_KINDS] + ["u32", "u64"]
    assert [s for s in scalars if not re.fullmatch(scalar, s)] == []
    assert [n for n in TABLE if not re.match(intrinsic, n + "(")] == []
    for family in ("load_f32x8", "load_u8x16", "load_i16x4"):
        assert re.match(intrinsic, family + "(")
    assert not re.match(intrinsic, "loader(") and not re.match(intrinsic, "fma_x(")
    assert not re.match(intrinsic, "fma ")  # only as a call
    words = [w for w, kind in KEYWORDS.items() if kind not in SCALAR_TYPE_KINDS and w not in VECTORS]
    missing = [w for w in words if not any(re.fullmatch(k, w) for k in keyword_rules)
               and not re.match(intrinsic, w + "(")]
    assert missing == []


def _expand(body: list[str]) -> str:
    """A snippet with every placeholder at its default (first choice, empty tab stop)."""
    text = "\n".join(body)
    text = re.sub(r"\$\{\d+\|([^,|]*)[^|]*\|\}", r"\1", text)
    while True:
        expanded = re.sub(r"\$\{\d+:([^${}]*)\}", r"\1", text)
        if expanded == text:
            break
        text = expanded
    return re.sub(r"\$\d+", "", text)


# Where each snippet (by prefix) goes to make a file: items stand alone.
SNIPPET_CONTEXT = {
    "kernel": "{}", "kernelmask": "{}", "export func": "{}", "func": "{}", "struct": "{}",
    "while": "export func f(n: i32) {{\n{}\n}}",
    "foreach": "export func f(n: i32) {{\n{}\n}}",
    "#cfg": "{}\nexport func f() {{ }}",
    "static_assert": "const LANES: i32 = 8\n{}",
}


def test_snippets_compile_with_their_defaults():
    snippets = json.loads((EXT / "snippets" / "ea.json").read_text())
    def key(snippet):  # a prefix is a string or a list of alternatives
        return snippet["prefix"] if isinstance(snippet["prefix"], str) else snippet["prefix"][0]

    prefixes = {key(s) for s in snippets.values()}
    assert {"kernel", "export func", "struct"} <= prefixes
    assert prefixes == set(SNIPPET_CONTEXT), "register new snippets in SNIPPET_CONTEXT"
    assert "tail scalar" in _expand(next(s for s in snippets.values() if key(s) == "kernel")["body"])
    for name, snippet in snippets.items():
        source = SNIPPET_CONTEXT[key(snippet)].format(_expand(snippet["body"]))
        errors = [d.message for d in analyze(source, "snippet.ea", Options(target_cpu="x86-64-v3")).diagnostics
                  if d.severity == "error"]
        assert errors == [], f"snippet {name!r}:\n{source}"


def _eals_command(tmp_path: Path) -> str:
    beside = Path(sys.executable).with_name("eals")
    if beside.exists():
        return str(beside)
    wrapper = tmp_path / "eals"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m eals.cli "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@needs_node
def test_extension_unit_tests_and_real_server(node_modules, tmp_path):
    r = run(["node", "--test", "tests/"], env={"EA_LS_COMMAND": _eals_command(tmp_path)})
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    passed = re.search(r"^# pass ([0-9]+)$", r.stdout, re.M)
    assert passed and int(passed[1]) >= 8, out
    assert re.search(r"^# fail 0$", r.stdout, re.M), out
    assert re.search(r"^# skipped 0$", r.stdout, re.M), out  # the real-server test ran
    assert "ok 8 - the real eals understands" in r.stdout, out


@needs_node
def test_settings_map_onto_the_server_config(node_modules):
    from eals.config import Config

    settings = {"targetCpu": "znver4", "targetTriple": "aarch64-unknown-linux-gnu", "avx512": True,
                "optLevel": 1, "inlayHints": "lines"}
    r = run(["node", "tests/harness.js", "settings", json.dumps(settings)])
    assert r.returncode == 0, r.stderr
    sent = json.loads(r.stdout)
    config = Config().updated(sent)
    assert (config.target_cpu, config.target_triple, config.avx512, config.opt_level, config.inlay_hints) == \
        ("znver4", "aarch64-unknown-linux-gnu", True, 1, "lines")
    r = run(["node", "tests/harness.js", "settings", "{}"])
    assert Config().updated(json.loads(r.stdout)) == Config(target_triple=None)


def _resolves(dep: str, package_dir: Path, modules_root: Path) -> bool:
    """Node's lookup: package_dir/node_modules/dep, then each enclosing node_modules."""
    d = package_dir
    while True:
        if (d / "node_modules" / dep / "package.json").exists():
            return True
        if d == modules_root.parent:
            return False
        d = d.parent


@needs_node
def test_package_vsix(node_modules, tmp_path):
    vsix = tmp_path / "ea-vscode.vsix"
    r = run(["npx", "--no-install", "vsce", "package", "--skip-license", "--allow-missing-repository",
             "-o", str(vsix)])
    assert r.returncode == 0, r.stdout + r.stderr
    assert vsix.stat().st_size > 10_000
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        z.extractall(tmp_path / "unpacked")
    for required in ("extension/package.json", "extension/syntaxes/ea.tmLanguage.json", "extension/src/extension.js",
                     "extension/language-configuration.json", "extension/snippets/ea.json",
                     "extension/node_modules/vscode-languageclient/package.json", "extension.vsixmanifest"):
        assert required in names, f"{required} missing from the .vsix"
    assert not any(n.startswith("extension/tests/") for n in names)
    dev_only = ("vscode-tmgrammar-test", "@vscode/vsce", "vscode-textmate")
    assert not any(f"/node_modules/{d}/" in n for n in names for d in dev_only), "dev dependencies packaged"
    assert (manifest["name"], manifest["publisher"], manifest["engines"]["vscode"]) == \
        ("ea-vscode", "ea-toolchain", "^1.80.0")
    assert manifest["main"] == "./src/extension.js"

    # Every runtime dependency of every bundled package is in the .vsix...
    modules = tmp_path / "unpacked" / "extension" / "node_modules"
    unresolved, bundled = [], set()
    for pkg_json in modules.rglob("package.json"):
        if pkg_json.parent.parent.name != "node_modules" and not pkg_json.parent.parent.name.startswith("@"):
            continue  # a package.json inside a package (e.g. lib/), not a package root
        meta = json.loads(pkg_json.read_text())
        bundled.add(meta.get("name"))
        unresolved += [f"{meta.get('name')} -> {dep}" for dep in meta.get("dependencies", {})
                       if not _resolves(dep, pkg_json.parent, modules)]
    assert {"vscode-languageclient", "vscode-languageserver-protocol", "vscode-jsonrpc", "minimatch"} <= bundled
    assert unresolved == []
    # ...and the packaged extension.js loads with the bundled vscode-languageclient.
    r = run(["node", "tests/harness.js", "load", str(tmp_path / "unpacked" / "extension" / "src" / "extension.js")],
            env={"NODE_PATH": ""})
    assert r.returncode == 0, r.stderr
    assert {"activate", "deactivate"} <= set(json.loads(r.stdout)["exports"])
