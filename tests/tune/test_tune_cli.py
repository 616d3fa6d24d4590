"""`ea tune` on the command line: the JSON document, the files it writes, and its errors."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .tune_support import FOUR_ACC, ONE_ACC, proposer

EA = [str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "ea")]


def ea_tune(*args, cwd=None):
    return subprocess.run([*EA, "tune", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_json_has_the_documented_keys_and_the_best_is_written_beside_the_kernel(project, tmp_path):
    kernel, _ = project
    out = ea_tune(kernel, "--space", "agent", "--propose-cmd", proposer(tmp_path, FOUR_ACC), "--budget=1",
                  "--quick", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    for key in ("baseline_us", "best_us", "speedup", "best_file", "evaluated", "cache_hits", "accepted", "history"):
        assert key in doc
    assert doc["best_file"] == str(kernel.with_name("mx.tuned.ea"))
    assert Path(doc["best_file"]).read_text() == FOUR_ACC and kernel.read_text() == ONE_ACC
    assert doc["accepted"] == 1 and doc["speedup"] > 1.0  # accepted: the gate measured it faster (by how much varies)
    assert doc["history"][0]["outcome"] == "accepted"
    assert [r["size"] for r in doc["sizes"]] == [16384, 262144]
    assert doc["bottleneck_before"]["max_f32"] == "latency-bound"
    assert doc["diff"].startswith("--- mx.ea (original)\n+++ mx.ea (tuned)\n")
    assert f"wrote {doc['best_file']}" in out.stderr


def test_apply_rewrites_in_place_and_keeps_the_original(project, tmp_path):
    kernel, _ = project
    out = ea_tune(kernel, "--space=agent", f"--propose-cmd={proposer(tmp_path, FOUR_ACC)}", "--budget", "1",
                  "--quick", "--apply")
    assert out.returncode == 0, out.stderr
    assert kernel.read_text() == FOUR_ACC
    assert kernel.with_name("mx.ea.orig").read_text() == ONE_ACC
    assert "at the largest size" in out.stdout and "best: agent proposal 1" in out.stdout
    assert "+        b1 = max(b1, load_f32x8(x, i + LANES))" in out.stdout


def test_nothing_better_leaves_no_file(project, tmp_path):
    kernel, _ = project
    out = ea_tune(kernel, "--space=agent", f"--propose-cmd={proposer(tmp_path, 'garbage')}", "--budget=1", "--quick")
    assert out.returncode == 0, out.stderr
    assert "no faster variant found; the kernel is unchanged" in out.stdout
    assert "#1 agent proposal 1: compile-error" in out.stderr
    assert not kernel.with_name("mx.tuned.ea").exists()


def test_errors_are_one_line_and_exit_1(project, tmp_path):
    kernel, suite = project
    cases = [
        ((kernel, "--function", "nope"), f"error: {suite}: no benchmark of nope (the suite benches max_f32)"),
        ((kernel, "--space", "agent"), "error: the agent space needs a proposer command (--propose-cmd CMD)"),
        ((kernel, "--budget", "x"), "error: --budget takes a whole number"),
        ((kernel, "--frobnicate"), "error: unknown option '--frobnicate'"),
        ((suite,), f"error: ea tune takes an .ea file, got '{suite}'"),
    ]
    for args, message in cases:
        out = ea_tune(*args)
        assert (out.returncode, out.stderr.strip()) == (1, message), args
    lonely = tmp_path / "lonely.ea"
    lonely.write_text(ONE_ACC)
    out = ea_tune(lonely)
    assert out.returncode == 1
    assert out.stderr.startswith(f"error: no benchmark suite for {lonely}: write lonely.bench.toml beside it")


def test_help():
    out = ea_tune("--help")
    assert out.returncode == 0 and out.stderr.startswith("usage: ea tune <file.ea> [options]")


def test_the_live_status_line_on_a_terminal():
    import io

    from ea_compiler.cli.tune_view import _Live
    from ea_compiler.tune import Attempt, TuneEvent

    class Tty(io.StringIO):
        def isatty(self):
            return True
    out = Tty()
    live = _Live(out)
    live.event(TuneEvent("message", "max_f32: local search over 11 variant(s)"))
    live.event(TuneEvent("attempt", "", Attempt(1, "unroll max_f32#0 ×2", "slower", "slower: 0.9×", variant="v1"),
                         100.0, 100.0, 1, 0, 1, 0, speedup=1.0))
    live.event(TuneEvent("attempt", "", Attempt(2, "prefetch max_f32#0", "not-applicable", "no loop"),
                         100.0, 100.0, 1, 0, 1, 0, speedup=1.0))
    live.event(TuneEvent("attempt", "", Attempt(3, "unroll max_f32#0 ×4", "accepted", "faster: 2×", cached=True,
                                                variant="v2"), 50.0, 100.0, 1, 1, 1, 1, speedup=2.0))
    live.clear()
    text = out.getvalue()
    assert text.startswith("max_f32: local search over 11 variant(s)\n")
    assert ("\r[1 tried (1 evaluated, 0 from the cache) · 0 accepted · 1 rejected] best 100.0 µs "
            "(1.00× the original) — #1 unroll max_f32#0 ×2: slower") in text
    # Not applicable is no variant: not tried, counted apart.
    assert "[1 tried (1 evaluated, 0 from the cache) · 1 not applicable · 0 accepted · 1 rejected]" in text
    assert "#3 unroll max_f32#0 ×4: accepted (cached) — faster: 2×\n" in text  # accepted steps stay on screen
    assert ("[2 tried (1 evaluated, 1 from the cache) · 1 not applicable · 1 accepted · 1 rejected] best 50.0 µs "
            "(2.00× the original)") in text
    assert text.endswith("\r")
