"""Document synchronisation (incremental), configuration, and push diagnostics."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import PositionEncoding

from ..clientcaps import ClientFeatures


def register(server) -> None:
    def apply(ls, settings) -> None:
        problems: list[str] = []
        ls.config = ls.config.updated(settings, problems)
        for p in problems:
            ls.log(f"eals: {p}; keeping the previous value", lsp.MessageType.Warning)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls, params: lsp.InitializeParams):
        # pygls has chosen the position encoding (the client's preference): count columns in it.
        ls.positions = PositionEncoding(ls.workspace.position_encoding)
        ls.client = ClientFeatures.from_capabilities(params.capabilities)
        if params.initialization_options:
            apply(ls, params.initialization_options)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: lsp.DidOpenTextDocumentParams):
        doc = params.text_document
        ls.open(doc.uri, doc.version, doc.text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: lsp.DidChangeTextDocumentParams):
        ls.change(params.text_document.uri, params.text_document.version)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: lsp.DidCloseTextDocumentParams):
        ls.close(params.text_document.uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls, params: lsp.DidChangeConfigurationParams):
        apply(ls, params.settings)
        ls.reanalyse_all()
        # Inlay hints depend on the settings: ask the client to fetch them again.
        if ls.client.inlay_refresh:
            ls.workspace_inlay_hint_refresh(None)
