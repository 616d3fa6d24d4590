"""The server keeps serving: sane replies for documents never opened and positions
out of range, errors that do not end the session, cancellation, and (in-process)
a crashing handler that is logged and answered with an LSP InternalError."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from eals.server import create_server
from lsp_support import SERVER, open_doc

TEXT = "func helper(a: i32) -> i32 {\n    return a\n}\nexport func f(x: i32) -> i32 {\n    return helper(x)\n}\n"
NOWHERE = "file:///tmp/never-opened.ea"
FAR = lsp.Position(line=100_000, character=100_000)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def requests(uri: str, position: lsp.Position):
    """(method, params) for every request this server's navigation/symbol/token/action/pull features answer."""
    doc = lsp.TextDocumentIdentifier(uri=uri)
    return [
        (lsp.TEXT_DOCUMENT_DEFINITION, lsp.DefinitionParams(text_document=doc, position=position)),
        (lsp.TEXT_DOCUMENT_REFERENCES, lsp.ReferenceParams(
            text_document=doc, position=position, context=lsp.ReferenceContext(include_declaration=True))),
        (lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionParams(
            text_document=doc, range=lsp.Range(start=position, end=position),
            context=lsp.CodeActionContext(diagnostics=[]))),
        (lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, lsp.DocumentSymbolParams(text_document=doc)),
        (lsp.TEXT_DOCUMENT_FOLDING_RANGE, lsp.FoldingRangeParams(text_document=doc)),
        (lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, lsp.SemanticTokensParams(text_document=doc)),
        (lsp.TEXT_DOCUMENT_DIAGNOSTIC, lsp.DocumentDiagnosticParams(text_document=doc)),
    ]


async def definition_of_helper(client, uri):
    return await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=4, character=12)))


HELPER = lsp.Range(start=lsp.Position(line=0, character=5), end=lsp.Position(line=0, character=11))


@pytest.mark.asyncio(loop_scope="module")
async def test_document_never_opened(client):
    replies = [await client.protocol.send_request_async(method, params)
               for method, params in requests(NOWHERE, lsp.Position(line=0, character=0))]
    definition, refs, actions, outline, folds, tokens, report = replies
    assert (definition, refs, outline, folds, tokens) == (None, None, None, None, None)
    assert list(actions) == [] and list(report.items) == []
    with pytest.raises(JsonRpcException) as err:  # rename is the one that must say why not
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=NOWHERE), position=lsp.Position(line=0, character=0),
            new_name="x"))
    assert err.value.code == -32803 and "is not open" in err.value.message


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_far_out_of_range(client):
    uri = "file:///tmp/far.ea"
    open_doc(client, uri, TEXT)
    definition, refs, actions, outline, folds, tokens, report = [
        await client.protocol.send_request_async(method, params) for method, params in requests(uri, FAR)]
    assert definition is None and refs is None and list(actions) == []
    assert [s.name for s in outline] == ["helper", "a", "f", "x"]  # the document-wide answers are whole
    assert len(folds) == 2 and len(tokens.data) > 0 and list(report.items) == []
    with pytest.raises(JsonRpcException) as err:
        await client.text_document_prepare_rename_async(
            lsp.PrepareRenameParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=FAR))
    assert err.value.code == -32803 and err.value.message.startswith("nothing to rename here")
    assert await definition_of_helper(client, uri) == lsp.Location(uri=uri, range=HELPER)


@pytest.mark.asyncio(loop_scope="module")
async def test_failed_requests_do_not_end_the_session(client):
    uri = "file:///tmp/failing.ea"
    open_doc(client, uri, TEXT)
    with pytest.raises(JsonRpcException) as err:
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=0, character=6),
            new_name="return"))
    assert err.value.code == -32803
    assert await definition_of_helper(client, uri) == lsp.Location(uri=uri, range=HELPER)
    with pytest.raises(JsonRpcException) as err:
        await client.protocol.send_request_async("eals/noSuchMethod", None)
    assert err.value.code == -32601  # MethodNotFound
    assert await definition_of_helper(client, uri) == lsp.Location(uri=uri, range=HELPER)


@pytest.mark.asyncio(loop_scope="module")
async def test_cancelled_request_is_answered_and_server_stays_responsive(client):
    # A document big enough that its analysis (which the request awaits) is still
    # running when the cancellation arrives.
    body = (Path(__file__).resolve().parents[2] / "examples" / "dot.ea").read_text()
    big = "".join(body.replace("func dot(", f"func dot{i}(") for i in range(1000))
    uri = "file:///tmp/big.ea"
    open_doc(client, uri, big)
    # send_request (not the async variant) writes the request before the cancellation.
    pending = asyncio.wrap_future(client.protocol.send_request(
        lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=uri)), msg_id="cancel-me"))
    client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="cancel-me"))
    with pytest.raises(JsonRpcRequestCancelled) as err:
        await asyncio.wait_for(pending, 30)
    assert err.value.code == -32800
    small = "file:///tmp/after-cancel.ea"
    open_doc(client, small, TEXT)
    assert await asyncio.wait_for(definition_of_helper(client, small), 30) == lsp.Location(uri=small, range=HELPER)
    # The big document itself still answers.
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert len([s for s in symbols if s.container_name is None]) == 1000


# ---- in-process: a handler that crashes -------------------------------------------

CRASHING = [method for method, _ in requests("file:///crash.ea", lsp.Position(line=0, character=0))] + [
    lsp.TEXT_DOCUMENT_RENAME, lsp.TEXT_DOCUMENT_PREPARE_RENAME]


def _params(method: str):
    doc, at = lsp.TextDocumentIdentifier(uri="file:///crash.ea"), lsp.Position(line=0, character=0)
    if method == lsp.TEXT_DOCUMENT_RENAME:
        return lsp.RenameParams(text_document=doc, position=at, new_name="x")
    if method == lsp.TEXT_DOCUMENT_PREPARE_RENAME:
        return lsp.PrepareRenameParams(text_document=doc, position=at)
    return dict(requests("file:///crash.ea", at))[method]


@pytest.mark.parametrize("method", CRASHING)
async def test_crashing_handler_is_logged_and_answered_with_an_internal_error(method, monkeypatch):
    server = create_server()
    crashes = []
    monkeypatch.setattr(server, "report_crash", crashes.append)

    async def broken_analysis(uri):
        raise RuntimeError("simulated analysis bug")

    monkeypatch.setattr(server, "current_analysis", broken_analysis)
    handler = server.protocol.fm.features[method]
    with pytest.raises(JsonRpcInternalError) as err:
        await handler(_params(method))
    assert crashes == [method]
    assert err.value.message == f"eals: internal error in {method} (RuntimeError); see the server log"
    # The same handler answers normally once the fault is gone.
    monkeypatch.setattr(server, "current_analysis", lambda uri: asyncio.sleep(0, None))
    if method == lsp.TEXT_DOCUMENT_RENAME:
        with pytest.raises(JsonRpcException):
            await handler(_params(method))
    else:
        reply = await handler(_params(method))
        assert reply is None or list(getattr(reply, "items", reply)) == []
