"""textDocument/completion: after `expr.` the fields of its struct type;
elsewhere locals and parameters in scope, functions, structs, constants,
intrinsics, type names and keywords.

Items follow what the client declared (eals.clientcaps): call snippets only
with snippet support (else the plain name is inserted), label details,
Markdown documentation and the deprecated tag only when supported."""
from __future__ import annotations

import functools

from lsprotocol import types as lsp

from ea_compiler.tooling import HEADER_WORDS, IDENT, KEYWORDS, SCALARS, TABLE, VECTORS, Pointer, Struct
from ea_compiler.tooling import ast as A

from ..clientcaps import ClientFeatures
from ..convert import offset
from ..lookup import WORD_KINDS, enclosing_item
from ..support import guarded

K = lsp.CompletionItemKind
# Reserved words, and the contextual words a construct starts with (`out` starts a
# parameter; `cap`/`count` and the tail strategies only follow another word).
_KEYWORDS = sorted({k for k in KEYWORDS if k not in SCALARS and k not in VECTORS and k not in TABLE}
                   | HEADER_WORDS | {"out"})
_LOCAL_KINDS = ("param", "local", "loop-var")


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    @guarded(lsp.TEXT_DOCUMENT_COMPLETION, quiet=True)
    async def completion(ls, params: lsp.CompletionParams):
        return await _complete(ls, params.text_document.uri, params.position)


async def _complete(ls, uri: str, pos: lsp.Position) -> lsp.CompletionList | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    at = offset(analysis.source, pos)
    before = [t for t in analysis.tokens_before(at)[-3:] if t.end <= at or t.kind in WORD_KINDS]
    if before and before[-1].kind in WORD_KINDS and before[-1].end >= at:
        before = before[:-1]  # the word being typed
    if before and before[-1].kind == "Dot":
        items = _fields_after(analysis, before[:-1])
    else:
        caps = ls.client
        items = _scope_items(analysis, at, caps) + _global_items(analysis, caps) + _builtin_items(caps)
    return lsp.CompletionList(is_incomplete=False, items=items)


# ---- after a dot ----

def _fields_after(analysis, before) -> list[lsp.CompletionItem]:
    if not before or before[-1].kind not in (IDENT, "RightBracket", "RightParen"):
        return []
    t = analysis.type_at(before[-1].start if before[-1].kind == IDENT else before[-1].end - 1)
    if isinstance(t, Pointer):
        t = t.pointee  # `p.f` auto-dereferences
    if not isinstance(t, Struct):
        return []
    fields = [s for s in analysis.symbols.symbols if s.kind == "field" and s.container == t.name]
    return [lsp.CompletionItem(label=f.name, kind=K.Field, detail=str(f.type), sort_text=f"{i:03}")
            for i, f in enumerate(fields)]


# ---- names in scope ----

def in_scope(analysis, at: int) -> list:
    """Locals, parameters and loop variables visible at byte offset `at`: those
    of the enclosing function defined before it (the last `let` of a name
    wins), except the ones inside a `foreach` the cursor is not in."""
    item = enclosing_item(analysis, at)
    if item is None:
        return []
    hidden = [fe for fe in _foreach_loops(item) if not fe.span.start <= at <= fe.span.end]
    seen = {}
    for s in sorted(analysis.symbols.symbols, key=lambda s: s.span.start):
        if s.kind not in _LOCAL_KINDS or s.container != item.name or s.span.start >= at:
            continue
        if s.kind != "param" and any(fe.span.start <= s.span.start < fe.span.end for fe in hidden):
            continue
        seen[s.name] = s
    return list(seen.values())


def _foreach_loops(item):
    stack = [item.body] + ([item.tail_body] if isinstance(item, A.Kernel) and item.tail_body else [])
    while stack:
        node = stack.pop()
        if isinstance(node, A.Block):
            stack.extend(node.stmts)
        elif isinstance(node, A.If):
            stack.extend(n for n in (node.then, node.orelse) if n is not None)
        elif isinstance(node, (A.While, A.For)):
            stack.append(node.body)
        elif isinstance(node, A.Unroll):
            stack.append(node.loop)
        elif isinstance(node, A.ForEach):
            yield node
            stack.append(node.body)


def _scope_items(analysis, at: int, caps: ClientFeatures) -> list[lsp.CompletionItem]:
    return [lsp.CompletionItem(label=s.name, kind=K.Variable, detail=f"{s.type}",
                               label_details=lsp.CompletionItemLabelDetails(description=s.kind)
                               if caps.label_details else None,
                               sort_text=f"0{s.name}")
            for s in in_scope(analysis, at)]


def _call(name: str, params: list[str], caps: ClientFeatures) -> dict:
    """How a call completes: a snippet with one tab stop per parameter, or
    (without snippet support) the plain name."""
    if not caps.snippets:
        return {"insert_text": name, "insert_text_format": lsp.InsertTextFormat.PlainText}
    inner = ", ".join(f"${{{i + 1}:{p}}}" for i, p in enumerate(params))
    return {"insert_text": f"{name}({inner})", "insert_text_format": lsp.InsertTextFormat.Snippet}


def _global_items(analysis, caps: ClientFeatures) -> list[lsp.CompletionItem]:
    items = []
    params_by_function: dict[str, list] = {}  # one pass, not one scan per function
    for sym in analysis.symbols.symbols:
        if sym.kind == "param":
            params_by_function.setdefault(sym.container, []).append(sym)
    for s in analysis.symbols.top_level():
        if s.kind in ("function", "kernel"):
            params = sorted(params_by_function.get(s.name, []), key=lambda p: p.span.start)
            items.append(lsp.CompletionItem(label=s.name, kind=K.Function, detail=s.detail, sort_text=f"1{s.name}",
                                            **_call(s.name, [p.name for p in params], caps)))
        elif s.kind == "struct":
            items.append(lsp.CompletionItem(label=s.name, kind=K.Struct, detail=s.detail, sort_text=f"1{s.name}"))
        elif s.kind == "const":
            items.append(lsp.CompletionItem(label=s.name, kind=K.Constant, detail=s.detail, sort_text=f"1{s.name}"))
    return items


@functools.lru_cache(maxsize=8)
def _builtin_items(caps: ClientFeatures) -> list[lsp.CompletionItem]:
    items = []
    for intr in TABLE.values():
        doc = "```ea\n" + "\n".join(intr.name + s for s in intr.signatures) + "\n```\n\n" + intr.doc
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
    for word in _KEYWORDS:
        items.append(lsp.CompletionItem(label=word, kind=K.Keyword, sort_text=f"4{word}"))
    return items
