"""What every transformation test checks: the rewrite of one site (exact
text), that the lines it did not touch are byte for byte the original's, and
that the original and the rewrite compute the same results when compiled and
loaded through `ea.load`, on random inputs at the edge lengths around the
loop's step and two large ones."""
from __future__ import annotations

import difflib
import itertools
from pathlib import Path

import numpy as np

import ea
import hostcpu
from ea_compiler.analysis import analyze
from ea_compiler.options import Options
from ea_compiler.syntax import ast as A
from ea_compiler.tune.transforms import NotApplicable, apply, find_sites
from ea_compiler.typesys import model as T

DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
          "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}
_counter = itertools.count()


def sites(src: str, transform: str, function: str | None = None, options: Options | None = None):
    a = analyze(src, "k.ea", options)
    assert a.ok, a.errors
    return a, find_sites(a, function, only=[transform])


def rewrite(src: str, transform: str, choice, function: str | None = None, index: int = 0,
            options: Options | None = None):
    """The rewrite of the site (`function`, `index`); checks it is clean and
    that only the lines its edits touch differ from `src`."""
    a, found = sites(src, transform, function, options)
    site = next(s for s in found if (function is None or s.function == function) and s.index == index)
    rw = apply(a, site, choice)
    assert analyze(rw.text, "k.ea", options).ok
    assert_untouched_lines_kept(src, rw.text, rw.edits)
    return site, rw


def not_applicable(src: str, transform: str, choice, function: str | None = None, index: int = 0,
                   options: Options | None = None) -> str:
    """The reason the site does not take `choice`."""
    a, found = sites(src, transform, function, options)
    site = next(s for s in found if (function is None or s.function == function) and s.index == index)
    try:
        apply(a, site, choice)
    except NotApplicable as err:
        return str(err)
    raise AssertionError("the transformation applied")


def assert_untouched_lines_kept(before: str, after: str, edits) -> None:
    data = before.encode()
    touched = set()
    for e in edits:
        first = data.count(b"\n", 0, e.start)
        last = data.count(b"\n", 0, max(e.start, e.end - 1))
        touched.update(range(first, last + 1))
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            assert set(range(i1, i2)) <= touched, f"untouched lines {i1 + 1}..{i2} changed"


def _inputs(a, func: str, n: int, rng, scalars: dict, pad: int):
    item = next(it for it in a.desugared.items if isinstance(it, A.Func) and it.name == func)
    args, outs = [], []
    for p in item.params:
        t = p.ty
        if isinstance(t, T.Pointer):
            dtype = DTYPES[t.pointee.name]
            if np.issubdtype(dtype, np.floating):
                arr = rng.uniform(-4, 4, n + pad).astype(dtype)
            else:
                info = np.iinfo(dtype)
                arr = rng.integers(max(info.min, -100), min(info.max, 100), n + pad, endpoint=True, dtype=dtype)
            args.append(arr)
            if t.mutable:
                outs.append(arr)
        elif p.name in scalars:
            args.append(scalars[p.name])
    return args, outs


def assert_same_results(tmp_path: Path, before: str, after: str, func: str, step: int, scalars=None,
                        lengths=None, exact: bool = True, pad: int = 0, avx512: bool = False,
                        length_kw: str | None = None) -> None:
    """Both versions of `func` give equal results (to a float tolerance unless
    `exact`) at lengths 0, 1, step-1, step, step+1, 1000 and 1003, or at
    `lengths` (a length, or (length, scalar arguments))."""
    scalars = scalars or {}
    lengths = lengths or sorted({0, 1, step - 1, step, step + 1, 1000, 1003})
    tag = next(_counter)
    paths = [tmp_path / f"orig{tag}.ea", tmp_path / f"tuned{tag}.ea"]
    for path, text in zip(paths, (before, after)):
        path.write_text(text)
    hostcpu.require_runnable(Options(avx512=avx512))
    mods = [ea.load(p, avx512=avx512) for p in paths]
    a = analyze(before, "k.ea")
    for case in lengths:
        n, values = case if isinstance(case, tuple) else (case, scalars)
        results = []
        for mod in mods:
            rng = np.random.default_rng(1000 + n)
            args, outs = _inputs(a, func, n, rng, values, pad)
            kw = {length_kw: n} if length_kw else {}
            ret = getattr(mod, func)(*args, **kw)
            results.append(([ret] if ret is not None else []) + outs)
        for x, y in zip(*results):
            x, y = np.asarray(x), np.asarray(y)
            if exact or not np.issubdtype(x.dtype, np.floating):
                assert np.array_equal(x, y), f"n={n}: {x} != {y}"
            else:
                scale = max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
                assert np.allclose(x, y, rtol=1e-5, atol=1e-5 * scale * max(1, n) ** 0.5), f"n={n}"


# y += a * x with 128-bit vectors and plain pointers: a site for widen and restrict.
AXPY = """\
// y += a * x, four lanes a step
export func axpy(x: *f32, y: *mut f32, a: f32, n: i32) {
    let va: f32x4 = splat(a)
    let mut i: i32 = 0
    while i + 4 <= n {   // whole vectors
        store(y, i, fma(va, load(x, i), load(y, i)))
        i = i + 4
    }
    while i < n {
        y[i] = fma(a, x[i], y[i])
        i = i + 1
    }
}
"""
