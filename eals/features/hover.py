"""textDocument/hover: functions and kernels (signature + what their compiled
code does, and the results of the last `ea.bench`/`ea.tune` run on them from
the editor), intrinsics (signatures + doc), variables, constants, fields,
structs and built-in type names."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import SCALARS, VECTORS, Intrinsic, latest_measured, lookup, pair_markdown

from ..convert import offset, to_range
from ..lookup import word_at
from ..machine import machine_code
from ..runs import file_path
from ..support import guarded

_KIND_WORDS = {"param": "parameter", "local": "local", "loop-var": "loop variable", "const": "constant",
               "field": "field"}


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @guarded(lsp.TEXT_DOCUMENT_HOVER, quiet=True)
    async def hover(ls, params: lsp.HoverParams):
        return await _hover(ls, params.text_document.uri, params.position)


async def _hover(ls, uri: str, pos: lsp.Position) -> lsp.Hover | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    tok = word_at(analysis, offset(analysis.source, pos))
    if tok is None:
        return None
    sym = analysis.symbol_at(tok.start)
    if sym is not None and sym.name != tok.text:
        sym = None
    if sym is not None and sym.kind in ("function", "kernel"):
        text = await _function(ls, uri, analysis, sym)
    elif sym is not None and sym.kind == "struct":
        text = _struct(analysis, sym)
    elif sym is not None:
        text = _variable(sym)
    elif isinstance(intr := analysis.callee_at(tok), Intrinsic) or (intr := lookup(tok.text)) is not None:
        # a call: what it calls; a bare name: the table's entry
        text = intrinsic_markdown(intr)
    elif tok.text in VECTORS or tok.text in SCALARS:
        text = _builtin_type(tok.text)
    else:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=to_range(analysis.source, tok))


async def _function(ls, uri: str, analysis, sym) -> str:
    parts = [f"```ea\n{sym.detail}\n```"]
    runs = ls.run_results.markdown(uri, sym.name)
    found = await machine_code(ls, uri, analysis, [sym.name])
    code = found.get(sym.name) if found else None
    if code is None:
        return "\n\n".join(parts + [runs] if runs else parts)  # the text changed meanwhile, or no such function
    if code.blocked:
        parts.append(blocked_note(code.blocked))
    elif code.report is not None:
        parts.append(machine_markdown(code.report, code.target))
        measured = _measured(uri, analysis, sym.name)
        if measured:
            parts.append(measured)
    else:
        parts.append("*No machine code for this target.*")
    if runs:
        parts.append(runs)
    return "\n\n".join(parts)


def _measured(uri: str, analysis, name: str) -> str | None:
    """The last cycle run's predicted vs measured figures (the server runs no benchmark itself)."""
    path = file_path(uri)
    return pair_markdown(latest_measured(path, name, analysis.source.data)) if path else None


def blocked_note(errors) -> str:
    """Why a function shows no machine code: the first error it depends on."""
    first = errors[0]
    where = f"line {first.span.line}: " if first.span is not None else ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return (f"*Machine code not shown: an error in this function, a function it calls or a declaration "
            f"— {where}{first.message}{more}*")


def machine_markdown(fr, target: str) -> str:
    """The inspect summary of one function, as a markdown list."""
    c = fr.counts
    if not fr.exported and not fr.inlined_into:
        return "*No machine code: this private function is never called.*"
    if fr.exported:
        head = f"**Machine code** ({target})"
    else:
        head = f"**Machine code of its lines inlined into** {', '.join(fr.inlined_into)} ({target})"
    rows = [f"vector instructions: {c.vector}", f"scalar instructions: {c.scalar}", f"FMA: {c.fma}",
            f"loads: {c.loads}", f"stores: {c.stores}"]
    if fr.vector_width:
        rows.append(f"vector width: {fr.vector_width}")
    loops = [("nested " if lp.depth else "") + lp.role + " (" +
             (f"lines {lp.first_line}-{lp.last_line}, " if lp.first_line else "") + lp.bottleneck + ")"
             for lp in fr.loops]
    rows.append(f"loops: {len(fr.loops)}" + (" — " + ", ".join(loops) if loops else ""))
    if fr.exported:
        rows.append(f"registers: {len(fr.registers)}" + (f" ({', '.join(fr.registers)})" if fr.registers else ""))
    for h in fr.hints:
        rows.append(f"hint: {h.message}" + (f" (line {h.line})" if h.line else ""))
    return head + "\n\n" + "\n".join(f"- {r}" for r in rows)


def intrinsic_markdown(intr) -> str:
    sigs = "\n".join(f"{intr.name}{s}" for s in intr.signatures)
    parts = [f"```ea\n{sigs}\n```", intr.doc]
    if intr.params:
        parts.append("Parameters: " + ", ".join(f"`{p}`" for p in intr.params))
    tail = f"Intrinsic ({intr.family}), since {intr.since}"
    if intr.deprecated:
        tail += f". **Deprecated** since {intr.deprecated}" + (f": {intr.advice}" if intr.advice else "")
    parts.append(f"*{tail}*")
    return "\n\n".join(parts)


def _variable(sym) -> str:
    what = _KIND_WORDS.get(sym.kind, sym.kind)
    where = f" of `{sym.container}`" if sym.container else ""
    lines = [f"```ea\n{sym.detail}\n```", f"{what}{where} · type `{sym.type}`"]
    if sym.kind == "const" and sym.value is not None:
        lines.append(f"value: `{sym.value}`")
    return "\n\n".join(lines)


def _struct(analysis, sym) -> str:
    fields = [s for s in analysis.symbols.symbols if s.kind == "field" and s.container == sym.name]
    body = "\n".join(f"    {f.name}: {f.type}" for f in fields)
    return f"```ea\nstruct {sym.name} {{\n{body}\n}}\n```"


def _builtin_type(name: str) -> str:
    if name in VECTORS:
        v = VECTORS[name]
        return f"```ea\n{name}\n```\n\n{v.lanes} lanes of `{v.elem}`, {v.bits}-bit vector · since {v.since}"
    s = SCALARS[name]
    kind = {"int": "signed integer", "uint": "unsigned integer", "float": "float", "bool": "boolean"}[s.cls]
    return f"```ea\n{name}\n```\n\n{s.bits}-bit {kind}" if s.cls != "bool" else f"```ea\n{name}\n```\n\nboolean"
