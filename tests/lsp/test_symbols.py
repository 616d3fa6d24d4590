"""Document outline (hierarchical and flat) and folding ranges over stdio, exact."""
from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = """\
// Outline and folding test.
// Second comment line.
struct Pair {
    a: f32
    b: i32
}
const LIMIT: i32 = -3
func clamp(v: i32) -> i32 {
    if v > LIMIT {
        return v
    } else {
        let low: i32 = LIMIT
        return low
    }
}
export kernel fill(dst: *mut f32)
    over i in n step 8
    tail scalar {
        dst[i] = 0.0
    }
{
    let zero: f32x8 = splat(0.0)
    // one comment line
    store(dst, i, zero)
}
export func loops(n: i32) {
    let mut k: i32 = 0
    while k < n {
        k = k + 1
    }
    foreach (j in 0..n) {
        println(j)
    }
}
static_assert(LIMIT < 0, "negative")
"""
URI = "file:///tmp/symbols.ea"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "eals.cli"])
SK = lsp.SymbolKind


def _open(client) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="ea", version=1, text=SOURCE)))


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    """A client that understands hierarchical outlines and line-only folding."""
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(
            document_symbol=lsp.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            folding_range=lsp.FoldingRangeClientCapabilities(line_folding_only=True)))))
    _open(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=SERVER)
async def flat_client(lsp_client: LanguageClient):
    """A client without hierarchical outline support."""
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    _open(lsp_client)
    yield
    await lsp_client.shutdown_session()


def rng(l1, c1, l2, c2):
    return lsp.Range(start=lsp.Position(line=l1, character=c1), end=lsp.Position(line=l2, character=c2))


def shape(symbols):
    """(name, kind, range, selection range, detail, children) trees."""
    return [(s.name, s.kind, s.range, s.selection_range, s.detail, shape(s.children or [])) for s in symbols]


EXPECTED_OUTLINE = [
    ("Pair", SK.Struct, rng(2, 0, 5, 1), rng(2, 7, 2, 11), "struct", [
        ("a", SK.Field, rng(3, 4, 3, 10), rng(3, 4, 3, 5), "f32", []),
        ("b", SK.Field, rng(4, 4, 4, 10), rng(4, 4, 4, 5), "i32", []),
    ]),
    ("LIMIT", SK.Constant, rng(6, 0, 6, 21), rng(6, 6, 6, 11), "i32 = -3", []),
    ("clamp", SK.Function, rng(7, 0, 14, 1), rng(7, 5, 7, 10), "func(v: i32) -> i32", [
        ("v", SK.Variable, rng(7, 11, 7, 17), rng(7, 11, 7, 12), "i32", []),
        ("low", SK.Variable, rng(11, 8, 11, 28), rng(11, 12, 11, 15), "i32", []),
    ]),
    ("fill", SK.Function, rng(15, 0, 24, 1), rng(15, 14, 15, 18),
     "export kernel(dst: *mut f32) over i in n step 8", [
         ("dst", SK.Variable, rng(15, 19, 15, 32), rng(15, 19, 15, 22), "*mut f32", []),
         ("i", SK.Variable, rng(16, 9, 16, 10), rng(16, 9, 16, 10), "i32 (loop variable, step 8)", []),
         ("n", SK.Variable, rng(16, 14, 16, 15), rng(16, 14, 16, 15), "i32 (range bound)", []),
         ("zero", SK.Variable, rng(21, 4, 21, 32), rng(21, 8, 21, 12), "f32x8", []),
     ]),
    ("loops", SK.Function, rng(25, 0, 33, 1), rng(25, 12, 25, 17), "export func(n: i32)", [
        ("n", SK.Variable, rng(25, 18, 25, 24), rng(25, 18, 25, 19), "i32", []),
        ("k", SK.Variable, rng(26, 4, 26, 22), rng(26, 12, 26, 13), "mut i32", []),
        ("j", SK.Variable, rng(30, 4, 32, 5), rng(30, 13, 30, 14), "i32 (loop variable)", []),
    ]),
]


async def test_hierarchical_outline(client):
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
    assert shape(symbols) == EXPECTED_OUTLINE


async def test_flat_outline_without_hierarchy_support(flat_client):
    symbols = await flat_client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
    assert all(isinstance(s, lsp.SymbolInformation) and s.location.uri == URI for s in symbols)
    assert [(s.name, s.kind, s.container_name) for s in symbols] == [
        ("Pair", SK.Struct, None), ("a", SK.Field, "Pair"), ("b", SK.Field, "Pair"),
        ("LIMIT", SK.Constant, None),
        ("clamp", SK.Function, None), ("v", SK.Variable, "clamp"), ("low", SK.Variable, "clamp"),
        ("fill", SK.Function, None), ("dst", SK.Variable, "fill"), ("i", SK.Variable, "fill"),
        ("n", SK.Variable, "fill"), ("zero", SK.Variable, "fill"),
        ("loops", SK.Function, None), ("n", SK.Variable, "loops"), ("k", SK.Variable, "loops"),
        ("j", SK.Variable, "loops")]
    assert symbols[4].location.range == rng(7, 0, 14, 1)


async def test_folding_ranges(client):
    folds = await client.text_document_folding_range_async(
        lsp.FoldingRangeParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
    comment = lsp.FoldingRangeKind.Comment
    assert [(f.start_line, f.end_line, f.kind) for f in folds] == [
        (0, 1, comment),   # the two-line comment at the top (the one-line comment in fill is not a run)
        (2, 4, None),      # struct Pair; the closing brace stays visible
        (7, 13, None),     # func clamp
        (8, 9, None),      # if ... {        up to `} else {`
        (10, 12, None),    # else block
        (15, 23, None),    # kernel fill, from its header
        (17, 18, None),    # tail scalar block
        (20, 23, None),    # kernel body block
        (25, 32, None),    # func loops
        (27, 28, None),    # while
        (30, 31, None),    # foreach
    ]


async def test_unknown_document(client):
    ident = lsp.TextDocumentIdentifier(uri="file:///tmp/not-open.ea")
    assert await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=ident)) is None
    assert await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=ident)) is None
