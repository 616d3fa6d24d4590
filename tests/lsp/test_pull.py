"""Pull diagnostics over stdio: a full report equal to what is pushed, and it follows edits."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient
from lsp_support import SERVER

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAD = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    let c: f32x4 = a + b\n    return c;\n}\n"
GOOD = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    let c: f32x4 = a .+ b\n    return c\n}\n"


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    lsp_client.diagnostic_provider = result.capabilities.diagnostic_provider
    yield
    await lsp_client.shutdown_session()


async def pull(client, uri):
    return await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


def rng(line, start, end):
    return lsp.Range(start=lsp.Position(line=line, character=start), end=lsp.Position(line=line, character=end))


async def test_provider_is_advertised(client):
    provider = client.diagnostic_provider
    assert provider.identifier == "ea"
    assert provider.inter_file_dependencies is False and provider.workspace_diagnostics is False


async def test_pulled_equals_pushed_and_follows_edits(client):
    uri = "file:///tmp/pull.ea"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="ea", version=1, text=BAD)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    pushed = list(client.diagnostics[uri])
    report = await pull(client, uri)
    assert report.kind == "full"
    assert list(report.items) == pushed
    assert [(d.range, d.code, d.severity) for d in report.items] == [
        (rng(1, 19, 24), "vector-operator", lsp.DiagnosticSeverity.Error),
        (rng(2, 12, 13), "unexpected-character", lsp.DiagnosticSeverity.Error)]
    assert report.items[0].message == "cannot use '+' on vectors. Use '.+' for element-wise vector operations"
    assert report.items[0].data == {"fixes": [[66, 67, ".+", "use '.+'"]]}  # byte offsets of the '+'
    assert BAD[66] == "+"
    # The pull answers for the newest version, even before its push arrives.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=GOOD)]))
    assert list((await pull(client, uri)).items) == []


async def test_document_not_open_has_an_empty_report(client):
    report = await pull(client, "file:///tmp/never-opened.ea")
    assert report.kind == "full" and list(report.items) == []
