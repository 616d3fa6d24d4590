"""Hover over stdio: functions show their inspect summary (equal to
ea_compiler.inspect for the same text and options), intrinsics their
signatures, variables their types, constants their values."""
from __future__ import annotations

import re
from html import unescape

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from markdown_it import MarkdownIt
from pytest_lsp import LanguageClient

from ea_compiler.inspect import inspect
from ea_compiler.intrinsics import TABLE
from eals.config import Config
from eals.markdown import escape
from lsp_support import HASWELL, SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SETTINGS = HASWELL
SRC = """\
const SCALE: f32 = 0.5

struct Pair {
    a: f32, b: f32
}

func twice(v: f32x8) -> f32x8 {
    return v .+ v
}

export kernel saxpy(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 8
    tail scalar { y[i] = fma(a, x[i], y[i]) }
{
    let va: f32x8 = splat(a * SCALE)
    store(y, i, twice(fma(va, load(x, i), load(y, i))))
}

export func first(p: *Pair, n: i32) -> f32 {
    let q: Pair = p[0]
    return q.a + q.b
}
"""


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=SETTINGS))
    yield
    await lsp_client.shutdown_session()


async def hover(client, uri: str, pos: lsp.Position) -> lsp.Hover | None:
    return await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))


def field(text: str, name: str) -> str:
    m = re.search(rf"^- {name}: (.*)$", text, re.M)
    assert m, f"no '{name}' in hover:\n{text}"
    return m.group(1)


async def test_kernel_hover_matches_inspect(client):
    uri = "file:///tmp/hover_kernel.ea"
    open_doc(client, uri, SRC)
    h = await hover(client, uri, at(SRC, "saxpy", delta=2))
    report = inspect(SRC, uri, Config().updated(SETTINGS).options())
    fr = next(f for f in report.functions if f.name == "saxpy")
    text = h.contents.value
    assert h.contents.kind == lsp.MarkupKind.Markdown
    assert text.startswith("```ea\nexport func saxpy(x: *restrict f32, y: *restrict mut f32, a: f32, n: i32)\n```")
    c = fr.counts
    assert int(field(text, "vector instructions")) == c.vector
    assert int(field(text, "scalar instructions")) == c.scalar
    assert int(field(text, "FMA")) == c.fma and c.fma > 0
    assert (int(field(text, "loads")), int(field(text, "stores"))) == (c.loads, c.stores)
    assert field(text, "vector width") == fr.vector_width == "256-bit (f32x8)"
    loops = field(text, "loops")
    assert int(loops.split(" ")[0]) == len(fr.loops)
    assert re.findall(r"\b(main|tail|loop) \(", loops) == [lp.role for lp in fr.loops]
    assert field(text, "registers").startswith(f"{len(fr.registers)} (")
    assert [m for m in re.findall(r"^- hint: (.*)$", text, re.M)] == \
        [h.message + (f" (line {h.line})" if h.line else "") for h in fr.hints]
    assert (h.range.start.line, h.range.start.character, h.range.end.character) == (10, 14, 19)
    # The heading names the CPU and target the counts are for, never "native native".
    assert "**Machine code** (haswell (x86_64-unknown-linux-gnu))" in text


async def test_private_function_at_call_site(client):
    uri = "file:///tmp/hover_call.ea"
    open_doc(client, uri, SRC)
    text = (await hover(client, uri, at(SRC, "twice(fma"))).contents.value
    assert text.startswith("```ea\nfunc twice(v: f32x8) -> f32x8\n```")
    assert "inlined into** saxpy" in text
    fr = next(f for f in inspect(SRC, uri, Config().updated(SETTINGS).options()).functions if f.name == "twice")
    assert int(field(text, "vector instructions")) == fr.counts.vector == 1


async def test_intrinsic_signatures(client):
    uri = "file:///tmp/hover_fma.ea"
    open_doc(client, uri, SRC)
    text = (await hover(client, uri, at(SRC, "fma(va", delta=1))).contents.value
    block = text.split("```")[1]
    assert block.strip().splitlines()[1:] == [f"fma{s}" for s in TABLE["fma"].signatures]
    assert len(TABLE["fma"].signatures) == 3
    assert escape(TABLE["fma"].doc) in text
    splat = (await hover(client, uri, at(SRC, "splat"))).contents.value
    assert "splat(T) -> TxN" in splat


async def test_variables_consts_fields(client):
    uri = "file:///tmp/hover_vars.ea"
    open_doc(client, uri, SRC)
    local = (await hover(client, uri, at(SRC, "va,"))).contents.value
    assert local.startswith("```ea\nlet va: f32x8\n```") and "local of `saxpy` · type `f32x8`" in local
    param = (await hover(client, uri, at(SRC, "a * SCALE"))).contents.value
    assert "parameter of `saxpy` · type `f32`" in param
    const = (await hover(client, uri, at(SRC, "SCALE)", delta=3))).contents.value
    assert "const SCALE: f32 = 0.5" in const and "value: `0.5`" in const
    fld = (await hover(client, uri, at(SRC, "q.b", delta=2))).contents.value
    assert "field of `Pair` · type `f32`" in fld and "Pair.b: f32" in fld
    vec = (await hover(client, uri, at(SRC, "f32x8"))).contents.value
    assert "8 lanes of `f32`, 256-bit" in vec
    assert await hover(client, uri, at(SRC, "\n\nstruct")) is None


async def test_errors_show_signature_only(client):
    uri = "file:///tmp/hover_errors.ea"
    bad = SRC.replace("return v .+ v", "return v + v")  # `+` on vectors is an error
    open_doc(client, uri, bad)
    text = (await hover(client, uri, at(bad, "saxpy"))).contents.value
    assert text.startswith("```ea\nexport func saxpy(")
    assert "vector instructions" not in text  # saxpy calls `twice`, which has the error
    assert text.endswith("*Machine code not shown: an error in this function, a function it calls or a "
                         "declaration \u2014 line 8: cannot use '+' on vectors. Use '.+' for element-wise vector "
                         "operations*")


def rendered(markdown: str) -> str:
    """What a Markdown client shows: the text of the CommonMark rendering."""
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return unescape(re.sub(r"<[^>]+>", "", html))


async def test_a_message_with_markdown_characters_reaches_the_reader_intact(client):
    """The machine-code-not-shown note puts the compiler's message in italics:
    its `*` must not become emphasis (Neovim showed "cannot use '' ... Use '.'")."""
    uri = "file:///tmp/hover_star.ea"
    bad = SRC.replace("return v .+ v", "return v * v")
    open_doc(client, uri, bad)
    text = (await hover(client, uri, at(bad, "saxpy"))).contents.value
    assert "line 8: cannot use '*' on vectors. Use '.*' for element-wise vector operations (" not in text
    assert "line 8: cannot use '*' on vectors. Use '.*' for element-wise vector operations" in rendered(text)
    assert "<em>Machine code not shown" in MarkdownIt("commonmark").render(text)  # still the italic note
