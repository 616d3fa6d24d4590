"""textDocument/inlayHint: "inline inspect hints", at the end of lines of
the requested range: what each function compiles to (on its header line)
and, at level "lines", what each source line compiled to (`1 vector load ·
1 vfmadd231ps ymm`) and each loop's bottleneck and bytes per iteration (on
its header line). Level from `server.config.inlay_hints` (off / functions /
lines). Only the functions in the range are compiled, each on its own
(eals/machine.py): a function with errors in it or its callees gets no
hints, the others do. A client that supports `workspace/inlayHint/refresh`
gets what compiled within a budget at once, and a refresh when the rest is
done; any other client gets the whole range in one answer. Type hints for the widths of context-typed calls come
from inlay_widths, at every level but off."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import functions, latest_measured, pair_label

from ..convert import column
from ..machine import BUDGET_S, machine_code
from ..runs import file_path
from ..support import guarded
from .inlay_widths import width_hints


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    @guarded(lsp.TEXT_DOCUMENT_INLAY_HINT, quiet=True)
    async def inlay_hint(ls, params: lsp.InlayHintParams):
        return await _hints(ls, params.text_document.uri, params.range)


def function_label(fr) -> str | None:
    """`12 vec · 4 scalar · 2 fma · 256-bit` (fma only when there are some)."""
    if not fr.exported and not fr.inlined_into:
        return None  # never called: no machine code
    c = fr.counts
    parts = [f"{c.vector} vec", f"{c.scalar} scalar"]
    if c.fma:
        parts.append(f"{c.fma} fma")
    if fr.width_bits:
        parts.append(f"{fr.width_bits}-bit")
    if not fr.exported:
        parts.append("inlined")
    return " · ".join(parts)


def loop_label(lp) -> str:
    """`memory-bound · 64 B/iter` (the bytes each iteration loads and stores; spills and reloads left out)."""
    moved = lp.kernel_bytes
    return f"{lp.role} loop: {lp.bottleneck}" + (f" · {moved} B/iter" if moved else "")


def _measured_label(uri: str, analysis, name: str) -> str | None:
    """The main loop's predicted vs measured cycles from the last cycle run (never runs one)."""
    path = file_path(uri)
    return pair_label(latest_measured(path, name, analysis.source.data)) if path else None


def visible_functions(analysis, rng: lsp.Range) -> list:
    """The functions and kernels (as written) compiled for the target that
    overlap the range's lines."""
    return [f for f in functions(analysis, rng.start.line + 1, rng.end.line + 1) if f.live]


async def _hints(ls, uri: str, rng: lsp.Range) -> list[lsp.InlayHint]:
    level = ls.config.inlay_hints
    doc = ls.docs.get(uri)
    if level == "off" or doc is None:
        return []
    analysis = await ls.current_analysis(uri)
    if analysis is None:
        return []
    widths = width_hints(analysis, rng)
    items = visible_functions(analysis, rng)
    # A partial answer only to a client we can ask to refresh; any other waits for the whole range.
    budget = BUDGET_S if ls.client.inlay_refresh else None
    found_code = await machine_code(ls, uri, analysis, [item.name for item in items], budget=budget)
    if found_code is None:
        return []  # the text changed meanwhile: the client asks again
    source = analysis.source
    found: list[tuple[int, int, str]] = []  # (line, order, label)
    for item in items:
        code = found_code.get(item.name)
        fr = code.report if code is not None else None
        if fr is None:
            continue  # blocked by errors, or compiling in the background (the client is asked to refresh)
        label = function_label(fr)
        if label:
            found.append((item.name_span.line, 0, label))
        if level != "lines":
            continue
        measured = _measured_label(uri, analysis, item.name)
        for lp in fr.loops:  # on the loop's header line (its first line may be inlined code of a callee)
            line = lp.header_line or lp.first_line
            if line and item.span.line <= line <= item.span.end_line:
                label = loop_label(lp)
                found.append((line, 1, f"{label} · {measured}" if measured and lp is fr.main_loop else label))
        found.extend((ln, 2, rep.summary) for ln, rep in fr.lines.items()
                     if item.span.line <= ln <= item.span.end_line and 1 <= ln <= source.line_count)
    hints = []
    for line, _, label in sorted(found):
        if not rng.start.line <= line - 1 <= rng.end.line:
            continue
        end = column(source, line, len(source.line_text(line)) + 1)
        hints.append(lsp.InlayHint(position=lsp.Position(line=line - 1, character=end), label=label,
                                   padding_left=True))
    return sorted(widths + hints, key=lambda h: (h.position.line, h.position.character))
