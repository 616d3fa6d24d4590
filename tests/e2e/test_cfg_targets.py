"""`#[cfg]` end to end (LANGUAGE.md §3.6): a kernel's attribute is ignored,
so `#[cfg(aarch64)] export kernel` compiled on x86 is in the library and
`ea.load` runs it; a same-named `#[cfg(x86_64)]` / `#[cfg(aarch64)]` pair of
exported functions (with different parameters) gives each target its own,
the loader binding the one the library holds. The header and `--lib`
metadata list both variants (TOOLCHAIN.md §1.2, §2). AArch64: compiled
with `--target-triple`, and run under qemu when the cross tools exist."""
from __future__ import annotations

import ctypes
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import ea

from .aarch64_harness import TRIPLE, ea_arm, needs_qemu, run_arm
from .harness import ea as ea_cli

KERNEL = """\
#[cfg(aarch64)]
export kernel twice(x: *f32, y: *mut f32) over i in n step 4
    tail scalar { y[i] = x[i] * 2.0 }
{
    store(y, i, load_f32x4(x, i) .* splat(2.0))
}
"""
WARNING = ("'#[cfg(aarch64)]' is ignored on a kernel: only a function can be limited to one architecture, "
           "so this kernel is kept for every target")
# x86: scale(x, n) doubles with f32x8 (an AArch64 error, were it compiled there);
# aarch64: scale(x, n, k) multiplies by k with f32x4.
PAIR = """\
#[cfg(x86_64)]
export func scale(x: *mut f32, n: i32) {
    let mut i: i32 = 0
    while i + 8 <= n {
        store(x, i, load_f32x8(x, i) .* splat(2.0))
        i = i + 8
    }
    while i < n {
        x[i] = x[i] * 2.0
        i = i + 1
    }
}

#[cfg(aarch64)]
export func scale(x: *mut f32, n: i32, k: f32) {
    let mut i: i32 = 0
    while i + 4 <= n {
        store(x, i, load_f32x4(x, i) .* splat(k))
        i = i + 4
    }
    while i < n {
        x[i] = x[i] * k
        i = i + 1
    }
}

#[cfg(aarch64)]
export func only_arm() -> i32 {
    return 64
}
"""
DATA = np.arange(19, dtype=np.float32) - 4.5  # not a multiple of any step: the tails run


def test_cfg_kernel_on_x86_lib_and_metadata(tmp_path):
    (tmp_path / "k.ea").write_text(KERNEL)
    p = ea_cli("k.ea", "--lib", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith(f"k.ea:1:1  warning[type]: {WARNING}\n")
    assert p.stderr.endswith("compiled k.ea -> k.so (shared library, 1 exported: twice)\nwrote k.ea.json\n")
    assert [e["name"] for e in json.loads((tmp_path / "k.ea.json").read_text())["exports"]] == ["twice"]
    lib = ctypes.CDLL(str(tmp_path / "k.so"))  # the symbol is there (it was missing)
    y = np.zeros_like(DATA)
    ptr = ctypes.POINTER(ctypes.c_float)
    lib.twice.argtypes = [ptr, ptr, ctypes.c_int32]
    lib.twice(DATA.ctypes.data_as(ptr), y.ctypes.data_as(ptr), len(DATA))
    np.testing.assert_array_equal(y, DATA * 2)


def test_cfg_kernel_on_x86_through_the_loader(tmp_path):
    (tmp_path / "k.ea").write_text(KERNEL)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        k = ea.load(tmp_path / "k.ea")
    assert [str(w.message).splitlines()[0] for w in got] == [f"{tmp_path / 'k.ea'}:1:1  warning[type]: {WARNING}"]
    y = np.zeros_like(DATA)
    k.twice(DATA, y)
    np.testing.assert_array_equal(y, DATA * 2)


def test_cfg_pair_on_x86(tmp_path):
    (tmp_path / "p.ea").write_text(PAIR)
    k = ea.load(tmp_path / "p.ea")
    x = DATA.copy()
    k.scale(x)  # the x86 variant: two parameters (the binding passes n), doubles
    np.testing.assert_array_equal(x, DATA * 2)
    assert repr(k) == "<ea.Kernel 'p' funcs=['scale', 'scale_parallel']>"
    with pytest.raises(AttributeError) as info:
        k.only_arm
    assert str(info.value) == ("'p.ea' has no exported function 'only_arm': 'only_arm' is compiled only for "
                               "aarch64 (`#[cfg(aarch64)]`), and this target is x86_64")
    p = ea_cli("p.ea", "--lib", "--header", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    # the message and the metadata list what the library holds; the header, as the spec says, both variants
    assert "(shared library, 1 exported: scale)" in p.stderr
    meta = json.loads((tmp_path / "p.ea.json").read_text())
    assert [(e["name"], len(e["args"])) for e in meta["exports"]] == [("scale", 2)]
    assert "void scale(float* x, int32_t n);\nvoid scale(float* x, int32_t n, float k);" in \
        (tmp_path / "p.h").read_text()
    lib = ctypes.CDLL(str(tmp_path / "p.so"))
    ptr = ctypes.POINTER(ctypes.c_float)
    lib.scale.argtypes = [ptr, ctypes.c_int32]
    x = DATA.copy()
    lib.scale(x.ctypes.data_as(ptr), len(x))
    np.testing.assert_array_equal(x, DATA * 2)
    with pytest.raises(AttributeError):
        lib.only_arm


def _symbols(obj: Path) -> list[str]:
    nm = subprocess.run(["nm", "-g", "--defined-only", obj.name], cwd=obj.parent, capture_output=True, text=True)
    assert nm.returncode == 0, nm.stderr
    return sorted(line.split()[-1] for line in nm.stdout.splitlines())


def test_cfg_pair_and_kernel_compile_for_aarch64(tmp_path):
    p = ea_arm(PAIR + "\n" + KERNEL, tmp_path, name="p")
    assert p.returncode == 0, p.stderr
    assert p.stderr == (f"p.ea:32:1  warning[type]: {WARNING}\n"
                        "    #[cfg(aarch64)]\n    ^^^^^^^^^^^^^^^\n  = help: remove the attribute\n"
                        "compiled p.ea -> p.o (object, 3 exported: scale, only_arm, twice)\n")
    obj = (tmp_path / "p.o").read_bytes()
    assert obj[:4] == b"\x7fELF" and int.from_bytes(obj[18:20], "little") == 183  # EM_AARCH64
    assert _symbols(tmp_path / "p.o") == ["only_arm", "scale", "twice"]
    ir = ea_arm(PAIR + "\n" + KERNEL, tmp_path, "--emit-llvm", name="p").stdout
    assert ir.count("define void @scale(") == 1 and "define void @scale(ptr %x, i32 %n, float %k)" in ir
    assert f'target triple = "{TRIPLE}"' in ir


@needs_qemu
def test_cfg_pair_and_kernel_run_on_aarch64(tmp_path):
    main = r"""
void scale(float *x, int32_t n, float k);
int32_t only_arm(void);
void twice(const float *x, float *y, int32_t n);
int main(void) {
    float x[11], y[11];
    for (int i = 0; i < 11; i++) { x[i] = (float)i - 4.5f; y[i] = 0.0f; }
    twice(x, y, 11);
    scale(x, 11, 3.0f);
    for (int i = 0; i < 11; i++) { pf(x[i]); pf(y[i]); }
    pi(only_arm()); nl();
    return 0;
}
"""
    (out,) = run_arm(tmp_path, PAIR + "\n" + KERNEL, main)
    base = [float(i) - 4.5 for i in range(11)]
    expected = [f"{v:.9g}" for b in base for v in (b * 3, b * 2)] + ["64"]
    assert out.split() == expected
