"""Integer `/` and `%` never trap (compiler/codegen/divide.py): division by
zero and MIN / -1, undefined in LANGUAGE.md, give AArch64's results on every
target (x / 0 = 0, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0) instead of
killing the calling process with SIGFPE; every other quotient is C's
(truncated), for scalars and vectors, signed and unsigned, through `ea.load`."""
from __future__ import annotations

import numpy as np
import pytest

from ea_compiler.loader import load

SRC = """
export func div_{t}(a: *{t}, b: *{t}, q: *mut {t}, r: *mut {t}, n: i32) {{
    for k in 0..n {{
        q[k] = a[k] / b[k]
        r[k] = a[k] % b[k]
    }}
}}
"""
VSRC = """
export func vdiv_{t}(a: *{t}, b: *{t}, q: *mut {t}) {{
    let x: {t}x4 = load(a, 0)
    let y: {t}x4 = load(b, 0)
    store(q, 0, x ./ y)
}}
"""
TYPES = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def expected(a: int, b: int, dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    if b == 0:
        return 0, a
    if a == info.min and b == -1:
        return info.min, 0
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncated, as C
    return q, a - q * b


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("div") / "div.ea"
    path.write_text("".join(SRC.format(t=t) for t in TYPES) + "".join(VSRC.format(t=t) for t in ("i32", "u32")))
    return load(path)


@pytest.mark.parametrize("t", TYPES)
def test_scalar_division_never_traps(kernels, t):
    dtype = TYPES[t]
    info = np.iinfo(dtype)
    values = sorted({0, 1, 2, 7, info.max, info.min, info.min + 1} | ({-1, -2, -7} if info.min else set()))
    pairs = [(a, b) for a in values for b in values]
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    getattr(kernels, f"div_{t}")(a, b, q, r)  # n from the arrays
    for k, (x, y) in enumerate(pairs):
        assert (int(q[k]), int(r[k])) == expected(x, y, dtype), (t, x, y)


@pytest.mark.parametrize("t", ["i32", "u32"])
def test_vector_division_never_traps(kernels, t):
    dtype = TYPES[t]
    info = np.iinfo(dtype)
    a = np.array([9, info.min, 5, info.max], dtype)
    b = np.array([0, -1 if info.min else 0, 2, 1], dtype)
    q = np.zeros(4, dtype)
    getattr(kernels, f"vdiv_{t}")(a, b, q)
    assert [int(v) for v in q] == [expected(int(x), int(y), dtype)[0] for x, y in zip(a, b)]
