"""textDocument/completion: after `expr.` the fields of its struct type;
elsewhere locals and parameters in scope, functions, structs, constants,
intrinsics (as snippets), type names and keywords."""
from __future__ import annotations

from lsprotocol import types as lsp

from compiler.intrinsics import TABLE
from compiler.syntax import ast as A
from compiler.syntax.tokens import IDENT, KEYWORDS
from compiler.typesys.model import SCALARS, Pointer, Struct
from compiler.typesys.vectors import VECTORS

from ..convert import offset
from ..lookup import WORD_KINDS, enclosing_item, tokens_before

K = lsp.CompletionItemKind
# Words the parser reads in context (not reserved by the lexer).
_CONTEXTUAL = ("kernel", "over", "step", "tail", "out", "static_assert")
_KEYWORDS = sorted({k for k in KEYWORDS if k not in SCALARS and k not in VECTORS and k not in TABLE}
                   | set(_CONTEXTUAL))
_LOCAL_KINDS = ("param", "local", "loop-var")


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    async def completion(ls, params: lsp.CompletionParams):
        try:
            return await _complete(ls, params.text_document.uri, params.position)
        except Exception:
            ls.report_crash("completion")
            return None


async def _complete(ls, uri: str, pos: lsp.Position) -> lsp.CompletionList | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    at = offset(analysis.source, pos)
    before = [t for t in tokens_before(analysis, at)[-3:] if t.end <= at or t.kind in WORD_KINDS]
    if before and before[-1].kind in WORD_KINDS and before[-1].end >= at:
        before = before[:-1]  # the word being typed
    if before and before[-1].kind == "Dot":
        items = _fields_after(analysis, before[:-1])
    else:
        items = _scope_items(analysis, at) + _global_items(analysis) + _builtin_items()
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


def _scope_items(analysis, at: int) -> list[lsp.CompletionItem]:
    return [lsp.CompletionItem(label=s.name, kind=K.Variable, detail=f"{s.type}",
                               label_details=lsp.CompletionItemLabelDetails(description=s.kind),
                               sort_text=f"0{s.name}")
            for s in in_scope(analysis, at)]


def _global_items(analysis) -> list[lsp.CompletionItem]:
    items = []
    params_by_function: dict[str, list] = {}  # one pass, not one scan per function
    for sym in analysis.symbols.symbols:
        if sym.kind == "param":
            params_by_function.setdefault(sym.container, []).append(sym)
    for s in analysis.symbols.top_level():
        if s.kind in ("function", "kernel"):
            params = sorted(params_by_function.get(s.name, []), key=lambda p: p.span.start)
            inner = ", ".join(f"${{{i + 1}:{p.name}}}" for i, p in enumerate(params))
            items.append(lsp.CompletionItem(label=s.name, kind=K.Function, detail=s.detail, sort_text=f"1{s.name}",
                                            insert_text=f"{s.name}({inner})",
                                            insert_text_format=lsp.InsertTextFormat.Snippet))
        elif s.kind == "struct":
            items.append(lsp.CompletionItem(label=s.name, kind=K.Struct, detail=s.detail, sort_text=f"1{s.name}"))
        elif s.kind == "const":
            items.append(lsp.CompletionItem(label=s.name, kind=K.Constant, detail=s.detail, sort_text=f"1{s.name}"))
    return items


_BUILTINS: list[lsp.CompletionItem] = []


def _builtin_items() -> list[lsp.CompletionItem]:
    if not _BUILTINS:
        for intr in TABLE.values():
            doc = "```ea\n" + "\n".join(intr.name + s for s in intr.signatures) + "\n```\n\n" + intr.doc
            _BUILTINS.append(lsp.CompletionItem(
                label=intr.name, kind=K.Function, detail=intr.signature_text(), sort_text=f"2{intr.name}",
                documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc),
                insert_text=intr.snippet(), insert_text_format=lsp.InsertTextFormat.Snippet,
                tags=[lsp.CompletionItemTag.Deprecated] if intr.deprecated else None))
        for name, s in SCALARS.items():
            _BUILTINS.append(lsp.CompletionItem(label=name, kind=K.TypeParameter, detail=f"{s.bits}-bit scalar",
                                                sort_text=f"3{name}"))
        for name, v in VECTORS.items():
            _BUILTINS.append(lsp.CompletionItem(label=name, kind=K.TypeParameter,
                                                detail=f"{v.lanes} x {v.elem}, {v.bits}-bit", sort_text=f"3{name}"))
        for word in _KEYWORDS:
            _BUILTINS.append(lsp.CompletionItem(label=word, kind=K.Keyword, sort_text=f"4{word}"))
    return _BUILTINS
