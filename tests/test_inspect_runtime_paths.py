"""`ea inspect` lists the machine code's run-time choices with their
conditions: a stream_store's alignment classes (tested once before a
kernel's main loop, which is copied per class, or at each store), LLVM's
overlap test in front of a loop it vectorised, masked loads and stores
expanded into a branch per lane where the target has no instruction."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ea_compiler.analysis import analyze
from ea_compiler.inspect import inspect, render_text
from ea_compiler.inspect.incremental import clear_function_cache, inspect_function
from ea_compiler.options import Options
from inspect_support import AVX2, AVX512, line_of, src

ZEN3 = Options(target_cpu="znver3", stream_threshold=0)  # the code as written: no streaming copy of the main loop (codegen/ntauto.py)
EA = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "ea"

SCALE = src("""
    export kernel scale(x: *f32, out: *mut f32, s: f32)
        over i in n step 8
        tail scalar { out[i] = x[i] * s }
    {
        stream_store(out, i, load_f32x8(x, i) .* splat(s))
    }
""")


def only(text: str, options: Options):
    (fr,) = inspect(text, "k.ea", options).functions
    return fr


def test_stream_store_in_a_kernel_is_decided_once_per_loop():
    fr = only(SCALE, ZEN3)
    line = line_of(SCALE, "stream_store(")
    (path,) = fr.runtime_paths
    assert (path.line, path.source, path.loop_versions) == (line, "codegen", 9)
    assert path.what == "stream_store to out"
    assert path.condition == "the address of out[i] mod 32 (before the loop)"
    assert [when for when, _ in path.paths] == ["32-byte aligned", "4, 8, 12, 16, 20, 24 or 28 mod 32",
                                                "not 4-byte aligned"]
    assert path.paths[0][1] == "one 32-byte non-temporal store"
    assert path.paths[1][1].startswith("one aligned 32-byte non-temporal store per vector")
    assert "movntss/movntsd (SSE4a)" in path.paths[1][1]
    assert path.paths[2][1] == "a plain store (not non-temporal)"
    assert path.decided == ("once per loop: 9 versions of the main loop at lines 4-6; before it, when the arrays "
                            "are apart and no aligned input would lose its alignment, the tail runs on the elements "
                            "before out's next 32-byte boundary (peeled: the tail computes what the body does, "
                            "element by element), so the loop starts there, aligned")
    # the hint names the instructions; the other loops running the body are copies of the main one
    (hint,) = [h for h in fr.hints if h.code == "stream-store"]
    assert hint.message.endswith("the alignment is tested once, before the loop (9 versions of the main loop)")
    assert "movntss" in hint.message and "vmovntps" in hint.message
    assert [lp.role for lp in fr.loops].count("copy") == 8
    main = next(lp for lp in fr.loops if lp.role == "main")
    assert (main.per_iteration.stores, main.mix.get("vector store")) == (1, 1)


def test_runtime_path_in_the_text_and_json():
    report = inspect(SCALE, "k.ea", ZEN3)
    text = render_text(report)
    line = line_of(SCALE, "stream_store(")
    assert (f"  runtime path:         stream_store to out tests the address of out[i] mod 32 (before the loop) "
            f"\u2014 32-byte aligned: one 32-byte non-temporal store; 4, 8,") in text
    assert f"(once per loop: 9 versions of the main loop at lines 4-6; before it, " in text
    assert f"so the loop starts there, aligned) (line {line})" in text
    # the tail's code twice: run first, up to the boundary (the peel), and after the loop
    assert "  loops:                11 (1 main, 8 copies, 2 tail)" in text
    (fn,) = report.to_json()["functions"]
    (path,) = fn["runtime_paths"]
    assert path["line"] == line and path["loop_versions"] == 9 and path["source"] == "codegen"
    assert path["paths"][0] == {"when": "32-byte aligned", "runs": "one 32-byte non-temporal store"}
    assert path["summary"].startswith("non-temporal at every 4-byte-aligned address")
    json.dumps(report.to_json())


def test_the_cli_prints_and_writes_it(tmp_path):
    path = tmp_path / "k.ea"
    path.write_text(SCALE, encoding="utf-8")
    cmd = [str(EA), "inspect", str(path), "--target=haswell"]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "runtime path:         stream_store to out tests the address of out[i] mod 32" in text
    assert "the 4/8-byte ones with movnti" in text  # haswell has no SSE4a
    data = json.loads(subprocess.run(cmd + ["--json"], capture_output=True, text=True, check=True).stdout)
    assert data["functions"][0]["runtime_paths"][0]["loop_versions"] == 9


def test_stream_store_outside_a_kernel_loop_is_tested_at_each_store():
    text = src("""
        export func put(p: *mut f32, i: i32, v: f32x8) {
            stream_store(p, i, v)
        }
    """)
    (path,) = only(text, AVX2).runtime_paths
    assert (path.decided, path.loop_versions, path.condition) == ("at each store", 0, "the address mod 32")
    assert [when for when, _ in path.paths] == ["32-byte aligned", "16 mod 32", "8 or 24 mod 32",
                                                "4, 12, 20 or 28 mod 32", "not 4-byte aligned"]
    assert path.paths[1][1] == "2 non-temporal pieces (16+16 bytes)"
    assert path.paths[3][1] == "4 non-temporal pieces (4+16+8+4 / 4+8+16+4 bytes, the 4/8-byte ones with movnti)"


def test_a_second_output_follows_the_first_at_the_same_misalignment():
    text = src("""
        export kernel split(x: *f32, lo: *mut f32, hi: *mut f32, t: f32)
            over i in n step 8
            tail scalar { lo[i] = min(x[i], t) }
        {
            let v: f32x8 = load(x, i)
            stream_store(lo, i, min(v, splat(t)))
            stream_store(hi, i, max(v, splat(t)))
        }
    """)
    paths = {p.what: p for p in only(text, ZEN3).runtime_paths}
    assert paths["stream_store to lo"].loop_versions == paths["stream_store to hi"].loop_versions == 17
    assert paths["stream_store to hi"].decided.endswith(", when hi is at lo's misalignment; otherwise at each store")


def test_llvm_overlap_test_before_a_vectorised_loop():
    text = src("""
        export func add(a: *f32, b: *f32, out: *mut f32, m: i32) {
            let mut i: i32 = 0
            while i < m {
                out[i] = a[i] + b[i]
                i = i + 1
            }
        }
    """)
    (path,) = only(text, AVX2).runtime_paths
    assert (path.source, path.line) == ("llvm", line_of(text, "while"))
    assert path.condition.startswith("whether the arrays overlap within one vector step (out - a < ")
    assert path.paths[1] == ("overlap", "the scalar loop (mark the pointers *restrict to drop the test)")
    restrict = text.replace("a: *f32, b: *f32, out: *mut f32", "a: *restrict f32, b: *restrict f32, "
                            "out: *restrict mut f32")
    assert only(restrict, AVX2).runtime_paths == []


MASKED = src("""
    export kernel inc(x: *u8, out: *mut u8)
        over i in n step 16
        tail mask {
            let left: i32 = n - i
            let v: u8x16 = load_masked(x, i, left)
            store_masked(out, i, v .+ splat(1), left)
        }
    {
        store(out, i, load_u8x16(x, i) .+ splat(1))
    }
""")


def test_masked_bytes_branch_per_lane_without_avx512bw():
    paths = only(MASKED, AVX2).runtime_paths
    assert {p.what for p in paths} == {"load_masked", "store_masked"}
    for p in paths:
        assert p.line == line_of(MASKED, f"{p.what}(") and p.source == "llvm"
        assert p.decided.startswith("at each lane: ") and "conditional branches" in p.decided
    assert only(MASKED, AVX512).runtime_paths == []


def test_incremental_reports_carry_the_paths_and_follow_moved_code():
    clear_function_cache()
    first = inspect_function(analyze(SCALE, "k.ea", ZEN3), "scale")
    moved = inspect_function(analyze("// moved\n\n" + SCALE, "k.ea", ZEN3), "scale")
    assert [p.line for p in first.runtime_paths] == [line_of(SCALE, "stream_store(")]
    assert [p.line for p in moved.runtime_paths] == [line_of(SCALE, "stream_store(") + 2]
