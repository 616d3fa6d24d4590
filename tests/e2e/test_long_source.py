"""Identifiers of any length and lines of any length compile (found by fuzzing:
1,023 characters and more gave "generated code failed validation — LLVM IR parsing
error"). LLVM cuts local value names to 1024 bytes, so codegen labels locals with a
prefix of the identifier (compiler/codegen/names.py); function symbols keep their
full name. LLVM's debug locations hold 16-bit columns: past 65,535 the column is 0.

Each case is compiled with `ea k.ea --lib`, loaded with ctypes by the full exported
name, run, and compared with the value computed here."""
from __future__ import annotations

import ctypes
import re
import subprocess

import pytest

from .harness import ea


def program(length: int) -> tuple[str, dict[str, str]]:
    """Parameters, locals, a private and an exported function, a struct and its field,
    all `length` characters long; the two locals share all but their last character."""
    def name(tag: str) -> str:
        return (tag + "_" * length)[: length - 1] + tag[0]
    n = {"param": name("p"), "local_a": name("la")[:-1] + "a", "local_b": name("lb")[:-1] + "b",
         "helper": name("h"), "export": name("e"), "struct": name("S"), "field": name("f")}
    assert len(set(n.values())) == len(n) and all(len(v) == length for v in n.values())
    src = f"""
struct {n['struct']} {{ {n['field']}: i32, other: i32 }}
func {n['helper']}({n['param']}: i32) -> i32 {{ return {n['param']} * 3 }}
export func {n['export']}({n['param']}: i32, q: *mut {n['struct']}) -> i32 {{
    let {n['local_a']}: i32 = {n['helper']}({n['param']})
    let mut {n['local_b']}: i32 = {n['local_a']} + q[0].other
    {n['local_b']} = {n['local_b']} + 1
    q[0].{n['field']} = {n['local_b']} * 10
    return {n['local_a']} - {n['local_b']}
}}
"""
    return src, n


class Pair(ctypes.Structure):
    _fields_ = [("field", ctypes.c_int32), ("other", ctypes.c_int32)]


@pytest.mark.parametrize("length", [1023, 1024, 1025, 5000])
def test_long_identifiers_compile_and_run(tmp_path, length):
    src, names = program(length)
    (tmp_path / "k.ea").write_text(src)
    proc = ea("k.ea", "--lib", "-o", "libk.so", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    nm = subprocess.run(["nm", "-D", "--defined-only", "libk.so"], cwd=tmp_path, capture_output=True, text=True)
    assert names["export"] in nm.stdout.split()
    lib = ctypes.CDLL(str(tmp_path / "libk.so"))
    fn = getattr(lib, names["export"])
    fn.argtypes = [ctypes.c_int32, ctypes.POINTER(Pair)]
    fn.restype = ctypes.c_int32
    pair = Pair(0, 5)
    # a = 7 * 3 = 21; b = 21 + 5 + 1 = 27; field = 270; result = 21 - 27
    assert fn(7, ctypes.byref(pair)) == -6
    assert (pair.field, pair.other) == (270, 5)


def test_long_identifiers_in_emitted_ir(tmp_path):
    src, names = program(5000)
    (tmp_path / "k.ea").write_text(src)
    proc = ea("k.ea", "--emit-llvm", "--opt-level=0", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    symbol = names["export"]
    assert f"@{symbol}(" in proc.stdout or f'@"{symbol}"(' in proc.stdout  # whole symbol
    for local in ("param", "local_a", "local_b"):  # labelled with a prefix
        assert names[local] not in proc.stdout and names[local][:200] in proc.stdout


def test_a_line_past_65535_columns_compiles_and_runs(tmp_path):
    terms = 40_000  # `x+x+...+x`: the last term sits at column 80,011
    (tmp_path / "k.ea").write_text("export func f(x: i32) -> i32 {\n    return " + "x+" * terms + "x\n}\n")
    proc = ea("k.ea", "--lib", "-o", "libk.so", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    fn = ctypes.CDLL(str(tmp_path / "libk.so")).f
    fn.restype, fn.argtypes = ctypes.c_int32, [ctypes.c_int32]
    assert fn(3) == 3 * (terms + 1)
    proc = ea("k.ea", "--emit-llvm", "--opt-level=0", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    columns = {int(c or 0) for c in re.findall(r"!DILocation\(line: 2, (?:column: (\d+), )?scope", proc.stdout)}
    # the `x` at column 65,534 keeps its column; those from 65,536 on have column 0 (unknown,
    # which LLVM prints by leaving the column out)
    assert 65534 in columns and 0 in columns and max(columns) == 65534
