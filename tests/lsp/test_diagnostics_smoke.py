"""Diagnostics over stdio: errors appear with exact ranges, and clear when fixed."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

URI = "file:///tmp/smoke.ea"
BAD = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n"
GOOD = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a .+ b\n}\n"


@pytest.mark.asyncio
async def test_error_then_fixed(client):
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="ea", version=1, text=BAD)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (d,) = client.diagnostics[URI]
    assert d.message == "cannot use '+' on vectors. Use '.+' for element-wise vector operations"
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (1, 11, 16)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=GOOD)]))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[URI]) == []
