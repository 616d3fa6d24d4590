"""Robustness: no input may crash the front end.

Any byte sequence yields diagnostics whose spans lie inside the file (or a
file-level error), never a traceback, a RecursionError or an "internal"
diagnostic. Property tests run `analyze` (with EA_DEBUG=1 so compiler bugs
raise) and the unguarded `--emit-tokens` / `--emit-ast` path on random bytes,
random token streams, mutated examples and random intrinsic calls; the CLI
tests feed pathological files to the real `ea` executable. Tests named after
a defect (else-if ladder, kernel return, struct cycles, ...) pin down findings.
EA_FUZZ_EXAMPLES=5000 pytest tests/test_robustness.py  hunts longer.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ea_compiler import analyze, intrinsics, Options, render_all
from ea_compiler.ast_outline import ast_outline
from ea_compiler.diagnostics import DiagnosticSink
from ea_compiler.source import SourceFile
from ea_compiler.syntax.lexer import lex, token_dump
from ea_compiler.syntax.parser import parse

ROOT = Path(__file__).resolve().parent.parent
EA = ROOT / ".venv" / "bin" / "ea"
EXAMPLES = {p.name: p.read_bytes() for p in sorted((ROOT / "examples").glob("*.ea"))}
N_EXAMPLES = int(os.environ.get("EA_FUZZ_EXAMPLES", "250"))
FUZZ = settings(max_examples=N_EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Diagnostics allowed without a span: the "N more errors not shown" summary.
SPANLESS_OK = {"too-many-errors"}


# ---- invariants ---------------------------------------------------------------------------

@contextmanager
def ea_debug():
    old = os.environ.get("EA_DEBUG")
    os.environ["EA_DEBUG"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["EA_DEBUG"]
        else:
            os.environ["EA_DEBUG"] = old


def _char_col(data: bytes, line_start: int, offset: int) -> int:
    """1-based character column: bytes that are not UTF-8 continuation bytes."""
    return sum(1 for b in data[line_start:offset] if not 0x80 <= b <= 0xBF) + 1


def check_span(data: bytes, span, what: str) -> None:
    n = len(data)
    lines = data.count(b"\n") + 1
    assert 0 <= span.start <= span.end <= n, f"{what}: offsets {span!r} outside 0..{n}"
    assert 1 <= span.line <= span.end_line <= lines, f"{what}: lines {span!r} outside 1..{lines}"
    assert span.line == data.count(b"\n", 0, span.start) + 1, f"{what}: wrong start line {span!r}"
    assert span.end_line == data.count(b"\n", 0, span.end) + 1, f"{what}: wrong end line {span!r}"
    start_of_line = data.rfind(b"\n", 0, span.start) + 1
    assert span.col == _char_col(data, start_of_line, span.start), f"{what}: wrong column {span!r}"
    end_line_start = data.rfind(b"\n", 0, span.end) + 1
    assert span.end_col == _char_col(data, end_line_start, span.end), f"{what}: wrong end column {span!r}"


def check_front_end(data: bytes, path: str = "fuzz.ea", options: Options | None = None):
    """Run everything the CLI runs on `data` and check the invariants."""
    with ea_debug():
        result = analyze(data, path, options or Options())
    for d in result.diagnostics:
        assert d.kind != "internal", f"internal compiler error: {d.message}"
        # Inputs here are small: hitting the recursion limit means unbounded recursion.
        assert d.code != "too-complex", f"RecursionError on a {len(data)}-byte input"
        if d.span is None:
            assert d.code in SPANLESS_OK, f"diagnostic without a location: {d.code}: {d.message}"
        else:
            check_span(data, d.span, f"{d.code} '{d.message}'")
        for label in d.labels:
            check_span(data, label.span, f"label of {d.code}")
        for s in d.suggestions:
            check_span(data, s.span, f"suggestion of {d.code}")
        assert d.message.strip()
    render_all(result.diagnostics, result.source, path)
    json.dumps([d.to_json() for d in result.diagnostics])
    # Tokens: in order, non-overlapping, ending with Eof at the end of the file.
    prev_end = 0
    for tok in result.tokens:
        assert prev_end <= tok.start, f"token {tok!r} overlaps the previous one"
        check_span(data, tok, f"token {tok!r}")
        prev_end = tok.end
    assert result.tokens and result.tokens[-1].kind == "Eof" and result.tokens[-1].start == len(data)
    # `ea FILE --emit-tokens` / `--emit-ast` call lex and parse without analyze's safety net.
    sink = DiagnosticSink()
    source = SourceFile(path, data)
    tokens = lex(source, sink)
    token_dump(tokens)
    ast_outline(parse(tokens, sink))
    render_all(sink.items, source, path)
    return result


# ---- (a) random bytes ------------------------------------------------------------------

@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data):
    check_front_end(data)


@FUZZ
@given(st.text(max_size=200))
def test_random_text(text):
    data = text.encode("utf-8", "surrogatepass")
    result = check_front_end(data)
    with ea_debug():  # the str entry point (editors) gives the same result as the bytes one
        same = analyze(text, "fuzz.ea", Options())
    assert [(d.code, d.span) for d in same.diagnostics] == [(d.code, d.span) for d in result.diagnostics]


# ---- (b) random token streams ----------------------------------------------------------

KEYWORDS = ("func export return let mut if else while true false struct splat restrict foreach "
            "in unroll const for i8 u8 i16 u16 i32 i64 f16 f32 f64 bool").split()
VECTOR_TYPES = ("f32x4 i32x4 i8x16 u8x16 i16x8 f64x2 u16x8 u32x4 u64x2 f32x8 i32x8 i8x32 i16x16 "
                "u8x32 f64x4 u16x16 u64x4 f32x16 i32x16 i8x64 u8x64 i16x32 u64x8 u16x32 i8x8 "
                "u8x8 i16x4 u16x4 i32x2 i8x4 f16x4 f16x8").split()
CONTEXTUAL = ("kernel over step tail scalar mask pad out cap count static_assert cfg x86_64 "
              "aarch64 u32 u64").split()
IDENTS = ("x y n i j p q a b v acc main S Particle f32x2 f64x8 load store splat fma reduce_add "
          "select shuffle min max to_f32 load_f32x8 load_masked store_masked println sqrt "
          "movemask gather widen_u8_f32x4 sat_add abs").split()
NUMBERS = ("0 1 2 8 255 007 0x1F 0xFFFFFFFF 0b101 0b 0x 0X1F 1.5 .5 1. 1e-6 -1 -0.0 "
           "9223372036854775807 9223372036854775808 99999999999999999999999 1.0e").split()
OPERATORS = ("+ - * / % = == != < > <= >= && || ! .+ .- .* ./ .== .!= .< .> .<= .>= .& .| .^ "
             ".<< .>> & | ^ << >> : , -> ( ) { } [ ] . .. # += ++ ~ ...").split()
ODD = [";", "@", "$", "`", "\\", "'", "é", "λ", "\u200b", "\x00", "\x7f", '"', '"str"',
       '"multi\nline"', '""', "// comment", "//", "#[cfg(x86_64)]", "#[cfg(arm)]", "\xff"]
VOCAB = KEYWORDS + VECTOR_TYPES + CONTEXTUAL + IDENTS + NUMBERS + OPERATORS + ODD
SPACES = st.sampled_from(["", " ", " ", "  ", "\n", "\n    ", "\t", "\r\n", " // c\n"])
HEADERS = ["", "func f(x: i32, v: f32x8, p: *mut f32, s: S) -> i32 {\n",
           "export kernel k(a: *f32, o: *mut f32) over i in n step 8 tail mask {\n",
           "struct S { a: f32 }\nconst N: i32 = 4\nfunc g(p: *mut S, n: i32) -> f32x4 {\n"]


@st.composite
def token_streams(draw):
    words = draw(st.lists(st.sampled_from(VOCAB), max_size=120))
    out = [draw(st.sampled_from(HEADERS))]
    for w in words:
        out.append(w)
        out.append(draw(SPACES))
    if out[0] and draw(st.booleans()):
        out.append("\n}\n")
    return "".join(out).encode("utf-8", "surrogatepass")


@FUZZ
@given(token_streams())
def test_random_token_streams(data):
    check_front_end(data)


# ---- (c) mutated examples --------------------------------------------------------------

def _chunks(data: bytes) -> list[bytes]:
    """The file as token-sized chunks: each token with the text that follows it."""
    tokens = lex(SourceFile("x.ea", data), DiagnosticSink())
    starts = [0] + [t.start for t in tokens[1:-1]] + [len(data)]
    return [data[a:b] for a, b in zip(starts, starts[1:])]


CHUNKS = {name: _chunks(data) for name, data in EXAMPLES.items()}
ALL_CHUNKS = [c for chunks in CHUNKS.values() for c in chunks]


@st.composite
def mutated_examples(draw):
    chunks = list(CHUNKS[draw(st.sampled_from(sorted(CHUNKS)))])
    for _ in range(draw(st.integers(1, 4))):
        n = len(chunks)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 12)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "vocab"]))
        if op == "delete":
            del chunks[i:j]
        elif op == "insert":
            chunks[i:i] = draw(st.lists(st.sampled_from(ALL_CHUNKS), min_size=1, max_size=8))
        elif op == "duplicate":
            k = draw(st.integers(0, n))
            chunks[k:k] = chunks[i:j] * draw(st.integers(1, 3))
        elif op == "swap" and j < n:
            chunks[i], chunks[j] = chunks[j], chunks[i]
        else:
            words = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4))
            chunks[i:i] = [(w + " ").encode() for w in words]
    return b"".join(chunks)


@FUZZ
@given(mutated_examples())
def test_mutated_examples(data):
    check_front_end(data)


# ---- (d) near-valid programs: random intrinsic calls on typed operands -------------------

PRELUDE = (
    "struct S { x: f32, v: f32x4 }\nconst N: i32 = 4\n"
    "func h(a: f32, b: i32, c: u8, d: f64, e: i16, w: u32, va: f32x4, vb: f32x8, vi: i32x4,\n"
    "       vu: u8x16, vw: i16x8, vd: f64x2, vh: i8x16, vz: f32x16, p: *f32, q: *mut f32,\n"
    "       pi: *mut i32, pu: *u8, pp: **f32, s: S, ps: *mut S, m: bool) -> f32 {\n")
OPERANDS = ("a b c d e w va vb vi vu vw vd vh vz p q pi pu pp s ps m N s.x s.v ps[0] p[b] va[0] "
            "0 1 7 255 -3 1.5 -0.5 true \"msg\" [0,1,2,3] [3,2,1,0,7,6,5,4] [1.0,2.0,3.0,4.0]f32x4 "
            "splat(1.0) splat(b) va.>va vi.==vi (a) -a !m").split()
LET_TYPES = "f32 i32 u8 i64 f64 bool f32x4 f32x8 i32x4 u8x16 i16x8 u16x8 f64x2 *f32 S".split()


@st.composite
def typed_calls(draw):
    arity = {name: len(intrinsics.TABLE[name].params) for name in intrinsics.names()}
    arity.update({"load_f32x8": 2, "load_u8x16": 2, "load_i32x16": 2, "h": 22, "nosuch": 1})
    names = sorted(arity)

    def expr(depth: int) -> str:
        if depth > 0 and draw(st.integers(0, 2)) == 0:
            name = draw(st.sampled_from(names))
            n = arity[name] if draw(st.integers(0, 3)) else draw(st.integers(0, 4))
            args = [expr(depth - 1) for _ in range(n)]
            return f"{name}({', '.join(args)})"
        left = draw(st.sampled_from(OPERANDS))
        if draw(st.integers(0, 4)) == 0:
            op = draw(st.sampled_from(["+", ".+", ".*", "*", ".<<", "&", "==", ".<", "&&", "%"]))
            return f"{left} {op} {expr(depth - 1)}"
        return left

    lines = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.integers(0, 5))
        value = expr(2)
        if kind == 0:
            lines.append(f"let r: {draw(st.sampled_from(LET_TYPES))} = {value}")
        elif kind == 1:
            lines.append(f"q[{draw(st.sampled_from(['0', 'b', 'c', 'a']))}] = {value}")
        elif kind == 2:
            lines.append(f"ps[0].{draw(st.sampled_from(['x', 'v', 'y']))} = {value}")
        elif kind == 3:
            lines.append(f"return {value}")
        else:
            lines.append(value)
    body = "".join(f"    {line}\n" for line in lines)
    return (PRELUDE + body + "}\n").encode()


TARGETS = [Options(), Options(avx512=True), Options(target_triple="aarch64-unknown-linux-gnu", fp16=True,
                                                    dotprod=True, i8mm=True)]


@FUZZ
@given(typed_calls(), st.sampled_from(TARGETS))
def test_random_intrinsic_calls(data, options):
    check_front_end(data, options=options)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_are_clean(name):
    """The mutation seeds themselves are valid programs with exact spans."""
    result = check_front_end(EXAMPLES[name], name)
    assert result.diagnostics == []


# ---- pathological files through the CLI ------------------------------------------------

def _in_function(body: str) -> bytes:
    return f"export func f(x: i32) -> i32 {{\n{body}\n    return x\n}}\n".encode()


def _binary() -> bytes:
    return bytes(range(256)) * 4 + os.urandom(3072) + b"\x00" * 16


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256)) * 2 + b"IEND\xaeB`\x82"
BAD_UTF8 = (b"export func f(x: i32) -> i32 {\n    let y: i32 = x // caf\xc3\x28\n"
            b"    let z\xff\xfe: i32 = y\n    return z\n}\n")

# name -> (content, expected outcome per mode: "ok" = exit 0, "error" = exit 1,
# "any" = either, as long as the exit status agrees with what was printed).
CASES = {
    "empty": (b"", dict(check="ok", ast="ok", tokens="ok")),
    "urandom": (_binary(), dict(check="error", ast="error", tokens="error")),
    "png": (PNG, dict(check="error", ast="error", tokens="error")),
    "bad_utf8": (BAD_UTF8, dict(check="error", ast="error", tokens="error")),
    "parens": (_in_function("    let y: i32 = " + "(" * 10_000 + "1" + ")" * 10_000),
               dict(check="error", ast="error", tokens="ok")),
    "nested_if": (_in_function("if x > 0 {\n" * 10_000 + "x = 1\n" + "}\n" * 10_000),
                  dict(check="error", ast="error", tokens="ok")),
    "else_if_ladder": (_in_function("    let mut y: i32 = 0\n    if x == 0 { y = 0 }\n"
                                    + "".join(f"    else if x == {k} {{ y = {k} }}\n" for k in range(1, 2000))
                                    + "    else { y = -1 }"),
                       dict(check="any", ast="any", tokens="ok")),
    "sum_chain": (_in_function("    let y: i32 = " + " + ".join(["1"] * 100_000)),
                  dict(check="ok", ast="ok", tokens="ok")),
    "unary_minus": (_in_function("    let y: i32 = " + "-" * 10_000 + "x"),
                    dict(check="any", ast="any", tokens="ok")),
    "unterminated_string": (b'export func f() {\n    println("hello)\n}\n',
                            dict(check="error", ast="error", tokens="error")),
    "closing_braces": (b"}}}}", dict(check="error", ast="error", tokens="ok")),
}
COMMANDS = {"check": ["check"], "ast": ["--emit-ast"], "tokens": ["--emit-tokens"]}
LOCATION = re.compile(r"^(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+)  (error|warning)\[", re.M)


def run_ea(path: Path, mode: str, timeout: float = 120) -> subprocess.CompletedProcess:
    args = [str(path), *COMMANDS[mode]] if mode != "check" else ["check", str(path)]
    env = {k: v for k, v in os.environ.items() if k != "EA_DEBUG"}
    return subprocess.run([str(EA), *args], capture_output=True, timeout=timeout, env=env)


def check_cli_output(proc, path: Path, data: bytes, expected: str) -> None:
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "RecursionError" not in err, err[-2000:]
    assert "internal compiler error" not in err, err[-2000:]
    assert proc.returncode in (0, 1), (proc.returncode, err[-2000:])
    located = [m for m in LOCATION.finditer(err) if m["path"] == str(path)]
    errors_printed = bool(re.search(r"^(\S+:\d+:\d+  )?error", err, re.M))
    assert proc.returncode == (1 if errors_printed else 0), err[-2000:]
    if expected != "any":
        assert proc.returncode == (1 if expected == "error" else 0), err[-2000:]
    lines = data.count(b"\n") + 1
    for m in located:
        assert 1 <= int(m["line"]) <= lines and int(m["col"]) >= 1, m.group()
    if proc.returncode == 1:
        # Either a file:line:col location or a clear file-level "error..." line.
        assert located or re.search(r"^error", err, re.M), err[-2000:]


@pytest.fixture(scope="module")
def case_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("robust")
    paths = {}
    for name, (data, _) in CASES.items():
        paths[name] = root / f"{name}.ea"
        paths[name].write_bytes(data)
    return paths


@pytest.mark.parametrize("mode", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_bad_inputs(case_files, name, mode):
    data, expected = CASES[name]
    proc = run_ea(case_files[name], mode)
    check_cli_output(proc, case_files[name], data, expected[mode])
    err = proc.stderr.decode("utf-8", "replace")
    if mode == "check":
        summary = re.search(r"checked 1 file: (\d+) errors?", err)
        assert summary, err[-2000:]
        assert (int(summary[1]) > 0) == (proc.returncode == 1)
    if mode == "tokens" and expected[mode] == "ok" and data:
        assert proc.stdout.strip(), "no tokens printed"


@pytest.mark.parametrize("mode", sorted(COMMANDS))
def test_cli_unreadable_paths(tmp_path, mode):
    """A missing file or a directory is one clear file-level error."""
    for path in (tmp_path / "missing.ea", tmp_path):
        proc = run_ea(path, mode)
        err = proc.stderr.decode()
        assert proc.returncode == 1 and "Traceback" not in err, err
        assert re.search(rf"^error: cannot read '{re.escape(str(path))}': ", err, re.M), err


def test_cli_locations_are_exact(case_files):
    """Errors point at the offending byte, not somewhere nearby."""
    err = run_ea(case_files["bad_utf8"], "check").stderr.decode("utf-8", "replace")
    assert f"{case_files['bad_utf8']}:3:10  error[lex]" in err, err
    err = run_ea(case_files["unterminated_string"], "check").stderr.decode("utf-8", "replace")
    assert f"{case_files['unterminated_string']}:2:13  error[lex]: unterminated string" in err, err
    err = run_ea(case_files["closing_braces"], "check").stderr.decode("utf-8", "replace")
    assert f"{case_files['closing_braces']}:1:1  error[parse]" in err, err


def test_long_else_if_ladder_is_not_deep_nesting():
    """A flat 150-arm `else if` ladder is ordinary code, not nesting."""
    arms = "".join(f"    else if x == {k} {{ y = {k} }}\n" for k in range(1, 150))
    data = ("export func f(x: i32) -> i32 {\n    let mut y: i32 = 0\n    if x == 0 { y = 0 }\n"
            f"{arms}    else {{ y = -1 }}\n    return y\n}}\n").encode()
    result = check_front_end(data)
    assert [d.message for d in result.diagnostics] == []


def test_return_in_kernel_or_for_body_found_by_fuzzing():
    """Desugaring appends `i = i + step` (spanned at the header) after a kernel
    or `for` body: a `return` must neither produce a span ending before it
    starts nor warn that this generated statement is unreachable."""
    check_front_end(b"kernel k() over i in n step 1 { return 1 2 }\n")
    check_front_end(b"func f(n: i32) -> i32 {\n    for j in 0..n {\n        return 1 2\n    }\n}\n")
    for src in (b"kernel k() over i in n step 1 {\n    return\n}\n",
                b"kernel k(p: *mut i32) over i in n step 1 tail scalar { return } { p[i] = 0 }\n",
                b"func f(n: i32) {\n    for j in 0..n {\n        return\n    }\n}\n"):
        assert [d.message for d in check_front_end(src).diagnostics] == []


def test_struct_cycles_are_diagnosed():
    """Structs containing each other by value have no size; later stages would recurse forever."""
    result = check_front_end(b"struct A { b: B }\nstruct B { a: A }\nfunc f(x: *A) {}\n")
    assert any(d.is_error and d.span is not None and d.span.line in (1, 2) for d in result.diagnostics), \
        [d.message for d in result.diagnostics]


def test_cli_does_not_echo_control_characters(tmp_path):
    """Source snippets must not copy terminal escape sequences to stderr."""
    path = tmp_path / "esc.ea"
    path.write_bytes(b"func f() {\n    let x: i32 = 1 \x1b[2J\x1b]0;title\x07\n}\n")
    proc = run_ea(path, "check")
    assert proc.returncode == 1
    assert not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", proc.stderr), proc.stderr


def test_cli_output_is_bounded_on_one_long_line(tmp_path):
    """A 1 MB single-line file (minified, binary) must not make stderr many times its size."""
    path = tmp_path / "oneline.ea"
    data = b"func f() { " + b"let x: i32 = 1 ; " * 60_000 + b"}\n"
    path.write_bytes(data)
    proc = run_ea(path, "check")
    check_cli_output(proc, path, data, "error")
    out, size = len(proc.stderr), len(data)
    assert out < size, f"{out} bytes of diagnostics for a {size}-byte file"


def test_cli_json_for_binary_file(case_files):
    """`--format json` stays valid JSON with in-file spans for binary input."""
    proc = subprocess.run([str(EA), "check", "--format", "json", str(case_files["png"])],
                          capture_output=True, timeout=60)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["errors"] >= 1
    for d in report["files"][0]["diagnostics"]:
        if d["span"] is not None:
            assert 0 <= d["span"]["start"] <= d["span"]["end"] <= len(PNG)


def test_cli_ten_megabytes(tmp_path):
    """A 10 MB file of valid kernels with one error on its last line."""
    head, tail = EXAMPLES["saxpy.ea"].decode().split("saxpy")
    parts, size, k = [], 0, 0
    while size < 10 * 1024 * 1024:
        parts.append(f"{head}saxpy_{k}{tail}")
        size += len(parts[-1])
        k += 1
    data = ("".join(parts) + "const BAD: i32 = 1;\n").encode()
    path = tmp_path / "big.ea"
    path.write_bytes(data)
    start = time.perf_counter()
    proc = run_ea(path, "check", timeout=180)
    elapsed = time.perf_counter() - start
    print(f"\nea check on {len(data) / 1e6:.1f} MB ({k} kernels): {elapsed:.1f} s", file=sys.stderr)
    check_cli_output(proc, path, data, "error")
    err = proc.stderr.decode()
    last_line = data.count(b"\n")
    assert f"{path}:{last_line}:19  error[lex]" in err, err[-2000:]
    assert "checked 1 file: 1 error," in err, err[-2000:]  # speed is bench/frontend.py's, not a test's
