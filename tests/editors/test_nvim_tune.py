"""The tuning features of `eals` (rewrite code actions, bench/tune code lenses,
`ea.bench` with `$/progress`) through Neovim's own LSP client, headless, in
Debian 12's 0.7.2 and in 0.10.4 and 0.11.4 (.cache/, .ci/nvim-newer.sh), side
by side once per module. tests/editors/nvim/lsp_tune.lua picks "Unroll ×4
with 4 accumulators" in vim.lsp.buf.code_action's menu on max_f32's loop
(every version declares codeAction resolveSupport: the edit comes from
codeAction/resolve), and the buffer must then hold exactly what the
transformation produces; then the lenses vim.lsp.codelens keeps, and the
"bench" lens run with vim.lsp.codelens.run (answered at once, the run
reporting $/progress and ending with a message; hover then shows it), and the
"tune" lens, cancelled through its progress."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from .test_nvim import EALS, NVIM, PLUGIN, _nvim_version
from .test_nvim_newer import NVIMS
from .tune_files import BENCHED, TITLE, UNROLL_TITLES, name_positions, rewritten, write_files

SCRIPT = Path(__file__).resolve().parent / "nvim" / "lsp_tune.lua"
VERSIONS = {"0.7": Path(NVIM) if NVIM else None, **NVIMS}


def _usable(version: str, nvim: Path | None) -> bool:
    if nvim is None or not nvim.exists():
        return False
    return version != "0.7" or _nvim_version() == (0, 7)


@pytest.fixture(scope="module")
def all_runs(tmp_path_factory):
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    procs = {}
    for version, nvim in VERSIONS.items():
        if not _usable(version, nvim):
            continue
        tmp = tmp_path_factory.mktemp(f"tune-{version}")
        work = tmp / "src"
        work.mkdir()
        path = write_files(work)
        env = dict(os.environ, EA_EALS=str(EALS), EA_DIR=str(work), EA_RESULT=str(tmp / "result.json"),
                   EA_TITLE=TITLE)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[var] = str(tmp / var.lower())  # keep logs and state out of the user's home
        procs[version] = (path, tmp / "result.json", subprocess.Popen(
            [str(nvim), "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp+={PLUGIN}",
             "-c", f"luafile {SCRIPT}"],
            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    out = {}
    for version, (path, result, proc) in procs.items():
        try:
            log, _ = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            log, _ = proc.communicate()
        out[version] = (path, proc.returncode, log, json.loads(result.read_text()) if result.exists() else None)
    return out


@pytest.fixture(params=list(VERSIONS))
def run(request, all_runs):
    if request.param not in all_runs:
        pytest.skip(f"Neovim {request.param} missing (system-deps installs 0.7.2, make nvim-newer the others)")
    return all_runs[request.param] + (request.param,)


def test_script_runs_clean(run):
    _, rc, log, results, version = run
    assert results is not None, f"no results written; rc={rc}\n{log}"
    assert "lua_error" not in results, f"{results['lua_error']}\n{log}"
    assert results["failures"] == [], json.dumps(results, indent=1)
    assert rc == 0, log
    assert results["nvim"].startswith(version + ".")
    assert _server_lines(results["lsp_log"]) == []  # no server stderr, no failed request


# Neovim's own lines: the log's header, and the error Neovim 0.11's `buf_request_sync` logs when it
# cancels a request whose answer has already arrived (the server was faster than the cancel).
_CLIENT_ONLY = re.compile(r"\] LSP logging initiated$|Cannot find request with id \d+ whilst attempting to cancel")


def _server_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.strip() and not _CLIENT_ONLY.search(line)]


def test_rewrite_offered_lazily_on_the_loop(run):
    results = run[3]
    assert results["resolve_declared"] is True
    assert results["titles"] == UNROLL_TITLES
    assert results["kind"] == "refactor.rewrite"
    assert results["lazy"] is True  # no edit in the answer: Neovim resolves the one picked
    assert results["action_menu"]["labels"] == UNROLL_TITLES


def test_applied_rewrite_is_the_transformation_byte_for_byte(run):
    path, _, _, results, _ = run
    assert results["text_after_rewrite"] == rewritten(path)
    assert results["undone"] is True  # one undo step gives the file back


def test_lenses_on_the_benched_functions_only(run):
    path, _, _, results, _ = run
    names = name_positions(path.read_text())
    uri = path.as_uri()
    expected = [{"line": names[f][0], "character": names[f][1], "title": title, "command": f"ea.{title}",
                 "arguments": [uri, f, {"background": True}]} for f in BENCHED for title in ("bench", "tune")]
    assert results["lenses"] == expected
    assert results["lens_menu"]["labels"] == ["bench", "tune"]


def test_bench_lens_runs_with_progress_and_hover_shows_it(run):
    results = run[3]
    assert results.get("command_error") is None
    assert results.get("command_result") is None and results["answer_ms"] < 3000  # answered as the run starts
    assert results["progress"][0]["title"] == "ea bench max_f32"
    bench = [p for p in results["progress"] if p["token"] == results["progress"][0]["token"]]
    kinds = [p["kind"] for p in bench]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds, bench
    assert bench[-1]["message"] == "done"
    assert any(m.startswith("ea.bench max_f32: 4K ") for m in results["messages"]), results["messages"]
    assert "**Bench**" in results["hover"] and "max_f32 4K: median" in results["hover"], results["hover"]


def test_tune_lens_runs_in_the_background_until_cancelled(run):
    results = run[3]
    assert results["tune_menu"]["labels"] == ["bench", "tune"]
    tune = [m for m in results["messages"] if m.startswith("ea.tune max_f32: ")]
    assert len(tune) == 1 and tune[0].endswith("(interrupted: the best found so far)"), results["messages"]
    ends = [p["message"] for p in results["progress"] if p["kind"] == "end"]
    assert ends == ["done", "cancelled"]
    assert "**Tune** (interrupted at" in results["hover_after_tune"]
    assert "**Bench**" in results["hover_after_tune"]  # the bench's result stays
