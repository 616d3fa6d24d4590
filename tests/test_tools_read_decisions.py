"""The tools colour and explain a call by what the checker decided it calls,
not by its name: a user `abs` (the one intrinsic name a user function may
shadow) is a function call in the TUI's colours and in semantic tokens, and
signature help shows the user's parameters."""
from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from ea_compiler import analyze
from eals.features.signature import _help
from eals.features.tokens import TOKEN_TYPES, classify
from ea_tui.highlight import source_spans

SRC = """\
func abs(x: i32, bias: i32) -> i32 {
    return x + bias
}
export func f(a: f32x4, k: i32) -> i32 {
    let v: f32x4 = sqrt(a)
    return abs(k, 3)
}
"""


def _col(line: str, word: str) -> int:
    return line.index(word)


def test_highlight_and_semantic_tokens_follow_the_recorded_callee():
    analysis = analyze(SRC, "k.ea")
    assert analysis.errors == []
    spans = source_spans(analysis)
    lines = SRC.splitlines()
    sqrt_at, abs_at = _col(lines[4], "sqrt"), _col(lines[5], "abs")
    assert (sqrt_at, sqrt_at + 4, "intrinsic") in spans[5]
    assert (abs_at, abs_at + 3, "function") in spans[6]
    kinds = {(line, col): TOKEN_TYPES[t] for line, col, _end, t, _m in classify(analysis)}
    assert kinds[(5, sqrt_at + 1)] == "macro" and kinds[(6, abs_at + 1)] == "function"


class _Server:
    def __init__(self, analysis):
        self.analysis = analysis

    async def current_analysis(self, uri):
        return self.analysis


def test_signature_help_shows_the_user_function_a_call_reaches():
    analysis = analyze(SRC, "k.ea")
    line = SRC.splitlines()[5]
    pos = lsp.Position(line=5, character=line.index("3)"))
    helped = asyncio.run(_help(_Server(analysis), "file:///k.ea", pos))
    assert [s.label for s in helped.signatures] == ["abs(x: i32, bias: i32) -> i32"]
    assert helped.active_parameter == 1
