"""`ea build FILE|DIR... [options]`: many files in one process, each compiled
exactly as `ea FILE [options]` compiles it (same outputs, same messages, in
input order); failures do not stop the others; collisions are refused first."""
from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"
EXAMPLES = ROOT / "examples"


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def two(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("saxpy.ea", "dot.ea"):
        shutil.copy(EXAMPLES / name, src / name)
    return tmp_path


def test_libraries_and_messages_match_single_file_runs(two):
    one_by_one = two / "single"
    many = two / "many"
    one_by_one.mkdir()
    many.mkdir()
    expected = ""
    for name in ("saxpy", "dot"):
        proc = ea(f"../src/{name}.ea", "--lib", "--header", cwd=one_by_one)
        assert proc.returncode == 0, proc.stderr
        expected += proc.stderr
    meta_single = {n: (two / "src" / f"{n}.ea.json").read_text() for n in ("saxpy", "dot")}
    for n in ("saxpy", "dot"):
        (two / "src" / f"{n}.ea.json").unlink()
    proc = ea("build", "../src/saxpy.ea", "../src/dot.ea", "--lib", "--header", cwd=many)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == expected
    assert proc.stdout == ""
    assert sorted(p.name for p in many.iterdir()) == sorted(p.name for p in one_by_one.iterdir()) == [
        "dot.h", "dot.so", "saxpy.h", "saxpy.so"]
    assert (many / "saxpy.h").read_text() == (one_by_one / "saxpy.h").read_text()
    for n in ("saxpy", "dot"):  # the metadata names the library by the path given, as a single run
        assert (two / "src" / f"{n}.ea.json").read_text() == meta_single[n]
    # the libraries run: saxpy from the many-file build
    lib = ctypes.CDLL(str(many / "saxpy.so"))
    x = np.arange(19, dtype=np.float32)
    y = np.ones(19, dtype=np.float32)
    fp = ctypes.POINTER(ctypes.c_float)
    lib.saxpy(x.ctypes.data_as(fp), y.ctypes.data_as(fp), ctypes.c_float(2.0), ctypes.c_int32(19))
    assert np.array_equal(y, 2.0 * np.arange(19, dtype=np.float32) + 1.0)


def test_directory_input_and_objects(two):
    out = two / "out"
    out.mkdir()
    proc = ea("build", "../src", cwd=out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "compiled ../src/dot.ea -> dot.o (object, 1 exported: dot)",
        "compiled ../src/saxpy.ea -> saxpy.o (object, 1 exported: saxpy)"]
    assert sorted(p.name for p in out.iterdir()) == ["dot.o", "saxpy.o"]


def test_a_failing_file_does_not_stop_the_others(two):
    (two / "src" / "bad.ea").write_text("func f() -> i32 { return 1.0 }\n")
    proc = ea("build", "src/bad.ea", "src/missing.ea", "src/saxpy.ea", cwd=two)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("src/bad.ea:1:")
    assert "error: cannot read 'src/missing.ea': No such file or directory" in lines
    assert lines[-1] == "compiled src/saxpy.ea -> saxpy.o (object, 1 exported: saxpy)"
    assert (two / "saxpy.o").is_file()
    single = ea("src/bad.ea", cwd=two)
    assert proc.stderr.startswith(single.stderr)  # the same diagnostics as a single-file run


def test_same_stem_is_refused_before_anything_is_written(two):
    (two / "other").mkdir()
    shutil.copy(EXAMPLES / "saxpy.ea", two / "other" / "saxpy.ea")
    proc = ea("build", "src/dot.ea", "src/saxpy.ea", "other/saxpy.ea", "--lib", cwd=two)
    assert proc.returncode == 1
    assert proc.stderr == ("error: 'src/saxpy.ea' and 'other/saxpy.ea' would write the same outputs "
                           "(both are named 'saxpy'): build them in separate commands\n")
    assert not list(two.glob("*.so")) and not list((two / "src").glob("*.json"))


def test_usage_errors(two):
    proc = ea("build", "src/dot.ea", "src/saxpy.ea", "-o", "x.so", "--lib", cwd=two)
    assert (proc.returncode, proc.stderr) == (1, "error: -o names one output: give `ea build` a single input with it\n")
    proc = ea("build", cwd=two)
    assert (proc.returncode, proc.stderr) == (1, "usage: ea build <file.ea|dir>... [options]\n")
    proc = ea("build", "--help", cwd=two)
    assert proc.returncode == 0 and proc.stderr.startswith("usage: ea build")
    proc = ea("build", "src/dot.ea", "--frobnicate", cwd=two)
    assert (proc.returncode, proc.stderr) == (1, "error: unknown option '--frobnicate'\n")
    proc = ea("build", "src/dot.ea", "--avx512", "--target-triple=aarch64-unknown-linux-gnu", cwd=two)
    assert (proc.returncode, proc.stderr) == (1, "error: --avx512 is incompatible with ARM target\n")


def test_single_input_with_o_is_the_single_file_command(two):
    proc = ea("build", "src/saxpy.ea", "--lib", "-o", "custom.so", cwd=two)
    single = ea("src/saxpy.ea", "--lib", "-o", "custom2.so", cwd=two)
    assert proc.returncode == single.returncode == 0
    assert proc.stderr == single.stderr.replace("custom2.so", "custom.so")
    assert json.loads((two / "src" / "saxpy.ea.json").read_text())["library"] == "custom2.so"


def test_single_file_form_still_rejects_a_second_file(two):
    # TOOLCHAIN.md §1: the file comes first, options after; anything else is an unknown option
    proc = ea("src/saxpy.ea", "src/dot.ea", cwd=two)
    assert (proc.returncode, proc.stderr) == (1, "error: unknown option 'src/dot.ea'\n")


def test_lib_leaves_an_object_file_of_the_same_name_alone(tmp_path):
    """`--lib` links from a temporary object; `<stem>.o` in the folder is the user's (from `ea k.ea`)."""
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path / "saxpy.ea")
    (tmp_path / "saxpy.o").write_bytes(b"mine")
    done = ea("saxpy.ea", "--lib", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "saxpy.o").read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saxpy.ea", "saxpy.ea.json", "saxpy.o", "saxpy.so"]


def test_o_names_an_executable_and_the_error_says_so(tmp_path):
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path / "saxpy.ea")
    done = ea("saxpy.ea", "-o", "saxpy_fast.o", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "hint: `-o` names an executable, which needs a `main`; without `-o` the object file is saxpy.o, "
        "and `--lib -o saxpy_fast.so` writes a shared library")
