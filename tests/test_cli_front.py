"""The `ea` command line for the front end, run as a subprocess
(TOOLCHAIN.md §1, §1.4): --emit-tokens, --emit-ast, `ea check`, usage,
--version and command-line errors."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, EA_DEBUG="1")
    return subprocess.run([str(EA), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


# ---- --emit-tokens ------------------------------------------------------------

# One token per line, indented by its index modulo 3 so columns vary.
EVERY_TOKEN = [
    ("Func", "func"), ("Export", "export"), ("Return", "return"), ("Let", "let"), ("Mut", "mut"),
    ("If", "if"), ("Else", "else"), ("While", "while"), ("True", "true"), ("False", "false"),
    ("Struct", "struct"), ("Restrict", "restrict"), ("Unroll", "unroll"), ("ForEach", "foreach"),
    ("For", "for"), ("In", "in"), ("Const", "const"), ("I8", "i8"), ("U8", "u8"), ("I16", "i16"),
    ("U16", "u16"), ("I32", "i32"), ("I64", "i64"), ("F16", "f16"), ("F32", "f32"), ("F64", "f64"),
    ("Bool", "bool"), ("F32x4", "f32x4"), ("F32x8", "f32x8"), ("U8x16", "u8x16"), ("I16x32", "i16x32"),
    ("F64x2", "f64x2"), ("U64x8", "u64x8"), ("I8x8", "i8x8"), ("F16x8", "f16x8"), ("I32x16", "i32x16"),
    ("Splat", "splat"), ("Identifier", "gain"), ("Identifier", "kernel"), ("Identifier", "u32"),
    ("Identifier", "i32x"), ("Identifier", "count2"), ("Identifier", "_x9"),
    ("HexLiteral", "0x1F"), ("BinLiteral", "0b101"), ("FloatLiteral", "1.25"), ("FloatLiteral", ".5"),
    ("IntLiteral", "42"), ("StringLiteral", '"hi there"'),
    ("LeftParen", "("), ("RightParen", ")"), ("LeftBrace", "{"), ("RightBrace", "}"), ("Comma", ","),
    ("Colon", ":"), ("Arrow", "->"), ("Plus", "+"), ("Minus", "-"), ("Star", "*"), ("Slash", "/"),
    ("Percent", "%"), ("Equals", "="), ("LessEqual", "<="), ("GreaterEqual", ">="), ("EqualEqual", "=="),
    ("BangEqual", "!="), ("Less", "<"), ("Greater", ">"), ("PlusDot", ".+"), ("MinusDot", ".-"),
    ("StarDot", ".*"), ("SlashDot", "./"), ("LessEqualDot", ".<="), ("GreaterEqualDot", ".>="),
    ("EqualEqualDot", ".=="), ("BangEqualDot", ".!="), ("LessDot", ".<"), ("GreaterDot", ".>"),
    ("ShiftLeftDot", ".<<"), ("ShiftRightDot", ".>>"), ("AmpDot", ".&"), ("PipeDot", ".|"),
    ("CaretDot", ".^"), ("DotDot", ".."), ("Dot", "."), ("ShiftLeft", "<<"), ("ShiftRight", ">>"),
    ("Amp", "&"), ("Pipe", "|"), ("Caret", "^"), ("AmpAmp", "&&"), ("PipePipe", "||"), ("Bang", "!"),
    ("LeftBracket", "["), ("RightBracket", "]"), ("Hash", "#"),
]


def test_emit_tokens_every_kind(tmp_path):
    src = "".join(" " * (i % 3) + lexeme + "  // comment\n" for i, (_, lexeme) in enumerate(EVERY_TOKEN))
    write(tmp_path, "all.ea", src)
    r = ea("all.ea", "--emit-tokens", cwd=tmp_path)
    expected = "".join(f'{kind}("{lexeme}") at {i + 1}:{i % 3 + 1}\n'
                       for i, (kind, lexeme) in enumerate(EVERY_TOKEN))
    assert (r.returncode, r.stdout, r.stderr) == (0, expected, "")


def test_emit_tokens_columns_on_a_real_line(tmp_path):
    write(tmp_path, "k.ea", "func gain(a: f32x8) {\n\tlet v: f32x8 = a .+ a\n}\n")
    r = ea("k.ea", "--emit-tokens", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        'Func("func") at 1:1', 'Identifier("gain") at 1:6', 'LeftParen("(") at 1:10',
        'Identifier("a") at 1:11', 'Colon(":") at 1:12', 'F32x8("f32x8") at 1:14', 'RightParen(")") at 1:19',
        'LeftBrace("{") at 1:21',
        'Let("let") at 2:2', 'Identifier("v") at 2:6', 'Colon(":") at 2:7', 'F32x8("f32x8") at 2:9',
        'Equals("=") at 2:15', 'Identifier("a") at 2:17', 'PlusDot(".+") at 2:19', 'Identifier("a") at 2:22',
        'RightBrace("}") at 3:1',
    ]


def test_emit_tokens_longest_match_and_uppercase_hex(tmp_path):
    write(tmp_path, "k.ea", "0X1F a..b x.<=y -1\n")
    r = ea("k.ea", "--emit-tokens", cwd=tmp_path)
    assert r.stdout.splitlines() == [
        'IntLiteral("0") at 1:1', 'Identifier("X1F") at 1:2', 'Identifier("a") at 1:6', 'DotDot("..") at 1:7',
        'Identifier("b") at 1:9', 'Identifier("x") at 1:11', 'LessEqualDot(".<=") at 1:12',
        'Identifier("y") at 1:15', 'Minus("-") at 1:17', 'IntLiteral("1") at 1:18',
    ]


def test_emit_tokens_with_a_lex_error(tmp_path):
    write(tmp_path, "k.ea", "let a: i32 = 5;\n")
    r = ea("k.ea", "--emit-tokens", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines()[-1] == 'IntLiteral("5") at 1:14'
    assert r.stderr.splitlines()[0] == 'k.ea:1:15  error[lex]: unexpected character: ";"'


def test_emit_tokens_wins_over_emit_ast(tmp_path):
    write(tmp_path, "k.ea", "const N: i32 = 8\n")
    r = ea("k.ea", "--emit-ast", "--emit-tokens", cwd=tmp_path)
    assert r.stdout.splitlines()[0] == 'Const("const") at 1:1'


# ---- --emit-ast ---------------------------------------------------------------

AST_CASES = [
    ("func f(a: i32, b: f32) -> f32 {\n    return b\n}\n", "func f(a: i32, b: f32) -> f32 { ... }"),
    ("export func g() {\n}\n", "export func g() { ... }"),
    ("#[cfg(x86_64)]\nexport func h(p: *f32) {\n}\n", "#[cfg(x86_64)] export func h(p: *f32) { ... }"),
    ("#[cfg(aarch64)]\nfunc h() {\n}\n", "#[cfg(aarch64)] func h() { ... }"),
    ("func p(a: *f32, b: *mut f32, c: *restrict f32, d: *restrict mut f32, e: **f32, g: **mut u8) {\n}\n",
     "func p(a: *f32, b: *mut f32, c: *restrict f32, d: *restrict mut f32, e: **f32, g: **mut u8) { ... }"),
    ("export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {\n}\n",
     "export func hist16(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) { ... }"),
    ("func c(w: i32, h: i32, out r: *mut f32 [cap: w*h, count: w]) {\n}\n",
     "func c(w: i32, h: i32, out r: *mut f32 [cap: w * h, count: w]) { ... }"),
    ("kernel k(x: *f32, y: *mut f32) over i in n step 8 {\n}\n", "kernel k(x: *f32, y: *mut f32) over i in n step 8"),
    ("export kernel k(x: *f32) over j in len step 4 tail scalar { } {\n}\n",
     "export kernel k(x: *f32) over j in len step 4"),
    ("kernel k(x: *f32) over j in len step 16 tail pad {\n}\n", "kernel k(x: *f32) over j in len step 16"),
    ("struct S { a: f32, b: i32 }\n", "struct S { a: f32, b: i32 }"),
    ("struct T {\n    v: f32x8\n    p: *mut S\n}\n", "struct T { v: f32x8, p: *mut S }"),
    ("const N: i32 = 8\n", "const N: i32 = 8"),
    ("const M: f64 = -1.5\n", "const M: f64 = -1.5"),
    ('static_assert(N % 4 == 0, "N must be a multiple of 4")\n', 'static_assert(..., "N must be a multiple of 4")'),
]


@pytest.mark.parametrize("src,line", AST_CASES, ids=[c[1].split("(")[0].split(" {")[0] for c in AST_CASES])
def test_emit_ast_item_line(tmp_path, src, line):
    write(tmp_path, "k.ea", src)
    r = ea("k.ea", "--emit-ast", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, line + "\n", "")


def test_emit_ast_whole_file_before_desugaring(tmp_path):
    src = "".join(s for s, _ in AST_CASES[:3]) + AST_CASES[7][0] + AST_CASES[10][0] + AST_CASES[12][0]
    write(tmp_path, "k.ea", src)
    r = ea("k.ea", "--emit-ast", cwd=tmp_path)
    assert r.stdout.splitlines() == [AST_CASES[i][1] for i in (0, 1, 2, 7, 10, 12)]


def test_emit_ast_with_a_parse_error(tmp_path):
    write(tmp_path, "k.ea", "func f() {\n    let x: i32 =\n}\nconst N: i32 = 1\n")
    r = ea("k.ea", "--emit-ast", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["func f() { ... }", "const N: i32 = 1"]
    assert r.stderr.splitlines()[0] == "k.ea:3:1  error[parse]: expected expression, found '}'"


# ---- ea check -----------------------------------------------------------------

GOOD = "export func f(a: f32) -> f32 {\n    return a * 2.0\n}\n"
BAD = "export func g(count: i32) -> i32 {\n    return cuont\n}\n"
BAD2 = "export func h(p: *f32) {\n    p[0] = 1.0\n    let x: f32 = 1\n}\n"


def test_check_clean_files(tmp_path):
    write(tmp_path, "a.ea", GOOD)
    write(tmp_path, "b.ea", GOOD.replace("func f", "func f2"))
    r = ea("check", "a.ea", "b.ea", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "checked 2 files: 0 errors, 0 warnings\n")


def test_check_reports_every_file_and_summary(tmp_path):
    write(tmp_path, "good.ea", GOOD)
    write(tmp_path, "bad.ea", BAD)
    write(tmp_path, "bad2.ea", BAD2)
    r = ea("check", "good.ea", "bad.ea", "bad2.ea", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    err = r.stderr.splitlines()
    assert err[0] == "bad.ea:2:12  error[type]: undefined variable 'cuont'. Did you mean 'count'?"
    assert [l for l in err if l.startswith("bad2.ea:")] == [
        "bad2.ea:2:5  error[type]: cannot write through immutable pointer 'p'. Declare as *mut to allow writes",
        "bad2.ea:3:18  error[type]: cannot initialize 'x' of type f32 with integer literal. Use to_f32() to convert",
    ]
    assert err[-1] == "checked 3 files: 3 errors, 0 warnings"


def test_check_json(tmp_path):
    write(tmp_path, "good.ea", GOOD)
    write(tmp_path, "bad.ea", BAD)
    r = ea("check", "good.ea", "bad.ea", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["errors"] == 1 and report["warnings"] == 0
    assert [f["path"] for f in report["files"]] == ["good.ea", "bad.ea"]
    assert report["files"][0]["diagnostics"] == []
    (d,) = report["files"][1]["diagnostics"]
    assert d["severity"] == "error" and d["kind"] == "type" and d["code"] == "undefined-variable"
    assert d["message"] == "undefined variable 'cuont'. Did you mean 'count'?"
    assert d["span"] == {"start": 46, "end": 51, "line": 2, "col": 12, "end_line": 2, "end_col": 17}
    assert d["suggestions"] == [{"span": d["span"], "replacement": "count", "title": "rename to 'count'"}]


def test_check_json_clean_exit_zero(tmp_path):
    write(tmp_path, "good.ea", GOOD)
    r = ea("check", "--format=json", "good.ea", cwd=tmp_path)
    assert r.returncode == 0
    assert json.loads(r.stdout) == {"files": [{"path": "good.ea", "diagnostics": []}], "errors": 0, "warnings": 0}


def test_check_examples_are_clean():
    examples = sorted(str(p) for p in (ROOT / "examples").glob("*.ea"))
    assert examples
    r = ea("check", *examples, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stderr == f"checked {len(examples)} files: 0 errors, 0 warnings\n"


def test_check_unreadable_file(tmp_path):
    write(tmp_path, "good.ea", GOOD)
    r = ea("check", "missing.ea", "good.ea", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == "error: cannot read 'missing.ea': No such file or directory"


def test_check_without_files_prints_usage(tmp_path):
    r = ea("check", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.startswith("usage: ea check")


# ---- usage, version, command-line errors --------------------------------------

def test_no_arguments_prints_usage_and_exits_1(tmp_path):
    r = ea(cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("usage: ea <file.ea> [options]")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_usage_and_exits_0(tmp_path, flag):
    r = ea(flag, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr.startswith("usage: ea <file.ea> [options]")


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(tmp_path, flag):
    from ea_compiler import __version__

    r = ea(flag, cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"ea {__version__}\n", "")
    assert re.fullmatch(r"ea \d+\.\d+\.\d+\n", r.stdout)


def test_unknown_option(tmp_path):
    write(tmp_path, "k.ea", GOOD)
    r = ea("k.ea", "--bogus", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "error: unknown option '--bogus'\n")


def test_unknown_option_in_check(tmp_path):
    write(tmp_path, "k.ea", GOOD)
    r = ea("check", "k.ea", "--bogus", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "error: unknown option '--bogus'\n")


def test_missing_file(tmp_path):
    r = ea("nope.ea", "--emit-tokens", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "error: cannot read 'nope.ea': No such file or directory\n")


def test_directory_is_unreadable(tmp_path):
    (tmp_path / "dir.ea").mkdir()
    r = ea("dir.ea", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "error: cannot read 'dir.ea': Is a directory\n")


def test_bad_opt_level(tmp_path):
    write(tmp_path, "k.ea", GOOD)
    r = ea("k.ea", "--opt-level=7", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "error: --opt-level must be 0, 1, 2, or 3\n")


def test_avx512_on_arm_rejected(tmp_path):
    write(tmp_path, "k.ea", GOOD)
    r = ea("check", "k.ea", "--target-triple=aarch64-unknown-linux-gnu", "--avx512", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "error: --avx512 is incompatible with ARM target\n")


def test_compile_with_errors_prints_diagnostics_and_exits_1(tmp_path):
    write(tmp_path, "k.ea", BAD)
    r = ea("k.ea", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.splitlines()[:3] == [
        "k.ea:2:12  error[type]: undefined variable 'cuont'. Did you mean 'count'?",
        "        return cuont",
        "               ^^^^^",
    ]


def test_closed_stdout_is_not_a_traceback(tmp_path):
    """`ea FILE --emit-tokens | head -1`: the reader leaves early."""
    src = tmp_path / "big.ea"
    src.write_text("func f() {}\n" * 20000)
    proc = subprocess.Popen([str(EA), str(src), "--emit-tokens"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err
