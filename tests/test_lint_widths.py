"""The `vector-too-wide` warning: a vector type wider than the registers of
the CPU compiled for, which LLVM splits without a word. Exact text and
span; `--avx512` (and CPUs that have the features) silence it; AArch64 keeps
its errors."""
from __future__ import annotations

import os
import subprocess
import sys

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402
from ea_compiler import cpu_levels  # noqa: E402

TRIPLE = "x86_64-unknown-linux-gnu"
HASWELL = Options(target_triple=TRIPLE, target_cpu="haswell")
EA = os.path.join(os.path.dirname(sys.executable), "ea")


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


def rendered(src: str, opts: Options) -> str:
    a = analyze(src, "k.ea", opts)
    return render_all(a.diagnostics, a.source, "k.ea")


def wide(src: str, opts: Options):
    a = analyze(src, "k.ea", opts)
    return [d for d in a.diagnostics if d.code == "vector-too-wide"]


def pos(span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


SRC = lines("export func scale(p: *f32, out: *mut f32, s: f32) {",
            "    let v: f32x16 = load(p, 0)",
            "    store(out, 0, v .* splat(s))",
            "    store(out, 16, load_f32x16(p, 16))",
            "}")


def test_f32x16_without_avx512():
    assert rendered(SRC, HASWELL) == lines(
        "warning[codegen]: f32x16 is 512 bits wide, but --target=haswell has no AVX-512: LLVM splits every "
        "f32x16 operation into narrower ones. To use 512-bit registers, compile with --avx512 (for a CPU that "
        "has it) or use f32x8",
        "  --> k.ea:2:12",
        "        let v: f32x16 = load(p, 0)",
        "               ^^^^^^")
    (d,) = wide(SRC, HASWELL)  # once per type and file, at its first use
    assert (d.severity, d.kind, pos(d.span)) == ("warning", "target", (2, 12, 2, 18))


def test_flag_or_cpu_with_the_feature_silences_it():
    assert wide(SRC, Options(target_triple=TRIPLE, target_cpu="haswell", avx512=True)) == []
    assert wide(SRC, Options(target_triple=TRIPLE, target_cpu="skylake-avx512")) == []


def test_byte_vectors_need_avx512bw_and_each_type_is_reported_once():
    src = lines("export func f(a: i8x64, b: u16x32, c: i8x64) -> i8x64 {", "    return a", "}")
    found = wide(src, HASWELL)
    assert [(d.message.split(" is ")[0], pos(d.span)) for d in found] == [("i8x64", (1, 18, 1, 23)),
                                                                        ("u16x32", (1, 28, 1, 34))]
    assert "has no AVX-512BW" in found[0].message and found[0].message.endswith("or use i8x32")


def test_256_bit_types_on_a_cpu_without_avx():
    src = lines("export func f(p: *f32) -> f32 {", "    let v: f32x8 = load(p, 0)", "    let k: i32x8 = splat(1)",
                "    return v[0]", "}")
    found = wide(src, Options(target_triple=TRIPLE, target_cpu="sandybridge"))
    assert [d.message for d in found] == [
        "i32x8 is 256 bits wide, but --target=sandybridge has no AVX2: LLVM splits every i32x8 operation into "
        "narrower ones. To use 256-bit registers, compile for a CPU with AVX2 (e.g. --target=haswell) or use i32x4"]
    assert pos(found[0].span) == (3, 12, 3, 17)
    assert len(wide(src, Options(target_triple=TRIPLE, target_cpu="nehalem"))) == 2
    assert wide(src, HASWELL) == []


def test_an_inferred_width_counts_at_its_call():
    src = lines("export func f(p: *f32, out: *mut f32) {", "    store(out, 0, load_f32x16(p, 0))", "}")
    (d,) = wide(src, HASWELL)
    assert pos(d.span) == (2, 19, 2, 36)


def test_native_uses_the_host_features(monkeypatch):
    monkeypatch.delenv("EA_HOST_CPU", raising=False)  # the host itself, whatever the run stands in for
    native = Options(target_triple=TRIPLE)
    monkeypatch.setattr(cpu_levels, "host_features_from_os", lambda: frozenset({"sse2", "avx", "avx2"}))
    (d,) = wide(SRC, native)
    assert "but the host CPU has no AVX-512:" in d.message
    monkeypatch.setattr(cpu_levels, "host_features_from_os", lambda: frozenset({"avx2", "avx512f"}))
    assert wide(SRC, native) == []
    monkeypatch.setattr(cpu_levels, "host_features_from_os", lambda: None)  # unknown: no guess
    assert wide(SRC, native) == []


def test_unknown_cpu_name_gives_no_guess():
    assert wide(SRC, Options(target_triple=TRIPLE, target_cpu="some-future-cpu")) == []


def test_aarch64_keeps_its_errors():
    a = analyze(SRC, "k.ea", Options(target_triple="aarch64-unknown-linux-gnu"))
    assert [(d.severity, d.code) for d in a.diagnostics if d.code in ("target", "vector-too-wide")] == [
        ("error", "target")]


def test_ea_check_text_and_json(tmp_path):
    path = tmp_path / "k.ea"
    path.write_text(SRC)
    proc = subprocess.run([EA, "check", str(path), "--target=haswell"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "warning[codegen]: f32x16 is 512 bits wide" in proc.stdout + proc.stderr
    proc = subprocess.run([EA, "check", "--format", "json", str(path), "--target=haswell"],
                          capture_output=True, text=True)
    import json
    report = json.loads(proc.stdout)
    (d,) = report["files"][0]["diagnostics"]
    assert (d["severity"], d["code"], d["span"]["line"], d["span"]["col"]) == ("warning", "vector-too-wide", 2, 12)
    assert report["warnings"] == 1
    proc = subprocess.run([EA, "check", "--format", "json", str(path), "--target=haswell", "--avx512"],
                          capture_output=True, text=True)
    assert json.loads(proc.stdout)["warnings"] == 0


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(os.path.join(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))), "examples")) if n.endswith(".ea")))
def test_examples_fit_haswell(name):
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
    with open(os.path.join(root, name), encoding="utf-8") as f:
        assert wide(f.read(), HASWELL) == []
