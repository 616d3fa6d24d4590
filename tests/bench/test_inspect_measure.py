"""`ea inspect --measure` end to end on a small kernel: the inspect report,
then cycles per main-loop iteration at an L1 and a DRAM size, positive, and
recorded where the editor reads them. Runs native code on this machine
(compiled for the host itself: no feature beyond it is needed)."""
from __future__ import annotations

import json
import subprocess

from ea_compiler.inspect.measured import latest_measured
from .bench_support import EA
from .test_cycles import DOT, SUITE


def test_inspect_measure_prints_and_records_positive_cycles(tmp_path):
    (tmp_path / "k.ea").write_text(DOT)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    proc = subprocess.run([*EA, "inspect", "k.ea", "--measure"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("function dot") or "dot" in out.splitlines()[0]
    table = out[out.index("cycles per main-loop iteration at "):].splitlines()
    assert table[1].split() == ["function", "size", "n", "predicted", "measured", "error", "limit"]
    rows = {line.split()[1]: line.split() for line in table[2:] if line.startswith("dot ")}
    assert set(rows) == {"L1", "DRAM"}
    for cells in rows.values():
        assert float(cells[4 if cells[4] != "~" else 5]) > 0  # measured, after the prediction (and "~")
    pairs = latest_measured(tmp_path / "k.ea", "dot", DOT)
    assert [p.size_class for p in pairs] == ["L1", "DRAM"]
    assert all(p.measured and p.measured > 0 and p.predicted and p.predicted > 0 and not p.stale for p in pairs)


def test_inspect_measure_json_and_without_a_suite(tmp_path):
    (tmp_path / "k.ea").write_text(DOT)
    proc = subprocess.run([*EA, "inspect", "k.ea", "--measure"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "--measure needs a bench suite for 'k.ea'" in proc.stderr and "k.bench.toml" in proc.stderr
    (tmp_path / "k.bench.toml").write_text(SUITE)
    proc = subprocess.run([*EA, "inspect", "k.ea", "--measure", "--json"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["functions"][0]["name"] == "dot"
    cycles = doc["measured"]["cycles"]
    assert [c["size_class"] for c in cycles] == ["L1", "DRAM"] and all(c["cycles_per_iter"] > 0 for c in cycles)
    assert doc["measured"]["ghz"] > 0.1
