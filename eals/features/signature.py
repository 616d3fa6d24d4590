"""textDocument/signatureHelp: inside a call's parentheses, the signatures of
the intrinsic or user function called; the active parameter is the number
of top-level commas between the `(` and the cursor (the IDE layer's
`signature_help`, turned into LSP types)."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import Signature, signature_help

from ..convert import offset
from ..markdown import escape
from ..support import guarded


def register(server) -> None:
    options = lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","])

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, options)
    @guarded(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, quiet=True)
    async def on_signature_help(ls, params: lsp.SignatureHelpParams):
        return await _help(ls, params.text_document.uri, params.position)


async def _help(ls, uri: str, pos: lsp.Position) -> lsp.SignatureHelp | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    found = signature_help(analysis, offset(analysis.source, pos))
    if found is None:
        return None
    return lsp.SignatureHelp(signatures=[_signature(s) for s in found.signatures],
                             active_signature=found.active_signature, active_parameter=found.active_parameter)


def _signature(sig: Signature) -> lsp.SignatureInformation:
    """`name(a: T, b: U) -> R` with each parameter's [start, end) in the label."""
    label, infos = f"{sig.name}(", []
    for i, p in enumerate(sig.params):
        if i:
            label += ", "
        piece = f"{p.name}: {p.type}" if p.name else p.type
        infos.append(lsp.ParameterInformation(label=(len(label), len(label) + len(piece))))
        label += piece
    label += ")" + sig.tail
    doc = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=escape(sig.doc))
    return lsp.SignatureInformation(label=label, parameters=infos, documentation=doc)
