"""Document synchronisation (incremental), configuration, and push diagnostics."""
from __future__ import annotations

from lsprotocol import types as lsp


def register(server) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls, params: lsp.InitializeParams):
        if params.initialization_options:
            ls.config = ls.config.updated(params.initialization_options)

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
        ls.config = ls.config.updated(params.settings)
        ls.reanalyse_all()
