"""Pieces of the C-harness `ea bench` without a build: reading the harness's
JSONL, the env block and result document, and failing build tools."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from ea_compiler import __version__
from ea_compiler.bench import harness
from ea_compiler.bench.envinfo import environment, git_sha, result_document, timestamp
from ea_compiler.bench.harness import BenchError, parse_output
from ea_compiler.options import Options

from .harness_support import ROOT


def test_output_lines_blank_lines_and_key_order():
    out = parse_output(b'\n  {"median_ns": 5, "x": [1], "kernel": "a", "p90_ns": 6}  \r\n'
                       b'{"kernel": "b", "median_ns": 0}\n')
    assert out == [{"kernel": "a", "median_ns": 5, "p90_ns": 6, "x": [1]},
                   {"kernel": "b", "median_ns": 0}]
    assert list(out[0]) == ["kernel", "median_ns", "p90_ns", "x"]


@pytest.mark.parametrize("stdout, number, message", [
    (b'{"kernel": "a", "median_ns": 1}\n\n{"kernel": "b",\n', 3,
     "Expecting property name enclosed in double quotes: line 1 column 16 (char 15)"),
    (b'[1, 2]', 1, "not a JSON object"),
    (b'{"median_ns": 1}', 1, "missing 'kernel'"),
    (b'{"kernel": "a"}', 1, "missing 'median_ns'"),
    (b'{"kernel": 7, "median_ns": 1}', 1, "'kernel' must be a string"),
    (b'{"kernel": "a", "median_ns": 1.0}', 1, "'median_ns' must be a non-negative integer"),
    (b'{"kernel": "a", "median_ns": -1}', 1, "'median_ns' must be a non-negative integer"),
    (b'{"kernel": "a", "median_ns": true}', 1, "'median_ns' must be a non-negative integer"),
    (b'{"kernel": "a", "median_ns": 1, "n_runs": "9"}', 1,
     "'n_runs' must be a non-negative integer"),
    (b'{"kernel": "a", "median_ns": 1, "gbps": NaN}', 1, "NaN is not valid JSON"),
    (b'{"kernel": "a", "median_ns": 1, "gbps": -Infinity}', 1, "-Infinity is not valid JSON"),
])
def test_malformed_lines(stdout, number, message):
    with pytest.raises(BenchError) as err:
        parse_output(stdout)
    line = stdout.splitlines()[number - 1].decode().strip()  # quoted as stripped
    assert str(err.value) == f"malformed harness output line {number} ({message}): {line}"


def test_a_line_that_is_not_utf8():
    with pytest.raises(BenchError) as err:
        parse_output(b'{"kernel": "\xff", "median_ns": 1}\n')
    assert str(err.value) == ('malformed harness output line 1 (not UTF-8): '
                              '{"kernel": "\ufffd", "median_ns": 1}')


def test_no_measurements():
    with pytest.raises(BenchError, match="^harness printed no measurements$"):
        parse_output(b"\n  \n")


def test_a_build_tool_that_cannot_run(tmp_path):
    with pytest.raises(BenchError) as err:
        harness._run_tool([str(tmp_path / "no-cc")], "cc", tmp_path)
    assert str(err.value) == \
        f"cc failed: cannot run '{tmp_path / 'no-cc'}': No such file or directory"


def test_timeouts_are_messages(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "BUILD_TIMEOUT_S", 0.2)
    monkeypatch.setattr(harness, "RUN_TIMEOUT_S", 0.2)
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    with pytest.raises(BenchError, match=r"^cc failed: timed out after 0.2 s$"):
        harness._run_tool(sleeper, "cc", tmp_path)
    with pytest.raises(BenchError, match=r"^harness timed out after 0.2 s$"):
        harness._run_harness(sleeper)


def test_target_features_are_the_flags_own():
    assert environment(Options(), False)["target_features"] == ""
    assert environment(Options(avx512=True), False)["target_features"] == \
        "+avx512f,+avx512vl,+avx512bw"
    arm = Options(target_triple="aarch64-unknown-linux-gnu", dotprod=True, i8mm=True)
    assert environment(arm, False)["target_features"] == "+dotprod,+i8mm"
    env = environment(Options(target_cpu="haswell", opt_level=1), True)
    assert (env["target_cpu"], env["opt_level"], env["pinned"]) == ("haswell", 1, True)


def test_git_sha(tmp_path):
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    assert git_sha(ROOT) == head
    assert git_sha(tmp_path) is None


def test_result_document_layout(tmp_path):
    doc = result_document("n", {"arch": "x"}, [{"kernel": "k", "median_ns": 1}], tmp_path)
    assert doc == {"schema_version": 1, "name": "n", "eacompute_version": __version__,
                   "git_sha": None, "timestamp": doc["timestamp"], "env": {"arch": "x"},
                   "measurements": [{"kernel": "k", "median_ns": 1}]}
    assert list(doc) == ["schema_version", "name", "eacompute_version", "git_sha",
                         "timestamp", "env", "measurements"]
    assert re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])-\d\dT\d\d:\d\d:\d\dZ", timestamp())
    assert json.loads(json.dumps(doc)) == doc
