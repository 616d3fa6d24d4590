"""`ea inspect`'s predictions on the command line (--working-set, --no-predict,
--json) and `ea bench --calibrate`'s options. The calibration cache is an
empty folder here: the memory figures are the defaults, the same on every host."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ea_compiler.cli.main import main
from ea_compiler.inspect import clear_report_cache
from ea_compiler.inspect.predict import mca

ROOT = Path(__file__).resolve().parents[1]
DOT = str(ROOT / "examples" / "dot.ea")
needs_mca = pytest.mark.skipif(mca.available() is None, reason="llvm-mca not installed (apt-get install llvm-16)")


@pytest.fixture(autouse=True)
def no_calibration(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    clear_report_cache()
    yield
    clear_report_cache()


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@needs_mca
def test_inspect_prints_predictions(capsys):
    code, out, err = run(["inspect", DOT, "--target=znver3"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    k = next(k for k, ln in enumerate(lines) if ln.startswith("  predicted"))
    assert lines[k] == (f"  predicted: {mca.available()[1]} znver3; memory default (not calibrated); "
                        "arrays 16-byte aligned (NumPy)")
    assert lines[k + 1].startswith("    loop 1 main (32 elements): L1 bandwidth 6 c/iter ")
    assert lines[k - 1] == ""


@needs_mca
def test_working_set_picks_the_level(capsys):
    _, small, _ = run(["inspect", DOT, "--target=znver3", "--working-set=16K"], capsys)
    _, large, _ = run(["inspect", DOT, "--target=znver3", "--working-set", "128M"], capsys)
    assert "c/iter at 16K (L1 bandwidth)" in small
    assert "c/iter at 128M (DRAM bandwidth)" in large


def test_no_predict_leaves_it_out(capsys):
    code, out, _ = run(["inspect", DOT, "--target=znver3", "--no-predict"], capsys)
    assert code == 0 and "predicted" not in out and "loop  role" in out


def test_alignment_option(capsys, monkeypatch):
    monkeypatch.setenv("EA_LLVM_MCA", "none")  # the rough figures: the same with or without llvm-mca
    _, numpy, _ = run(["inspect", DOT, "--target=znver3"], capsys)
    _, lined, _ = run(["inspect", DOT, "--target=znver3", "--alignment=64"], capsys)
    _, spaced, _ = run(["inspect", DOT, "--target=znver3", "--alignment", "64"], capsys)
    assert "; arrays 16-byte aligned (NumPy)" in numpy and "; arrays on a cache line" in lined
    assert "loop 1 main (32 elements): L1 bandwidth 6 c/iter up to 32K" in numpy  # 256 B / 64 x 1.5
    assert "loop 1 main (32 elements): ports 4 c/iter up to 32K" in lined and spaced == lined


@pytest.mark.parametrize("value", ["24", "0", "x"])
def test_bad_alignment(capsys, value):
    code, out, err = run(["inspect", DOT, f"--alignment={value}"], capsys)
    assert code == 1 and out == ""
    assert err == f"error: --alignment takes a power of two in bytes, e.g. --alignment=64 (got '{value}')\n"


def test_bad_working_set(capsys):
    code, out, err = run(["inspect", DOT, "--working-set=lots"], capsys)
    assert code == 1 and out == ""
    assert err == "error: --working-set takes a size in bytes, e.g. --working-set=16M\n"


def test_json_has_the_prediction(capsys, monkeypatch):
    monkeypatch.setenv("EA_LLVM_MCA", "none")  # the rough figures: the same with or without llvm-mca
    _, out, _ = run(["inspect", DOT, "--target=znver3", "--json", "--working-set=128M", "--alignment=64"], capsys)
    fp = json.loads(out)["functions"][0]["prediction"]
    assert fp["rough"] is True and fp["working_set_bytes"] == 128 << 20 and fp["alignment"] == 64
    assert fp["memory"] == "default (not calibrated)"
    main_loop = fp["loops"][0]
    assert (main_loop["role"], main_loop["limit"], main_loop["level"]) == ("main", "DRAM", "DRAM")
    assert main_loop["cycles_per_iter"] == 51.21 and main_loop["by_level"]["L1"] == 4.0  # 256 B at 5, 4.0 overlapped
    assert main_loop["ranges"][0] == {"limit": "ports", "low": 0, "high": 32 << 10, "cycles_per_iter": 4.0}


def test_calibrate_rejects_unknown_options(capsys):
    code, out, err = run(["bench", "--calibrate", "--fast"], capsys)
    assert code == 1 and err == "error: unknown option '--fast' for ea bench --calibrate\n"
