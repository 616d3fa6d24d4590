"""Every example in examples/*.ea end to end: built with `ea --lib`, loaded with ctypes,
run on random inputs of many lengths (most not multiples of the step), compared with NumPy
bit for bit, floats included: `fma` rounds once (modelled exactly by `fma32`), `*` and `+`
are never contracted, and reductions are replayed in the kernel's own order (vector lanes,
ordered `reduce_add`, scalar tail), not NumPy's pairwise `np.sum` order. Outputs carry
sentinels after the end; `test_no_access_past_the_end` reruns every check with each buffer
ending on a PROT_NONE page, so a read or write past the end faults."""
from __future__ import annotations

import ctypes
import mmap
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from .harness import ROOT, ea, host_has_vnni

# examples/vnni/ holds the kernels that need a CPU with VNNI (kept apart so examples/*.ea build anywhere)
EXAMPLES = sorted((ROOT / "examples").glob("*.ea")) + sorted((ROOT / "examples" / "vnni").glob("*.ea"))
SIZES = [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1000, 4099]
F32, I32, U8 = np.float32, np.int32, np.uint8
SENTINEL = 165  # fits every element type; no kernel's output takes this value
NEEDS_VNNI = ("int8_dot", "int8_gemm")  # dpbusd: compiled only for a CPU with VNNI


@pytest.fixture(scope="module")
def libs(tmp_path_factory) -> dict[str, ctypes.CDLL | str]:
    """stem -> loaded library, or the compiler's stderr when the build failed."""
    build = tmp_path_factory.mktemp("examples")
    for src in EXAMPLES:
        shutil.copy(src, build)  # `--lib` writes FILE.ea.json next to the source
    with ThreadPoolExecutor(2) as pool:
        procs = list(pool.map(lambda s: ea(s.name, "--lib", cwd=build), EXAMPLES))
    return {src.stem: (ctypes.CDLL(str(build / f"{src.stem}.so")) if p.returncode == 0
                       else f"ea {src.name} --lib failed:\n{p.stderr}")
            for src, p in zip(EXAMPLES, procs)}


_CT = {"p": ctypes.c_void_p, "f": ctypes.c_float, "i": ctypes.c_int32, "b": ctypes.c_uint8}


def fn(lib: ctypes.CDLL, name: str, sig: str, ret: str | None = None):
    """A typed export: `sig` has one letter per parameter (p pointer, f f32, i i32, b u8)."""
    f = getattr(lib, name)
    f.argtypes, f.restype = [_CT[c] for c in sig], _CT[ret] if ret else None
    return f


class Buffers:
    """Arrays for a check. Plain mode: outputs get sentinel elements after the end. Guard
    mode: every array ends exactly where a PROT_NONE page starts."""

    def __init__(self, guard: bool = False):
        self.guard, self._keep = guard, []

    def _guarded(self, values: np.ndarray) -> np.ndarray:
        page = mmap.PAGESIZE
        pages = -(-values.nbytes // page) + 1
        mm = mmap.mmap(-1, pages * page)
        base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
        libc = ctypes.CDLL(None)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        assert libc.mprotect(base + (pages - 1) * page, page, 0) == 0
        self._keep.append(mm)
        arr = np.frombuffer(mm, values.dtype, values.size, (pages - 1) * page - values.nbytes)
        arr[...] = values.ravel()
        return arr.reshape(values.shape)

    def inp(self, values: np.ndarray) -> np.ndarray:
        return self._guarded(values) if self.guard else np.array(values, copy=True)

    def out(self, n: int, dtype=F32, fill=0) -> np.ndarray:
        if self.guard:
            return self._guarded(np.full(n, fill, dtype))
        return np.concatenate([np.full(n, fill, dtype), np.full(16, SENTINEL, dtype)])

    def result(self, arr: np.ndarray, n: int) -> np.ndarray:
        assert self.guard or (arr[n:] == SENTINEL).all(), f"write past the end (n={n})"
        return arr[:n]


def p(arr: np.ndarray) -> int:
    return arr.ctypes.data


def same(got, want, what: str) -> None:
    """Bit-exact comparison (floats by bit pattern, so -0.0 != 0.0)."""
    got = np.asarray(got)
    want = np.asarray(want, dtype=got.dtype)
    view = {4: np.uint32, 2: np.uint16, 1: np.uint8}[got.dtype.itemsize]
    bad = np.flatnonzero(got.view(view) != want.view(view))
    assert bad.size == 0, (f"{what}: {bad.size} mismatches, first at {bad[0]}: "
                           f"got {got.flat[bad[0]]!r}, want {want.flat[bad[0]]!r}")


def fma32(a, b, c) -> np.ndarray:
    """Correctly rounded f32 fma, vectorised: a*b is exact in f64, TwoSum gives s + e = a*b + c
    exactly, and f32(s) is the right answer unless s lies exactly on an f32 midpoint with a
    non-zero e, which then decides the direction."""
    a, b, c = (np.asarray(v, F32).astype(np.float64) for v in (a, b, c))
    prod = a * b
    s = prod + c
    bb = s - prod
    e = (prod - (s - bb)) + (c - bb)
    r = s.astype(F32)
    r64 = r.astype(np.float64)
    other = np.nextafter(r, np.where(s > r64, F32(np.inf), F32(-np.inf)))
    mid = (s != r64) & (s == (r64 + other.astype(np.float64)) * 0.5)
    return np.where(mid & (e != 0) & ((e > 0) != (r64 > s)), other, r).astype(F32)


def test_fma32_model():
    h, tiny = F32(2.0 ** -12), F32(2.0 ** -35)  # h * h = 2^-24, half an ulp of 1.0
    assert fma32(h, h, F32(1)) == F32(1)  # an exact tie rounds to even
    assert fma32(h, h + tiny, F32(1)) == np.nextafter(F32(1), F32(2))  # just above the tie
    # 1 + 2^-23 + (2^-24 - 2^-70): the f64 sum lands on the tie and the lost -2^-70
    # decides; rounding the f64 sum to f32 would round to even, upwards
    odd = F32(1 + 2.0 ** -23)
    assert fma32(h + tiny, h - tiny, odd) == odd != F32(float(h + tiny) * float(h - tiny) + float(odd))
    third = F32(1 / 3)
    assert fma32(F32(3), third, F32(-1)) == F32(3 * float(third) - 1) != F32(3) * third - F32(1)


def uniform(rng, n, lo=-1.0, hi=1.0) -> np.ndarray:
    return rng.uniform(lo, hi, n).astype(F32)


def ordered_sum(x, axis: int = -1) -> np.ndarray:
    """((0 + x0) + x1) + ... in f32 along `axis`: an ordered reduce_add or a scalar loop."""
    x = np.moveaxis(np.asarray(x, F32), axis, -1)
    zero = np.zeros(x.shape[:-1] + (1,), F32)
    return np.cumsum(np.concatenate([zero, x], axis=-1), axis=-1, dtype=F32)[..., -1]


def map_check(name: str, sig: str, make, ref, out_type=F32, fill=0.0):
    """Check f(inputs..., out, scalars..., n) against out = ref(n, inputs..., scalars...);
    make(rng, n) returns (inputs, scalars)."""
    def check(lib, rng, buf):
        f = fn(lib, name, sig)
        for n in SIZES:
            inputs, scalars = make(rng, n)
            inputs, out = [buf.inp(x) for x in inputs], buf.out(n, out_type, fill)
            f(*map(p, inputs), p(out), *scalars, n)
            same(buf.result(out, n), ref(n, *inputs, *scalars), f"{name} n={n}")
    return check


check_fma = map_check("fma_kernel", "ppppi", lambda rng, n: ([uniform(rng, n, -4, 4) for _ in "abc"], []),
                      lambda n, a, b, c: fma32(a, b, c))
check_clip_mask = map_check("clip", "ppfi", lambda rng, n: ([uniform(rng, n)], [F32(rng.uniform(-0.5, 0.5))]),
                            lambda n, v, hi: np.minimum(v, hi))
check_normalize_u8 = map_check("normalize", "ppi", lambda rng, n: ([rng.integers(0, 256, n, dtype=U8)], []),
                               lambda n, px: px.astype(F32) / F32(255))
check_threshold_u8 = map_check(  # t >= 128 needs an unsigned compare
    "threshold", "ppbi", lambda rng, n: ([rng.integers(0, 256, n, dtype=U8)], [rng.choice([0, 127, 128, 200, 255])]),
    lambda n, px, t: np.where(px > t, 255, 0), out_type=U8, fill=7)


def pixels(rng, n):
    px = rng.integers(0, 256, n, dtype=U8)
    px[:2] = [0, 255][:n]  # both clamps of preprocess
    return px


check_preprocess = map_check(
    "preprocess", "ppffffi", lambda rng, n: ([pixels(rng, n)], [F32(0.45), F32(1 / 0.226), F32(-1.5), F32(2.0)]),
    lambda n, px, mean, inv_std, lo, hi: np.minimum(np.maximum((px.astype(F32) / F32(255) - mean) * inv_std, lo), hi))
check_frame_rms = map_check(  # n = frames of 8 samples
    "frame_rms", "ppi", lambda rng, n: ([uniform(rng, 8 * n)], []),
    lambda n, x: np.sqrt(ordered_sum((x * x).reshape(n, 8)) / F32(8)))
# `tail pad`: n should be a multiple of 8; for any other n only the full steps are done
check_leaky_relu = map_check("leaky_relu", "ppfi", lambda rng, n: ([uniform(rng, n)], [F32(0.1)]),
                             lambda n, x, a: np.where(np.arange(n) < n // 8 * 8, np.where(x > 0, x, x * a), -7.0),
                             fill=-7.0)


def check_saxpy(lib, rng, buf):
    saxpy = fn(lib, "saxpy", "ppfi")
    for n in SIZES:
        x, y0, a = buf.inp(uniform(rng, n)), uniform(rng, n), F32(rng.uniform(-3, 3))
        y = buf.inp(y0)
        saxpy(p(x), p(y), a, n)
        same(y, fma32(a, x, y0), f"saxpy n={n}")


def check_dot(lib, rng, buf):
    # four f32x8 accumulators over blocks of 32, ordered reduce_add of
    # (acc0 + acc1) + (acc2 + acc3), then a scalar fma tail
    dot = fn(lib, "dot", "ppi", "f")
    for n in SIZES:
        a, b = buf.inp(uniform(rng, n)), buf.inp(uniform(rng, n))
        acc, full = np.zeros((4, 8), F32), n // 32 * 32
        for i in range(0, full, 32):
            acc = fma32(a[i:i + 32].reshape(4, 8), b[i:i + 32].reshape(4, 8), acc)
        total = ordered_sum((acc[0] + acc[1]) + (acc[2] + acc[3]))
        for i in range(full, n):
            total = fma32(a[i], b[i], total)
        same(F32(dot(p(a), p(b), n)), total, f"dot n={n}")


def check_reductions(lib, rng, buf):
    sum_f32, max_f32, min_f32 = (fn(lib, f"{op}_f32", "pi", "f") for op in ("sum", "max", "min"))
    for n in SIZES:
        x = buf.inp(uniform(rng, n, -100, 100))
        # two f32x8 accumulators over blocks of 16, ordered reduce_add of acc0 + acc1, tail
        full = n // 16 * 16
        acc = ordered_sum(x[:full].reshape(-1, 16), axis=0)
        same(F32(sum_f32(p(x), n)), ordered_sum(np.concatenate([acc[:8] + acc[8:], x[full:]])), f"sum n={n}")
        if n:  # max and min need n >= 1
            same(F32(max_f32(p(x), n)), x.max(), f"max_f32 n={n}")
            same(F32(min_f32(p(x), n)), x.min(), f"min_f32 n={n}")


def check_particles(lib, rng, buf):
    step = fn(lib, "step", "pif")
    for n in SIZES:
        ps0, dt = uniform(rng, 4 * n, -10, 10), F32(0.01)  # x, y, vx, vy per particle
        ps = buf.inp(ps0)
        step(p(ps), n, dt)
        want = ps0.reshape(n, 4).copy()
        want[:, :2] += want[:, 2:] * dt
        same(ps, want.ravel(), f"particles n={n}")


def check_dot_i8(lib, rng, buf):
    dot = fn(lib, "dot_u8i8", "ppi", "i")
    for n in SIZES:
        w = buf.inp(rng.integers(-128, 128, n, dtype=np.int8))
        a7 = buf.inp(rng.integers(0, 128, n, dtype=U8))  # the documented 7-bit range
        same(I32(dot(p(a7), p(w), n)), np.dot(a7.astype(I32), w.astype(I32)), f"dot_u8i8 n={n}")
        # full-range u8: in the vector part pmaddubsw saturates each pair sum to i16
        a8 = rng.integers(0, 256, n, dtype=U8)
        a8[::2] = 255  # 255 * w0 + a1 * w1 leaves the i16 range for many weights
        a = buf.inp(a8)
        prod, full = a.astype(np.int64) * w.astype(np.int64), n // 32 * 32
        want = np.clip(prod[:full:2] + prod[1:full:2], -32768, 32767).sum() + prod[full:].sum()
        same(I32(dot(p(a), p(w), n)), I32(want), f"dot_u8i8 (saturating) n={n}")


def check_int8_dot(lib, rng, buf):
    """dpbusd is exact for any u8 (255 * -128 pairs included); maddubs_i16 saturates pair sums."""
    vnni, maddubs = fn(lib, "dot_vnni", "ppi", "i"), fn(lib, "dot_maddubs", "ppi", "i")
    for n in SIZES:
        w = rng.integers(-128, 128, n, dtype=np.int8)
        w[::3] = -128
        a8 = rng.integers(0, 256, n, dtype=U8)
        a8[::2] = 255
        a, w, a7 = buf.inp(a8), buf.inp(w), buf.inp(a8 >> 1)
        same(I32(vnni(p(a), p(w), n)), np.dot(a.astype(I32), w.astype(I32)), f"dot_vnni n={n}")
        same(I32(maddubs(p(a7), p(w), n)), np.dot(a7.astype(I32), w.astype(I32)), f"dot_maddubs n={n}")


def check_int8_gemm(lib, rng, buf):
    vnni, maddubs = fn(lib, "gemm_vnni", "pppiii"), fn(lib, "gemm_maddubs", "pppiii")
    for m, n, k in [(0, 0, 0), (1, 1, 1), (1, 4, 32), (2, 4, 64), (3, 5, 7), (5, 9, 100), (8, 8, 256),
                    (7, 13, 96), (4, 6, 33)]:
        a8 = rng.integers(0, 256, m * k, dtype=U8)
        a8[::2] = 255
        a, a7, bt = buf.inp(a8), buf.inp(a8 >> 1), buf.inp(rng.integers(-128, 128, n * k, dtype=np.int8))
        b32 = bt.reshape(n, k).astype(I32).T
        for f, x, what in ((vnni, a, "gemm_vnni"), (maddubs, a7, "gemm_maddubs")):
            c = buf.out(m * n, I32, -1)
            f(p(x), p(bt), p(c), m, n, k)
            same(buf.result(c, m * n), (x.reshape(m, k).astype(I32) @ b32).ravel(), f"{what} {m}x{n}x{k}")


def check_sobel(lib, rng, buf):
    sobel = fn(lib, "sobel", "ppii")
    for w, h in [(1, 1), (3, 3), (4, 5), (9, 3), (10, 4), (11, 7), (17, 6), (64, 9), (101, 13), (258, 33)]:
        img, out = buf.inp(uniform(rng, w * h, 0, 1)), buf.out(w * h, F32, -1.0)
        sobel(p(img), p(out), w, h)
        im, want = img.reshape(h, w), np.full((h, w), -1.0, F32)  # borders stay untouched
        if w >= 3 and h >= 3:
            (a, b, c), (d, f) = (im[:-2, :-2], im[:-2, 1:-1], im[:-2, 2:]), (im[1:-1, :-2], im[1:-1, 2:])
            g, hh, i = im[2:, :-2], im[2:, 1:-1], im[2:, 2:]
            gx = (c - a) + F32(2) * (f - d) + (i - g)
            gy = (g - a) + F32(2) * (hh - b) + (i - c)
            want[1:-1, 1:-1] = np.sqrt(gx * gx + gy * gy)
        same(buf.result(out, w * h).reshape(h, w), want, f"sobel {w}x{h}")


CHECKS = {name.removeprefix("check_"): f for name, f in globals().items() if name.startswith("check_")}


def test_at_least_twelve_examples_each_with_a_header_comment():
    assert len(EXAMPLES) >= 12
    assert [s.name for s in EXAMPLES if not s.read_text().startswith("// ")] == []


@pytest.mark.parametrize("stem", [s.stem for s in EXAMPLES])
def test_example(libs, stem):
    assert stem in CHECKS, f"examples/{stem}.ea has no end-to-end check in test_examples.py"
    if stem in NEEDS_VNNI and not host_has_vnni():
        pytest.skip(f"examples/{stem}.ea needs a CPU with VNNI; this host has none")
    if isinstance(libs[stem], str):
        pytest.fail(libs[stem])
    CHECKS[stem](libs[stem], np.random.default_rng(sum(stem.encode())), Buffers())


def test_no_access_past_the_end(libs):
    """Every check again, with every buffer ending on an inaccessible page; in a child
    process, so that a fault fails this test instead of ending the test run."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        status = 0
        for stem, check in CHECKS.items():
            os.write(w, f"{stem}\n".encode())
            try:
                if stem in libs and not isinstance(libs[stem], str) and (stem not in NEEDS_VNNI or host_has_vnni()):
                    check(libs[stem], np.random.default_rng(7), Buffers(guard=True))
            except BaseException as exc:  # noqa: BLE001 - reported through the pipe
                os.write(w, f"FAILED {stem}: {exc}\n".encode())
                status = 1
        os._exit(status)
    os.close(w)
    with os.fdopen(r) as pipe:
        log = pipe.read().splitlines()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        pytest.fail(f"signal {os.WTERMSIG(status)} while running {log[-1] if log else '?'} "
                    "with buffers ending on a guard page (access past the end)")
    assert os.WEXITSTATUS(status) == 0, "\n".join(line for line in log if line.startswith("FAILED"))
