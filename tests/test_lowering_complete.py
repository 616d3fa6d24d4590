"""Every intrinsic of the table has exactly one code-generation lowering,
keyed by its table entry (checked when codegen is imported), and a target
with no form of an intrinsic is refused with an error at the call."""
from __future__ import annotations

import dataclasses
import os
from types import SimpleNamespace

import pytest

from ea_compiler import Options, analyze
from ea_compiler.codegen import CodegenError, generate
from ea_compiler.codegen.lower import LOWERINGS, key_by_entry, lowering
from ea_compiler.intrinsics import TABLE, lookup

os.environ["EA_DEBUG"] = "1"
ARM = Options(target_triple="aarch64-unknown-linux-gnu", dotprod=True)


def test_every_intrinsic_has_a_lowering_and_every_lowering_an_intrinsic():
    assert set(LOWERINGS) == set(TABLE.values())


def test_the_load_width_family_is_lowered_by_load():
    assert lowering(lookup("load_f32x8")) is LOWERINGS[TABLE["load"]]
    assert lowering(TABLE["fma"]) is LOWERINGS[TABLE["fma"]]


def family(name: str, **lower) -> SimpleNamespace:
    return SimpleNamespace(__name__=name, LOWER=lower)


def test_a_missing_lowering_is_an_import_time_error():
    table = {"fma": TABLE["fma"], "sqrt": TABLE["sqrt"]}
    with pytest.raises(AssertionError, match="intrinsics without a lowering: sqrt"):
        key_by_entry([family("arith", fma=print)], table)


def test_an_orphan_or_doubled_lowering_is_an_import_time_error():
    table = {"fma": TABLE["fma"]}
    with pytest.raises(AssertionError, match="arith lowers 'fmaa', which is not an intrinsic"):
        key_by_entry([family("arith", fma=print, fmaa=print)], table)
    with pytest.raises(AssertionError, match="intrinsic 'fma' is lowered twice"):
        key_by_entry([family("arith", fma=print), family("poly", fma=print)], table)


def test_a_target_without_the_instruction_is_refused_at_the_call():
    """The target rules keep vdot_i32 off x86; were one to let it through,
    codegen refuses it with the call's position instead of letting LLVM
    abort on an AArch64 intrinsic."""
    src = "export func f(a: i8x16, b: i8x16) -> i32x4 {\n    return vdot_i32(a, b)\n}\n"
    analysis = analyze(src, "k.ea", ARM)
    assert analysis.ok
    analysis.options = dataclasses.replace(ARM, target_triple="x86_64-unknown-linux-gnu", dotprod=False)
    with pytest.raises(CodegenError) as err:
        generate(analysis)
    assert err.value.user
    assert (err.value.span.line, err.value.span.col) == (2, 12)
    assert str(err.value) == "vdot_i32 cannot be compiled for x86-64 here: it needs an AArch64 instruction"
