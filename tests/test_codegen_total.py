"""Programs that pass the type checker always compile: codegen and the LLVM
verifier never fail on them (issue: "Bad input"). Mutants of the examples
that still type-check are compiled for x86 and AArch64."""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ea_compiler import Options, analyze
from ea_compiler.codegen import generate

os.environ["EA_DEBUG"] = "1"
EXAMPLES = sorted(Path(__file__).resolve().parent.parent.glob("examples/*.ea"))
TARGETS = [Options(), Options(avx512=True), Options(target_triple="aarch64-unknown-linux-gnu")]
N = int(os.environ.get("EA_FUZZ_EXAMPLES", "60"))


def compile_if_valid(text: str, opts: Options) -> bool:
    a = analyze(text, "m.ea", opts)
    if a.errors:
        return False
    module = generate(a)  # must not raise
    assert module.object()
    return True


def test_every_example_compiles_for_every_target():
    for path in EXAMPLES:
        for opts in TARGETS[:2]:
            assert compile_if_valid(path.read_text(), opts), path


@settings(max_examples=N, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLES), st.data(), st.sampled_from(TARGETS))
def test_mutants_that_type_check_compile(path, data, opts):
    lines = path.read_text().splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        if not lines:
            return
    compile_if_valid("\n".join(lines), opts)


def test_an_instruction_the_cpu_lacks_is_an_error_not_an_abort():
    """LLVM aborts the process when an x86 intrinsic is selected for a CPU
    without it; codegen must refuse first, at the call."""
    from ea_compiler.build import compile_source
    src = "export func f(a: u8x32, b: u8x32) -> u8x32 {\n    return shuffle_bytes(a, b)\n}\n"
    analysis, module = compile_source(src, "k.ea", Options(target_cpu="x86-64"))
    assert module is None
    (d,) = analysis.errors
    assert (d.kind, d.code, d.span.line, d.span.col) == ("codegen", "target", 2, 12)
    assert d.message.startswith("shuffle_bytes needs the AVX2 instruction set, which --target=x86-64")
    _, module = compile_source(src, "k.ea", Options(target_cpu="haswell"))
    assert module is not None and "vpshufb" in module.asm()
    half = "export func h(a: i16x8) -> f32x8 {\n    return cvt_f16_f32(a)\n}\n"
    analysis, module = compile_source(half, "k.ea", Options(target_cpu="x86-64"))
    assert module is None and "F16C" in analysis.errors[0].message
