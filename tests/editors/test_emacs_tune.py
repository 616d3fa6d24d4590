"""The rewrite code actions (and, with lsp-mode, the code lenses) of `eals`
through Emacs's two LSP clients, Debian's elpa-eglot (1.9: no codeAction
resolve, the edits come in the answer) and elpa-lsp-mode (resolves the action
picked), in batch mode, side by side once per module: "Unroll ×4 with 4
accumulators" is offered on max_f32's loop and, applied by the client, leaves
in the buffer exactly what the transformation produces. With lsp-mode, the
lenses, then the "bench" and "tune" lenses clicked as lsp-lens does (its
mouse-1 command), the tune cancelled through its progress. The Lisp drivers
are tests/editors/emacs/eglot_tune.el and lsp_tune.el."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from .test_emacs import DRIVERS, EALS, EMACS, ROOT
from .tune_files import BENCHED, TITLE, UNROLL_TITLES, name_positions, rewritten, write_files

CLIENTS = {"eglot": "eglot_tune.el", "lsp-mode": "lsp_tune.el"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if EMACS is None:
        pytest.skip("emacs not installed (make system-deps installs emacs-nox, elpa-eglot and elpa-lsp-mode)")
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    procs = {}
    for client, driver in CLIENTS.items():
        tmp = tmp_path_factory.mktemp(f"tune-{client}")
        work = tmp / "src"
        work.mkdir()
        path = write_files(work)
        env = dict(os.environ, EA_EALS=str(EALS), EA_DIR=str(work), EA_EMACS_DIR=str(ROOT / "editors" / "emacs"),
                   EA_RESULT=str(tmp / "result.json"), EA_TITLE=TITLE, HOME=str(tmp / "home"))
        procs[client] = (path, tmp / "result.json", subprocess.Popen(
            [EMACS, "--batch", "-l", str(DRIVERS / driver)], cwd=work, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    out = {}
    for client, (path, result, proc) in procs.items():
        try:
            log, _ = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            proc.kill()
            log, _ = proc.communicate()
        out[client] = (path, proc.returncode, log, json.loads(result.read_text()) if result.exists() else None)
    return out


@pytest.fixture(params=list(CLIENTS))
def run(request, runs):
    return runs[request.param] + (request.param,)


def test_driver_runs_clean(run):
    _, rc, log, results, _ = run
    assert results is not None, f"no results written; rc={rc}\n{log}"
    assert "lisp_error" not in results, f"{results['lisp_error']}\n{log}"
    assert results["failures"] == [], json.dumps(results, indent=1)
    assert rc == 0, log
    assert results["major_mode"] == "ea-mode"
    assert results.get("stderr", "") == ""


def test_rewrite_offered_on_the_loop_line(run):
    results, client = run[3], run[4]
    assert results["titles"] == UNROLL_TITLES
    if client == "eglot":
        assert results["eager"] is True  # eglot 1.9 cannot resolve: every edit is in the answer
        assert results["menu"] == UNROLL_TITLES  # what `completing-read' offered
    else:
        assert results["lazy"] is True


def test_applied_rewrite_is_the_transformation_byte_for_byte(run):
    path, _, _, results, _ = run
    assert results["text_after_rewrite"] == rewritten(path)


def test_lsp_mode_gets_the_lenses_of_the_benched_functions(runs):
    path, _, _, results = runs["lsp-mode"]
    names = name_positions(rewritten(path))  # asked after the rewrite: min_f32 moved down
    expected = [{"line": names[f][0], "character": names[f][1], "title": title, "command": f"ea.{title}",
                 "arguments": [path.as_uri(), f, {"background": True}]} for f in BENCHED for title in ("bench", "tune")]
    assert results["lenses"] == expected


def test_lsp_mode_lens_clicks_answer_at_once(runs):
    """lsp-mode waits for a command's answer with Emacs blocked, 10 s at most, then
    reports a timeout and cancels the request: a tune used to freeze Emacs for 10 s
    and stop there. The clicks are answered at once; the runs finish by themselves."""
    results = runs["lsp-mode"][3]
    assert results["bench_error"] is None and results["tune_error"] is None
    assert results["bench_answer_seconds"] < 3 and results["tune_answer_seconds"] < 3
    assert results["errors"] == []
    bench, tune = results["messages"]
    assert bench.startswith("ea.bench max_f32: 4K ")
    assert bench.endswith(" (the saved file ran; unsaved changes were not included)")  # the rewrite is unsaved
    assert tune.startswith("ea.tune max_f32: ") and "(interrupted: the best found so far)" in tune
    ends = [text for _token, kind, text in results["progress"] if kind == "end"]
    assert ends == ["done", "cancelled"]  # the tune: cancelled through its progress
    assert "**Bench**" in results["hover"] or "Bench (quick run at" in results["hover"]
    assert "Tune (interrupted at" in results["hover"]
