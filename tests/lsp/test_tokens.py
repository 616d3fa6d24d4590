"""Semantic tokens over stdio: the advertised legend, and exact classes and UTF-16
positions of every token of a small file."""
from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler import analyze
from eals.features.tokens import LEGEND, semantic_tokens
from lsp_support import SERVER

SOURCE = (
    "// \u00e9\U0001F600 note\n"
    "#[cfg(x86_64)]\n"
    "const N: i32 = 4\n"
    "struct P { x: f32 }\n"
    "func g(p: P, q: *mut u32) -> f32 {\n"
    "    let mut s: f32 = p.x\n"
    "    println(\"\u00e9\U0001F600\") s = sqrt(s) + to_f32(N)\n"
    "    println(\"two\n"
    "lines\") return s\n"
    "}\n"
    "kernel k(a: *f32) over i in n step 1 {\n"
    "}\n")
URI = "file:///tmp/tokens.ea"
DECL, RO, LIB, MUT = "declaration", "readonly", "defaultLibrary", "mutable"

EXPECTED = [
    (0, 0, 11, "comment", set()),  # "// é😀 note": é is 1 UTF-16 unit, the emoji 2
    (1, 0, 1, "decorator", set()), (1, 2, 3, "decorator", set()), (1, 6, 6, "decorator", set()),
    (2, 0, 5, "keyword", set()), (2, 6, 1, "variable", {DECL, RO}), (2, 9, 3, "type", set()),
    (2, 13, 1, "operator", set()), (2, 15, 1, "number", set()),
    (3, 0, 6, "keyword", set()), (3, 7, 1, "struct", {DECL}), (3, 11, 1, "property", {DECL}),
    (3, 14, 3, "type", set()),
    (4, 0, 4, "keyword", set()), (4, 5, 1, "function", {DECL}), (4, 7, 1, "parameter", {DECL}),
    (4, 10, 1, "struct", set()), (4, 13, 1, "parameter", {DECL}), (4, 16, 1, "operator", set()),
    (4, 17, 3, "keyword", set()), (4, 21, 3, "type", set()), (4, 29, 3, "type", set()),
    (5, 4, 3, "keyword", set()), (5, 8, 3, "keyword", set()), (5, 12, 1, "variable", {DECL, MUT}),
    (5, 15, 3, "type", set()), (5, 19, 1, "operator", set()), (5, 21, 1, "parameter", set()),
    (5, 23, 1, "property", set()),
    (6, 4, 7, "macro", {LIB}), (6, 12, 5, "string", set()),  # "é😀" with its quotes: 5 units
    (6, 19, 1, "variable", {MUT}), (6, 21, 1, "operator", set()), (6, 23, 4, "macro", {LIB}),
    (6, 28, 1, "variable", {MUT}), (6, 31, 1, "operator", set()), (6, 33, 6, "macro", {LIB}),
    (6, 40, 1, "variable", {RO}),
    (7, 4, 7, "macro", {LIB}), (7, 12, 4, "string", set()),  # a string over two lines: one token per line
    (8, 0, 6, "string", set()), (8, 8, 6, "keyword", set()), (8, 15, 1, "variable", {MUT}),
    (10, 0, 6, "keyword", set()), (10, 7, 1, "function", {DECL}), (10, 9, 1, "parameter", {DECL}),
    (10, 12, 1, "operator", set()), (10, 13, 3, "type", set()), (10, 18, 4, "keyword", set()),
    (10, 23, 1, "variable", {DECL}), (10, 25, 2, "keyword", set()), (10, 28, 1, "parameter", {DECL}),
    (10, 30, 4, "keyword", set()), (10, 35, 1, "number", set()),
]


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    """One server for the module; keeps the legend the server advertised."""
    result = await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    lsp_client.advertised_tokens = result.capabilities.semantic_tokens_provider
    lsp_client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="ea", version=1, text=SOURCE)))
    yield
    await lsp_client.shutdown_session()


def decode(data, legend):
    """Absolute (line, character, length, type, modifiers) tuples, as a client reads them."""
    assert len(data) % 5 == 0
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        d_line, d_start, length, kind, bits = data[i:i + 5]
        line += d_line
        start = start + d_start if d_line == 0 else d_start
        mods = {m for j, m in enumerate(legend.token_modifiers) if bits & (1 << j)}
        out.append((line, start, length, legend.token_types[kind], mods))
    return out


@pytest.mark.asyncio(loop_scope="module")
async def test_legend_is_advertised(client):
    provider = client.advertised_tokens
    assert provider.full is True
    assert list(provider.legend.token_types) == list(LEGEND.token_types)
    assert list(provider.legend.token_modifiers) == list(LEGEND.token_modifiers)
    for wanted in ("keyword", "type", "function", "parameter", "variable", "property", "struct", "number",
                   "string", "comment", "operator", "macro"):
        assert wanted in provider.legend.token_types


@pytest.mark.asyncio(loop_scope="module")
async def test_every_token_exact(client):
    result = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
    assert decode(result.data, client.advertised_tokens.legend) == EXPECTED


@pytest.mark.asyncio(loop_scope="module")
async def test_broken_file_and_unknown_document(client):
    broken = "func f( {\n    let x: i32 = 1;\n    \"open\n}\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri="file:///tmp/broken.ea", language_id="ea", version=1, text=broken)))
    result = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri="file:///tmp/broken.ea")))
    tokens = decode(result.data, client.advertised_tokens.legend)
    assert tokens[:2] == [(0, 0, 4, "keyword", set()), (0, 5, 1, "function", {DECL})]
    assert (2, 4, 5, "string", set()) in tokens  # the unterminated string ends at its line
    assert await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
        text_document=lsp.TextDocumentIdentifier(uri="file:///tmp/never-opened.ea"))) is None


@pytest.mark.parametrize("path", sorted(Path(__file__).resolve().parents[2].glob("examples/*.ea")), ids=lambda p: p.name)
def test_examples_classify_consistently(path):
    """In-process, over every example: tokens are ordered and disjoint, and each class
    fits the text it covers."""
    text = path.read_text(encoding="utf-8")
    analysis = analyze(text, str(path))
    lines = text.split("\n")
    tokens = decode(semantic_tokens(analysis).data, LEGEND)
    assert tokens
    functions = {s.name for s in analysis.symbols.symbols if s.kind in ("function", "kernel")}
    end = (0, 0)
    for line, start, length, kind, _ in tokens:
        assert (line, start) >= end and length > 0
        end = (line, start + length)
        word = lines[line].encode("utf-16-le")[2 * start: 2 * (start + length)].decode("utf-16-le")
        if kind == "comment":
            assert word.startswith("//")
        elif kind == "number":
            assert word[0].isdigit() or word[0] == "."
        elif kind == "function":
            assert word in functions
        elif kind in ("parameter", "variable", "property", "struct", "macro"):
            assert word.isidentifier()
