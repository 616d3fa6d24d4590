"""Emacs (Debian's emacs-nox) with its two LSP clients, Debian's elpa-eglot and
elpa-lsp-mode, in batch mode against the real `eals`, set up by the shipped
editors/emacs/ea-mode.el: diagnostics at the right place (one per error), the
quick fix applied, completion accepted as plain text (neither client declares
snippet support without yasnippet), hover, definition, rename, and a refused
rename that stays quiet. Both clients run once per module, side by side; the
Lisp drivers (tests/editors/emacs/*.el) write their results as JSON."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVERS = Path(__file__).resolve().parent / "emacs"
EALS = Path(sys.executable).with_name("eals")
EMACS = shutil.which("emacs")
CLIENTS = {"eglot": "eglot_check.el", "lsp-mode": "lsp_check.el"}

BAD = """export func vadd(a: f32x4, b: f32x4) -> f32x4 {
    return a + b
}

export func twice(a: f32x4) -> f32x4 {
    return vadd(a, a)
}

export func root(x: f32) -> f32 {
    return sqrt(x)
}
"""
FIXED = BAD.replace("a + b", "a .+ b")
RENAMED = FIXED.replace("vadd", "vsum")
MESSAGE = "cannot use '+' on vectors. Use '.+' for element-wise vector operations"
SIGNATURE = "export func vadd(a: f32x4, b: f32x4) -> f32x4"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if EMACS is None:
        pytest.skip("emacs not installed (make system-deps installs emacs-nox, elpa-eglot and elpa-lsp-mode)")
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    procs = {}
    for client, driver in CLIENTS.items():
        tmp = tmp_path_factory.mktemp(client)
        work = tmp / "src"
        work.mkdir()
        (work / "bad.ea").write_text(BAD)
        env = dict(os.environ, EA_EALS=str(EALS), EA_DIR=str(work), EA_EMACS_DIR=str(ROOT / "editors" / "emacs"),
                   EA_RESULT=str(tmp / "result.json"), HOME=str(tmp / "home"))  # no user init, state or session files
        procs[client] = (tmp / "result.json", subprocess.Popen(
            [EMACS, "--batch", "-l", str(DRIVERS / driver)], cwd=work, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    out = {}
    for client, (result, proc) in procs.items():
        try:
            log, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            log, _ = proc.communicate()
        out[client] = (proc.returncode, log, json.loads(result.read_text()) if result.exists() else None)
    return out


@pytest.fixture(params=list(CLIENTS))
def run(request, runs):
    return runs[request.param]


def test_client_runs_clean(run):
    rc, log, results = run
    assert results is not None, f"no results written; rc={rc}\n{log}"
    assert "lisp_error" not in results, f"{results['lisp_error']}\n{log}"
    assert results["failures"] == [], json.dumps(results, indent=1)
    assert rc == 0, log
    assert results["major_mode"] == "ea-mode"


def test_one_diagnostic_at_the_error(run):
    diagnostics = run[2]["diagnostics"]
    assert len(diagnostics) == 1, diagnostics
    d = diagnostics[0]
    assert (d["line"], d["col"], d["end_line"], d["end_col"]) == (2, 11, 2, 16)
    assert d["type"] in ("eglot-error", ":error")
    assert d["message"].endswith(MESSAGE)  # eglot puts `source [code]: ' before it


def test_quick_fix_applied(run):
    results = run[2]
    assert results["text_after_fix"] == FIXED
    assert results["diagnostics_after_fix"] == 0
    if "code_actions" in results:  # lsp-mode: asked with the cursor at column 0 of the line
        assert results["code_actions"] == ["use '.+'"]


def test_completion_inserts_plain_text(run):
    results = run[2]
    assert results["completion_candidates"] == ["vadd"]
    assert results["completed_line"] == "    return vadd"  # no `(${1:a}, ${2:b})`
    assert results.get("completion_exit", "ok") == "ok"  # lsp-mode: no yas-expand-snippet call


def test_hover_shows_signature_and_machine_code(run):
    hover = run[2]["hover"]
    assert SIGNATURE in hover
    assert "vector instructions: 1" in hover and "loads: 0" in hover
    assert "Machine code" in hover and "native native" not in hover


def test_definition_jumps_to_the_function(run):
    results = run[2]
    assert results["definition"] == [1, len("export func ")]
    assert results["definition_buffer"] == "bad.ea"


def test_rename_edits_definition_and_call(run):
    results = run[2]
    assert results["text_after_rename"] == RENAMED
    refusal = results["refused_rename"].replace("\u2019", "'")  # lsp-mode formats quotes as curly ones
    assert "cannot rename 'sqrt': it is an intrinsic" in refusal
    assert results.get("text_after_refusal", RENAMED) == RENAMED


def test_refusal_and_save_are_quiet(run):
    """A refused rename is a normal answer, a save no news: nothing on stderr, no Error log; the
    one log line is the Warning about the bad setting the driver sends last."""
    results = run[2]
    assert results["saved"] is True  # eglot sent didSave, unasked (eals ignores it quietly)
    assert results["stderr"] == ""
    assert results["error_logs"] == []
    assert results["logs"] == ["eals: setting 'opt_level' must be 0, 1, 2 or 3, got 7; keeping the previous value"]
