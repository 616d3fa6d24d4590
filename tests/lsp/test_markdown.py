"""Every text the server puts into Markdown (hover, completion and signature
documentation, run results) goes through eals/markdown.py: rendered by a
CommonMark renderer it reads exactly as written, whatever Markdown
characters it holds, and stays readable raw (no escapes where none are needed)."""
from __future__ import annotations

import re
from html import unescape
from types import SimpleNamespace

import pytest
from markdown_it import MarkdownIt

from ea_compiler.intrinsics import TABLE
from eals.features.hover import blocked_note, intrinsic_markdown, machine_markdown
from eals.markdown import code, code_block, emphasis, escape
from eals.runs import bench_markdown

EVERY = "\\ ` * _ { } [ ] ( ) # + - . ! | < > ~"
STAR = "cannot use '*' on vectors. Use '.*'"
TEXTS = [EVERY, STAR, "# not a heading", "- not a list", "+ nor this", "1. nor this", "2) nor this",
         "a\n---", "b\n===", "**x** _y_ __z__ `w` ~~v~~", "[link](http://x) ![img](y) <b>tag</b> &amp; | a | b |",
         "x86_64 load_f32x8 _leading trailing_ a__b", "> quote", "a  \nb"]


def rendered(markdown: str) -> str:
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


@pytest.mark.parametrize("text", TEXTS)
def test_escaped_text_renders_as_written(text):
    assert rendered(escape(text)) == text.replace("  \n", "\n")  # a hard break renders as a line break


def test_every_metacharacter_and_the_star_message():
    assert rendered(escape(EVERY)) == EVERY
    assert rendered(emphasis(STAR)) == STAR
    assert "<em>" in MarkdownIt("commonmark").render(emphasis(STAR))  # one emphasis, around the whole text
    assert escape("x86_64 f32x8 1.5 µs (a, b)") == "x86_64 f32x8 1.5 µs (a, b)"  # readable raw


def test_code_spans_and_blocks_hold_any_backticks():
    for text in ("a`b", "``", "`x`"):
        assert rendered(code(text)) == text
    assert rendered(code_block("let s = `x`\n```\n")) == "let s = `x`\n```"


def test_the_server_texts_escape_what_they_carry():
    note = blocked_note([SimpleNamespace(span=SimpleNamespace(line=8), message=STAR + " *now*")])
    assert rendered(note).endswith(f"line 8: {STAR} *now*")
    intr = TABLE["fma"]
    assert "a * b + c with a single rounding" in rendered(intrinsic_markdown(intr))
    result = SimpleNamespace(bench="max_*", size=4096, status="error", message="bad [x] <y> _z_", speedup=None)
    assert "max_* 4K: error — bad [x] <y> _z_" in rendered(bench_markdown([result]))
    counts = SimpleNamespace(vector=1, scalar=2, fma=0, loads=1, stores=1)
    report = SimpleNamespace(exported=True, inlined_into=[], counts=counts, vector_width="", loops=[], registers=[],
                             hints=[SimpleNamespace(message="use `.*` not *", line=3)])
    assert "hint: use `.*` not * (line 3)" in rendered(machine_markdown(report, "haswell"))
