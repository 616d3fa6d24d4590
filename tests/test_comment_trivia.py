"""Comments are trivia tokens: `analyze` keeps them in `result.tokens` with
exact spans (a CRLF line end is not comment text), the parser skips them,
and `--emit-tokens` does not list them."""
from ea_compiler import analyze
from ea_compiler.diagnostics import DiagnosticSink
from ea_compiler.source import SourceFile
from ea_compiler.syntax.lexer import lex, token_dump
from ea_compiler.syntax.tokens import comments, significant

TEXT = b'// head \xc3\xa9\r\nexport func f(a: i32) -> i32 { // why\r\n    return a // "not a string"\r\n}\r\n// last'


def test_comment_tokens_have_exact_spans():
    result = analyze(TEXT, "c.ea")
    assert result.diagnostics == []
    got = [(t.text.encode("latin-1").decode("utf-8"), t.line, t.col, t.end_col, t.first_on_line)
           for t in comments(result.tokens)]
    assert got == [("// head é", 1, 1, 10, True), ("// why", 2, 32, 38, False),
                   ('// "not a string"', 3, 14, 31, False), ("// last", 5, 1, 8, True)]
    for t in comments(result.tokens):
        assert TEXT[t.start:t.end].startswith(b"//") and not TEXT[t.start:t.end].endswith(b"\r")


def test_the_parser_and_the_token_dump_skip_comments():
    sink = DiagnosticSink()
    with_trivia = lex(SourceFile("c.ea", TEXT), sink, trivia=True)
    plain = lex(SourceFile("c.ea", TEXT), DiagnosticSink())
    assert [(t.kind, t.start) for t in significant(with_trivia)] == [(t.kind, t.start) for t in plain]
    assert token_dump(with_trivia) == token_dump(plain)
    assert "Comment" not in token_dump(with_trivia)
    assert len(with_trivia) == len(plain) + 4
    result = analyze(TEXT, "c.ea")
    assert [item.name for item in result.ast.items] == ["f"]
