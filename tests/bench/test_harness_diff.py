"""The baseline diff of `ea bench` (TOOLCHAIN.md §7): the exact lines of
ea_compiler.bench.baseline, then the C-harness command's --update-baseline,
--no-diff and --fail-on-regression around it."""
from __future__ import annotations

import json

import pytest

from ea_compiler.bench.baseline import diff_against, write_baseline

from .harness_support import HOST, LARGE, SMALL, baseline_path, bench, make_bench

ENV = {"os": "linux", "arch": "x86_64", "host_cpu": "znver4", "target_cpu": "native",
       "target_features": "", "opt_level": 3, "pinned": True}


def result(*medians: tuple[str, int], **env) -> dict:
    return {"schema_version": 1, "name": "fma", "env": dict(ENV, **env),
            "measurements": [{"kernel": k, "median_ns": ns} for k, ns in medians]}


def stored(tmp_path, doc: dict):
    path = tmp_path / "base.json"
    path.write_text(json.dumps(doc))
    return path


def test_per_kernel_lines_new_missing_and_warning(tmp_path):
    path = stored(tmp_path, result(("same", 100), ("edge", 100), ("slower", 100),
                                   ("faster", 100), ("gone", 300),
                                   ("fma_kernel[16M]_long_name", 1000)))
    diff = diff_against(result(("same", 100), ("edge", 110), ("slower", 111), ("faster", 95),
                               ("fresh", 7), ("fma_kernel[16M]_long_name", 2500)), path)
    assert diff.lines == [
        "fma (x86_64, native, opt=3):",
        "  same                    100 ns  (baseline 100 ns, +0.0%)",
        "  edge                    110 ns  (baseline 100 ns, +10.0%)",  # not *more* than 10 %
        "  slower                  111 ns  (baseline 100 ns, +11.0%)",
        "  faster                   95 ns  (baseline 100 ns, -5.0%)",
        "  fresh                     7 ns  NEW kernel (no baseline)",
        "  fma_kernel[16M]_long_name       2500 ns  (baseline 1000 ns, +150.0%)",
        "  gone             MISSING from current run (baseline 300 ns)",
        "WARNING: 2 regressions exceed 10% threshold (warn-only in v1.13.0).",
    ]
    assert diff.regressions == ["slower", "fma_kernel[16M]_long_name"]


def test_threshold_and_gate_wording(tmp_path):
    path = stored(tmp_path, result(("k", 1000), ("j", 1000)))
    diff = diff_against(result(("k", 1030), ("j", 1020)), path, threshold=0.025, warn_only=False)
    assert diff.lines[-1] == "WARNING: 1 regressions exceed 2.5% threshold."
    assert diff.regressions == ["k"]
    diff = diff_against(result(("k", 1030), ("j", 1020)), path, threshold=0.05)
    assert diff.regressions == [] and not diff.lines[-1].startswith("WARNING")


def test_a_zero_baseline_median(tmp_path):
    path = stored(tmp_path, result(("zero", 0), ("still", 0)))
    diff = diff_against(result(("zero", 5), ("still", 0)), path)
    assert diff.lines[1:3] == ["  zero                      5 ns  (baseline 0 ns, +inf%)",
                               "  still                     0 ns  (baseline 0 ns, +0.0%)"]
    assert diff.regressions == ["zero"]


def test_mismatch_names_every_differing_field(tmp_path):
    path = stored(tmp_path, result(("k", 1), arch="aarch64", target_features="+dotprod",
                                   opt_level=2, target_cpu="cortex-a76", host_cpu="x"))
    assert diff_against(result(("k", 1)), path).lines == [
        "baseline mismatch: arch=aarch64 != current x86_64; target_features='+dotprod' != "
        "current ''; opt_level=2 != current 3 — skipping diff (use --update-baseline to refresh)"]
    # target_cpu and host_cpu are not compared.
    path = stored(tmp_path, result(("k", 1), target_cpu="haswell", host_cpu="x"))
    assert diff_against(result(("k", 1)), path).lines[0] == "fma (x86_64, native, opt=3):"


def test_no_baseline_yet(tmp_path):
    path = tmp_path / "none.json"
    assert diff_against(result(("k", 1)), path).lines == [
        f"no baseline yet — run with --update-baseline to create one ({path})"]


@pytest.mark.parametrize("content, why", [
    (b"{", "is not valid JSON: Expecting property name enclosed in double quotes: "
           "line 1 column 2 (char 1)"),
    (b"\x80", "is not valid JSON: 'utf-8' codec can't decode byte 0x80 in position 0: "
              "invalid start byte"),
    (b"[]", "is not an ea bench result (not a JSON object)"),
    (b'{"measurements": []}', "is not an ea bench result (no 'env' object)"),
    (b'{"env": {"arch": "x86_64", "opt_level": 3}, "measurements": []}',
     "is not an ea bench result (no 'env.target_features')"),
    (json.dumps(result(("k", 1)) | {"measurements": {}}).encode(),
     "is not an ea bench result (no 'measurements' array)"),
    (json.dumps(result(("k", 1)) | {"measurements": [{"kernel": "k", "median_ns": 1.5}]}).encode(),
     "is not an ea bench result (measurement 1: 'median_ns' must be a non-negative integer)"),
])
def test_unusable_baselines_are_explained(tmp_path, content, why):
    path = tmp_path / "base.json"
    path.write_bytes(content)
    diff = diff_against(result(("k", 1)), path)
    assert diff.lines == [f"baseline {path} {why} — skipping diff"] and diff.regressions == []


def test_unreadable_baseline(tmp_path):
    assert diff_against(result(("k", 1)), tmp_path).lines == [
        f"baseline {tmp_path} is unreadable: Is a directory — skipping diff"]


def test_write_baseline_creates_folders(tmp_path):
    path = tmp_path / "a" / "b" / "base.json"
    doc = result(("k", 1))
    assert write_baseline(doc, path) == f"wrote baseline {path}"
    assert path.read_text() == json.dumps(doc, indent=2) + "\n"


# ---- through the command ------------------------------------------------------------------

def test_update_baseline_then_diff(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    base = baseline_path(tmp_path)
    code, out, err = bench(capsys, manifest, "--update-baseline")
    assert code == 0
    assert err[-2:] == [f"no baseline yet — run with --update-baseline to create one ({base})",
                        f"wrote baseline {base}"]
    assert base.read_text() == out
    code, _, err = bench(capsys, manifest)
    assert code == 0
    assert err[-3:] == [f"tiny ({HOST}, native, opt=3):",
                        "  k_small                 100 ns  (baseline 100 ns, +0.0%)",
                        "  k_large             2000000 ns  (baseline 2000000 ns, +0.0%)"]


def fabricate(tmp_path, small_ns: int, **env) -> None:
    """A baseline of this build with SMALL at `small_ns` and a kernel this run lacks."""
    base = baseline_path(tmp_path)
    base.parent.mkdir(exist_ok=True)
    doc = {"env": {"arch": HOST, "target_features": "", "opt_level": 3} | env,
           "measurements": [dict(SMALL, median_ns=small_ns), LARGE,
                            {"kernel": "k_old", "median_ns": 5}]}
    base.write_text(json.dumps(doc))


REGRESSED = ["  k_small                 100 ns  (baseline 40 ns, +150.0%)",
             "  k_large             2000000 ns  (baseline 2000000 ns, +0.0%)",
             "  k_old            MISSING from current run (baseline 5 ns)"]


def test_regressions_warn_unless_asked_to_fail(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    fabricate(tmp_path, 40)
    code, out, err = bench(capsys, manifest)
    assert code == 0 and json.loads(out)["measurements"] == [SMALL, LARGE]
    assert err[-4:] == [*REGRESSED,
                        "WARNING: 1 regressions exceed 10% threshold (warn-only in v1.13.0)."]

    code, out, err = bench(capsys, manifest, "--fail-on-regression")
    assert code == 3 and json.loads(out)["measurements"] == [SMALL, LARGE]
    assert err[-4:] == [*REGRESSED, "WARNING: 1 regressions exceed 10% threshold."]

    code, _, err = bench(capsys, manifest, "--fail-on-regression=150")
    assert code == 0 and err[-3:] == REGRESSED


def test_fail_on_regression_still_updates_the_baseline(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    fabricate(tmp_path, 40)
    code, out, err = bench(capsys, manifest, "--fail-on-regression=5", "--update-baseline")
    assert code == 3
    assert err[-2:] == ["WARNING: 1 regressions exceed 5% threshold.",
                        f"wrote baseline {baseline_path(tmp_path)}"]
    assert baseline_path(tmp_path).read_text() == out


def test_mismatched_baseline_is_not_diffed(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    fabricate(tmp_path, 40, opt_level=2)
    code, _, err = bench(capsys, manifest, "--fail-on-regression")
    assert code == 0
    assert err[-1] == ("baseline mismatch: opt_level=2 != current 3 — skipping diff "
                       "(use --update-baseline to refresh)")


def test_no_diff_leaves_the_baseline_alone(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    fabricate(tmp_path, 40)
    code, _, err = bench(capsys, manifest, "--no-diff")
    assert code == 0
    assert err[-1] == f"wrote {tmp_path / 'k.ea'}.json"  # ea's status line, nothing after it
