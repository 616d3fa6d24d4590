"""The shipped kernels' performance guard (compiler/bench/cpu_baseline.py,
bench/perf_guard.py) decides from figures: no timing here."""
from __future__ import annotations

import json

from ea_compiler.bench.cpu_baseline import THRESHOLD, compare, document, read

ZEN3 = {"cpu": "AMD EPYC", "host_cpu": "znver3", "arch": "x86_64", "slug": "amd-epyc-znver3"}
ICX = {"cpu": "Intel Xeon", "host_cpu": "icelake-server", "arch": "x86_64", "slug": "intel-xeon-icelake-server"}
ARM = {"cpu": "Neoverse", "host_cpu": "neoverse-v1", "arch": "aarch64", "slug": "neoverse-neoverse-v1"}


def fig(ns: float, numpy_ns: float) -> dict:
    return {"time_ns": ns, "numpy_ns": numpy_ns, "speedup": numpy_ns / ns}


def base(identity: dict, kernels: dict) -> dict:
    return document(identity, {"target_cpu": "native"}, kernels, "0.5 0.5 0.5")


def test_same_cpu_needs_slower_time_and_lower_speedup():
    recorded = base(ZEN3, {"fma:fma[16M]": fig(1000, 2000), "dot:dot[4M]": fig(1000, 2000),
                           "sobel:sobel[1M]": fig(1000, 2000)})
    now = {"fma:fma[16M]": fig(1100, 2000),  # the kernel alone slower: a regression
           "dot:dot[4M]": fig(1100, 2200),  # both slower (a busy machine): not one
           "sobel:sobel[1M]": fig(1040, 2000)}  # within the threshold
    verdicts = {v.key: v for v in compare(now, [recorded], ZEN3)}
    assert verdicts["fma:fma[16M]"].regressed
    assert not verdicts["dot:dot[4M]"].regressed and abs(verdicts["dot:dot[4M]"].ratio_change) < 1e-9
    assert not verdicts["sobel:sobel[1M]"].regressed
    assert abs(verdicts["fma:fma[16M]"].time_change - 0.1) < 1e-9
    assert verdicts["fma:fma[16M]"].text().split() == ["fma:fma[16M]", "0.001", "ms", "vs", "0.001", "ms",
                                                       "(+10.0", "%),", "1.82x", "NumPy", "vs", "2.00x", "(+9.1", "%)"]


def test_another_cpu_compares_speedups_with_the_same_architecture():
    zen = base(ZEN3, {"fma:fma[16M]": fig(1000, 2000), "dot:dot[4M]": fig(1000, 3000)})
    icx = base(ICX, {"fma:fma[16M]": fig(500, 1500)})
    arm = base(ARM, {"fma:fma[16M]": fig(1000, 10000)})
    other = {"cpu": "AMD EPYC 9654", "host_cpu": "znver4", "arch": "x86_64", "slug": "amd-epyc-9654-znver4"}
    # 2.8x NumPy: below zen3's 2.0x? no, above; below icx's 3.0x by 6.7 %: the best verdict (zen3) counts
    verdicts = {v.key: v for v in compare({"fma:fma[16M]": fig(100, 280), "dot:dot[4M]": fig(100, 250)},
                                          [zen, icx, arm], other)}
    fma = verdicts["fma:fma[16M]"]
    assert fma.time_ns is None and not fma.regressed and fma.recorded_speedup == 2.0
    dot = verdicts["dot:dot[4M]"]  # 2.5x against 3.0x recorded: 16.7 % less speedup
    assert dot.regressed and abs(dot.change - (1 - 2.5 / 3.0)) < 1e-9 and dot.change > THRESHOLD
    assert "recorded on AMD EPYC (znver3)" in dot.text()


def test_no_baseline_of_the_architecture_compares_nothing():
    assert compare({"fma:fma[16M]": fig(100, 200)}, [base(ARM, {"fma:fma[16M]": fig(1, 2)})], ZEN3) == []


def test_the_document_round_trips(tmp_path):
    path = tmp_path / "amd-epyc-znver3.json"
    doc = base(ZEN3, {"b:x[1K]": fig(10, 20), "a:x[1K]": fig(10, 30)})
    path.write_text(json.dumps(doc), encoding="utf-8")
    back = read(path)
    assert list(back["kernels"]) == ["a:x[1K]", "b:x[1K]"] and back["slug"] == ZEN3["slug"]
    assert back["threshold"] == THRESHOLD
