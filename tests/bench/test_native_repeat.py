"""The native repetition loop the cycle measurements time (compiler/bench/native_repeat.py):
it makes exactly the calls asked for, with the arguments the binding would pass (arrays by
address, collapsed lengths, an f32 rounded as the binding rounds it, an i8 extended), and says
None for what it cannot pass."""
from __future__ import annotations

import numpy as np
import pytest

from ea_compiler.bench.cycle_run import native_calls
from ea_compiler.bench.native_repeat import repeat_ir, repeater
from ea_compiler.bench.suite import load_suite
from ea_compiler.loader import load

ACCUMULATE = """
export func acc(x: *f32, out: *mut f32, n: i32, s: f32, k: i8, m: u32) {
    let mut i: i32 = 0
    while i < n {
        out[i] = out[i] + s * x[i] + to_f32(k) + to_f32(m)
        i = i + 1
    }
}

export func flagged(out: *mut f32, on: bool) {
    if on {
        out[0] = 1.0
    }
}

export kernel scale(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 8
    tail scalar { y[i] = a * x[i] }
{
    let va: f32x8 = splat(a)
    store(y, i, va .* load(x, i))
}
"""

SUITE = """
kernel = "k.ea"
[[bench]]
name = "scale"
function = "scale"
sizes = [4096]
reference = "a * x"
check = "y"
bytes_per_element = 8
args.x = { dtype = "float32", shape = ["n"], dist = "normal" }
args.y = { dtype = "float32", shape = ["n"], dist = "zeros" }
args.a = 0.1
"""


@pytest.fixture
def kernel(tmp_path):
    (tmp_path / "k.ea").write_text(ACCUMULATE)
    return load(tmp_path / "k.ea")


def test_each_call_is_made_once_with_the_bindings_arguments(kernel):
    x = np.linspace(-2, 2, 37, dtype=np.float32)
    native, python = np.zeros(37, np.float32), np.zeros(37, np.float32)
    big = 3_000_000_000  # past i32's range
    rep = repeater(kernel, "acc", {"x": x, "out": native, "s": 0.1, "k": -3, "m": big})  # n collapsed from x
    rep(5)
    for _ in range(5):
        kernel.acc(x, python, 0.1, -3, big)
    assert np.array_equal(native, python)  # bit for bit: the same f32 of 0.1, k sign-extended, m unsigned
    rep(0)
    assert np.array_equal(native, python)


def test_what_it_cannot_pass_is_none(kernel):
    assert repeater(kernel, "flagged", {"out": np.zeros(1, np.float32), "on": True}) is None
    assert repeater(kernel, "nowhere", {}) is None
    assert repeater(kernel, "acc", {"x": np.zeros(4, np.float32)}) is None  # the suite gives no `out`
    assert repeat_ir(4096, ["bool"], (1,), None) is None
    assert repeat_ir(4096, ["f32"], (0.5,), "bool") is None


def test_a_short_call_is_timed_in_runs_of_many(tmp_path):
    (tmp_path / "k.ea").write_text(ACCUMULATE)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    spec = load_suite(tmp_path / "k.bench.toml").benches[0]
    k = load(tmp_path / "k.ea")
    seen = []
    k.scale = lambda **kw: seen.append(kw) or kw["y"].__setitem__(slice(None), np.float32(0.1) * kw["x"])
    call, reps = native_calls(k, spec, 64)
    assert reps > 1  # 64 elements take far less than a run (cycle_run.NATIVE_CALL_NS)
    (args,) = seen  # the Python call that checked the result against the reference
    args["y"][:] = 0
    call()  # reps calls of the compiled kernel on those arguments, not of the Python function
    assert np.array_equal(args["y"], np.float32(0.1) * args["x"]) and len(seen) == 1
