"""`ea bind --rust --cpp` end to end (TOOLCHAIN.md §4.3, §4.4): examples and a
file of output-annotated exports are compiled with `--lib`, bound, called from
one Rust and one C++ program, and the printed results compared with values
computed here. Also the length-consistency checks (panic / exception text)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
EXAMPLES = ["saxpy", "dot", "reductions", "particles"]

pytestmark = pytest.mark.skipif(not (shutil.which("rustc") and shutil.which("g++")),
                                reason="needs rustc and g++")

BUFS = """\
struct Pair { lo: f32, hi: f32 }

export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {
    for b in 0..16 { bins[b] = 0 }
    for j in 0..len {
        let k: i32 = to_i32(px[j]) / 16
        bins[k] = bins[k] + 1
    }
}

export func scaled(x: *f32, n: i32, s: f32, out y: *mut f32 [cap: n]) {
    for i in 0..n { y[i] = s * x[i] }
}

export func bounds(x: *f32, n: i32, out mid: *mut f32 [cap: 1], out p: *mut Pair [cap: 1]) -> i32 {
    let mut lo: f32 = x[0]
    let mut hi: f32 = x[0]
    for i in 1..n {
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    }
    mid[0] = (lo + hi) * 0.5
    p[0] = Pair { lo: lo, hi: hi }
    return 7
}

export func iota(out y: *mut i32 [cap: 5], n: i32) {
    for i in 0..n { y[i] = 10 * i }
}

export func add_into(a: *f32, b: *f32, out c: *mut f32, n: i32) {
    for i in 0..n { c[i] = a[i] + b[i] }
}

export func lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t
}

export func blur3(src: *f32, out dst: *mut f32, n: i32) {
    for i in 0..n { dst[i] = src[i] + src[i + 1] + src[i + 2] }
}

export func grid(c: *mut f32, rows: i32, cols: i32) {
    for i in 0..rows {
        for j in 0..cols { c[i * cols + j] = to_f32(i * cols + j) }
    }
}

export func trim(c: *mut f32, n: i32, m: i32) {
    let mut i: i32 = 0
    while i < m - 1 {
        if i < n { c[i] = 0.0 }
        i = i + 1
    }
}

export func any_neg(x: *f64, count: u64) -> bool {
    let mut i: u64 = 0
    while i < count {
        if x[i] < 0.0 { return true }
        i = i + 1
    }
    return false
}
"""

# Every program prints `<key> <values...>`; the inputs follow these formulas.
N = 37        # odd and > 32: vector loops, unrolled loops and scalar tails all run
PARTICLES = 11
MAIN_RS = """\
mod saxpy; mod dot; mod reductions; mod particles; mod bufs;

fn show<T: std::fmt::Debug>(key: &str, v: &[T]) {
    let parts: Vec<String> = v.iter().map(|x| format!("{:?}", x)).collect();
    println!("{} {}", key, parts.join(" "));
}

fn main() {
    let x: Vec<f32> = (0..37).map(|i| ((i * 7) % 13) as f32 * 0.25 - 1.0).collect();
    let y0: Vec<f32> = (0..37).map(|i| ((i * 5) % 11) as f32 * 0.5 - 2.0).collect();
    match std::env::args().nth(1).as_deref() {
        Some("add") => { let mut c = vec![0.0f32; 4]; bufs::add_into(&x[..4], &x[..3], &mut c); return; }
        Some("saxpy") => { let mut y = y0.clone(); saxpy::saxpy(&x[..35], &mut y[..36], 1.0); return; }
        Some("longer") => { let mut y = y0.clone(); saxpy::saxpy(&x, &mut y[..36], 1.0); return; }
        Some("blur") => { let mut d = vec![0.0f32; 4]; bufs::blur3(&x[..5], &mut d); return; }
        Some("grid") => { let mut c = vec![0.0f32; 11]; bufs::grid(&mut c, 3, 4); return; }
        Some("huge") => { let mut c = vec![0.0f32; 11]; bufs::grid(&mut c, i32::MAX, i32::MAX); return; }
        Some("below") => { let mut c = vec![0.0f32; 1]; bufs::trim(&mut c, i32::MIN); return; }
        _ => {}
    }
    let mut y = y0.clone();
    saxpy::saxpy(&x, &mut y, 1.5);
    show("saxpy", &y);
    show("dot", &[dot::dot(&x, &y0)]);
    show("sum", &[reductions::sum_f32(&x)]);
    show("minmax", &[reductions::min_f32(&x), reductions::max_f32(&x)]);
    let mut ps: Vec<particles::Particle> = (0..11).map(|i| particles::Particle {
        x: i as f32, y: -(i as f32), vx: x[i], vy: y0[i] }).collect();
    particles::step(&mut ps, 0.5);
    let flat: Vec<f32> = ps.iter().flat_map(|p| [p.x, p.y, p.vx, p.vy]).collect();
    show("particles", &flat);
    let px: Vec<u8> = (0..100u32).map(|i| ((i * 37) % 256) as u8).collect();
    show("hist16", &bufs::hist16(&px));
    show("scaled", &bufs::scaled(&x, 3.0));
    let (mid, p) = bufs::bounds(&x);
    show("bounds", &[mid.len() as f32, mid[0], p.len() as f32, p[0].lo, p[0].hi]);
    show("iota", &bufs::iota());
    let mut c = vec![0.0f32; 37];
    bufs::add_into(&x, &y0, &mut c);
    show("add_into", &c);
    show("lerp", &[bufs::lerp(1.0, 3.0, 0.25)]);
    show("any_neg", &[bufs::any_neg(&[1.0, 2.0]) as i32, bufs::any_neg(&[1.0, -2.0, 3.0]) as i32]);
    let mut d = vec![0.0f32; 35];
    bufs::blur3(&x, &mut d);
    show("blur3", &d);
    let mut g = vec![0.0f32; 12];
    bufs::grid(&mut g, 3, 4);
    show("grid", &g);
}
"""

MAIN_CPP = """\
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>
#include "saxpy.hpp"
#include "dot.hpp"
#include "reductions.hpp"
#include "particles.hpp"
#include "bufs.hpp"

template <typename T> void show(const char* key, const std::vector<T>& v) {
    std::cout << key;
    for (const T& e : v) std::cout << ' ' << std::setprecision(9) << +e;
    std::cout << '\\n';
}

int main(int argc, char** argv) {
    std::vector<float> x, y0;
    for (int i = 0; i < 37; ++i) {
        x.push_back(((i * 7) % 13) * 0.25f - 1.0f);
        y0.push_back(((i * 5) % 11) * 0.5f - 2.0f);
    }
    if (argc > 1) {
        std::string mode = argv[1];
        std::vector<float> c(4), y = y0;
        try {
            if (mode == "add") ea::add_into(std::span(x).first(4), std::span(x).first(3), c);
            if (mode == "saxpy") ea::saxpy(std::span(x).first(35), std::span(y).first(36), 1.0f);
            if (mode == "longer") ea::saxpy(x, std::span(y).first(36), 1.0f);
            std::vector<float> d(4), g(11);
            if (mode == "blur") ea::blur3(std::span(x).first(5), d);
            if (mode == "grid") ea::grid(g, 3, 4);
            if (mode == "huge") ea::grid(g, INT32_MAX, INT32_MAX);
            if (mode == "below") ea::trim(g, INT32_MIN);
        } catch (const std::invalid_argument& err) {
            std::cout << "caught: " << err.what() << '\\n';
            return 3;
        }
        return 0;
    }
    std::vector<float> y = y0;
    ea::saxpy(x, y, 1.5f);
    show("saxpy", y);
    show("dot", std::vector<float>{ea::dot(x, y0)});
    show("sum", std::vector<float>{ea::sum_f32(x)});
    show("minmax", std::vector<float>{ea::min_f32(x), ea::max_f32(x)});
    std::vector<ea::Particle> ps;
    for (int i = 0; i < 11; ++i) ps.push_back({float(i), -float(i), x[i], y0[i]});
    ea::step(ps, 0.5f);
    std::vector<float> flat;
    for (const auto& p : ps) flat.insert(flat.end(), {p.x, p.y, p.vx, p.vy});
    show("particles", flat);
    std::vector<uint8_t> px;
    for (unsigned i = 0; i < 100; ++i) px.push_back(uint8_t((i * 37) % 256));
    show("hist16", ea::hist16(px));
    show("scaled", ea::scaled(x, 3.0f));
    auto [mid, p] = ea::bounds(x);
    show("bounds", std::vector<float>{float(mid.size()), mid[0], float(p.size()), p[0].lo, p[0].hi});
    show("iota", ea::iota());
    std::vector<float> c(37);
    ea::add_into(x, y0, c);
    show("add_into", c);
    show("lerp", std::vector<float>{ea::lerp(1.0f, 3.0f, 0.25f)});
    std::vector<double> pos{1.0, 2.0}, neg{1.0, -2.0, 3.0};
    show("any_neg", std::vector<int>{ea::any_neg(pos), ea::any_neg(neg)});
    std::vector<float> d(35), g(12);
    ea::blur3(x, d);
    show("blur3", d);
    ea::grid(g, 3, 4);
    show("grid", g);
}
"""


def expected() -> dict[str, list[float]]:
    i = np.arange(N)
    x = ((i * 7) % 13).astype(np.float32) * np.float32(0.25) - np.float32(1.0)
    y0 = ((i * 5) % 11).astype(np.float32) * np.float32(0.5) - np.float32(2.0)
    k = np.arange(PARTICLES, dtype=np.float32)
    px_, py_ = k + x[:PARTICLES] * np.float32(0.5), -k + y0[:PARTICLES] * np.float32(0.5)
    particles = np.stack([px_, py_, x[:PARTICLES], y0[:PARTICLES]], axis=1).ravel()
    px = (np.arange(100) * 37) % 256
    return {
        "saxpy": list(np.float32(1.5) * x + y0),
        "dot": [float(np.dot(x, y0))],
        "sum": [float(x.sum())],
        "minmax": [float(x.min()), float(x.max())],
        "particles": list(particles),
        "hist16": list(np.bincount(px // 16, minlength=16)),
        "scaled": list(np.float32(3.0) * x),
        "bounds": [1, (x.min() + x.max()) / 2, 1, x.min(), x.max()],
        "iota": [0, 10, 20, 30, 40],
        "add_into": list(x + y0),
        "lerp": [1.5],
        "any_neg": [0, 1],
        "blur3": list(x[:-2] + x[1:-1] + x[2:]),
        "grid": list(range(12)),
    }


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A directory with every library, its bindings, and both programs built."""
    tmp = tmp_path_factory.mktemp("bind_rust_cpp")
    for stem in EXAMPLES:
        shutil.copy(ROOT / "examples" / f"{stem}.ea", tmp)
    (tmp / "bufs.ea").write_text(BUFS)
    for stem in EXAMPLES + ["bufs"]:
        # `--lib` writes <stem>.so: `#[link(name = "<stem>.so", modifiers = "+verbatim")]` and `-l:<stem>.so`
        run([str(EA), f"{stem}.ea", "--lib"], tmp)
        bound = run([str(EA), "bind", f"{stem}.ea", "--rust", "--cpp"], tmp)
        unchecked = "warning: bins of hist16 (bufs.ea): length not checked (its index depends on data)\n" \
            if stem == "bufs" else ""
        assert bound.stderr == f"wrote {stem}.rs\nwrote {stem}.hpp\n{unchecked}"
    (tmp / "main.rs").write_text(MAIN_RS)
    (tmp / "main.cpp").write_text(MAIN_CPP)
    rust = subprocess.Popen(["rustc", "--edition", "2021", "-L", ".", "main.rs", "-o", "main_rs",
                             "-C", "link-args=-Wl,-rpath,."], cwd=tmp, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    libs = [f"-l:{stem}.so" for stem in EXAMPLES + ["bufs"]]
    run(["g++", "-std=c++20", "-Wall", "-Wextra", "-Werror", "main.cpp", "-o", "main_cpp", "-L.", *libs,
         "-Wl,-rpath,."], tmp)
    out, err = rust.communicate(timeout=120)
    if rust.returncode != 0:
        pytest.fail(f"rustc failed:\n{out}\n{err}")
    assert "warning" not in err, err
    return tmp


def parse(stdout: str) -> dict[str, list[float]]:
    result = {}
    for line in stdout.splitlines():
        key, *values = line.split()
        result[key] = [float(v) for v in values]
    return result


@pytest.fixture(scope="module")
def outputs(built) -> dict[str, dict[str, list[float]]]:
    return {prog: parse(run([f"./{prog}"], built).stdout) for prog in ("main_rs", "main_cpp")}


@pytest.mark.parametrize("prog", ["main_rs", "main_cpp"])
@pytest.mark.parametrize("key", list(expected()))
def test_results_match_numpy(outputs, prog, key):
    got = outputs[prog]
    assert set(got) == set(expected()), got.keys()
    want = [float(v) for v in expected()[key]]
    assert got[key] == pytest.approx(want, rel=1e-6, abs=1e-6), (prog, key)


# Every array holds at least its extent (outputs/bounds): n for `for i in 0..n` or a kernel's
# `over i in n`, n + 2 for src[i + 2], cols * rows for c[i * cols + j] (computed without wrapping).
MISMATCH = {
    "add": "b: needs at least 4 elements (n), got 3",
    "saxpy": "x: needs at least 36 elements (n), got 35",
    "blur": "src: needs at least 6 elements (n + 2), got 5",
    "grid": "c: needs at least 12 elements (cols * rows), got 11",
    # the index limit comes first: the i32 index cols * rows - 1 would wrap (outputs/bounds/limits.py)
    "huge": "c: cols * rows - 1 = 4611686014132420608 is past the largest i32 (2147483647): an index of c "
            "is computed from it and would wrap around",
    # m - 1 at i32's smallest m is its largest: the loop would run past c (n is c's length)
    "below": "c: m - 1 = -2147483649 is below the smallest i32 (-2147483648): an index of c "
             "is computed from it and would wrap around",
}


def test_longer_arrays_are_accepted(built):
    """As by the reference's loader: a longer input than n is not an error."""
    for prog in ("./main_rs", "./main_cpp"):
        done = run([prog, "longer"], built, check=False)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), prog


@pytest.mark.parametrize("mode", list(MISMATCH))
def test_rust_length_mismatch_panics_naming_the_parameter(built, mode):
    done = run(["./main_rs", mode], built, check=False)
    assert done.returncode == 101, done.stderr
    assert MISMATCH[mode] in done.stderr
    assert "panicked" in done.stderr


@pytest.mark.parametrize("mode", list(MISMATCH))
def test_cpp_length_mismatch_throws_invalid_argument(built, mode):
    done = run(["./main_cpp", mode], built, check=False)
    assert (done.returncode, done.stdout) == (3, f"caught: {MISMATCH[mode]}\n")


def test_generated_files_compile_cleanly_elsewhere(built):
    """The modules build without warnings under edition 2024 too (where
    extern blocks must be `unsafe`), and the headers under -Wpedantic."""
    for stem in EXAMPLES + ["bufs"]:
        done = run(["rustc", "--edition", "2024", "--crate-type", "lib", "--emit", "metadata",
                    "-D", "warnings", "--crate-name", f"check_{stem}", f"{stem}.rs", "--out-dir", "check"], built)
        assert done.stderr == ""
    includes = "".join(f'#include "{s}.hpp"\n' for s in EXAMPLES + ["bufs"])
    (built / "all.cpp").write_text(includes)
    run(["g++", "-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "all.cpp"], built)


def test_wrapper_shapes_in_generated_text(built):
    rs = (built / "bufs.rs").read_text()
    hpp = (built / "bufs.hpp").read_text()
    # cap referencing a collapsed length: the local is bound before the allocation
    # (a length past the parameter's type is refused, not cut short)
    assert ("    let n = i32::try_from(x.len()).unwrap_or_else(|_| panic!(\n"
            "        \"x: {} elements do not fit the kernel's length argument (at most {})\", x.len(), i32::MAX));\n"
            "    let mut y: Vec<f32> = vec![Default::default(); n as usize];\n") in rs
    assert ("    const int32_t n = static_cast<int32_t>(x.size());\n"
            "    std::vector<float> y(static_cast<std::size_t>(n));\n") in hpp
    assert "    if (x.size() > static_cast<std::size_t>(std::numeric_limits<int32_t>::max())) {\n" in hpp
    # a length filled from an output comes after the output is allocated
    assert ("    let mut y: Vec<i32> = vec![Default::default(); 5];\n"
            "    let n = i32::try_from(y.len())") in rs
    # several outputs: a tuple; the scalar return is dropped
    assert "pub fn bounds(x: &[f32]) -> (Vec<f32>, Vec<Pair>) {" in rs
    assert ("[[nodiscard]] inline std::tuple<std::vector<float>, std::vector<Pair>> bounds("
            "std::span<const float> x) {") in hpp
    assert "return std::make_tuple(std::move(mid), std::move(p));" in hpp
    # u64 length, bool return; scalar-only exports get no C++ overload
    assert "let count = u64::try_from(x.len())" in rs
    assert "const uint64_t count = static_cast<uint64_t>(x.size());" in hpp
    assert "pub fn lerp(a: f32, b: f32, t: f32) -> f32 {" in rs
    assert "inline float lerp" not in hpp and "float lerp(float a, float b, float t);" in hpp
    # structs
    assert "#[repr(C)]\n#[derive(Debug, Clone, Copy, PartialEq, Default)]\npub struct Pair {" in rs
    assert "struct Pair {\n    float lo;\n    float hi;\n};" in hpp
    particles = (built / "particles.rs").read_text()
    assert "pub fn step(ps: *mut super::Particle, n: i32, dt: f32);" in particles
    assert "pub fn step(ps: &mut [Particle], dt: f32) {" in particles


def test_header_below_cpp20_stops_with_a_clear_error(built):
    (built / "old.cpp").write_text('#include "bufs.hpp"\nint main() { return 0; }\n')
    done = run(["g++", "-std=c++17", "-fsyntax-only", "old.cpp"], built, check=False)
    assert done.returncode != 0
    assert "#error \"bufs.hpp needs C++20 (std::span): compile with -std=c++20 or newer\"" in done.stderr
    assert done.stderr.count("error:") == 1, done.stderr  # the only message: no cascade from std::span
