"""Every output of `ea FILE.ea` with the upstream file names, stderr messages
and contents (TOOLCHAIN.md §1.1, §1.2, §2, §3), run as a subprocess."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import llvmlite.binding as llvm

from .harness import cc, ea

KERNEL = """
func twice(x: f32) -> f32 { return x * 2.0 }
export func scale(p: *mut f32, n: i32, k: f32) {
    foreach (i in 0..n) { p[i] = p[i] * twice(k) }
}
export kernel saxpy(x: *restrict f32, y: *restrict mut f32, a: f32) over i in n step 8
    tail scalar { y[i] = fma(a, x[i], y[i]) }
{
    store(y, i, fma(splat(a), load_f32x8(x, i), load_f32x8(y, i)))
}
"""


def files(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*") if p.is_file()}


def setup(tmp: Path, text: str = KERNEL, name: str = "k.ea") -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run(exe: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, env=env)


def test_default_object(tmp_path):
    setup(tmp_path, name="src/k.ea")
    p = ea("src/k.ea", cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "compiled src/k.ea -> k.o (object, 2 exported: scale, saxpy)\n")
    assert files(tmp_path) == {"src/k.ea", "k.o"}
    nm = subprocess.run(["nm", "-g", "--defined-only", "k.o"], cwd=tmp_path, capture_output=True, text=True)
    assert sorted(line.split()[-1] for line in nm.stdout.splitlines()) == ["saxpy", "scale"]
    setup(tmp_path, "func hidden(x: i32) -> i32 { return x }\n", "none.ea")
    p = ea("none.ea", cwd=tmp_path)
    assert (p.returncode, p.stderr) == (0, "compiled none.ea -> none.o (object)\n")


def test_lib_so_and_metadata(tmp_path):
    setup(tmp_path, name="src/k.ea")
    p = ea("src/k.ea", "--lib", cwd=tmp_path)
    assert (p.returncode, p.stdout) == (0, "")
    assert p.stderr == ("compiled src/k.ea -> k.so (shared library, 2 exported: scale, saxpy)\n"
                        "wrote src/k.ea.json\n")
    assert files(tmp_path) == {"src/k.ea", "src/k.ea.json", "k.so"}  # intermediate k.o deleted
    (tmp_path / "main.c").write_text(r"""#include <stdio.h>
#include <stdint.h>
void scale(float*, int32_t, float); void saxpy(const float*, float*, float, int32_t);
int main(void) {
    float x[11], y[11];
    for (int k = 0; k < 11; k++) { x[k] = k; y[k] = 1; }
    saxpy(x, y, 3.0f, 11);
    scale(y, 11, 0.5f);
    for (int k = 0; k < 11; k++) printf("%g ", y[k]);
    printf("\n");
    return 0;
}
""")
    link = cc("main.c", "-L.", "-l:k.so", "-o", "prog", cwd=tmp_path)
    assert link.returncode == 0, link.stderr
    out = run(tmp_path / "prog", env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path)))
    assert out.stdout == "".join(f"{3 * k + 1:g} " for k in range(11)) + "\n"
    p = ea("src/k.ea", "--lib", "-o", "libk.so", cwd=tmp_path)  # -o names it as given
    assert p.returncode == 0 and (tmp_path / "libk.so").is_file()
    assert p.stderr.startswith("compiled src/k.ea -> libk.so (shared library, ")
    assert '"library": "libk.so",' in (tmp_path / "src/k.ea.json").read_text()


SPEC_JSON_SRC = """struct Pair { lo: f32, hi: f32 }
export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {
    foreach (i in 0..16) { bins[i] = 0 }
    foreach (i in 0..len) {
        let b: i32 = to_i32(px[i]) / 16
        bins[b] = bins[b] + 1
    }
}
export kernel gain(src: *restrict f32, dst: *mut f32, g: f32) over i in n step 8 {
    store(dst, i, load_f32x8(src, i) .* splat(g))
}
"""

# TOOLCHAIN.md §3, verbatim, except the extension fields of an export with pointers (README,
# "Metadata"): "min_lengths" (the extents that are one parameter), "extents" and "extent_terms"
# (the elements each array needs), "unchecked" (the arrays whose need is not provable),
# "index_limits" (the loop's `i + 8 <= n` must not wrap: n + 8 stays in i32), and "parallel"
# (how an export may be split into chunks; hist16 writes bins at data-dependent indices, so it
# may not).
SPEC_JSON = """{
  "library": "img.so",
  "exports": [
    {
      "name": "hist16",
      "args": [{"name": "px", "type": "*u8", "direction": "in", "cap": null, "count": null}, {"name": "len", "type": "i32", "direction": "in", "cap": null, "count": null}, {"name": "bins", "type": "*mut i32", "direction": "out", "cap": "16", "count": null}],
      "return_type": null,
      "min_lengths": {"px": "len"},
      "extents": {"px": "len"},
      "extent_terms": {"px": [[[1, "len"]]]},
      "unchecked": {"bins": "its index depends on data"}
    },
    {
      "name": "gain",
      "args": [{"name": "src", "type": "*restrict f32", "direction": "in", "cap": null, "count": null}, {"name": "dst", "type": "*mut f32", "direction": "in", "cap": null, "count": null}, {"name": "g", "type": "f32", "direction": "in", "cap": null, "count": null}, {"name": "n", "type": "i32", "direction": "in", "cap": null, "count": null}],
      "return_type": null,
      "min_lengths": {"src": "n", "dst": "n"},
      "extents": {"src": "n", "dst": "n"},
      "extent_terms": {"src": [[[1, "n"]]], "dst": [[[1, "n"]]]},
      "index_limits": {"src": [{"index": [[1, "n"], [8]], "max": 2147483647, "type": "i32"}], "dst": [{"index": [[1, "n"], [8]], "max": 2147483647, "type": "i32"}]},
      "parallel": {"length": "n", "granule": 8, "combine": "none", "split": ["src", "dst"]}
    }
  ],
  "structs": [
    {
      "name": "Pair",
      "fields": [{"name": "lo", "type": "f32"}, {"name": "hi", "type": "f32"}]
    }
  ]
}"""


def test_metadata_matches_spec_example_exactly(tmp_path):
    setup(tmp_path, SPEC_JSON_SRC, "img.ea")
    p = ea("img.ea", "--lib", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "img.ea.json").read_text() in (SPEC_JSON, SPEC_JSON + "\n")


def test_metadata_annotations_types_and_empty_lists(tmp_path):
    setup(tmp_path, """const K: i32 = 4
export func blur(rows: **f32, w: i32, h: i32, out o: *restrict mut f32 [cap: w*h, count: w * (h + 1)]) -> f32 {
    return 0.0
}
export func hk(v: *restrict u8, out r: *mut u8 [cap: K+1]) -> u8 { return v[0] }
""", "m.ea")
    p = ea("m.ea", "--lib", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    expected = """{
  "library": "m.so",
  "exports": [
    {
      "name": "blur",
      "args": [{"name": "rows", "type": "**f32", "direction": "in", "cap": null, "count": null}, {"name": "w", "type": "i32", "direction": "in", "cap": null, "count": null}, {"name": "h", "type": "i32", "direction": "in", "cap": null, "count": null}, {"name": "o", "type": "*restrict mut f32", "direction": "out", "cap": "w * h", "count": "w * ( h + 1 )"}],
      "return_type": "f32",
      "extents": {},
      "extent_terms": {}
    },
    {
      "name": "hk",
      "args": [{"name": "v", "type": "*restrict u8", "direction": "in", "cap": null, "count": null}, {"name": "r", "type": "*mut u8", "direction": "out", "cap": "K + 1", "count": null}],
      "return_type": "u8",
      "extents": {"v": "1"},
      "extent_terms": {"v": [[[1]]]}
    }
  ],
  "structs": [
  ]
}"""
    assert (tmp_path / "m.ea.json").read_text() in (expected, expected + "\n")


def test_executable(tmp_path):
    setup(tmp_path, 'export func sq(x: i32) -> i32 { return x * x }\nfunc main() {\n    println(sq(12))\n'
                    '    println("done")\n}\n')
    p = ea("k.ea", "-o", "prog", cwd=tmp_path)
    assert (p.returncode, p.stderr) == (0, "compiled k.ea -> prog (executable, 1 exported: sq)\n")
    assert files(tmp_path) == {"k.ea", "prog"}
    r = run(tmp_path / "prog")
    assert (r.returncode, r.stdout) == (0, "144\ndone\n")


HEADER_SRC = """struct Pair { lo: f32, hi: f32 }
struct Px {
    r: u8
    g: i16
    p: *mut i32
    q: Pair
}
export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {
    foreach (i in 0..16) { bins[i] = 0 }
}
func helper(x: f32) -> f32 { return x * 2.0 }
export kernel gain(src: *restrict f32, dst: *mut f32, g: f32) over i in n step 8 tail pad {
    store(dst, i, load_f32x8(src, i) .* splat(helper(g)))
}
export func pick(ps: *Pair, k: i32, flag: bool, big: u64, w: *restrict mut Px, d: f64) -> i64 {
    return to_i64(ps[k].hi)
}
"""

HEADER = """/* Generated by Ea compiler */
#ifndef IMG_KIT_H
#define IMG_KIT_H

#include <stdint.h>

struct Pair {
    float lo;
    float hi;
};

struct Px {
    uint8_t r;
    int16_t g;
    int32_t* p;
    struct Pair q;
};

void hist16(const uint8_t* px, int32_t len, int32_t* bins);
void gain(const float* src, float* dst, float g, int32_t n);
int64_t pick(const struct Pair* ps, int32_t k, _Bool flag, uint64_t big, struct Px* w, double d);

#endif /* IMG_KIT_H */
"""


def test_header_exact_text_and_c_compiles(tmp_path):
    setup(tmp_path, HEADER_SRC, "img-kit.ea")
    p = ea("img-kit.ea", "--header", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "wrote img-kit.h\ncompiled img-kit.ea -> img-kit.o (object, 3 exported: hist16, gain, pick)\n"
    assert files(tmp_path) == {"img-kit.ea", "img-kit.h", "img-kit.o"}
    assert (tmp_path / "img-kit.h").read_text() == HEADER
    (tmp_path / "use.c").write_text("""#include "img-kit.h"
#include "img-kit.h"
int64_t use(void) {
    uint8_t px[4] = {1, 2, 3, 4}; int32_t bins[16]; float s[8] = {0}, d[8];
    struct Pair ps[2] = {{1.0f, 2.0f}, {3.0f, 4.0f}}; struct Px w = {0};
    hist16(px, 4, bins);
    gain(s, d, 2.0f, 8);
    return pick(ps, 1, 1, 5u, &w, 0.5);
}
""")
    c = cc("-c", "-Wall", "-Werror", "use.c", "-o", "use.o", cwd=tmp_path)
    assert c.returncode == 0, c.stderr
    link = cc("use.o", "img-kit.o", "-shared", "-o", "both.so", cwd=tmp_path)
    assert link.returncode == 0, link.stderr


def test_header_lists_both_cfg_variants_and_the_message_what_the_object_holds(tmp_path):
    setup(tmp_path, "#[cfg(x86_64)]\nexport func plat() -> i32 { return 1 }\n"
                    "#[cfg(aarch64)]\nexport func plat() -> i32 { return 2 }\n", "c.ea")
    p = ea("c.ea", "--header", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "c.h").read_text().count("int32_t plat(void);") == 2 or \
        (tmp_path / "c.h").read_text().count("int32_t plat();") == 2
    assert "(object, 1 exported: plat)" in p.stderr


def test_emit_llvm(tmp_path):
    setup(tmp_path)
    p = ea("k.ea", "--emit-llvm", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert files(tmp_path) == {"k.ea", "k.ll"}
    assert (tmp_path / "k.ll").read_text() == p.stdout
    assert re.search(r"define .*@\"?saxpy\"?\(", p.stdout)
    assert "alloca" not in p.stdout
    p0 = ea("k.ea", "--emit-llvm", "--opt-level=0", cwd=tmp_path)
    assert p0.returncode == 0 and p0.stdout != p.stdout and "alloca" in p0.stdout
    assert (tmp_path / "k.ll").read_text() == p0.stdout
    po = ea("k.ea", "--emit-llvm", "-o", "out.ir", cwd=tmp_path)
    assert po.returncode == 0 and (tmp_path / "out.ir").read_text() == po.stdout == p.stdout
    # --emit-llvm wins over --emit-asm and the normal build.
    pb = ea("k.ea", "--emit-asm", "--emit-llvm", "--lib", cwd=tmp_path)
    assert pb.returncode == 0 and files(tmp_path) == {"k.ea", "k.ll", "out.ir"}


def test_emit_asm(tmp_path):
    setup(tmp_path)
    p = ea("k.ea", "--emit-asm", cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "wrote k.s\n")
    assert files(tmp_path) == {"k.ea", "k.s"}
    text = (tmp_path / "k.s").read_text()
    assert re.search(r"^saxpy:", text, re.M) and re.search(r"^scale:", text, re.M)
    assert re.search(r"\bvfmadd\w+\s.*%ymm", text)  # f32x8 fma on an AVX2 host
    p = ea("k.ea", "--emit-asm", "-o", "x.asm", "--lib", cwd=tmp_path)
    assert (p.returncode, p.stderr) == (0, "wrote x.asm\n")
    assert files(tmp_path) == {"k.ea", "k.s", "x.asm"}


def test_unwritable_output_is_an_error_not_a_traceback(tmp_path):
    """§1: any failure exits 1 with an `error...` line; the CLI never shows a traceback."""
    setup(tmp_path)
    for flags in (("--emit-asm", "-o", "nodir/x.s"), ("--emit-llvm", "-o", "nodir/x.ll"),
                  ("--lib", "-o", "nodir/x.so"), ("-o", "nodir/prog")):
        p = ea("k.ea", *flags, cwd=tmp_path)
        assert p.returncode == 1, (flags, p.returncode)
        assert p.stderr.startswith("error") and "Traceback" not in p.stderr, (flags, p.stderr)


def test_target_flags_change_code(tmp_path):
    setup(tmp_path, "export func add16(a: *f32, o: *mut f32) {\n"
                    "    let v: f32x16 = load(a, 0)\n    store(o, 0, v .+ v)\n}\n")
    plain = ea("k.ea", "--emit-asm", "--target=skylake", "-o", "a.s", cwd=tmp_path)
    wide = ea("k.ea", "--emit-asm", "--target=skylake", "--avx512", "-o", "b.s", cwd=tmp_path)
    assert plain.returncode == wide.returncode == 0
    assert "zmm" not in (tmp_path / "a.s").read_text() and "ymm" in (tmp_path / "a.s").read_text()
    assert "zmm" in (tmp_path / "b.s").read_text()
    setup(tmp_path, "export func f(a: *f32, o: *mut f32) { store(o, 0, load(a, 0) .+ load(a, 4)) }\n", "f.ea")
    arm = ea("f.ea", "--target-triple=aarch64-unknown-linux-gnu", cwd=tmp_path)
    assert arm.returncode == 0, arm.stderr
    header = (tmp_path / "f.o").read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == 183  # EM_AARCH64


def test_print_target_version_help(tmp_path):
    p = ea("--print-target", cwd=tmp_path)
    llvm.initialize_native_target()
    assert (p.returncode, p.stdout, p.stderr) == (0, llvm.get_host_cpu_name() + "\n", "")
    v = ea("--version", cwd=tmp_path)
    assert v.returncode == 0 and re.fullmatch(r"ea \d+\.\d+\.\d+\n", v.stdout) and v.stderr == ""
    assert ea("-V", cwd=tmp_path).stdout == v.stdout
    h = ea("--help", cwd=tmp_path)
    assert h.returncode == 0 and h.stdout == "" and "usage" in h.stderr
    n = ea(cwd=tmp_path)
    assert n.returncode == 1 and n.stdout == "" and "usage" in n.stderr


def test_command_line_errors(tmp_path):
    setup(tmp_path)
    cases = [
        (("k.ea", "--frobnicate"), "error: unknown option '--frobnicate'\n"),
        (("k.ea", "--opt-level=7"), "error: --opt-level must be 0, 1, 2, or 3\n"),
        (("k.ea", "--avx512", "--target-triple=aarch64-unknown-linux-gnu"),
         "error: --avx512 is incompatible with ARM target\n"),
        (("k.ea", "--i8mm"), "error: --i8mm is only valid for AArch64 targets\n"),
        (("k.ea", "--fp16"), "error[codegen]: --fp16 is incompatible with non-ARM target\n"),
        (("k.ea", "--fp16", "--target-triple=x86_64-unknown-linux-gnu"),
         "error[codegen]: --fp16 is incompatible with non-ARM target\n"),
        # LLVM would abort the process on these: they are probed in a child first
        (("k.ea", "--target=i386"), "error[codegen]: --target=i386: LLVM cannot generate code for this target: "
                                    "64-bit code requested on a subtarget that doesn't support it!\n"),
        (("k.ea", "--target=nosuchcpu"), "error[codegen]: --target=nosuchcpu: LLVM cannot generate code for this "
         "target: 'nosuchcpu' is not a recognized processor for this target (ignoring processor); "
         "64-bit code requested on a subtarget that doesn't support it!\n"),
    ]
    for args, message in cases:
        p = ea(*args, cwd=tmp_path)
        assert (p.returncode, p.stdout, p.stderr) == (1, "", message), args
    assert files(tmp_path) == {"k.ea"}
    p = ea("missing.ea", cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.startswith("error: cannot read 'missing.ea': ")
    d = ea("k.ea", "--dotprod", cwd=tmp_path)  # not rejected by the driver on x86
    assert d.returncode == 0, d.stderr


def test_type_error_writes_nothing(tmp_path):
    setup(tmp_path, "struct S { a: i32 }\nexport func f(x: i32) -> f32 {\n    let h: f32 = x\n    return h\n}\n")
    for flags in ((), ("--lib",), ("--header",), ("-o", "prog"), ("--emit-llvm",), ("--emit-asm",)):
        p = ea("k.ea", *flags, cwd=tmp_path)
        assert p.returncode == 1, flags
        assert p.stdout == ""
        assert p.stderr.startswith("k.ea:3:18  error[type]: cannot initialize 'h' of type f32 with i32. "
                                   "Use to_f32() to convert\n"), p.stderr
        assert files(tmp_path) == {"k.ea"}, flags
