"""`ea bench` NumPy suites: parsing, verification before timing, statistics,
JSON, baseline diff and regression exit code, history, the shipped suites."""
from __future__ import annotations

import json
import threading

import pytest

from ea_compiler import Options
from ea_compiler.bench import BenchError, Cancelled, load_suite, parse_size, read_history, run_suite, size_label
from ea_compiler.bench.timing import Budget, measure, summarize

from .bench_support import FMA, ROOT, SUITE, WRONG, ea_bench, write_suite

FAST = ("--quick", "--no-bandwidth", "--reps", "5")


def test_sizes_parse_and_print():
    assert [parse_size(s) for s in (4096, "4K", "16m", " 2 G ")] == [4096, 4096, 16 << 20, 2 << 30]
    for bad in (0, -4, "4X", "", True, "1.5M"):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert size_label(4096) == "4K" and size_label(16 << 20) == "16M" and size_label(1000) == "1000"


@pytest.mark.parametrize("suite, message", [
    ('kernal = "k.ea"\n' + SUITE, "unknown key 'kernal' (known: baseline, bench, history, kernel, prelude, tune)"),
    ("[[bench]]\nname = 'x'\n", "[[bench]] #1: missing required key 'function'"),
    (SUITE.replace('["4K", 1000]', '["4X"]'), "[[bench]] fma: bad size '4X' (a positive count, optionally with K, M or G)"),
    (SUITE.replace('sizes = ["4K", 1000]', 'sizes = []'),
     "[[bench]] fma: 'sizes' must be a non-empty list such as [\"64K\", \"16M\"]"),
    (SUITE.replace('check = "out"', 'check = "result"'),
     "[[bench]] fma: check = 'result' is not one of the arguments (a, b, c, out) nor \"return\""),
    (SUITE.replace('dist = "zeros"', 'dist = "gauss"'),
     "[[bench]] fma: args.out: unknown dist 'gauss' (one of uniform, normal, integers, zeros, ones, full)"),
    (SUITE.replace('"a * b + c"', '"a * * b"'), "[[bench]] fma: reference: not a valid expression: 'a * * b'"),
    ("baseline = 'x.json'\n", "needs at least one [[bench]] table"),
    ("[[bench]\n", "invalid TOML"),
])
def test_suite_errors_name_the_place(tmp_path, suite, message):
    path = write_suite(tmp_path, suite=suite)
    with pytest.raises(BenchError) as err:
        load_suite(path)
    assert str(err.value).startswith(str(path))
    assert message in str(err.value)


def test_missing_kernel_and_cli_messages(tmp_path):
    path = tmp_path / "lonely.bench.toml"
    path.write_text(SUITE)
    done = ea_bench(path, *FAST)
    assert done.returncode == 1
    assert done.stderr == f"error: {path}: kernel file '{tmp_path / 'lonely.ea'}' does not exist\n"
    (tmp_path / "plain.ea").write_text(FMA)
    done = ea_bench(tmp_path / "plain.ea")
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: no benchmark suite for '{tmp_path / 'plain.ea'}': create "
                                  f"{tmp_path / 'plain.bench.toml'}")
    done = ea_bench(write_suite(tmp_path), "--frobnicate")
    assert (done.returncode, done.stderr) == (1, "error: unknown option '--frobnicate'\n")


def test_wrong_kernel_is_reported_not_timed(tmp_path):
    path = write_suite(tmp_path, kernel=WRONG)
    report = run_suite(load_suite(path), Options(), quick=True, bandwidth=False)
    assert [r.status for r in report.results] == ["wrong", "wrong"]
    first = report.results[0]
    assert first.median_ns is None and first.n_runs == 0 and first.gbps is None
    assert first.message.startswith("4096 of 4096 values differ (rtol=1e-05, atol=1e-06); worst at index ")
    done = ea_bench(path, *FAST, "--no-history")
    assert done.returncode == 1
    assert "│ fma   │ 4K   │  WRONG │" in done.stdout
    assert "error: fma[4K]: wrong: 4096 of 4096 values differ" in done.stderr


def test_run_results_statistics_and_progress(tmp_path):
    events = []
    report = run_suite(load_suite(write_suite(tmp_path)), Options(), quick=True, bandwidth=False, reps=9,
                       progress=events.append)
    assert [(r.key, r.status) for r in report.results] == [("fma[4K]", "ok"), ("fma[1000]", "ok")]
    for r in report.results:
        assert r.n_runs == 9 and r.n_inner >= 1
        assert 0 < r.p10_ns <= r.median_ns <= r.p90_ns
        assert r.gbps == pytest.approx(16 * r.size / r.median_ns)
        assert r.speedup == pytest.approx(r.ref_median_ns / r.median_ns)
        assert r.bottleneck in ("memory-bound", "compute-bound", "mixed", "latency-bound")
        assert r.bandwidth_fraction is None
    assert events[-1].done == events[-1].total == 3  # compile + two sizes
    assert [e.result.key for e in events if e.result] == ["fma[4K]", "fma[1000]"]
    assert all(a.done <= b.done for a, b in zip(events, events[1:]))


def test_statistics_are_order_statistics():
    s = summarize([float(x) for x in range(1, 12)], n_inner=4)
    assert (s.median_ns, s.p10_ns, s.p90_ns, s.n_inner, s.n_runs) == (6.0, 2.0, 10.0, 4, 11)
    calls = {"a": 0, "b": 0}

    def count(name):
        def f():
            calls[name] += 1
        return f
    stats = measure({"a": count("a"), "b": count("b")}, Budget(fixed_samples=6, sample_ns=1e4, warmup_ns=0))
    assert stats["a"].n_runs == stats["b"].n_runs == 6
    assert calls["a"] >= 6 * stats["a"].n_inner + 2  # the samples plus at least two warm-up calls


def test_cancel_stops_a_run(tmp_path):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_suite(load_suite(write_suite(tmp_path)), Options(), quick=True, bandwidth=False, cancel=cancel)


def test_cross_target_is_refused(tmp_path):
    with pytest.raises(BenchError, match=r"code for --target-triple=aarch64-unknown-linux-gnu cannot run here"):
        run_suite(load_suite(write_suite(tmp_path)), Options(target_triple="aarch64-unknown-linux-gnu"))


def test_json_document(tmp_path):
    done = ea_bench(write_suite(tmp_path), "--quick", "--reps", "5", "--json", "--no-history")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert list(doc)[:7] == ["schema_version", "name", "eacompute_version", "git_sha", "timestamp", "env",
                             "measurements"]
    assert doc["schema_version"] == 1 and doc["name"] == "k" and doc["kind"] == "numpy"
    assert set(doc["env"]) == {"os", "arch", "host_cpu", "target_cpu", "target_features", "opt_level", "pinned",
                               "quick"}
    assert doc["env"]["quick"] is True
    assert doc["bandwidth"]["kernel"] == "triad" and doc["bandwidth"]["gbps"] > 1
    m = doc["measurements"][0]
    assert m["kernel"] == "fma[4K]" and m["size"] == 4096 and m["status"] == "ok"
    for key in ("median_ns", "p10_ns", "p90_ns", "ref_median_ns", "n_inner", "n_runs"):
        assert isinstance(m[key], int) and m[key] > 0, key
    for key in ("gbps", "ref_gbps", "speedup", "bandwidth_fraction"):
        assert isinstance(m[key], float) and m[key] > 0, key
    assert m["bandwidth_fraction"] == pytest.approx(m["gbps"] / doc["bandwidth"]["gbps"])


def test_baseline_diff_and_regression_exit_code(tmp_path):
    path = write_suite(tmp_path)
    done = ea_bench(path, *FAST, "--no-history")
    assert done.stderr == f"no baseline yet — run with --update-baseline to create one ({tmp_path / 'base.json'})\n"
    done = ea_bench(path, *FAST, "--no-history", "--update-baseline")
    assert done.returncode == 0 and done.stderr == f"wrote baseline {tmp_path / 'base.json'}\n"
    base = json.loads((tmp_path / "base.json").read_text())
    assert [m["kernel"] for m in base["measurements"]] == ["fma[4K]", "fma[1000]"]
    for m in base["measurements"]:  # make the stored run impossibly fast: now everything regressed
        m["median_ns"] = 1
    (tmp_path / "base.json").write_text(json.dumps(base))
    done = ea_bench(path, *FAST, "--no-history")
    lines = done.stderr.splitlines()
    assert done.returncode == 0
    assert lines[0].startswith("k (x86_64, native, opt=3):")
    assert lines[1].startswith("  fma[4K]         ") and "(baseline 1 ns, +" in lines[1]
    assert lines[-1] == "WARNING: 2 regressions exceed 10% threshold (warn-only in v1.13.0)."
    done = ea_bench(path, *FAST, "--no-history", "--fail-on-regression=50")
    assert done.returncode == 3
    assert done.stderr.splitlines()[-1] == "WARNING: 2 regressions exceed 50% threshold."
    done = ea_bench(path, *FAST, "--no-history", "--no-diff")
    assert (done.returncode, done.stderr) == (0, "")
    done = ea_bench(path, *FAST, "--no-diff", "--fail-on-regression")
    assert (done.returncode, done.stderr) == (1, "error: --fail-on-regression needs the baseline diff that "
                                                 "--no-diff skips\n")


def test_history_records_runs_and_shows_change(tmp_path):
    path = write_suite(tmp_path)
    for _ in range(2):
        done = ea_bench(path, *FAST, "--no-diff")
        assert done.returncode == 0, done.stderr
    suite = load_suite(path)
    assert suite.history == tmp_path / ".ea-bench" / "k.bench.history.jsonl"
    history = read_history(suite)
    assert len(history) == 2 and history[0]["measurements"][0]["change"] is None
    assert isinstance(history[1]["measurements"][0]["change"], float)
    report = run_suite(suite, Options(), quick=True, bandwidth=False, reps=5)
    latest = history[1]["measurements"][0]["median_ns"]
    assert report.results[0].change == pytest.approx(report.results[0].median_ns / latest - 1)


def test_folder_runs_every_suite_and_bench_selection(tmp_path):
    write_suite(tmp_path, stem="one")
    write_suite(tmp_path, stem="two")
    done = ea_bench(tmp_path, *FAST, "--json", "--no-history", "--no-diff", "--sizes", "2K")
    docs = json.loads(done.stdout)
    assert [d["name"] for d in docs] == ["one", "two"]
    assert [m["kernel"] for m in docs[0]["measurements"]] == ["fma[2K]"]
    done = ea_bench(tmp_path / "one.ea", *FAST, "--bench", "nope")
    assert done.returncode == 1
    assert done.stderr == f"error: {tmp_path / 'one.bench.toml'}: no benchmark named nope (the suite has fma)\n"


def test_every_shipped_suite_verifies():
    for toml in sorted((ROOT / "examples").glob("*.bench.toml")):
        report = run_suite(load_suite(toml), Options(), sizes=[4096], quick=True, bandwidth=False, reps=3)
        assert [r.status for r in report.results] == ["ok"] * len(report.results), \
            (toml.name, [r.message for r in report.results])
