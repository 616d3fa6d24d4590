"""Columns follow the negotiated position encoding: a client that prefers
UTF-8 gets byte columns, the default is UTF-16."""
from __future__ import annotations


import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient
from lsp_support import SERVER

URI = "file:///tmp/encoding.ea"
# the error `a + a` comes after a string with a 2-byte character
LINE = 'export func g(a: f32x4) -> f32x4 { println("é") return a + a }\n'


@pytest_lsp.fixture(config=SERVER)
async def utf8_client(lsp_client: LanguageClient):
    caps = lsp.ClientCapabilities(general=lsp.GeneralClientCapabilities(
        position_encodings=[lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf16]))
    result = await lsp_client.initialize_session(lsp.InitializeParams(capabilities=caps))
    assert result.capabilities.position_encoding == lsp.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


async def test_utf8_columns_are_bytes(utf8_client):
    utf8_client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="ea", version=1, text=LINE)))
    await utf8_client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diags = list(utf8_client.diagnostics[URI])
    vector_op = [d for d in diags if "'+' on vectors" in d.message]
    assert len(vector_op) == 1
    start = LINE.index("a + a")
    byte_col = len(LINE[:start].encode("utf-8"))  # `é` counts 2 bytes
    assert (vector_op[0].range.start.character, vector_op[0].range.end.character) == (byte_col, byte_col + 5)
    assert byte_col == start + 1
