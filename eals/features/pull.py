"""textDocument/diagnostic (pull diagnostics): a full report of the current
analysis, converted exactly as the pushed diagnostics are (convert.to_diagnostic).
A document that is not open has no diagnostics."""
from __future__ import annotations

from lsprotocol import types as lsp

from ..convert import to_diagnostic
from ..support import guarded


def report(analysis, uri: str) -> lsp.RelatedFullDocumentDiagnosticReport:
    items = [] if analysis is None else [to_diagnostic(d, analysis.source, uri) for d in analysis.diagnostics]
    return lsp.RelatedFullDocumentDiagnosticReport(items=items)


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                    lsp.DiagnosticOptions(identifier="ea", inter_file_dependencies=False,
                                          workspace_diagnostics=False))
    @guarded("textDocument/diagnostic")
    async def diagnostic(ls, params: lsp.DocumentDiagnosticParams):
        uri = params.text_document.uri
        return report(await ls.current_analysis(uri), uri)
