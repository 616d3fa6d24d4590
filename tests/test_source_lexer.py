"""Source model and lexer: spans, columns with tabs and non-ASCII text,
UTF-16 conversion, literals, operators, lexical errors."""
from ea_compiler import analyze
from ea_compiler.diagnostics import DiagnosticSink
from ea_compiler.source import SourceFile
from ea_compiler.syntax.lexer import lex


def toks(text):
    sink = DiagnosticSink()
    return [(t.kind, t.text) for t in lex(SourceFile("t.ea", text), sink)][:-1], sink.items


def test_spans_are_byte_offsets_with_character_columns():
    text = "// é ✓\nlet\tx: f32 = 1.5 // ünï\n  ✓y"
    src = SourceFile("t.ea", text)
    sink = DiagnosticSink()
    tokens = lex(src, sink)
    let, x = tokens[0], tokens[1]
    assert (let.line, let.col, let.start) == (2, 1, len("// é ✓\n".encode()))
    assert (x.line, x.col) == (2, 5)  # the tab is one character
    # the bad '✓' on line 3 is reported at character column 3, spanning its 3 bytes
    (bad,) = sink.items
    assert bad.message == 'unexpected character: "✓"'
    assert (bad.span.line, bad.span.col, bad.span.end - bad.span.start) == (3, 3, 3)
    y = tokens[-2]
    assert (y.text, y.line, y.col, y.end_col) == ("y", 3, 4, 5)


def test_utf16_columns_for_the_language_server():
    src = SourceFile("t.ea", "// 😀é\nx")
    assert src.utf16_col(1, 4) == 3  # 0-based: "// " before the emoji
    assert src.utf16_col(1, 6) == 6  # the emoji counts 2 UTF-16 units
    assert src.utf16_col(1, 5) == 5
    assert src.col_from_utf16(1, 5) == 5
    assert src.offset_at(2, 1) == len("// 😀é\n".encode())


def test_keywords_types_and_contextual_words():
    kinds, _ = toks("func i32x4 i32x count2 u32 kernel splat f16x8 f64x8")
    assert kinds == [("Func", "func"), ("I32x4", "i32x4"), ("Identifier", "i32x"), ("Identifier", "count2"),
                     ("Identifier", "u32"), ("Identifier", "kernel"), ("Splat", "splat"),
                     ("F16x8", "f16x8"), ("Identifier", "f64x8")]


def test_numbers():
    kinds, errs = toks("12 0x1F 0b101 1.5 .5 1..5 0X1F")
    assert kinds == [("IntLiteral", "12"), ("HexLiteral", "0x1F"), ("BinLiteral", "0b101"),
                     ("FloatLiteral", "1.5"), ("FloatLiteral", ".5"), ("IntLiteral", "1"), ("DotDot", ".."),
                     ("IntLiteral", "5"), ("IntLiteral", "0"), ("Identifier", "X1F")]
    assert errs == []


def test_longest_match_operators():
    kinds, _ = toks(".<= .<< .< .. . <= << < -> - && & || | .& .== == != ! #")
    assert [k for k, _ in kinds] == [
        "LessEqualDot", "ShiftLeftDot", "LessDot", "DotDot", "Dot", "LessEqual", "ShiftLeft", "Less",
        "Arrow", "Minus", "AmpAmp", "Amp", "PipePipe", "Pipe", "AmpDot", "EqualEqualDot", "EqualEqual",
        "BangEqual", "Bang", "Hash"]


def test_semicolon_is_a_lex_error_with_a_fix_and_lexing_continues():
    kinds, errs = toks("let a: i32 = 5;\nlet b")
    assert kinds[-2:] == [("Let", "let"), ("Identifier", "b")]
    (err,) = errs
    assert err.message == 'unexpected character: ";"'
    assert (err.span.line, err.span.col) == (1, 15)
    assert err.suggestions[0].replacement == ""


def test_unterminated_string_points_at_its_quote_and_recovers_at_end_of_line():
    kinds, errs = toks('static_assert(true, "oops)\nconst N: i32 = 1')
    assert ("Const", "const") in kinds
    (err,) = errs
    assert err.message == "unterminated string literal"
    assert err.labels[0].span.col == 21


def test_multiline_string_keeps_line_numbers():
    src = SourceFile("t.ea", 'x "a\nb" y')
    tokens = lex(src, DiagnosticSink())
    s, y = tokens[1], tokens[2]
    assert (s.line, s.end_line, s.end_col) == (1, 2, 3)
    assert (y.line, y.col) == (2, 4)


def test_invalid_utf8_is_one_diagnostic_with_a_span():
    result = analyze(b"func f() {\n  let x: i32 = \xff\xfe 1\n}\n", "t.ea")
    lex_errors = [d for d in result.diagnostics if d.kind == "lex"]
    assert [d.message for d in lex_errors] == ["invalid UTF-8 byte 0xff in source text"]
    assert (lex_errors[0].span.line, lex_errors[0].span.col) == (2, 16)


def test_binary_garbage_is_capped():
    result = analyze(bytes(range(256)) * 200, "t.ea")
    assert 0 < len(result.diagnostics) <= 202
    assert any(d.code == "too-many-lex-errors" for d in result.diagnostics)
