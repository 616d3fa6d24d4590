"""`stream_store` at every alignment: each kernel, through `ea.load`, writes
into arrays that start 0, 4, ..., 60 bytes past a 64-byte boundary (u8 data:
every byte offset) and end just before an inaccessible page, at lengths
around every multiple of the step. Results must be exact, and the bytes
around the output untouched (a store past the end faults at once, or lands
in the few bytes before the guard page, which are checked with the rest).
The kernels take each path of the lowering (compiler/codegen/ntloop.py):
realigned runs (one store, two stores a trip), pieces (stores under an `if`,
stores out of order), a second output tested at each store, an index with
a parameter in it, a plain function (tested at each store), u8/i32/f64
elements, 16-byte vectors. Each kernel runs in its own process: a fault is
a failed test naming the case that was running."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .harness import ROOT, host_has

SIZES = (1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 257, 1000)
F32 = "r.integers(-400, 400, n) / 4"

# name: (source, inputs {name: (dtype, values)}, outputs {name: dtype}, call, expected {output: expression})
CASES = {
    "scale_f32x8": ("""
        export kernel scale(x: *f32, out: *mut f32, s: f32)
            over i in n step 8
            tail scalar { out[i] = x[i] * s }
        {
            stream_store(out, i, load_f32x8(x, i) .* splat(s))
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.scale(x, out, 0.5)",
        {"out": "x * np.float32(0.5)"}),
    "fma_two_stores": ("""
        export kernel fma2(a: *f32, b: *f32, out: *mut f32)
            over i in n step 16
            tail scalar { out[i] = fma(a[i], b[i], 1.0) }
        {
            let one: f32x8 = splat(1.0)
            stream_store(out, i, fma(load_f32x8(a, i), load_f32x8(b, i), one))
            stream_store(out, i + 8, fma(load_f32x8(a, i + 8), load_f32x8(b, i + 8), one))
        }
        """, {"a": ("float32", F32), "b": ("float32", F32)}, {"out": "float32"}, "k.fma2(a, b, out)",
        {"out": "a * b + np.float32(1)"}),
    "stores_under_if": ("""
        export kernel clip(x: *f32, out: *mut f32, t: f32)
            over i in n step 8
            tail scalar { out[i] = max(x[i], t) }
        {
            let v: f32x8 = load(x, i)
            let tt: f32x8 = splat(t)
            if t > 0.0 { stream_store(out, i, max(v, tt)) } else { stream_store(out, i, max(tt, v)) }
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.clip(x, out, 2.5)",
        {"out": "np.maximum(x, np.float32(2.5))"}),
    "stores_out_of_order": ("""
        export kernel swap_halves(x: *f32, out: *mut f32)
            over i in n step 16
            tail scalar { out[i] = x[i] + 1.0 }
        {
            let one: f32x8 = splat(1.0)
            stream_store(out, i + 8, load_f32x8(x, i + 8) .+ one)
            stream_store(out, i, load_f32x8(x, i) .+ one)
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.swap_halves(x, out)", {"out": "x + np.float32(1)"}),
    "two_outputs": ("""
        export kernel split(x: *f32, lo: *mut f32, hi: *mut f32, t: f32)
            over i in n step 8
            tail scalar { lo[i] = min(x[i], t)
                          hi[i] = max(x[i], t) }
        {
            let v: f32x8 = load(x, i)
            let tt: f32x8 = splat(t)
            stream_store(lo, i, min(v, tt))
            stream_store(hi, i, max(v, tt))
        }
        """, {"x": ("float32", F32)}, {"lo": "float32", "hi": "float32"}, "k.split(x, lo, hi, 3.0)",
        {"lo": "np.minimum(x, np.float32(3))", "hi": "np.maximum(x, np.float32(3))"}),
    "index_with_parameter": ("""
        export kernel shifted(x: *f32, out: *mut f32, first: i32)
            over i in m step 8
            tail scalar { out[i + first] = x[i] * 2.0 }
        {
            stream_store(out, i + first, load_f32x8(x, i) .* splat(2.0))
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.shifted(x, out, 3, max(n - 3, 0))",
        {"out": "np.concatenate([out_before[:3], x[:max(n - 3, 0)] * np.float32(2)])"}),
    "plain_function": ("""
        export func scale_fn(x: *f32, out: *mut f32, m: i32, s: f32) {
            let mut i: i32 = 0
            while i + 8 <= m {
                stream_store(out, i, load_f32x8(x, i) .* splat(s))
                i = i + 8
            }
            while i < m {
                out[i] = x[i] * s
                i = i + 1
            }
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.scale_fn(x, out, n, 0.5)",
        {"out": "x * np.float32(0.5)"}),
    "threshold_u8x32": ("""
        export kernel threshold(px: *u8, out: *mut u8, t: u8)
            over i in n step 32
            tail scalar { if px[i] > t { out[i] = 255 } else { out[i] = 0 } }
        {
            let v: u8x32 = load(px, i)
            let hi: u8x32 = splat(255)
            let lo: u8x32 = splat(0)
            let limit: u8x32 = splat(t)
            stream_store(out, i, select(v .> limit, hi, lo))
        }
        """, {"px": ("uint8", "r.integers(0, 256, n)")}, {"out": "uint8"}, "k.threshold(px, out, 100)",
        {"out": "np.where(px > 100, 255, 0).astype(np.uint8)"}),
    "add_i32_scalar_tail": ("""
        export kernel add_i32(x: *i32, out: *mut i32, k: i32)
            over i in n step 8
            tail scalar { stream_store(out, i, x[i] + k) }
        {
            stream_store(out, i, load_i32x8(x, i) .+ splat(k))
        }
        """, {"x": ("int32", "r.integers(-1000, 1000, n)")}, {"out": "int32"}, "k.add_i32(x, out, 7)",
        {"out": "x + np.int32(7)"}),
    "scale_f64x4": ("""
        export kernel scale64(x: *f64, out: *mut f64, s: f64)
            over i in n step 4
            tail scalar { out[i] = x[i] * s }
        {
            stream_store(out, i, load_f64x4(x, i) .* splat(s))
        }
        """, {"x": ("float64", F32)}, {"out": "float64"}, "k.scale64(x, out, 0.5)",
        {"out": "x * np.float64(0.5)"}),
    "scale_f32x4": ("""
        export kernel scale4(x: *f32, out: *mut f32, s: f32)
            over i in n step 4
            tail scalar { out[i] = x[i] * s }
        {
            stream_store(out, i, load_f32x4(x, i) .* splat(s))
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.scale4(x, out, 0.5)",
        {"out": "x * np.float32(0.5)"}),
    "scale_f32x16": ("""
        export kernel scale16(x: *f32, out: *mut f32, s: f32)
            over i in n step 16
            tail scalar { out[i] = x[i] * s }
        {
            stream_store(out, i, load_f32x16(x, i) .* splat(s))
        }
        """, {"x": ("float32", F32)}, {"out": "float32"}, "k.scale16(x, out, 0.5)",
        {"out": "x * np.float32(0.5)"}),
}

SCRIPT = """\
import sys
import numpy as np
sys.path.insert(0, {root!r})
from ea_compiler.loader import load
from ea_compiler.tune.guard import guarded_at

k = load({path!r}, avx512={avx512!r})
failures = 0
for n in {sizes!r}:
    for offset in {offsets!r}:
        r = np.random.default_rng(n * 64 + offset)
        mappings = {{}}

        def arr(name, dtype, values=None):
            dtype = np.dtype(dtype)
            view, whole = guarded_at(n * dtype.itemsize, offset)
            whole[...] = 0xA5
            a = view.view(dtype)
            if values is not None:
                a[...] = values
            mappings[name] = (view, whole)
            return a

{inputs}
{outputs}
        out_before = {first_out}.copy()
        print(f"n={{n}} offset={{offset}}", flush=True)
        {call}
        for name, got, want in {checks}:
            view, whole = mappings[name]
            start = view.ctypes.data - whole.ctypes.data
            around = np.concatenate([whole[:start], whole[start + view.size:]])
            if not np.array_equal(got, want):
                bad = int(np.flatnonzero(got != want)[0])
                print(f"FAIL n={{n}} offset={{offset}}: {{name}}[{{bad}}] = {{got[bad]}}, NumPy gives {{want[bad]}}")
                failures += 1
            elif (around != 0xA5).any():
                print(f"FAIL n={{n}} offset={{offset}}: bytes around {{name}} changed")
                failures += 1
print("done")
sys.exit(1 if failures else 0)
"""


def _script(name: str, path: Path) -> str:
    src, inputs, outputs, call, expected = CASES[name]
    ins = "\n".join(f"        {a} = arr({a!r}, np.{dt}, {values})" for a, (dt, values) in inputs.items())
    outs = "\n".join(f"        {a} = arr({a!r}, np.{dt})\n        {a}[...] = 1" for a, dt in outputs.items())
    checks = "[" + ", ".join(f"({o!r}, {o}, {want})" for o, want in expected.items()) + "]"
    offsets = tuple(range(64)) if name.endswith("u8x32") else tuple(range(0, 64, 4))
    return SCRIPT.format(root=str(ROOT), path=str(path), avx512=name.endswith("x16"), sizes=SIZES,
                         offsets=offsets, inputs=ins, outputs=outs, first_out=next(iter(outputs)),
                         call=call, checks=checks)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_offset_and_length_with_guard_pages(name, tmp_path):
    if name.endswith("x16") and not host_has("avx512f"):
        pytest.skip("needs an AVX-512 host")
    src = tmp_path / f"{name}.ea"
    src.write_text(textwrap.dedent(CASES[name][0]).lstrip(), encoding="utf-8")
    (tmp_path / "drive.py").write_text(_script(name, src), encoding="utf-8")
    proc = subprocess.run([sys.executable, "drive.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    last = proc.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    assert proc.returncode == 0, (f"{name}: exit {proc.returncode} (a negative code is a signal) during "
                                  f"{last[0]}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    assert proc.stdout.rstrip().endswith("done") and "FAIL" not in proc.stdout


TAIL_READS_BODY = """
    export kernel scale(x: *f32, out: *mut f32, s: f32)
        over i in n step 8
        tail scalar { out[i] = x[i] * k }
    {
        let k: f32 = s * 2.0
        stream_store(out, i, load_f32x8(x, i) .* splat(k))
    }
    """

TAIL_SCRIPT = """\
import sys
import numpy as np
sys.path.insert(0, {root!r})
from ea_compiler.loader import load
k = load({path!r})
for offset in range(0, 64, 4):
    for n in (8, 9, 15, 17, 100):
        raw = np.zeros(n * 4 + 128, np.uint8)
        start = -raw.ctypes.data % 64 + offset
        out = raw[start:start + n * 4].view(np.float32)
        x = np.arange(n, dtype=np.float32)
        k.scale(x, out, 1.5)
        assert np.array_equal(out, x * np.float32(3)), (offset, n, out)
print("done")
"""


def test_the_tail_reads_the_body_s_let_whichever_copy_ran(tmp_path):
    """The checker lets a kernel's tail read a `let` of its body; every copy of
    the versioned main loop writes that one variable (emit_stmts.local)."""
    src = tmp_path / "tail.ea"
    src.write_text(textwrap.dedent(TAIL_READS_BODY).lstrip(), encoding="utf-8")
    (tmp_path / "drive.py").write_text(TAIL_SCRIPT.format(root=str(ROOT), path=str(src)), encoding="utf-8")
    proc = subprocess.run([sys.executable, "drive.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stdout + proc.stderr


APART_SCRIPT = """\
import sys
import numpy as np
sys.path.insert(0, {root!r})
from ea_compiler.loader import load
from ea_compiler.tune.guard import guarded_at
k = load({path!r})
for n in (8, 9, 31, 100):
    for a in range(0, 64, 4):
        for b in list(range(0, 64, 4)) + [1, 2, 3]:
            print(f"n={{n}} lo at {{a}} hi at {{b}}", flush=True)
            x = np.arange(n, dtype=np.float32) - 40
            lo_bytes, lo_all = guarded_at(n * 4, a)
            hi_bytes, hi_all = guarded_at(n * 4 + 1, b)  # room for an odd offset
            lo_all[...] = hi_all[...] = 0xA5
            lo = lo_bytes.view(np.float32)
            hi = np.ndarray((n,), np.float32, hi_bytes.data)
            k.split(x, lo, hi, 3.0)
            assert np.array_equal(lo, np.minimum(x, np.float32(3))), (n, a, b)
            assert np.array_equal(hi, np.maximum(x, np.float32(3))), (n, a, b)
            for view, whole, size in ((lo_bytes, lo_all, n * 4), (hi_bytes, hi_all, n * 4)):
                start = view.ctypes.data - whole.ctypes.data
                assert (whole[:start] == 0xA5).all() and (whole[start + size:] == 0xA5).all(), (n, a, b)
print("done")
"""


def test_two_outputs_at_any_two_offsets(tmp_path):
    """The second output follows the first's loop copies when it is at the
    same misalignment and is tested at each store otherwise: every pair."""
    src = tmp_path / "split.ea"
    src.write_text(textwrap.dedent(CASES["two_outputs"][0]).lstrip(), encoding="utf-8")
    (tmp_path / "drive.py").write_text(APART_SCRIPT.format(root=str(ROOT), path=str(src)), encoding="utf-8")
    proc = subprocess.run([sys.executable, "drive.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    last = proc.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    assert proc.returncode == 0 and last == ["done"], f"{last}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
