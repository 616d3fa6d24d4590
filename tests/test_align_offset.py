"""`align_offset(p, bytes)` (an extension: README "Extensions"): the elements
from p[0] to the first address that is a multiple of `bytes`, for arrays at
every offset, through `ea.load`; its errors by exact text and span; and its
code on AArch64 as on x86 (an address is an address)."""
from __future__ import annotations

import numpy as np
import pytest

import ea
from ea_compiler import Options, analyze
from ea_compiler.build import compile_source

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")
ARM = Options(target_triple="aarch64-unknown-linux-gnu")

KERNEL = """export func offsets(a: *f32, b: *u8, d: *f64, out: *mut i32) {
    out[0] = align_offset(a, 64)
    out[1] = align_offset(b, 64)
    out[2] = align_offset(d, 32)
    out[3] = align_offset(a, 16)
    out[4] = align_offset(b, 4096)
    out[5] = align_offset(a, 4)
}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("align") / "offsets.ea"
    path.write_text(KERNEL)
    return ea.load(str(path))


def want(array: np.ndarray, boundary: int) -> int:
    return (-array.ctypes.data % boundary) // array.itemsize


def test_every_offset(kernel):
    base = np.zeros(8192, np.uint8)
    seen = set()
    for off in range(128):
        b = base[off:off + 64]
        a = base[off & ~3:(off & ~3) + 256].view(np.float32)
        d = base[off & ~7:(off & ~7) + 256].view(np.float64)
        out = np.full(6, -1, np.int32)
        kernel.offsets(a, b, d, out)
        assert out.tolist() == [want(a, 64), want(b, 64), want(d, 32), want(a, 16), want(b, 4096), 0], off
        seen.add(int(out[0]))
    assert seen == set(range(16))  # every f32 position in a line was met


def test_an_address_not_a_multiple_of_the_element_size_rounds_down(kernel):
    base = np.zeros(512, np.uint8)
    a = base[1:257].view(np.float32)  # 1 byte past an element boundary
    out = np.zeros(6, np.int32)
    kernel.offsets(a, base[:64], base[:256].view(np.float64), out)
    assert out[0] == (-a.ctypes.data % 64) // 4 and out[5] == (-a.ctypes.data % 4) // 4 == 0


ERRORS = [
    ("align_offset(a)", "align_offset expects 2 arguments (ptr, bytes)", 18, 33),
    ("align_offset(n, 64)", "align_offset expects a pointer, got i32", 31, 32),
    ("align_offset(a, n)", "align_offset requires a compile-time integer constant as second argument", 34, 35),
    ("align_offset(a, 48)", "align_offset boundary must be a power of two, got 48", 34, 36),
    ("align_offset(a, 2)", "align_offset boundary must be 4..=4096 bytes, got 2", 34, 35),
    ("align_offset(a, 8192)", "align_offset boundary must be 4..=4096 bytes, got 8192", 34, 38),
]


@pytest.mark.parametrize("call,message,col,end_col", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors(call, message, col, end_col):
    text = f"export func f(a: *f32, n: i32) -> i32 {{\n    let x: i32 = {call}\n    return x\n}}\n"
    [d] = analyze(text, "t.ea", X86).errors
    assert (d.message, d.span.line, d.span.col, d.span.end_col) == (message, 2, col, end_col)


@pytest.mark.parametrize("options", [X86, ARM], ids=["x86_64", "aarch64"])
def test_compiles_for_each_target(options):
    analysis, module = compile_source(KERNEL, "t.ea", options)
    assert analysis.ok and module is not None
    assert module.object()  # an object file for the target
