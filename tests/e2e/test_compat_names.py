"""End to end: functions named like intrinsics compile into a shared library,
are callable from Python (ctypes) and C under their own names, and calls inside
the file go where the rule says (the intrinsic, except a user `abs`)."""
from __future__ import annotations

import ctypes

from .harness import ea, run_c

SOURCE = """export func max(a: i32, b: i32) -> i32 {
    if a > b { return a + 1000 }
    return b + 1000
}
export func abs(a: i32) -> i32 {
    if a < 0 { return 2000 - a }
    return a + 2000
}
export func sqrt(x: f32) -> f32 {
    return x * 2.0
}
export func via_max(a: i32, b: i32) -> i32 {
    return max(a, b)
}
export func via_abs(a: i32) -> i32 {
    return abs(a)
}
export func via_sqrt(x: f32) -> f32 {
    return sqrt(x)
}
"""


def test_shared_library_from_python(tmp_path):
    (tmp_path / "names.ea").write_text(SOURCE)
    proc = ea("names.ea", "--lib", "-o", "libnames.so", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "6 exported: max, abs, sqrt, via_max, via_abs, via_sqrt" in proc.stderr
    lib = ctypes.CDLL(str(tmp_path / "libnames.so"))
    lib.sqrt.restype = lib.via_sqrt.restype = ctypes.c_float
    lib.sqrt.argtypes = lib.via_sqrt.argtypes = [ctypes.c_float]
    assert lib.max(3, 5) == 1005          # the user's max, by its exported symbol
    assert lib.via_max(3, 5) == 5         # a call by name in the file: the intrinsic
    assert lib.abs(-4) == 2004            # the user's abs ...
    assert lib.via_abs(-4) == 2004        # ... which shadows the intrinsic (also at -O3)
    assert lib.sqrt(9.0) == 18.0
    assert lib.via_sqrt(9.0) == 3.0


def test_object_linked_from_c(tmp_path):
    main = """#include <stdio.h>
#include <stdint.h>
int32_t max(int32_t, int32_t); int32_t via_max(int32_t, int32_t);
int32_t via_abs(int32_t);
int main(void) { printf("%d %d %d\\n", max(-7, 2), via_max(-7, 2), via_abs(-1)); return 0; }
"""
    # (C itself would treat a call to `abs` as its builtin, so only via_abs is called.)
    assert run_c(SOURCE, main, tmp_path) == "1002 2 2001\n"


def test_python_loader_exposes_intrinsic_named_functions(tmp_path):
    from ea_compiler.loader import load

    (tmp_path / "names.ea").write_text(SOURCE)
    k = load(str(tmp_path / "names.ea"))
    assert (k.max(3, 5), k.via_max(3, 5), k.abs(-4), k.via_abs(-4)) == (1005, 5, 2004, 2004)
