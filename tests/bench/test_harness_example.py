"""The shipped example, examples/c_bench/fma.toml, run by `ea bench` (in a copy,
so the run leaves no files in the source tree)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

from .harness_support import EA, ROOT

# The wrong kernel: out = a * b - c.
WRONG_FMA = """export kernel fma_kernel(a: *restrict f32, b: *restrict f32, c: *restrict f32,
                           out: *restrict mut f32)
    over i in n step 4
    tail scalar { out[i] = a[i] * b[i] - c[i] }
{
    store(out, i, load(a, i) .* load(b, i) .- load(c, i))
}
"""


def ea_bench(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, EA_BENCH_QUICK="1")
    return subprocess.run([str(EA), "bench", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def copy_example(tmp_path):
    shutil.copy(ROOT / "examples" / "fma.ea", tmp_path / "fma.ea")
    shutil.copytree(ROOT / "examples" / "c_bench", tmp_path / "c_bench",
                    ignore=shutil.ignore_patterns("baselines"))
    return tmp_path / "c_bench" / "fma.toml"


def test_fma_example_verifies_and_times_both_sizes(tmp_path):
    manifest = copy_example(tmp_path)
    proc = ea_bench(str(manifest), "--update-baseline")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["name"] == "fma"
    assert [m["kernel"] for m in doc["measurements"]] == ["fma_4K", "fma_16M"]
    for m, n_runs in zip(doc["measurements"], (5, 3)):  # EA_BENCH_QUICK's counts
        assert list(m) == ["kernel", "median_ns", "p10_ns", "p90_ns", "n_inner", "n_runs",
                           "gbps"]
        assert 0 < m["p10_ns"] <= m["median_ns"] <= m["p90_ns"]
        assert m["n_runs"] == n_runs and m["n_inner"] >= 1 and m["gbps"] > 0
    assert doc["measurements"][1]["n_inner"] == 1
    assert (tmp_path / "c_bench" / "baselines" / "fma.json").read_text() == proc.stdout


def test_fma_example_rejects_a_wrong_kernel(tmp_path):
    manifest = copy_example(tmp_path)
    (tmp_path / "fma.ea").write_text(WRONG_FMA)
    proc = ea_bench(str(manifest))
    assert (proc.returncode, proc.stdout) == (1, "")
    err = proc.stderr.splitlines()
    assert err[-3].startswith("[harness] fma_kernel is wrong: out[0] = ")
    assert err[-2:] == ["error: harness exited with code 2", err[-3].removeprefix("[harness] ")]
