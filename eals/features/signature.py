"""textDocument/signatureHelp: inside a call's parentheses, the signatures of
the intrinsic or user function called; the active parameter is the number
of top-level commas between the `(` and the cursor."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import Intrinsic, Symbol

from ..convert import offset
from ..lookup import call_at, params_of, split_params
from ..support import guarded


def register(server) -> None:
    options = lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","])

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, options)
    @guarded(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, quiet=True)
    async def signature_help(ls, params: lsp.SignatureHelpParams):
        return await _help(ls, params.text_document.uri, params.position)


async def _help(ls, uri: str, pos: lsp.Position) -> lsp.SignatureHelp | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    call = call_at(analysis, offset(analysis.source, pos))
    if call is None:
        return None
    callee = analysis.callee_at(call.name_token)
    if isinstance(callee, Symbol):
        sym = callee
        params = params_of(analysis, sym.name)
        ret = "" if str(sym.type) == "void" else f" -> {sym.type}"
        sigs = [_signature(call.name, [(p.name, str(p.type)) for p in params], ret, sym.detail)]
    else:
        intr = callee
        if not isinstance(intr, Intrinsic):
            return None
        sigs = []
        for text in intr.signatures:
            types, rest = split_params(text)
            names = intr.params if len(intr.params) == len(types) else [None] * len(types)
            sigs.append(_signature(intr.name, list(zip(names, types)), f" {rest}" if rest else "", intr.doc))
    fits = [i for i, s in enumerate(sigs) if len(s.parameters) > call.active]
    return lsp.SignatureHelp(signatures=sigs, active_signature=fits[0] if fits else 0,
                             active_parameter=call.active)


def _signature(name: str, params: list[tuple[str | None, str]], tail: str, doc: str) -> lsp.SignatureInformation:
    """`name(a: T, b: U) -> R` with each parameter's [start, end) in the label."""
    label, infos = f"{name}(", []
    for i, (pname, ptype) in enumerate(params):
        if i:
            label += ", "
        piece = f"{pname}: {ptype}" if pname else ptype
        infos.append(lsp.ParameterInformation(label=(len(label), len(label) + len(piece))))
        label += piece
    label += ")" + tail
    return lsp.SignatureInformation(label=label, parameters=infos,
                                    documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc))
