"""Migration diagnostics for the removed, renamed and deprecated intrinsics of
INTRINSICS.md §13: exact text and span, the documented replacement as the quick
fix, and the fixed program checks clean."""
from __future__ import annotations

import pytest

from ea_compiler import Options, analyze, render_all
from ea_compiler.check.suggest import did_you_mean
from ea_compiler.intrinsics import TABLE, names
from ea_compiler.intrinsics.migrations import MIGRATIONS

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="znver4")  # pinned: the host must not decide
ARM = Options(target_triple="aarch64-unknown-linux-gnu")

PRELUDE = ("export func f(x: *u8, y: *i8, out: *mut u8) {\n"
           "    let a: u8x16 = load(x, 0)\n"
           "    let b: i8x16 = load(y, 0)\n")


def program(line: str) -> str:
    return PRELUDE + f"    {line}\n}}\n"


def apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


# (old name, statement, options, rendered diagnostic, fix replacement, fix span (line, col, end_line, end_col))
CASES = [
    ("maddubs_i32", "let r: i32x4 = maddubs_i32(a, b)", X86,
     "k.ea:4:20  error[type]: intrinsic 'maddubs_i32' was removed in 1.11; use madd_i16(maddubs_i16(a, b), ones)\n"
     "        let r: i32x4 = maddubs_i32(a, b)\n"
     "                       ^^^^^^^^^^^\n"
     "  = note: ones is an i16 vector of 1s (splat(1) takes i16xN from the other operand of madd_i16); "
     "maddubs_i16 alone returns i16 pair sums, not i32 results\n"
     "  = help: replace with madd_i16(maddubs_i16(a, b), splat(1))\n",
     "madd_i16(maddubs_i16(a, b), splat(1))", (4, 20, 4, 37)),
    ("maddubs", "let r: i16x8 = maddubs(a, b)", X86,
     "k.ea:4:20  error[type]: intrinsic 'maddubs' was renamed to 'maddubs_i16' in 0.4\n"
     "        let r: i16x8 = maddubs(a, b)\n"
     "                       ^^^^^^^\n"
     "  = help: use maddubs_i16\n",
     "maddubs_i16", (4, 20, 4, 27)),
    ("sat_add", "let r: u8x16 = sat_add(a, a)", X86,
     "k.ea:4:20  warning[type]: intrinsic 'sat_add' is deprecated since 1.12.0 \u2014 use the typed spelling: "
     "sat_add_i8x16 / sat_add_u8x16 / sat_add_i16x8 / sat_add_u16x8\n"
     "        let r: u8x16 = sat_add(a, a)\n"
     "                       ^^^^^^^\n"
     "  = help: use sat_add_u8x16\n",
     "sat_add_u8x16", (4, 20, 4, 27)),
    ("sat_sub", "let r: i8x16 = sat_sub(b, b)", X86,
     "k.ea:4:20  warning[type]: intrinsic 'sat_sub' is deprecated since 1.12.0 \u2014 use the typed spelling: "
     "sat_sub_i8x16 / sat_sub_u8x16 / sat_sub_i16x8 / sat_sub_u16x8\n"
     "        let r: i8x16 = sat_sub(b, b)\n"
     "                       ^^^^^^^\n"
     "  = help: use sat_sub_i8x16\n",
     "sat_sub_i8x16", (4, 20, 4, 27)),
    ("abs_diff", "let r: u8x16 = abs_diff(a, a)", ARM,
     "k.ea:4:20  warning[type]: intrinsic 'abs_diff' is deprecated since 1.12.0 \u2014 use the typed spelling: "
     "abs_diff_i8x16 / abs_diff_u8x16 / abs_diff_i16x8 / abs_diff_u16x8 / abs_diff_i32x4 / abs_diff_u32x4 "
     "(ARM-only)\n"
     "        let r: u8x16 = abs_diff(a, a)\n"
     "                       ^^^^^^^^\n"
     "  = help: use abs_diff_u8x16\n",
     "abs_diff_u8x16", (4, 20, 4, 28)),
]


def test_table_is_section_13():
    """Every §13 entry, and nothing else, is a migration; removed and renamed
    names are not intrinsics any more, deprecated ones still are."""
    assert set(MIGRATIONS) == {"sat_add", "sat_sub", "abs_diff", "maddubs_i32", "maddubs"}
    assert {n for n, i in TABLE.items() if i.deprecated} == {n for n, m in MIGRATIONS.items() if m.deprecated}
    for name, m in MIGRATIONS.items():
        assert (name in TABLE) == m.deprecated
        if m.deprecated:
            assert (TABLE[name].deprecated, TABLE[name].advice) == (m.version, m.replacement)


@pytest.mark.parametrize("name, line, opts, text, replacement, span", CASES, ids=[c[0] for c in CASES])
def test_migration_diagnostic_and_fix(name, line, opts, text, replacement, span):
    src = program(line)
    a = analyze(src, "k.ea", opts)
    assert render_all(a.diagnostics, a.source, "k.ea") == text
    (d,) = a.diagnostics
    (fix,) = d.suggestions
    assert fix.replacement == replacement
    assert (fix.span.line, fix.span.col, fix.span.end_line, fix.span.end_col) == span
    fixed = analyze(apply(src, fix), "k.ea", opts)
    assert fixed.diagnostics == [], [x.message for x in fixed.diagnostics]


def test_no_did_you_mean_for_migrated_names():
    """Today's guess for maddubs_i32 was maddubs_i16, whose result has another width."""
    assert did_you_mean("maddubs_i16", names()) is None  # an exact name is never "meant"
    for name in MIGRATIONS:
        assert did_you_mean(name, names()) is None


def test_removed_name_with_other_arguments_has_no_fix_but_the_message():
    src = program("let r: i32x4 = maddubs_i32(a)")
    (d,) = analyze(src, "k.ea", X86).diagnostics
    assert d.message == "intrinsic 'maddubs_i32' was removed in 1.11; use madd_i16(maddubs_i16(a, b), ones)"
    assert d.suggestions == []


def test_user_function_of_a_removed_name_is_called():
    src = ("func maddubs(a: i32) -> i32 {\n    return a + 1\n}\n"
           "export func g(a: i32) -> i32 {\n    return maddubs(a)\n}\n")
    assert analyze(src, "k.ea", X86).diagnostics == []
