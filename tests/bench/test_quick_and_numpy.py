"""`ea bench` (issue 11 §5): `numpy.` works in suite expressions as `np.` does, and
`--quick` runs are marked quick (table, JSON, history) and never compared with full
runs, neither in the history's "vs last" nor in the baseline diff."""
from __future__ import annotations

import json

from ea_compiler import Options
from ea_compiler.bench import append_history, load_suite, read_history, run_suite
from ea_compiler.bench.baseline import diff_against
from ea_compiler.bench.history import previous_medians
from ea_compiler.bench.table import results_table

from .bench_support import SUITE, ea_bench, write_suite

FAST = ("--no-bandwidth", "--reps", "3", "--sizes", "1000")


def test_numpy_spelled_out_in_expressions(tmp_path):
    suite = SUITE.replace('reference = "a * b + c"', 'reference = "numpy.add(numpy.multiply(a, b), c)"')
    suite = suite.replace('sizes = ["4K", 1000]', 'sizes = [1000]')
    suite = suite.replace('out = { dtype = "float32", dist = "zeros" }',
                          'out = { dtype = "float32", dist = "zeros", length = "int(numpy.sqrt(n * n))" }')
    report = run_suite(load_suite(write_suite(tmp_path, suite=suite)), Options(), quick=True, bandwidth=False, reps=3)
    assert [(r.status, r.message) for r in report.results] == [("ok", "")]
    wrong = suite.replace("numpy.add(", "numpy.subtract(")
    report = run_suite(load_suite(write_suite(tmp_path, suite=wrong)), Options(), quick=True, bandwidth=False, reps=3)
    assert report.results[0].status == "wrong"  # the reference really is evaluated


def _table_title(report) -> str:
    return str(results_table(report).title)


def test_quick_runs_are_marked(tmp_path):
    suite = load_suite(write_suite(tmp_path))
    quick = run_suite(suite, Options(), quick=True, bandwidth=False, reps=3, sizes=[1000])
    full = run_suite(suite, Options(), bandwidth=False, reps=3, sizes=[1000])
    assert quick.document()["env"]["quick"] is True and full.document()["env"]["quick"] is False
    assert "QUICK run" in _table_title(quick) and "QUICK" not in _table_title(full)
    done = ea_bench(tmp_path / "k.bench.toml", "--quick", *FAST, "--no-diff", "--no-history")
    assert done.returncode == 0, done.stderr
    assert "QUICK run" in done.stdout


def test_history_compares_quick_only_with_quick(tmp_path):
    suite = load_suite(write_suite(tmp_path))
    run = lambda quick: run_suite(suite, Options(), quick=quick, bandwidth=False, reps=3, sizes=[1000])  # noqa: E731
    append_history(suite, run(False).document())
    first_quick = run(True)
    assert first_quick.results[0].change is None  # the full run before it is not comparable
    append_history(suite, first_quick.document())
    second_quick = run(True)
    latest_quick = read_history(suite)[-1]["measurements"][0]["median_ns"]
    assert second_quick.results[0].change == \
        second_quick.results[0].median_ns / latest_quick - 1  # against the quick run, not the full one
    full = run(False)
    latest_full = read_history(suite)[0]["measurements"][0]["median_ns"]
    assert full.results[0].change == full.results[0].median_ns / latest_full - 1


def test_history_documents_without_the_mark_are_full_runs():
    env = {"arch": "x86_64", "host_cpu": "c", "target_cpu": "native", "target_features": "", "opt_level": 3}
    old = {"env": dict(env), "measurements": [{"kernel": "k[1K]", "median_ns": 100}]}
    assert previous_medians([old], dict(env, quick=False)) == {"k[1K]": 100.0}
    assert previous_medians([old], dict(env, quick=True)) == {}


def test_baseline_diff_never_compares_quick_with_full(tmp_path):
    path = write_suite(tmp_path)
    done = ea_bench(path, *FAST, "--no-history", "--update-baseline")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "base.json").read_text())["env"]["quick"] is False
    done = ea_bench(path, "--quick", *FAST, "--no-history")
    assert done.returncode == 0
    assert done.stderr == ("baseline mismatch: the baseline is a full run, this is a --quick run — skipping diff"
                           " (use --update-baseline to refresh)\n")
    done = ea_bench(path, "--quick", *FAST, "--no-history", "--fail-on-regression")
    assert done.returncode == 0  # a quick run cannot fail the gate of a full baseline
    done = ea_bench(path, *FAST, "--no-history")
    assert done.returncode == 0 and done.stderr.startswith("k (")  # full against full: diffed


def test_baselines_before_the_mark_are_full_runs(tmp_path):
    write_suite(tmp_path)
    base = {"env": {"arch": "x86_64", "target_features": "", "opt_level": 3, "target_cpu": "native"},
            "name": "k", "measurements": [{"kernel": "fma[1000]", "median_ns": 100}]}
    (tmp_path / "base.json").write_text(json.dumps(base))
    quick = dict(base, env=dict(base["env"], quick=True))
    full = dict(base, env=dict(base["env"], quick=False))
    assert diff_against(quick, tmp_path / "base.json").lines[0].startswith("baseline mismatch: the baseline is a full")
    assert diff_against(full, tmp_path / "base.json").lines[0] == "k (x86_64, native, opt=3):"
