"""Diagnostics behaviour of `eals` over stdio, with exact values.

Ranges are checked twice: against literal 0-based lines and UTF-16 characters,
and against `ea_compiler.analyze` on the same text with the UTF-16 column worked
out here independently (`utf16`). Every publishDiagnostics is recorded in
arrival order (`Recorder`), so version ordering and staleness can be checked.
"""
from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler import Options, analyze
from lsp_support import SERVER, open_doc
from raw_session import frame, read_frame

PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
ROOT = Path(__file__).resolve().parents[2]
ARM = "aarch64-unknown-linux-gnu"
ARM_MESSAGE = "f32x8 requires AVX2; use f32x4 on ARM"
X86_HOST = platform.machine().lower() in ("x86_64", "amd64")


@pytest_lsp.fixture(config=SERVER)
async def arm_client(lsp_client: LanguageClient):
    """A server started with an ARM target in its initialization options."""
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options={"ea": {"target_triple": ARM}}))
    yield
    await lsp_client.shutdown_session()


class Recorder:
    """Every publishDiagnostics in arrival order: wraps the client's handler for
    the notification (pytest-lsp itself keeps only the latest per URI)."""

    def __init__(self, client: LanguageClient):
        self.items: list[lsp.PublishDiagnosticsParams] = []
        self._event = asyncio.Event()
        features = client.protocol.fm.features
        handler = features[PUBLISH]

        def record(params):
            self.items.append(params)
            self._event.set()
            return handler(params)

        features[PUBLISH] = record

    def of(self, uri: str) -> list[lsp.PublishDiagnosticsParams]:
        return [p for p in self.items if p.uri == uri]

    async def wait_for(self, uri: str, version="any", since: int = 0, timeout: float = 10.0):
        """The first publish for `uri` (and `version`) at index >= `since`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for p in self.items[since:]:
                if p.uri == uri and (version == "any" or p.version == version):
                    return p
            remaining = deadline - loop.time()
            if remaining <= 0:
                seen = [(p.uri, p.version, len(p.diagnostics)) for p in self.items[since:]]
                raise AssertionError(f"no publishDiagnostics for {uri} version {version} in {timeout}s; saw {seen}")
            self._event.clear()
            try:
                await asyncio.wait_for(self._event.wait(), remaining)
            except TimeoutError:
                pass


def utf16(line_text: str, col: int) -> int:
    """0-based UTF-16 offset of a 1-based character column."""
    return len(line_text[: col - 1].encode("utf-16-le")) // 2


def expected(text: str, uri: str, options: Options | None = None) -> list:
    """What the server should publish for `text`, computed from ea_compiler.analyze."""
    lines = text.split("\n")
    out = []
    for d in analyze(text, uri, options).diagnostics:
        assert not d.notes, "test texts are chosen so that messages carry no notes"
        s = d.span
        out.append(((s.line - 1, utf16(lines[s.line - 1], s.col)),
                    (s.end_line - 1, utf16(lines[s.end_line - 1], s.end_col)), d.message))
    return out


def got(params: lsp.PublishDiagnosticsParams) -> list:
    return [((d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character), d.message)
            for d in params.diagnostics]


def change_full(client, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


def edit(start: tuple[int, int], end: tuple[int, int], text: str) -> lsp.TextDocumentContentChangePartial:
    return lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(*start), end=lsp.Position(*end)), text=text)


def change_edits(client, uri: str, version: int, edits: list) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=edits))


def apply_edit(text: str, e: lsp.TextDocumentContentChangePartial) -> str:
    """Apply one range edit locally (UTF-16 positions), as a client would."""
    lines = text.split("\n")

    def index(pos: lsp.Position) -> int:
        before = sum(len(l) + 1 for l in lines[: pos.line])
        units, i, line = 0, 0, lines[pos.line]
        while i < len(line) and units < pos.character:
            units += 2 if ord(line[i]) > 0xFFFF else 1
            i += 1
        return before + i

    return text[: index(e.range.start)] + e.text + text[index(e.range.end):]


FIVE = """\
// Five independent errors. Naïve comment with an astral character: 😀 (two UTF-16 units)
export func add(a: f32x4, b: f32x4) -> f32x4 {
    return a + b
}

func shift(x: i32) -> i32 {
    let s: i32 = 😀 x + y
    return s
}

func bump() -> i32 {
    let z: i32 = 1
    z = 2
    return z
}

func ok(p: f32x4) -> f32 {
    return reduce_add(p)
}

func wrong(x: f32) -> i32 {
    return x
}
"""
FIVE_FIXED = (FIVE.replace("a + b", "a .+ b").replace("😀 x + y", "x + 1").replace("let z", "let mut z")
              .replace("(x: f32) -> i32", "(x: f32) -> f32"))

FIVE_EXPECTED = [
    ((2, 11), (2, 16), "cannot use '+' on vectors. Use '.+' for element-wise vector operations"),
    ((6, 17), (6, 19), 'unexpected character: "😀"'),
    ((6, 24), (6, 25), "undefined variable 'y'. Did you mean 'x'?"),
    ((12, 4), (12, 9), "cannot assign to immutable variable 'z'. Declare with 'let mut z' to allow assignment"),
    ((21, 11), (21, 12), "function 'wrong' returns f32 but expected i32. Use to_i32() to convert"),
]


async def test_five_errors_exact_ranges_and_messages_then_fixed(client):
    rec, uri = Recorder(client), "file:///tmp/five.ea"
    open_doc(client, uri, FIVE)
    published = await rec.wait_for(uri, 1)
    assert got(published) == FIVE_EXPECTED
    assert got(published) == expected(FIVE, uri)
    assert all(d.severity == lsp.DiagnosticSeverity.Error for d in published.diagnostics)
    # The emoji line really tests UTF-16: 'y' is character 23 in code points, 24 in UTF-16.
    assert FIVE.split("\n")[6].index("y") == 23
    change_full(client, uri, 2, FIVE_FIXED)
    assert list((await rec.wait_for(uri, 2)).diagnostics) == []
    assert expected(FIVE_FIXED, uri) == []


# The file ends, without a newline, in a comment with non-ASCII text: the
# "expected '}'" label sits after that text on the same line.
UNCLOSED = "export func g(x: i32) -> i32 {\n    return x\n// naïve 😀 end"


async def test_unclosed_brace_has_related_information_then_fixed(client):
    rec, uri = Recorder(client), "file:///tmp/unclosed.ea"
    open_doc(client, uri, UNCLOSED)
    (d,) = (await rec.wait_for(uri, 1)).diagnostics
    assert d.message == "unclosed '{': the block of function 'g' is never closed"
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (0, 29, 0, 30)
    (rel,) = d.related_information
    assert rel.message == "expected '}' before end of file"
    assert rel.location.uri == uri
    last = UNCLOSED.split("\n")[2]
    assert (rel.location.range.start.line, rel.location.range.start.character) == (2, utf16(last, len(last) + 1))
    assert (rel.location.range.start.line, rel.location.range.start.character) == (2, 15)  # 14 code points
    (c,) = analyze(UNCLOSED, uri).diagnostics
    assert (c.message, c.labels[0].message) == (d.message, rel.message)
    change_full(client, uri, 2, UNCLOSED + "\n}\n")
    assert list((await rec.wait_for(uri, 2)).diagnostics) == []


async def test_closing_clears_diagnostics(client):
    rec, uri = Recorder(client), "file:///tmp/closed.ea"
    open_doc(client, uri, FIVE)
    assert len((await rec.wait_for(uri, 1)).diagnostics) == 5
    since = len(rec.items)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert list((await rec.wait_for(uri, since=since)).diagnostics) == []
    # Closing while an analysis is in flight: nothing stale may arrive afterwards.
    open_doc(client, uri, FIVE + PADDING, version=7)  # 2,000 lines: still being analysed at the close
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(1.0)
    assert list(rec.of(uri)[-1].diagnostics) == []


def big_text(lines: int) -> list[str]:
    out, i = [], 0
    while len(out) < lines:
        out += [f"export func k{i}(a: *restrict f32, n: i32) -> f32 {{", "    let mut acc: f32x4 = splat(0.0)",
                "    let mut i: i32 = 0", "    while i + 4 <= n {", "        acc = acc .+ load_f32x4(a, i)",
                "        i = i + 4", "    }", "    return reduce_add(acc)", "}", ""]
        i += 1
    return out[:lines]


PADDING = "\n".join(big_text(2_000)) + "\n"


def rapid_text(v: int) -> str:
    """Version v: errors for odd v (at a line that moves with v), clean for even
    v; 2,000 lines of padding make each analysis outlast the gap between edits."""
    op = "+" if v % 2 else ".+"
    return f"// version {v}\n" + "\n" * (v % 7) + (
        "export func f(a: f32x4, b: f32x4) -> f32x4 {\n"
        f"    let c: f32x4 = a .+ b\n    return c {op} b\n}}\n") + PADDING


async def test_rapid_edits_never_publish_stale_versions(client):
    rec, uri = Recorder(client), "file:///tmp/rapid.ea"
    open_doc(client, uri, rapid_text(1))
    await rec.wait_for(uri, 1)
    start = len(rec.items)
    texts = {v: rapid_text(v) for v in range(2, 32)}  # 30 changes, the last (31) has an error
    for v, text in texts.items():
        change_full(client, uri, v, text)
    last = await rec.wait_for(uri, 31, since=start)
    await asyncio.sleep(0.5)  # anything published late would show up now
    seen = [p for p in rec.items[start:] if p.uri == uri]
    versions = [p.version for p in seen]
    assert all(v is not None for v in versions), versions
    assert versions == sorted(versions), f"versions went backwards: {versions}"
    assert versions[-1] == 31 and seen[-1] is last
    assert got(last) == expected(texts[31], uri) != []
    for p in seen:  # each publication matches the text of the version it names
        assert got(p) == expected(texts[p.version], uri), p.version


INCR_START = """\
// naïve 😀 start
export func add(a: f32x4, b: f32x4) -> f32x4 {
    return a .+ b
}

func h(x: i32) -> i32 {
    let s: i32 = 😀 x + 1
    return s
}
"""
INCR_EDITS = [
    [edit((0, 12), (0, 17), "edited")],                      # after the emoji: UTF-16 columns
    [edit((2, 13), (2, 14), ""), edit((6, 24), (6, 25), "y")],  # '.+' -> '+'; after the emoji: '1' -> 'y'
    [edit((9, 0), (9, 0), "func k() -> i32 {\n    let z: i32 = 1\n    z = 2\n    return z\n}\n")],
    [edit((5, 0), (9, 0), ""), edit((5, 0), (5, 0), "\n")],   # multi-line delete of h, then an insert
    [edit((3, 1), (4, 0), "\nfunc h(x: i32) -> i32 {\n    let s: i32 = 😀 x + q\n    return s\n}\n")],
]
INCR_FINAL = """\
// naïve 😀 edited
export func add(a: f32x4, b: f32x4) -> f32x4 {
    return a + b
}
func h(x: i32) -> i32 {
    let s: i32 = 😀 x + q
    return s
}


func k() -> i32 {
    let z: i32 = 1
    z = 2
    return z
}
"""


async def test_incremental_sync_matches_full_text(client):
    rec = Recorder(client)
    incr, full = "file:///tmp/incremental.ea", "file:///tmp/full.ea"
    text = INCR_START
    for batch in INCR_EDITS:
        for e in batch:
            text = apply_edit(text, e)
    assert text == INCR_FINAL
    open_doc(client, incr, INCR_START)
    open_doc(client, full, INCR_START)
    await rec.wait_for(incr, 1)
    await rec.wait_for(full, 1)
    for version, batch in enumerate(INCR_EDITS, start=2):
        change_edits(client, incr, version, batch)
    change_full(client, full, 2, INCR_FINAL)
    by_edits = await rec.wait_for(incr, len(INCR_EDITS) + 1)
    by_text = await rec.wait_for(full, 2)
    assert got(by_edits) == got(by_text) == expected(INCR_FINAL, incr)
    assert [m for *_, m in got(by_edits)] == [
        "cannot use '+' on vectors. Use '.+' for element-wise vector operations",
        'unexpected character: "😀"', "undefined variable 'q'. Did you mean 'x'?",
        "cannot assign to immutable variable 'z'. Declare with 'let mut z' to allow assignment"]


async def test_ten_thousand_line_file_stays_responsive(client):
    rec, uri = Recorder(client), "file:///tmp/big.ea"
    lines = big_text(10_000)
    text = "\n".join(lines) + "\n"
    open_doc(client, uri, text)
    assert list((await rec.wait_for(uri, 1, timeout=30)).diagnostics) == []
    original = lines[5004]
    for version, line, new in ((2, 5004, original.replace(".+", "+")), (3, 5004, original),
                               (4, 9994, lines[9994].replace(".+", "+"))):
        old, lines[line] = lines[line], new
        started = time.perf_counter()
        change_edits(client, uri, version, [edit((line, 0), (line, len(old)), new)])
        published = await rec.wait_for(uri, version, timeout=10)
        elapsed = time.perf_counter() - started
        assert elapsed < 2.0, f"edit {version}: diagnostics after {elapsed:.2f}s"
        assert got(published) == expected("\n".join(lines) + "\n", uri)
    assert [p.range.start.line for p in published.diagnostics] == [9994]


ARM_TEXT = "export func f(a: f32x8) -> f32 {\n    return reduce_add(a)\n}\n"
ARM_EXPECTED = [((0, 17), (0, 22), ARM_MESSAGE)]


@pytest.mark.skipif(not X86_HOST, reason="the default (host) target must be x86-64")
async def test_configuration_change_switches_target(client):
    rec, uri = Recorder(client), "file:///tmp/arm.ea"
    open_doc(client, uri, ARM_TEXT)
    assert list((await rec.wait_for(uri, 1)).diagnostics) == []
    since = len(rec.items)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"ea": {"target_triple": ARM}}))
    published = await rec.wait_for(uri, since=since)
    assert got(published) == ARM_EXPECTED == expected(ARM_TEXT, uri, Options(target_triple=ARM))
    since = len(rec.items)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"ea": {"target_triple": None}}))
    assert list((await rec.wait_for(uri, since=since)).diagnostics) == []


async def test_initialization_options_are_honoured(arm_client):
    rec, uri = Recorder(arm_client), "file:///tmp/arm_init.ea"
    open_doc(arm_client, uri, ARM_TEXT)
    published = await rec.wait_for(uri, 1)
    assert got(published) == ARM_EXPECTED, "initializationOptions {'ea': {'target_triple': aarch64}} were ignored"


async def _logged_problem(client, before: int) -> list:
    for _ in range(40):
        if any(m.type in (lsp.MessageType.Error, lsp.MessageType.Warning) for m in client.log_messages[before:]):
            break
        await asyncio.sleep(0.05)
    return [(m.type, m.message) for m in client.log_messages[before:]
            if m.type in (lsp.MessageType.Error, lsp.MessageType.Warning)]


async def test_errors_go_to_log_message_and_the_server_keeps_working(client):
    rec, uri = Recorder(client), "file:///tmp/after_error.ea"
    # 1. A setting of the wrong type.
    before = len(client.log_messages)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"ea": {"opt_level": "fast"}}))
    bad_setting = await _logged_problem(client, before)
    # 2. A change to a document that was never opened (a handler fails).
    before = len(client.log_messages)
    change_full(client, "file:///tmp/never_opened.ea", 2, "x")
    bad_change = await _logged_problem(client, before)
    open_doc(client, uri, FIVE)
    assert got(await rec.wait_for(uri, 1)) == FIVE_EXPECTED  # the session survived, stdout is still clean
    assert client.error is None
    shown = [(m.type, m.message) for m in client.messages]
    assert bad_setting, f"no window/logMessage for opt_level 'fast'; window/showMessage: {shown}"
    assert bad_change, f"no window/logMessage for a change to an unopened document; window/showMessage: {shown}"


def test_stdout_carries_only_protocol_frames():
    """A raw session with errors provoked (bad setting, change to an unopened
    document): every byte on stdout is a Content-Length framed JSON-RPC message."""
    proc = subprocess.Popen([sys.executable, "-m", "eals.cli"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    try:
        def send(message):
            proc.stdin.write(frame({"jsonrpc": "2.0", **message}))
            proc.stdin.flush()

        def until(pred):
            while (m := read_frame(proc.stdout)) is not None:
                if pred(m):
                    return m
            raise AssertionError("server stdout closed early")

        uri = "file:///tmp/raw.ea"
        send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        assert "capabilities" in until(lambda m: m.get("id") == 1)["result"]
        send({"method": "initialized", "params": {}})
        send({"method": "workspace/didChangeConfiguration", "params": {"settings": {"ea": {"opt_level": "fast"}}}})
        send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///tmp/never.ea", "version": 2}, "contentChanges": [{"text": "x"}]}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "ea", "version": 1, "text": FIVE}}})
        pub = until(lambda m: m.get("method") == PUBLISH and m["params"]["uri"] == uri)
        assert len(pub["params"]["diagnostics"]) == 5
        send({"id": 2, "method": "shutdown"})
        until(lambda m: m.get("id") == 2)
        send({"method": "exit"})
        while read_frame(proc.stdout) is not None:  # the rest of stdout must parse too
            pass
        assert proc.wait(timeout=10) == 0
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
