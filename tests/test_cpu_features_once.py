"""What `--avx512` adds (AVX-512 F, VL and BW; TOOLCHAIN.md §1.1) is written
once, in compiler/cpu_levels.py, and the host's features are read once
(`host_features_from_os`): the lints, the intrinsic checks of codegen, the
host gate and LLVM's feature string all follow those two facts."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hostcpu
from ea_compiler import cpu_levels
from ea_compiler.codegen import features, target
from ea_compiler.cpu_levels import AVX512_FLAG, flag_features, target_features
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
TRIO = {"avx512f", "avx512vl", "avx512bw"}


def _spellings(path: Path) -> list[int]:
    """Lines of `path` spelling the flag's meaning: a literal collection of
    exactly the three features, or a feature string (not a docstring) naming one."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if values == TRIO:
                found.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "+avx512" in node.value:
            found.append(node.lineno)
    return found


def test_the_flag_is_spelled_only_in_cpu_levels():
    spelled = {}
    for package in ("compiler", "eals", "tui", "ea"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if _spellings(path):
                spelled[str(path.relative_to(ROOT))] = _spellings(path)
    assert list(spelled) == ["compiler/cpu_levels.py"], spelled
    assert len(spelled["compiler/cpu_levels.py"]) == 1  # AVX512_FLAG itself


def test_the_static_check_sees_a_spelling(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""+avx512f in a docstring"""\nA = {"avx512f", "avx512bw", "avx512vl"}\nB = "+avx512f"\n'
                     'C = ("avx512f", "avx2")\n')
    assert _spellings(probe) == [2, 3]


@pytest.mark.parametrize("cpu", ["", "haswell", "znver3", "skylake-avx512", "x86-64"])
@pytest.mark.parametrize("avx512", [False, True])
def test_lints_and_codegen_see_one_cpu(monkeypatch, cpu, avx512):
    monkeypatch.setenv("EA_HOST_CPU", "haswell")  # `native` is a named CPU: no host dependence
    opts = Options(target_cpu=cpu, avx512=avx512, target_triple="x86_64-unknown-linux-gnu")
    seen = target_features(opts)
    assert seen is not None and features.x86_features(opts) == seen
    assert (TRIO <= seen) == (avx512 or cpu == "skylake-avx512")
    llvm_flags = target.flag_features(opts)
    assert llvm_flags == (",".join("+" + f for f in AVX512_FLAG) if avx512 else "")
    assert flag_features(opts) == (TRIO if avx512 else frozenset())


def test_the_host_is_read_once_for_lints_and_codegen(monkeypatch):
    """Native without EA_HOST_CPU: both sides take the OS's report (here a
    made-up host), never a second reading through LLVM."""
    monkeypatch.delenv("EA_HOST_CPU", raising=False)
    fake = frozenset({"sse", "sse2", "avx", "avx2", "fma", "f16c", "made-up"})
    monkeypatch.setattr(cpu_levels, "host_features_from_os", lambda: fake)
    native = Options(target_triple="x86_64-unknown-linux-gnu")
    assert target_features(native) == fake == features.x86_features(native)
    assert features.x86_features(Options(target_triple="x86_64-unknown-linux-gnu", avx512=True)) == fake | TRIO
    monkeypatch.setattr(cpu_levels, "host_features_from_os", lambda: None)  # an OS that does not say
    assert target_features(native) is None
    assert features.x86_features(native) == cpu_levels.BASE  # codegen refuses what it cannot prove


def test_arm_has_no_avx512():
    assert flag_features(Options(target_triple="aarch64-unknown-linux-gnu", avx512=True)) == frozenset()



@pytest.mark.skipif(not hostcpu.reports_features(), reason="an x86 Linux host: the OS reports the features")
def test_the_os_and_llvm_agree_on_the_features_the_toolchain_decides_on():
    """Native code is generated with LLVM's description of the host CPU while
    every decision reads the OS's report: the two must agree on every feature
    a decision looks at (whatever this host has)."""
    decided = frozenset().union(*cpu_levels.CPU_LEVELS.values()) | TRIO
    os_view, llvm_view = hostcpu.both_views()
    assert decided & os_view == decided & llvm_view
