"""`ea inspect` on the command line (TOOLCHAIN.md §6 layout, `--json`,
errors), `ea FILE --emit-asm --annotate`, and the `inspect()` cache.
The CLI runs in-process through `ea_compiler.cli.main.main(argv)`; one test
runs the real executable for the exit status and streams."""
from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from ea_compiler.cli.main import main
from ea_compiler.inspect import InspectError, clear_report_cache, inspect
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"

FMA8 = textwrap.dedent("""\
    export kernel k(a: *restrict f32, b: *restrict f32, out: *restrict mut f32)
        over i in n step 8
    {
        let va: f32x8 = load(a, i)
        let vb: f32x8 = load(b, i)
        let vo: f32x8 = load(out, i)
        store(out, i, fma(va, vb, vo))
    }
""")
FMA4 = FMA8.replace("f32x8", "f32x4").replace("step 8", "step 4")
TWO = textwrap.dedent("""\
    export func scale(x: *restrict f32, out: *restrict mut f32, n: i32) {
        let mut i: i32 = 0
        while i + 8 <= n {
            store(out, i, load_f32x8(x, i) .* splat(2.0))
            i = i + 8
        }
    }

    export func first(x: *f32) -> f32 {
        return x[0]
    }
""")
BAD = "export func f(x: i32) -> f32 {\n    return x\n}\n"


def run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.ea").write_text(FMA8)
    (tmp_path / "k4.ea").write_text(FMA4)
    (tmp_path / "two.ea").write_text(TWO)
    (tmp_path / "bad.ea").write_text(BAD)
    return tmp_path


# ---- text report ------------------------------------------------------------------

def test_text_layout(tmp, capsys):
    code, out, err = run(["inspect", "k.ea", "--target=haswell"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:9] == [
        "=== k (exported) ===",
        "  vector instructions:  4",
        "  scalar instructions:  9",
        "  loads:                3",
        "  stores:               1",
        "  FMA operations:       1",
        "  vector width:         256-bit (f32x8)",
        "  loops:                1",
        "  vector registers:     ymm0, ymm1 (2 used)",
    ]
    # Every `label: value` line of the header puts its value in column 24.
    for ln in lines[1:]:
        if not ln.strip():
            break
        label, _, _ = ln.partition(":")
        assert re.fullmatch(r"  [A-Za-z ]+", label), ln
        assert ln[23] == " " and ln[24] != " ", ln
    assert out.endswith("\n")


def test_text_hint_lines(tmp, capsys):
    _, out, _ = run(["inspect", "k4.ea", "--target=haswell"], capsys)
    hints = [ln for ln in out.splitlines() if ln.startswith("  hint:")]
    assert "  hint:                 using 128-bit vectors \u2014 f32x8/i32x8 may double throughput on AVX2" \
        in [h.split(" (line")[0] for h in hints]


def test_text_optional_lines_left_out(tmp, capsys):
    _, out, _ = run(["inspect", "two.ea", "--target=haswell"], capsys)
    blocks = out.rstrip("\n").split("\n\n=== ")
    assert out.startswith("=== scale (exported) ===\n")
    first = [b for b in blocks if b.startswith("first (exported)")]
    assert len(first) == 1
    body = first[0]
    assert "FMA operations:" not in body and "vector width:" not in body and "hint:" not in body
    assert "  loops:                0" in body.splitlines()


def test_functions_separated_by_blank_line(tmp, capsys):
    _, out, _ = run(["inspect", "two.ea", "--target=haswell"], capsys)
    heads = [n for n, ln in enumerate(out.splitlines()) if ln.startswith("=== ")]
    assert len(heads) == 2
    assert out.splitlines()[heads[1] - 1] == ""


def test_avx512_flag(tmp, capsys):
    (tmp / "k16.ea").write_text(FMA8.replace("f32x8", "f32x16").replace("step 8", "step 16"))
    _, out, _ = run(["inspect", "k16.ea", "--target=skylake-avx512", "--avx512"], capsys)
    assert "  vector width:         512-bit (f32x16)" in out.splitlines()
    assert "  vector registers:     zmm0, zmm1 (2 used)" in out.splitlines()


def test_aarch64_report(tmp, capsys):
    code, out, _ = run(["inspect", "k4.ea", "--target-triple=aarch64-unknown-linux-gnu"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert "  FMA operations:       1" in lines
    assert "  vector width:         128-bit (f32x4)" in lines
    regs = next(ln for ln in lines if ln.startswith("  vector registers:"))
    assert "q0" in regs and "v0" in regs and "xmm" not in regs


# ---- --json -----------------------------------------------------------------------

def test_json(tmp, capsys):
    code, out, _ = run(["inspect", "k.ea", "--target=haswell", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    (fn,) = data["functions"]
    assert fn["name"] == "k" and fn["exported"] is True
    assert fn["vector_width"] == "256-bit (f32x8)"
    assert fn["counts"]["fma"] == 1 and fn["counts"]["loads"] == 3
    (loop,) = fn["loops"]
    assert loop["role"] == "main" and loop["elements_per_iteration"] == 8
    assert loop["per_iteration"]["bytes_loaded"] + loop["per_iteration"]["bytes_stored"] == 128
    assert loop["bottleneck"] in ("memory-bound", "compute-bound", "mixed", "latency-bound")
    # per line, keyed by the line number as a string
    store = fn["lines"]["7"]
    assert store["line"] == 7 and store["counts"]["fma"] == 1 and store["counts"]["stores"] == 1
    assert isinstance(store["summary"], str) and isinstance(store["mix"], dict)
    assert {"code", "message", "line"} <= set(fn["hints"][0])


def test_json_matches_api(tmp, capsys):
    _, out, _ = run(["inspect", "k.ea", "--target=haswell", "--json"], capsys)
    api = inspect(FMA8, "k.ea", Options(target_cpu="haswell"), predict=True).to_json()  # the CLI predicts
    assert json.loads(out)["functions"] == json.loads(json.dumps(api))["functions"]


# ---- errors ---------------------------------------------------------------------

def test_unknown_option(tmp, capsys):
    code, out, err = run(["inspect", "k.ea", "--x"], capsys)
    assert code == 1 and out == ""
    assert err == "error: unknown inspect option '--x'\n"


def test_no_file_prints_usage(tmp, capsys):
    code, out, err = run(["inspect"], capsys)
    assert code == 1 and out == ""
    assert err.startswith("usage: ea inspect <file.ea>")


def test_type_error(tmp, capsys):
    code, out, err = run(["inspect", "bad.ea", "--target=haswell"], capsys)
    assert code == 1 and out == ""
    assert "bad.ea:2:12" in err and "error[type]" in err and "returns i32 but expected f32" in err


def test_type_error_process(tmp):
    r = subprocess.run([str(EA), "inspect", "bad.ea"], cwd=tmp, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    assert r.returncode == 1 and r.stdout == ""
    assert "error[type]" in r.stderr and "Traceback" not in r.stderr


def test_inspect_error_api():
    with pytest.raises(InspectError) as info:
        inspect(BAD, "bad.ea", Options(target_cpu="haswell"))
    assert info.value.diagnostics
    assert "returns i32 but expected f32" in info.value.diagnostics[0].message


# ---- --emit-asm --annotate --------------------------------------------------------

ANNOTATION = re.compile(r"^(#|//) +(\d+) \| (.*)$")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s")


def annotated(path: Path, comment: str, source: str) -> list[tuple[int, int]]:
    """(annotated line, .loc line that follows) pairs, checking each comment's text."""
    src_lines = source.splitlines()
    lines = path.read_text().splitlines()
    pairs = []
    for n, ln in enumerate(lines):
        m = ANNOTATION.match(ln)
        if not m:
            continue
        assert m.group(1) == comment, ln
        line = int(m.group(2))
        assert m.group(3) == src_lines[line - 1].rstrip(), ln
        following = next(LOC.match(x) for x in lines[n + 1:] if LOC.match(x))
        pairs.append((line, int(following.group(1))))
        # an instruction of that line comes before the next annotation
        rest = lines[n + 1:]
        stop = next((k for k, x in enumerate(rest) if ANNOTATION.match(x)), len(rest))
        assert any(x.startswith("\t") and not x.lstrip().startswith(".") for x in rest[:stop]), ln
    return pairs


def test_annotate_x86(tmp, capsys):
    code, _, err = run(["k.ea", "--emit-asm", "--annotate", "--target=haswell"], capsys)
    assert code == 0 and "wrote k.s" in err
    pairs = annotated(tmp / "k.s", "#", FMA8)
    assert pairs and all(a == b for a, b in pairs)
    shown = {a for a, _ in pairs}
    assert {2, 4, 5, 7} <= shown  # loop control, two loads, FMA + store
    text = (tmp / "k.s").read_text()
    assert re.search(r"#    7 \|     store\(out, i, fma\(va, vb, vo\)\)\n\t\.loc\t1 7 \d+.*\n\tvfmadd213ps", text)


def test_annotate_aarch64(tmp, capsys):
    code, _, _ = run(["k4.ea", "--emit-asm", "--annotate", "--target-triple=aarch64-unknown-linux-gnu"], capsys)
    assert code == 0
    pairs = annotated(tmp / "k4.s", "//", FMA4)
    assert pairs and all(a == b for a, b in pairs)


def test_emit_asm_without_annotate_has_no_source(tmp, capsys):
    run(["k.ea", "--emit-asm", "--target=haswell"], capsys)
    assert not any(ANNOTATION.match(ln) for ln in (tmp / "k.s").read_text().splitlines())


# ---- cache ------------------------------------------------------------------------

def test_cache_same_object():
    clear_report_cache()
    opts = Options(target_cpu="haswell")
    first = inspect(FMA8, "k.ea", opts)
    assert inspect(FMA8, "k.ea", Options(target_cpu="haswell")) is first
    assert inspect(FMA8.encode(), "k.ea", opts) is first


def test_cache_keyed_by_options_text_and_path():
    opts = Options(target_cpu="haswell")
    first = inspect(FMA8, "k.ea", opts)
    others = [
        inspect(FMA8, "k.ea", Options(target_cpu="haswell", opt_level=2)),
        inspect(FMA8, "k.ea", Options(target_cpu="skylake")),
        inspect(FMA8 + "\n", "k.ea", opts),
        inspect(FMA8, "other.ea", opts),
    ]
    assert all(o is not first for o in others)
    assert len({id(o) for o in others}) == len(others)


def test_clear_cache():
    opts = Options(target_cpu="haswell")
    first = inspect(FMA8, "k.ea", opts)
    clear_report_cache()
    again = inspect(FMA8, "k.ea", opts)
    assert again is not first
    assert again.functions[0].counts == first.functions[0].counts
