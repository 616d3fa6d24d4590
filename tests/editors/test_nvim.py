"""The Neovim plugin (editors/nvim) in a real headless Neovim against the real
`eals`: filetype detection, syntax groups, the client set-up (0.7:
start_client + buf_attach_client, >= 0.8: vim.lsp.start), a diagnostic that
appears and clears after an edit, and hover on an exported function.
The Lua side (tests/editors/nvim/lsp_check.lua) writes its results as JSON."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "nvim"
SCRIPT = Path(__file__).resolve().parent / "nvim" / "lsp_check.lua"
EALS = Path(sys.executable).with_name("eals")
NVIM = shutil.which("nvim")

BAD = "export func vadd(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n"
OTHER = "export func two() -> i32 {\n    return 2\n}\n"
MESSAGE = "cannot use '+' on vectors. Use '.+' for element-wise vector operations"


def _nvim_version() -> tuple[int, int]:
    out = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=10).stdout
    major, minor = re.search(r"NVIM v(\d+)\.(\d+)", out).groups()
    return int(major), int(minor)


@pytest.fixture(scope="module")
def nvim_run(tmp_path_factory):
    if NVIM is None:
        pytest.skip("nvim not installed (make system-deps installs the Debian package neovim)")
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    tmp = tmp_path_factory.mktemp("nvim")
    work = tmp / "src"
    work.mkdir()
    (work / "bad.ea").write_text(BAD)
    (work / "other.ea").write_text(OTHER)
    result = tmp / "result.json"
    env = dict(os.environ, EA_EALS=str(EALS), EA_DIR=str(work), EA_RESULT=str(result))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp / var.lower())  # keep logs and state out of the user's home
    proc = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp+={PLUGIN}",
         "-c", f"luafile {SCRIPT}"],
        cwd=work, env=env, capture_output=True, text=True, timeout=60)
    results = json.loads(result.read_text()) if result.exists() else None
    return proc, results


def test_nvim_plugin_runs_clean(nvim_run):
    proc, results = nvim_run
    assert results is not None, f"no results written; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "lua_error" not in results, results["lua_error"]
    assert results["failures"] == [], json.dumps(results, indent=1)
    assert proc.returncode == 0, proc.stderr
    assert len(results["checks"]) >= 30  # every step ran


def test_client_setup_matches_nvim_version(nvim_run):
    _, results = nvim_run
    expected = "vim.lsp.start" if _nvim_version() >= (0, 8) else "vim.lsp.start_client"
    assert results["api"] == expected
    assert results["clients"] == 1 and results["client_name"] == "eals"
    assert results["init_options"] == {"ea": {"inlayHints": "off"}}
    assert results["debounce"] == 0
    assert results["filetype"] == "ea" and results["scratch_clients"] == 0


def test_diagnostic_appears_then_clears(nvim_run):
    _, results = nvim_run
    assert results["diagnostics"] == [
        {"lnum": 1, "col": 11, "end_lnum": 1, "end_col": 16, "severity": 1, "message": MESSAGE}]
    assert results["diagnostics_after_fix"] == 0


def test_hover_shows_instruction_summary(nvim_run):
    _, results = nvim_run
    assert results["hover_provider"] is True
    assert "vadd" in results["hover"]
    assert "vector" in results["hover"], results.get("hover_error")


_SYN_OPTIONS = {"contained", "skipwhite", "skipnl", "skipempty", "transparent", "display", "fold", "conceal"}


def _syntax_keywords(group: str) -> set[str]:
    words: set[str] = set()
    for line in (PLUGIN / "syntax" / "ea.vim").read_text().splitlines():
        parts = line.split()
        if parts[:3] == ["syn", "keyword", group]:
            words.update(p for p in parts[3:] if "=" not in p and p not in _SYN_OPTIONS)
    return words


def test_syntax_lists_every_intrinsic_and_vector_type():
    """No Neovim needed: the syntax file follows the compiler's tables."""
    import ea_compiler.intrinsics as intrinsics
    from ea_compiler.syntax.tokens import KEYWORDS
    from ea_compiler.typesys.vectors import VECTORS

    assert _syntax_keywords("eaIntrinsic") == set(intrinsics.TABLE) - {"splat"}
    assert _syntax_keywords("eaVectorType") == set(VECTORS)
    highlighted = set().union(*(_syntax_keywords(g) for g in (
        "eaKeyword", "eaStorage", "eaConditional", "eaRepeat", "eaStatement", "eaBoolean",
        "eaScalarType", "eaVectorType")))
    assert set(KEYWORDS) <= highlighted
