"""textDocument/completion: after `expr.` the fields of its struct type;
elsewhere locals and parameters in scope, functions, structs, constants,
intrinsics, type names and keywords.

Items follow what the client declared (eals.clientcaps): call snippets only
with snippet support (else the plain name is inserted), label details,
Markdown documentation and the deprecated tag only when supported."""
from __future__ import annotations

import functools

from lsprotocol import types as lsp

from ea_compiler.tooling import (CALLABLE_KINDS, COMPLETION_KEYWORDS, SCALARS, TABLE, VECTORS, Completion, SymbolKind,
                                 completion)

from ..clientcaps import ClientFeatures
from ..convert import offset
from ..markdown import code_block, escape
from ..support import guarded

K = lsp.CompletionItemKind


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    @guarded(lsp.TEXT_DOCUMENT_COMPLETION, quiet=True)
    async def on_completion(ls, params: lsp.CompletionParams):
        return await _complete(ls, params.text_document.uri, params.position)


async def _complete(ls, uri: str, pos: lsp.Position) -> lsp.CompletionList | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    found = completion(analysis, offset(analysis.source, pos))
    if found.after_dot:
        items = [lsp.CompletionItem(label=f.name, kind=K.Field, detail=str(f.type), sort_text=f"{i:03}")
                 for i, f in enumerate(found.fields)]
    else:
        caps = ls.client
        items = _scope_items(found, caps) + _global_items(found, caps) + _builtin_items(caps)
    return lsp.CompletionList(is_incomplete=False, items=items)


def _scope_items(found: Completion, caps: ClientFeatures) -> list[lsp.CompletionItem]:
    return [lsp.CompletionItem(label=s.name, kind=K.Variable, detail=f"{s.type}",
                               label_details=lsp.CompletionItemLabelDetails(description=str(s.kind))
                               if caps.label_details else None,
                               sort_text=f"0{s.name}")
            for s in found.scope]


def _call(name: str, params: list[str], caps: ClientFeatures) -> dict:
    """How a call completes: a snippet with one tab stop per parameter, or
    (without snippet support) the plain name."""
    if not caps.snippets:
        return {"insert_text": name, "insert_text_format": lsp.InsertTextFormat.PlainText}
    inner = ", ".join(f"${{{i + 1}:{p}}}" for i, p in enumerate(params))
    return {"insert_text": f"{name}({inner})", "insert_text_format": lsp.InsertTextFormat.Snippet}


_TOP_KIND = {SymbolKind.FUNCTION: K.Function, SymbolKind.KERNEL: K.Function, SymbolKind.STRUCT: K.Struct,
             SymbolKind.CONST: K.Constant}


def _global_items(found: Completion, caps: ClientFeatures) -> list[lsp.CompletionItem]:
    items = []
    for top in found.top_level:
        s = top.symbol
        call = _call(s.name, [p.name for p in top.params], caps) if s.kind in CALLABLE_KINDS else {}
        items.append(lsp.CompletionItem(label=s.name, kind=_TOP_KIND[s.kind], detail=s.detail,
                                        sort_text=f"1{s.name}", **call))
    return items


@functools.lru_cache(maxsize=8)
def _builtin_items(caps: ClientFeatures) -> list[lsp.CompletionItem]:
    items = []
    for intr in TABLE.values():
        doc = code_block("\n".join(intr.name + s for s in intr.signatures)) + "\n\n" + escape(intr.doc)
        items.append(lsp.CompletionItem(
            label=intr.name, kind=K.Function, detail=intr.signature_text(), sort_text=f"2{intr.name}",
            documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc) if caps.markdown_docs
            else f"{intr.name}{intr.signatures[0] if intr.signatures else ''}\n\n{intr.doc}",
            insert_text=intr.snippet() if caps.snippets else intr.name,
            insert_text_format=lsp.InsertTextFormat.Snippet if caps.snippets else lsp.InsertTextFormat.PlainText,
            tags=[lsp.CompletionItemTag.Deprecated] if intr.deprecated and caps.deprecated_tag else None,
            deprecated=True if intr.deprecated and caps.deprecated_flag and not caps.deprecated_tag else None))
    for name, s in SCALARS.items():
        items.append(lsp.CompletionItem(label=name, kind=K.TypeParameter, detail=f"{s.bits}-bit scalar",
                                        sort_text=f"3{name}"))
    for name, v in VECTORS.items():
        items.append(lsp.CompletionItem(label=name, kind=K.TypeParameter,
                                        detail=f"{v.lanes} x {v.elem}, {v.bits}-bit", sort_text=f"3{name}"))
    for word in COMPLETION_KEYWORDS:
        items.append(lsp.CompletionItem(label=word, kind=K.Keyword, sort_text=f"4{word}"))
    return items
