"""Column computation is linear in the length of a line, with or without non-ASCII text.

Found by fuzzing: once a file held one non-ASCII byte, the lexer rescanned the
line from its start for every token's column, so `return 1+1+...` with 16,000
terms took 18 s. The work is counted, not timed: Python lines executed in the
compiler package (a tracer) and bytes the lexer's column counting reads. Going
from n to 4n terms must cost about 4 times the work (a quadratic scan costs 16).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import ea_compiler.syntax.lexer as lexer_module
from ea_compiler import analyze
from ea_compiler.source import SourceFile, char_count

PACKAGE = str(Path(lexer_module.__file__).resolve().parent.parent)
N = 500
MAX_RATIO = 5.0  # linear: 4; quadratic: 16


def program(terms: int, comment: str) -> bytes:
    """One long line; `comment` makes the file (and the line) non-ASCII or not."""
    return (f"// {comment}\nexport func f() -> i32 {{\n"
            f"    return {'1+' * terms}1 // {comment}\n}}\n").encode()


def lines_executed(fn) -> int:
    """Python lines run inside the compiler package while `fn` runs."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def ratio(work) -> float:
    return work(4 * N) / work(N)


@pytest.mark.parametrize("comment", ["e", "é", "😀é"])
def test_analyze_work_is_linear_in_line_length(comment):
    def work(terms):
        data = program(terms, comment)
        return lines_executed(lambda: analyze(data, "long.ea"))
    assert ratio(work) < MAX_RATIO


def test_lexer_reads_each_byte_a_bounded_number_of_times(monkeypatch):
    read = 0

    def counting(data, start, end):
        nonlocal read
        read += end - start
        return char_count(data, start, end)

    monkeypatch.setattr(lexer_module, "char_count", counting)

    def work(terms):
        nonlocal read
        read = 0
        result = analyze(program(terms, "é"), "long.ea")
        assert result.diagnostics == []
        return read
    assert ratio(work) < MAX_RATIO
    assert work(4 * N) <= len(program(4 * N, "é"))


@pytest.mark.parametrize("comment", ["é", "😀é"])
def test_position_conversions_are_linear_in_line_length(comment):
    """What the language server does for every token: columns, UTF-16 columns and back."""
    def work(terms):
        data = program(terms, comment)
        tokens = analyze(data, "long.ea").tokens

        def convert():
            source = SourceFile("long.ea", data)
            for t in tokens:
                col = source.col_of(t.line, t.start)
                assert source.offset_at(t.line, col) == t.start
                character = source.utf16_col(t.line, col)
                assert source.col_from_utf16(t.line, character) == col
                source.line_text(t.line)
        return lines_executed(convert)
    assert ratio(work) < MAX_RATIO


def test_columns_on_a_long_non_ascii_line_are_exact():
    data = program(2000, "😀é")
    result = analyze(data, "long.ea")
    assert result.diagnostics == []
    last_one = [t for t in result.tokens if t.text == "1"][-1]
    assert (last_one.line, last_one.col, last_one.end_col) == (3, 12 + 2 * 2000, 13 + 2 * 2000)
    source = SourceFile("long.ea", data)
    line = source.line_text(3)
    end = len(line) + 1
    assert source.col_of(3, len(data) - 3) == end  # the newline ending line 3
    # the emoji is two UTF-16 units: the column after the comment's end is one unit further
    assert source.utf16_col(3, end) == len(line) + 1
    assert source.col_from_utf16(3, len(line) + 1) == end
    assert source.offset_at(3, end - 1) == len(data) - 5  # the "é" (2 bytes) before the newline
