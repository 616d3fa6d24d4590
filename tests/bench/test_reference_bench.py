"""bench/reference_bench.py without timing: finding the reference compiler
degrades to a reason (never a download here, never an exception), the
suite's arguments become the C arguments our binding would pass, and the
check that precedes timing catches a build whose output is wrong. The
comparison of the two real builds runs only where the reference is already
in the repo's cache (`make bench` fetches it)."""
from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from ea_compiler.bench.c_args import c_arguments  # noqa: E402
from ea_compiler.bench.suite import load_suite  # noqa: E402
from ea_compiler.bind.meta import BindError, parse_api  # noqa: E402
from refcompiler import fetch  # noqa: E402
from refcompiler.compare import check_one, compare_kernel, survives  # noqa: E402
from refcompiler.libs import Built, Pair, build, first_error, our_command, pair  # noqa: E402

import reference_bench  # noqa: E402


def meta(args: list[tuple[str, str]], ret: str | None = None, name: str = "k") -> str:
    return json.dumps({"library": "k.so", "exports": [
        {"name": name, "args": [{"name": a, "type": t} for a, t in args], "return_type": ret}]})


def test_missing_reference_is_a_reason_not_an_error(tmp_path):
    found = fetch.locate(tmp_path / "nowhere", fetch=False)
    assert found == f"the reference compiler is not in {tmp_path / 'nowhere'} (fetching it was not asked for)"


def test_failed_fetch_is_a_reason(tmp_path):
    def offline(folder, version):
        raise fetch.FetchError("pip download ea-compiler==1.10.0: No matching distribution found")

    found = fetch.locate(tmp_path / "c", fetcher=offline)
    assert found == ("could not fetch the reference compiler 1.10.0: "
                     "pip download ea-compiler==1.10.0: No matching distribution found")


def test_a_binary_that_does_not_run_is_a_reason(tmp_path):
    def broken(folder, version):  # a "binary" that is not one
        fetch.binary(folder).parent.mkdir(parents=True)
        fetch.binary(folder).write_text("not an executable")

    found = fetch.locate(tmp_path / "c", fetcher=broken)
    assert found == f"the reference compiler in {tmp_path / 'c'} does not run (ea --version failed)"


def test_the_script_skips_without_the_reference(tmp_path, capsys):
    assert reference_bench.main(["--reference-dir", str(tmp_path / "none"), "--no-fetch"]) == 0
    assert capsys.readouterr().out == (f"reference bench skipped: the reference compiler is not in "
                                       f"{tmp_path / 'none'} (fetching it was not asked for)\n")


def test_libc6_is_found_in_a_packages_index():
    index = ("Package: libc6-dev\nFilename: pool/main/g/glibc/libc6-dev_2.41_amd64.deb\n\n"
             "Package: libc6\nVersion: 2.41-12\nFilename: pool/main/g/glibc/libc6_2.41-12_amd64.deb\n"
             "Description: GNU C Library\n multi-line: text\n")
    assert fetch.libc6_filename(index) == "pool/main/g/glibc/libc6_2.41-12_amd64.deb"
    with pytest.raises(fetch.FetchError, match="no libc6"):
        fetch.libc6_filename("Package: libc6-dev\nFilename: x.deb\n")


def test_the_error_line_of_a_failed_build():
    out = ("Both operands to a binary operator are not of the same type!\n  %fdiv = fdiv float %r\n"
           "error[codegen]: internal error: generated code failed validation\n")
    assert first_error(out) == "error[codegen]: internal error: generated code failed validation"
    assert first_error("") == "failed without a message"


def test_suite_arguments_become_c_arguments():
    e = parse_api(meta([("x", "*restrict f32"), ("out", "*restrict mut f32"), ("n", "i32"), ("s", "f32")]),
                  "k").exports[0]
    x, out = np.zeros(12, np.float32), np.zeros(12, np.float32)
    assert c_arguments(e, {"x": x, "out": out, "s": 2}) == (x.ctypes.data, out.ctypes.data, 12, 2.0)
    assert c_arguments(e, {"x": x, "out": out, "n": 5, "s": 2})[2] == 5  # given: not collapsed
    with pytest.raises(BindError, match="the suite gives no value for 's'"):
        c_arguments(e, {"x": x, "out": out})
    with pytest.raises(BindError, match="'x' must be an array, the suite gives int"):
        c_arguments(e, {"x": 3, "out": out, "s": 1})


def test_different_signatures_are_not_compared():
    ours = Built(Path("ours.so"), parse_api(meta([("x", "*f32"), ("n", "i32")], "f32"), "k"))
    theirs = Built(Path("ref.so"), parse_api(meta([("x", "*f32"), ("n", "i64")], "f32"), "k"))
    assert pair(ours, theirs, "k") == ("signatures differ: ours k(x: *f32, n: i32) -> f32, "
                                       "reference k(x: *f32, n: i64) -> f32")
    assert pair(ours, theirs, "other") == "our build exports no 'other'"


def test_the_check_catches_a_wrong_build(tmp_path):
    """Our real build of fma.ea against a "reference" that writes nothing: not timed."""
    source = ROOT / "examples" / "fma.ea"
    ours = build(our_command(), source, tmp_path / "ours")
    assert ours.error == ""
    right = pair(ours, ours, "fma_kernel")
    spec = load_suite(ROOT / "examples" / "fma.bench.toml").benches[0]
    row, args = check_one("fma", right, spec, 1000, 16)
    assert (row.status, sorted(args)) == ("checked", ["a", "b", "c", "out"])
    assert args["a"].ctypes.data % 64 == 16  # where NumPy puts large arrays
    wrong = Pair("fma_kernel", right.ours, lambda *args: None, right.mapping)
    row, args = check_one("fma", wrong, spec, 1000, 16)
    assert (row.status, args) == ("reference wrong", None)
    assert row.message.startswith("1000 of 1000 values differ (rtol=1e-06, atol=1e-06); worst at index")


def test_a_build_that_crashes_is_reported_not_fatal(tmp_path):
    ours = build(our_command(), ROOT / "examples" / "fma.ea", tmp_path / "ours")
    right = pair(ours, ours, "fma_kernel")
    faults = Pair("fma_kernel", right.ours, lambda *args: ctypes.string_at(1), right.mapping)
    spec = load_suite(ROOT / "examples" / "fma.bench.toml").benches[0]
    row, args = check_one("fma", faults, spec, 1000, 16)
    assert (row.status, row.message, args) == ("reference crashed", "killed by SIGSEGV", None)
    assert survives(lambda: None, ()) is None


def test_our_build_error_is_recorded(tmp_path):
    bad = tmp_path / "bad.ea"
    bad.write_text("export func f(x: *f32) { let y: f32 = x }\n")
    result = compare_kernel("bad", load_suite(ROOT / "examples" / "fma.bench.toml"), bad, ("true",),
                            our_command(), tmp_path, None, progress=lambda *_: None)
    assert result.rows == [] and result.skipped.startswith("our compiler: ")
    assert "error" in result.skipped


REFERENCE = fetch.locate(fetch=False)


@pytest.mark.skipif(isinstance(REFERENCE, str), reason=f"{REFERENCE}: `make bench` fetches it (25 MB)")
def test_both_builds_agree_on_fma(tmp_path):
    source = ROOT / "examples" / "fma.ea"
    ours, ref = build(our_command(), source, tmp_path / "ours"), build(REFERENCE.command, source, tmp_path / "ref")
    assert (ours.error, ref.error) == ("", "")
    both = pair(ours, ref, "fma_kernel")
    spec = load_suite(ROOT / "examples" / "fma.bench.toml").benches[0]
    for n in (1000, 16384 + 5):
        row, args = check_one("fma", both, spec, n, 16)
        assert (row.status, row.message) == ("checked", "")
    assert both.arguments(args)[4] == 16389


@pytest.mark.skipif(isinstance(REFERENCE, str), reason=f"{REFERENCE}: `make bench` fetches it (25 MB)")
def test_the_reference_error_line_is_recorded(tmp_path):
    result = compare_kernel("saxpy", load_suite(ROOT / "examples" / "saxpy.bench.toml"),
                            ROOT / "examples" / "saxpy.ea", REFERENCE.command, our_command(), tmp_path, None,
                            progress=lambda *_: None)
    assert result.rows == []
    assert result.skipped.startswith("reference: saxpy.ea:7:17  error[type]: vector width mismatch: 8 vs 4")
