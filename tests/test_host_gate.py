"""The suite runs the same tests on any x86-64 host: code a CPU lacks the
instructions for is never run (tests/hostcpu.py decides, the loader refuses),
and `EA_HOST_CPU` makes every stage treat `native` as a named CPU."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import hostcpu
from ea_compiler import Options, analyze
from ea_compiler.cpu_levels import missing_on_host


ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"
WIDE = "export func f(a: *f32, out: *mut f32) {\n    let v: f32x16 = load(a, 0)\n    store(out, 0, v)\n}\n"
AVX512 = {"avx512f", "avx512bw", "avx512vl"}

INNER = """
import numpy as np
import pytest
import ea

SRC = "export func add1(x: *mut f32, n: i32) {{ for i in 0..n {{ x[i] = x[i] + 1.0 }} }}"

{mark}
def test_runs_avx512_code(tmp_path):
    (tmp_path / "k.ea").write_text(SRC)
    x = np.zeros(4, np.float32)
    ea.load(tmp_path / "k.ea", avx512=True).add1(x)
    assert x.tolist() == [1.0] * 4
"""


def _inner(pytester, monkeypatch, mark: str):
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(INNER.format(mark=mark))
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs")


@pytest.mark.skipif(Options().is_arm, reason="x86 features")
def test_a_test_running_avx512_code_without_asking_fails_on_every_host(pytester, monkeypatch):
    result = _inner(pytester, monkeypatch, "")
    result.assert_outcomes(failed=1)
    # on an AVX2 host the loader refuses; on an AVX-512 host the suite's watch catches it
    reason = "HostCPUError" if hostcpu.host_lacks(AVX512) else "without asking tests/hostcpu.py"
    assert reason in result.stdout.str()


@pytest.mark.skipif(Options().is_arm, reason="x86 features")
def test_a_test_that_asks_runs_or_is_skipped_with_the_reason(pytester, monkeypatch):
    result = _inner(pytester, monkeypatch, '@pytest.mark.needs_cpu("avx512f", "avx512bw", "avx512vl")')
    if hostcpu.host_lacks(AVX512):
        result.assert_outcomes(skipped=1)
        assert "which this CPU lacks" in result.stdout.str()
    else:
        result.assert_outcomes(passed=1)


def _ea(*args, env_cpu: str | None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "EA_HOST_CPU"}
    if env_cpu is not None:
        env["EA_HOST_CPU"] = env_cpu
    return subprocess.run([str(EA), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_print_target_names_the_cpu_native_stands_for():
    assert _ea("--print-target", env_cpu="haswell").stdout == "haswell\n"


def test_an_unknown_cpu_in_the_variable_is_a_clear_error():
    proc = _ea("--print-target", env_cpu="pentium9")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("error: EA_HOST_CPU=pentium9: not a CPU this compiler knows the features of; "
                                  "use one of: alderlake, arrowlake,")


@pytest.mark.parametrize("cpu,warned", [("haswell", True), ("znver3", True), ("skylake-avx512", False),
                                        ("znver4", False)])
def test_native_as_a_named_cpu_decides_the_width_warning(monkeypatch, cpu, warned):
    monkeypatch.setenv("EA_HOST_CPU", cpu)
    codes = [d.code for d in analyze(WIDE, "k.ea", Options()).diagnostics]
    assert codes == (["vector-too-wide"] if warned else [])


def test_native_as_haswell_compiles_256_bit_code(tmp_path):
    (tmp_path / "k.ea").write_text(WIDE)
    asm = _ea("k.ea", "--emit-asm", env_cpu="haswell", cwd=tmp_path)
    assert asm.returncode == 0, asm.stderr
    text = (tmp_path / "k.s").read_text()
    assert "ymm" in text and "zmm" not in text


def test_the_loader_refuses_code_this_cpu_cannot_run(monkeypatch, tmp_path):
    (tmp_path / "k.ea").write_text(WIDE)
    monkeypatch.setenv("EA_HOST_CPU", "skylake-avx512")
    assert missing_on_host(Options()) == hostcpu.host_lacks({"avx512f", "avx512bw", "avx512vl", "avx512dq",
                                                             "avx512cd"})
    if not missing_on_host(Options()):
        pytest.skip("this CPU runs AVX-512 code")
    import ea
    with pytest.raises(ea.HostCPUError, match=r"^cannot run code compiled for target 'native' here: this CPU "
                                              r"lacks avx512bw, avx512cd, avx512dq, avx512f, avx512vl"):
        ea.load(tmp_path / "k.ea")


def test_the_loader_names_a_bad_variable(monkeypatch, tmp_path):
    import ea
    (tmp_path / "k.ea").write_text(WIDE)
    monkeypatch.setenv("EA_HOST_CPU", "pentium9")
    with pytest.raises(ValueError, match="^EA_HOST_CPU=pentium9: not a CPU"):
        ea.load(tmp_path / "k.ea")


def test_native_code_needs_nothing_declared():
    assert hostcpu.features_beyond_baseline(Options()) == frozenset()
    assert hostcpu.features_beyond_baseline(Options(target_cpu="haswell")) == frozenset()
    assert hostcpu.features_beyond_baseline(Options(avx512=True)) == frozenset(AVX512)
    assert "avx512f" in hostcpu.features_beyond_baseline(Options(target_cpu="znver4"))


def test_no_test_reads_the_cpu_on_its_own():
    """tests/hostcpu.py is the one place that reads this CPU's features."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "hostcpu.py" or path == Path(__file__):
            continue
        text = path.read_text()
        if "/proc/cpuinfo" in text or "get_host_cpu_features" in text or "host_features_from_os()" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == [], f"read the CPU through tests/hostcpu.py: {offenders}"
