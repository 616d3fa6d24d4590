"""Code lenses and the `ea.bench` command over stdio: lenses exactly on the
exported functions the suite beside the file benches; `ea.bench` reports
progress, answers with the run's JSON, says it finished, and hover shows the
result afterwards; commands with bad names or arguments are answered with an
error and the server keeps serving."""
from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_support import SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# min_f32 has no bench: it gets no lens.
SUITE = """\
[[bench]]
function = "sum_f32"
sizes = ["4K"]
bytes_per_element = 4
reference = "np.sum(x)"
rtol = 1e-4
[bench.args]
x = { dtype = "float32", dist = "uniform", low = 0, high = 1 }

[[bench]]
function = "max_f32"
sizes = ["4K"]
bytes_per_element = 4
reference = "np.max(x)"
[bench.args]
x = { dtype = "float32", dist = "normal" }
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    path = folder / "reductions.ea"
    shutil.copy(EXAMPLES / "reductions.ea", path)
    (folder / "reductions.bench.toml").write_text(SUITE)
    shutil.copy(EXAMPLES / "reductions.ea", folder / "big.ea")  # sizes long enough to cancel in the middle
    (folder / "big.bench.toml").write_text(SUITE.replace('sizes = ["4K"]', 'sizes = ["1M", "4M", "16M"]'))
    # LANES = 16 with f32x8 loads skips half the elements: a wrong variant, never a better one
    shutil.copy(EXAMPLES / "reductions.ea", folder / "tuned.ea")
    (folder / "tuned.bench.toml").write_text(SUITE + "\n[tune.params]\nLANES = [8, 16]\n")
    shutil.copy(EXAMPLES / "reductions.ea", folder / "better.ea")
    (folder / "better.bench.toml").write_text(SUITE + '\n[tune]\ntransforms = ["unroll"]\n')
    shutil.copy(EXAMPLES / "reductions.ea", folder / "full.ea")  # the example's sizes: a tune long enough to cancel
    (folder / "full.bench.toml").write_text((EXAMPLES / "reductions.bench.toml").read_text().replace(
        'baseline = "baselines/reductions.json"\n', ""))
    (folder / "lonely.ea").write_text("export func one() -> i32 {\n    return 1\n}\n")
    return path


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(
        window=lsp.WindowClientCapabilities(work_done_progress=True))))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=SERVER)
async def plain(lsp_client: LanguageClient):
    """A client that declared no window.workDoneProgress."""
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def opened(client, path: Path) -> tuple[str, str]:
    text = path.read_text()
    uri = path.as_uri()
    open_doc(client, uri, text)
    return uri, text


async def lenses(client, uri: str) -> list[lsp.CodeLens]:
    return await client.text_document_code_lens_async(lsp.CodeLensParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))


async def execute(client, command: str, *arguments):
    return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=command, arguments=list(arguments)))


async def test_lenses_on_the_benched_functions(client, kernel):
    uri, text = opened(client, kernel)
    found = await lenses(client, uri)
    got = sorted((lens.range.start.line, lens.range.start.character, lens.command.title, lens.command.command,
                  tuple(lens.command.arguments)) for lens in found)
    expected = []
    for name in ("sum_f32", "max_f32"):
        pos = at(text, f"func {name}", len("func "))
        expected += [(pos.line, pos.character, "bench", "ea.bench", (uri, name, {"background": True})),
                     (pos.line, pos.character, "tune", "ea.tune", (uri, name, {"background": True}))]
    assert got == sorted(expected)


async def test_no_lenses_without_a_suite_or_a_file(client, kernel):
    uri, _ = opened(client, kernel.parent / "lonely.ea")
    assert list(await lenses(client, uri)) == []
    open_doc(client, "untitled:Untitled-1", (kernel).read_text())
    assert list(await lenses(client, "untitled:Untitled-1")) == []


async def test_bench_reports_progress_and_hover_shows_it(client, kernel):
    uri, text = opened(client, kernel)
    before = set(client.progress_reports)
    document = await execute(client, "ea.bench", uri, "max_f32")
    assert [m["kernel"] for m in document["measurements"]] == ["max_f32[4K]"]

    tokens = [t for t in client.progress_reports if t not in before]
    assert len(tokens) == 1
    reports = client.progress_reports[tokens[0]]
    assert isinstance(reports[0], lsp.WorkDoneProgressBegin) and reports[0].title == "ea bench max_f32"
    assert reports[0].cancellable
    assert any(isinstance(r, lsp.WorkDoneProgressReport) and "max_f32 at 4K" in r.message for r in reports)
    assert isinstance(reports[-1], lsp.WorkDoneProgressEnd) and reports[-1].message == "done"

    message = client.messages[-1]
    assert message.type == lsp.MessageType.Info
    assert message.message.startswith("ea.bench max_f32: 4K ") and "× NumPy" in message.message

    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(text, "func max_f32", len("func "))))
    value = hover.contents.value
    assert "**Bench** (quick run at" in value
    assert "- max_f32 4K: median " in value and "× NumPy (NumPy " in value
    other = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(text, "func sum_f32", len("func "))))
    assert "**Bench**" not in other.contents.value  # only the function that ran


async def test_a_lens_click_is_answered_at_once_and_the_run_goes_on(client, kernel):
    """What the lenses send: Emacs's clients block the editor until the answer."""
    uri, text = opened(client, kernel)
    before = set(client.progress_reports)
    shown = len(client.messages)
    assert await asyncio.wait_for(execute(client, "ea.bench", uri, "sum_f32", {"background": True}), 5) is None
    for _ in range(1200):
        if len(client.messages) > shown:
            break
        await asyncio.sleep(0.05)
    assert client.messages[-1].message.startswith("ea.bench sum_f32: 4K ")
    (token,) = [t for t in client.progress_reports if t not in before]
    assert client.progress_reports[token][-1].message == "done"
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(text, "func sum_f32", len("func "))))
    assert "- sum_f32 4K: median " in hover.contents.value


async def test_cancel_through_the_progress(client, kernel):
    uri, _ = opened(client, kernel.parent / "big.ea")
    before = set(client.progress_reports)
    run = asyncio.ensure_future(execute(client, "ea.bench", uri, "sum_f32"))
    for _ in range(600):
        tokens = [t for t in client.progress_reports if t not in before and client.progress_reports[t]]
        if tokens:
            break
        await asyncio.sleep(0.05)
    assert tokens, "no progress began"
    with pytest.raises(JsonRpcException) as info:  # one run of a function at a time
        await execute(client, "ea.bench", uri, "sum_f32")
    assert (info.value.code, info.value.message) == (-32803, "ea.bench sum_f32 is already running")
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=tokens[0]))
    assert await asyncio.wait_for(run, 60) is None
    assert client.messages[-1].message == "ea.bench sum_f32: cancelled"
    last = client.progress_reports[tokens[0]][-1]
    assert isinstance(last, lsp.WorkDoneProgressEnd) and last.message == "cancelled"
    # a new run of the same function may start at once
    assert (await execute(client, "ea.bench", kernel.as_uri(), "sum_f32"))["measurements"]


async def test_no_progress_unless_declared(plain, kernel):
    uri = kernel.as_uri()
    open_doc(plain, uri, kernel.read_text() + "// not saved yet\n")
    document = await execute(plain, "ea.bench", uri, "sum_f32")
    assert [m["kernel"] for m in document["measurements"]] == ["sum_f32[4K]"]
    assert plain.progress_reports == {}
    message = plain.messages[-1].message
    assert message.startswith("ea.bench sum_f32: 4K ")
    assert message.endswith(" (the saved file ran; unsaved changes were not included)")


async def test_tune_reports_each_attempt_and_never_touches_the_file(client, kernel):
    path = kernel.parent / "tuned.ea"
    uri, text = opened(client, path)
    before = set(client.progress_reports)
    result = await execute(client, "ea.tune", uri, "sum_f32", {"quick": True, "budget": 2, "spaces": ["params"]})
    assert result["evaluated"] == 1 and result["accepted"] == 0 and result["best_file"] is None
    assert [(a["label"], a["outcome"]) for a in result["history"]] == [("LANES=16", "wrong")]
    assert path.read_text() == text and not (kernel.parent / "tuned.tuned.ea").exists()

    tokens = [t for t in client.progress_reports if t not in before]
    reports = client.progress_reports[tokens[0]]
    assert reports[0].title == "ea tune sum_f32"
    assert any(isinstance(r, lsp.WorkDoneProgressReport) and r.message.startswith("LANES=16: wrong · best ")
               for r in reports)
    assert reports[-1].message == "done"
    assert client.messages[-1].message == "ea.tune sum_f32: no faster variant in 1 evaluated"

    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(text, "func sum_f32", len("func "))))
    value = hover.contents.value
    assert "**Tune** (finished at" in value and "(1.00×)" in value
    assert "- no faster variant found: nothing written" in value and "- accepted 0 of 1 evaluated" in value


async def test_tune_writes_the_better_kernel_beside_the_file(client, kernel):
    """max_f32 keeps one accumulator: unrolling it is faster, found by the tuner."""
    path = kernel.parent / "better.ea"
    uri, text = opened(client, path)
    result = await execute(client, "ea.tune", uri, "max_f32", {"quick": True, "budget": 2})
    assert result["evaluated"] == 2 and result["accepted"] >= 1, result["history"]
    written = kernel.parent / "better.tuned.ea"
    assert result["best_file"] == str(written)
    assert path.read_text() == text  # the user's file stays as it is
    assert written.read_text() != text and "best_1" in written.read_text()
    said = client.messages[-1].message
    assert said.startswith("ea.tune max_f32: ") and " faster (" in said
    assert abs(float(said.split(": ")[1].split("×")[0]) - result["speedup"]) <= 0.005  # the JSON rounds apart
    assert client.messages[-1].message.endswith("), wrote better.tuned.ea")
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(text, "func max_f32", len("func "))))
    value = hover.contents.value
    shown = re.search(r"\((\d+\.\d\d)×\)", value)
    assert shown and abs(float(shown.group(1)) - result["speedup"]) <= 0.005
    assert f"- best variant: {result['best_label']}, written to `better.tuned.ea`" in value
    assert f"- accepted {result['accepted']} of 2 evaluated" in value


async def test_tune_cancelled_through_the_progress(client, kernel):
    uri, text = opened(client, kernel.parent / "full.ea")
    before = set(client.progress_reports)
    run = asyncio.ensure_future(execute(client, "ea.tune", uri, "max_f32"))
    token = None
    for _ in range(1200):
        token = next((t for t in client.progress_reports if t not in before and any(
            "search" in (getattr(r, "message", "") or "") for r in client.progress_reports[t])), None)
        if token is not None:
            break
        await asyncio.sleep(0.05)
    assert token is not None, "the search never began"
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(run, 120)
    assert result["interrupted"] is True and result["evaluated"] <= 1
    assert client.progress_reports[token][-1].message == "cancelled"
    assert client.messages[-1].message.startswith("ea.tune max_f32: ")
    assert "(interrupted: the best found so far)" in client.messages[-1].message
    assert (kernel.parent / "full.ea").read_text() == text


async def test_tune_cancelled_before_its_search_is_no_error(client, kernel):
    """Cancelled while the original is measured (lsp-mode shows Error messages in red)."""
    path = kernel.parent / "early.ea"
    shutil.copy(kernel.parent / "full.ea", path)
    suite = (kernel.parent / "full.bench.toml").read_text()  # other sizes: nothing of it in the tuner's cache
    path.with_suffix(".bench.toml").write_text(suite.replace('sizes = ["16K", "256K", "4M", "16M"]',
                                                             'sizes = ["8M", "16M"]'))
    uri, text = opened(client, path)
    before = set(client.progress_reports)
    shown = len(client.messages)
    assert await execute(client, "ea.tune", uri, "max_f32", {"background": True}) is None
    token = None
    for _ in range(1200):
        token = next((t for t in client.progress_reports if t not in before and client.progress_reports[t]), None)
        if token is not None:
            break
        await asyncio.sleep(0.05)
    assert token is not None, "no progress began"
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    for _ in range(1200):
        if len(client.messages) > shown:
            break
        await asyncio.sleep(0.05)
    message = client.messages[-1]
    assert message.message == "ea.tune max_f32: cancelled while measuring the original kernel"
    assert message.type == lsp.MessageType.Info
    assert client.progress_reports[token][-1].message == "cancelled"
    assert path.read_text() == text


@pytest.mark.parametrize("command, arguments, code, text", [
    ("ea.nothing", ["x"], -32602, "Command name 'ea.nothing' is not defined"),
    ("ea.bench", [], -32602, "ea.bench takes [uri, function] and optionally an object of options; got 0 argument(s)"),
    ("ea.bench", [1, 2], -32602, "ea.bench takes [uri, function] and optionally an object of options; got [1, 2]"),
    ("ea.bench", ["URI", "max_f32", {}, {}], -32602, "ea.bench takes [uri, function] and optionally an object"),
    ("ea.bench", ["URI", "max_f32", {"quick": True}], -32602, "ea.bench: unknown option(s) quick (known: background)"),
    ("ea.bench", ["URI", "max_f32", {"background": None}], -32602, "ea.bench: 'background' must be true or false"),
    ("ea.tune", ["URI", "max_f32", {"budget": "2"}], -32602, "ea.tune: 'budget' must be a whole number"),
    ("ea.tune", ["URI", "max_f32", {"fast": True}], -32602, "ea.tune: unknown option(s) fast (known: quick,"),
    ("ea.tune", ["URI", "max_f32", {"budget": 0}], -32803, "ea.tune: the budget must be at least 1 variant"),
    ("ea.tune", ["URI", "max_f32", {"spaces": ["guess"]}], -32803, "ea.tune: unknown search space guess"),
    ("ea.tune", ["URI", "min_f32"], -32803, "ea.tune: reductions.bench.toml has no bench of 'min_f32'"),
    ("ea.bench", ["URI", "min_f32"], -32803, "ea.bench: reductions.bench.toml has no bench of 'min_f32'"),
    ("ea.bench", ["untitled:1", "min_f32"], -32803, "ea.bench: untitled:1 is not a file on disk"),
    ("ea.bench", ["LONELY", "one"], -32803, "ea.bench: no bench suite beside lonely.ea (lonely.bench.toml)"),
])
async def test_bad_commands_are_errors(client, kernel, command, arguments, code, text):
    uris = {"URI": kernel.as_uri(), "LONELY": (kernel.parent / "lonely.ea").as_uri()}
    arguments = [uris.get(a, a) if isinstance(a, str) else a for a in arguments]
    with pytest.raises(JsonRpcException) as info:
        await execute(client, command, *arguments)
    assert info.value.code == code
    assert text in info.value.message
    # still serving
    uri, _ = opened(client, kernel)
    assert len(await lenses(client, uri)) == 4
