"""textDocument/hover: functions and kernels (signature + what their compiled
code does, and the results of the last `ea.bench`/`ea.tune` run on them from
the editor), intrinsics (signatures + doc), variables, constants, fields,
structs and built-in type names."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import SymbolKind, hover, latest_measured, pair_markdown

from ..convert import offset, to_range
from ..machine import machine_code
from ..runs import file_path
from ..markdown import code, code_block, emphasis, escape
from ..support import guarded

_KIND_WORDS = {SymbolKind.PARAM: "parameter", SymbolKind.LOCAL: "local", SymbolKind.LOOP_VAR: "loop variable",
               SymbolKind.CONST: "constant", SymbolKind.FIELD: "field"}


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @guarded(lsp.TEXT_DOCUMENT_HOVER, quiet=True)
    async def on_hover(ls, params: lsp.HoverParams):
        return await _hover(ls, params.text_document.uri, params.position)


async def _hover(ls, uri: str, pos: lsp.Position) -> lsp.Hover | None:
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return None
    found = hover(analysis, offset(analysis.source, pos))
    if found is None:
        return None
    if found.callable:
        text = await _function(ls, uri, analysis, found.symbol)
    elif found.symbol is not None and found.symbol.kind == SymbolKind.STRUCT:
        text = _struct(found.symbol, found.fields)
    elif found.symbol is not None:
        text = _variable(found.symbol)
    elif found.intrinsic is not None:
        text = intrinsic_markdown(found.intrinsic)
    elif found.vector is not None:
        v = found.vector
        text = (f"{code_block(found.word.text)}\n\n{v.lanes} lanes of {code(v.elem)}, {v.bits}-bit vector"
                f" · since {escape(v.since)}")
    else:
        text = _scalar_type(found.word.text, found.scalar)
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=to_range(analysis.source, found.word))


async def _function(ls, uri: str, analysis, sym) -> str:
    parts = [code_block(sym.detail)]
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
        parts.append(emphasis("No machine code for this target."))
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
    return emphasis(f"Machine code not shown: an error in this function, a function it calls or a declaration "
                    f"— {where}{first.message}{more}")


def machine_markdown(fr, target: str) -> str:
    """The inspect summary of one function, as a markdown list."""
    c = fr.counts
    if not fr.exported and not fr.inlined_into:
        return emphasis("No machine code: this private function is never called.")
    if fr.exported:
        head = f"**Machine code** {escape(f'({target})')}"
    else:
        inlined = ", ".join(fr.inlined_into)
        head = f"**Machine code of its lines inlined into** {escape(f'{inlined} ({target})')}"
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
    return head + "\n\n" + "\n".join(f"- {escape(r)}" for r in rows)


def intrinsic_markdown(intr) -> str:
    sigs = "\n".join(f"{intr.name}{s}" for s in intr.signatures)
    parts = [code_block(sigs), escape(intr.doc)]
    if intr.params:
        parts.append("Parameters: " + ", ".join(code(p) for p in intr.params))
    tail = escape(f"Intrinsic ({intr.family}), since {intr.since}")
    if intr.deprecated:
        tail += ". **Deprecated** " + escape(f"since {intr.deprecated}" + (f": {intr.advice}" if intr.advice else ""))
    parts.append(f"*{tail}*")
    return "\n\n".join(parts)


def _variable(sym) -> str:
    what = _KIND_WORDS.get(sym.kind, str(sym.kind))
    where = f" of {code(sym.container)}" if sym.container else ""
    lines = [code_block(sym.detail), f"{what}{where} · type {code(sym.type)}"]
    if sym.kind == SymbolKind.CONST and sym.value is not None:
        lines.append(f"value: {code(sym.value)}")
    return "\n\n".join(lines)


def _struct(sym, fields) -> str:
    body = "\n".join(f"    {f.name}: {f.type}" for f in fields)
    return code_block(f"struct {sym.name} {{\n{body}\n}}")


def _scalar_type(name: str, s) -> str:
    kind = {"int": "signed integer", "uint": "unsigned integer", "float": "float", "bool": "boolean"}[s.cls]
    return f"{code_block(name)}\n\n{s.bits}-bit {kind}" if s.cls != "bool" else f"{code_block(name)}\n\nboolean"
