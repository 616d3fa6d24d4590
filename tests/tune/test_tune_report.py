"""`ea tune` end to end on a small kernel: the report's lines (one measure of faster, the
interval around it, tried, per-size ratios, the machine's load and noise, the pinned
core), the distinct exit status when the best loses side by side at the end, and a
suite with named sizes through the worker."""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict

from ea_compiler.cli import tune_view
from ea_compiler.tune import TuneConfig
from named_sizes import MATMUL, MATMUL_SUITE

from .test_tune_cli import ea_tune
from .tune_support import FOUR_ACC, ONE_ACC, proposer


def test_the_report_lines(project, tmp_path):
    kernel, _ = project
    out = ea_tune(kernel, "--space", "agent", "--propose-cmd", proposer(tmp_path, FOUR_ACC), "--budget=1", "--quick",
                  "--no-diff")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    head = re.fullmatch(r"ea tune mx\.ea: (\d+\.\d\d)× at the largest size \(95 % interval (\d+\.\d\d)–(\d+\.\d\d)\) "
                        r"\(\d+\.\d µs -> \d+\.\d µs\); 1 tried \(1 evaluated, 0 from the cache\), 1 accepted, \d+ s",
                        lines[0])
    assert head, lines[0]
    ratio, lo, hi = map(float, head.groups())
    assert 0 < lo <= ratio <= hi  # the ratio printed is inside its interval
    assert re.fullmatch(r"the search's steps multiplied to \d+\.\d\d×; (\d+\.\d\d)× measured side by side", lines[1])
    assert lines[1].endswith(f"; {ratio:.2f}× measured side by side")  # the headline is the side-by-side figure
    cpu = max(os.sched_getaffinity(0))
    assert re.fullmatch(r"machine: load \d+\.\d\d -> \d+\.\d\d on \d+ CPUs?( \(busy: other processes share the "
                        rf"CPUs\))?, timing noise ±\d+\.\d% \(the original at the largest size\), workers pinned to "
                        rf"CPU {cpu}", lines[2]), lines[2]
    assert lines[3].split() == ["function", "size", "original", "µs", "tuned", "µs", "speedup", "95", "%",
                                "interval", "NumPy", "µs", "tuned", "vs", "NumPy"]
    assert lines[4].split()[:2] == ["max_f32", "16K"] and lines[5].split()[:3] == ["max_f32", "256K", "*"]
    assert lines[6] == "(* the size that decides)"
    assert lines[-1] == "best: agent proposal 1"
    # The live lines: tried counts what was measured.
    assert "#1 agent proposal 1: accepted" in out.stderr


def test_json_has_the_judgement_keys(project, tmp_path):
    kernel, _ = project
    out = ea_tune(kernel, "--space", "agent", "--propose-cmd", proposer(tmp_path, FOUR_ACC), "--budget=1", "--quick",
                  "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    lo, hi = doc["speedup_interval"]
    assert 0 < lo <= doc["speedup"] <= hi
    assert doc["tally"] == {"evaluated": 1, "twice": 0, "cached": 0, "unmeasured": 0, "not_applicable": 0}
    assert doc["slower_at_end"] is False and doc["cpu"] == max(os.sched_getaffinity(0))
    assert doc["load_before"]["cpus"] >= 1 and doc["noise"] >= 0
    largest = [r for r in doc["sizes"] if r["largest"]]
    assert [r["size"] for r in largest] == [262144]
    assert largest[0]["ratio_lo"] <= largest[0]["speedup"] <= largest[0]["ratio_hi"]


def test_a_best_slower_side_by_side_at_the_end_is_not_written_and_exits_3(project, tmp_path, monkeypatch, capsys):
    from ea_compiler.tune import engine

    def final_says_slower(run, base):
        ev = run._evaluate(run.best.path, base.path, run.benches)
        for bench in ev.benches.values():
            for row in bench.values():
                row.update(us=row["incumbent_us"] / 0.978, ratio=0.978, ratio_lo=0.93, ratio_hi=1.01)
        return ev
    monkeypatch.setattr(engine._Run, "_final", final_says_slower)
    kernel, _ = project
    cfg = TuneConfig(kernel=kernel, spaces=("agent",), propose_cmd=proposer(tmp_path, FOUR_ACC), budget=1, quick=True)
    code = tune_view.run(cfg, apply=False, as_json=False, show_diff=True)
    assert code == tune_view.SLOWER_AT_END_EXIT == 3
    out, err = capsys.readouterr()
    assert "not written: agent proposal 1 was slower than the original measured side by side at the largest size" \
        in err
    assert out.splitlines()[0].startswith("ea tune mx.ea: the original is kept: the best found was slower side by "
                                          "side at the largest size")
    assert not kernel.with_name("mx.tuned.ea").exists() and kernel.read_text() == ONE_ACC


def test_the_exit_status_is_in_the_help():
    out = ea_tune("--help")
    assert "3 the best variant\nwas slower than the original when measured side by side at the end (nothing written)" \
        in out.stderr


def test_named_sizes_through_the_worker(tmp_path):
    from ea_compiler.options import Options
    from ea_compiler.tune.worker import evaluate_request
    (tmp_path / "mm.ea").write_text(MATMUL)
    suite = tmp_path / "mm.bench.toml"
    suite.write_text(MATMUL_SUITE)
    kernel = str(tmp_path / "mm.ea")
    out = evaluate_request({"suite": str(suite), "candidate": kernel, "incumbent": kernel, "tuned": ["matmul"],
                            "options": asdict(Options()), "quick": True, "edges": True, "same_code": False,
                            "result": str(tmp_path / "result.json")})
    assert out["outcome"] == "ok", out
    rows = out["benches"]["matmul"]
    assert list(rows) == ["m=16,n=24,k=8", "m=48,n=32,k=1024"]
    assert rows["m=48,n=32,k=1024"]["size"] == "m=48,n=32,k=1K"
    assert rows["m=48,n=32,k=1024"]["flops"] == 2 * 48 * 32 * 1024  # for GFLOP/s in the report
    for row in rows.values():
        assert 0 < row["ratio_lo"] <= row["ratio"] <= row["ratio_hi"]


def test_a_wrong_variant_at_a_named_size_is_named(tmp_path):
    from ea_compiler.options import Options
    from ea_compiler.tune.worker import evaluate_request
    (tmp_path / "mm.ea").write_text(MATMUL)
    (tmp_path / "bad.ea").write_text(MATMUL.replace("sum = sum + a[i * k + p]", "sum = sum + 1.0 + a[i * k + p]"))
    suite = tmp_path / "mm.bench.toml"
    suite.write_text(MATMUL_SUITE)
    out = evaluate_request({"suite": str(suite), "candidate": str(tmp_path / "bad.ea"),
                            "incumbent": str(tmp_path / "mm.ea"), "tuned": ["matmul"], "options": asdict(Options()),
                            "quick": True, "edges": True, "result": str(tmp_path / "result.json")})
    assert out["outcome"] == "wrong"
    # The first length checked is the smallest edge with a reference: every parameter at 1.
    assert out["reason"].startswith("matmul at m=1,n=1,k=1: ")

