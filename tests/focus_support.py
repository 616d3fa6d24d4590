"""Checks that an analysis focused on one place (`Analysis.focus`) answers
as the whole analysis of the same text does, for what requests about that
place read: the hover there, the errors blocking each function's machine
code, and its tokens and symbols (each one the whole analysis has too)."""
from __future__ import annotations

from ea_compiler.build import errors_blocking
from ea_compiler.ide.hover import hover


def _span(s) -> tuple:
    return s.as_tuple() if s is not None else None


def hover_facts(h) -> tuple | None:
    if h is None:
        return None
    sym = h.symbol
    facts = None if sym is None else (sym.name, str(sym.kind), _span(sym.span), str(sym.type), sym.detail,
                                      sym.container, repr(sym.value))
    return (h.word.text, _span(h.word), facts, getattr(h.intrinsic, "name", None), h.vector is not None,
            h.scalar is not None, [f.name for f in h.fields])


def focus_differences(got, want, offsets) -> list[str]:
    """`got`: an analysis made by an edit and not yet read whole; `want`:
    `analyze()` of its text. Asks about each offset in turn."""
    out = []
    for at in offsets:
        if hover_facts(hover(got, at)) != hover_facts(hover(want, at)):
            out.append(f"hover at {at}: {hover_facts(hover(got, at))} != {hover_facts(hover(want, at))}")
        focused = got.focus(at)
        for f in focused.live_functions:
            mine = [d.to_json() for d in errors_blocking(focused, [f.name])]
            whole = [d.to_json() for d in errors_blocking(want, [f.name])]
            if mine != whole:
                out.append(f"errors blocking {f.name} (focus at {at}): {mine} != {whole}")
        tokens = {(t.kind, _span(t), t.text) for t in want.tokens}
        out += [f"token {t.text!r} at {_span(t)} (focus at {at})" for t in focused.tokens
                if (t.kind, _span(t), t.text) not in tokens]
        symbols = {(s.name, str(s.kind), _span(s.span)): s for s in want.symbols.symbols}
        for s in focused.symbols.symbols:
            w = symbols.get((s.name, str(s.kind), _span(s.span)))
            if w is None:
                out.append(f"symbol {s.name} at {_span(s.span)} (focus at {at})")
            elif not {_span(r) for r in s.references} <= {_span(r) for r in w.references}:
                out.append(f"references of {s.name} (focus at {at})")
    return out
