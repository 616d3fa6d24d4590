"""Source pane: the file, its colours, its diagnostics, reloading, bad input."""
from __future__ import annotations

import os

from tui_support import SIZE, compiled, make_app, row_texts, screen_text, until

from ea_tui.widgets.code_view import CodeView

BAD = "export func f(a: f32) -> i32 {\n    return a\n}\n"


async def test_shows_the_file_with_colours(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        view = app.query_one("#source-view", CodeView)
        texts = row_texts(view)
        assert texts[1].startswith("export kernel fma_kernel(")
        assert len(texts) == 10 and view.cursor_key == 1
        spans = {text[s:e]: c for text, row in zip(texts, view.rows) for s, e, c in row.spans}
        assert spans["export"] == spans["kernel"] == "keyword"
        assert spans["f32x8"] == "type" and spans["load"] == "intrinsic" and spans["8"] == "number"
        assert any(c == "comment" for s, e, c in view.rows[0].spans)
        assert "fma.ea" in app.title and "haswell" in app.sub_title
        assert "no errors" in screen_text(app)


async def test_diagnostics_inline_and_in_the_list(tmp_path):
    path = tmp_path / "bad.ea"
    path.write_text(BAD)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        view = app.query_one("#source-view", CodeView)
        texts = row_texts(view)
        note = texts.index(next(t for t in texts if "error[type]" in t))
        assert texts[note - 1] == "    return a" and view.rows[note - 1].key == 2
        assert view.rows[note].key is None and view.rows[note].style == "note-error"
        assert texts[note].strip().startswith("^") and "returns f32 but expected i32" in texts[note]
        assert view.rows[note - 1].gutter.endswith("●")
        assert ("error" in {c for _, _, c in view.rows[note - 1].spans})
        listing = app.query_one("#diagnostics")
        assert listing.option_count == 1 and "2:12" in str(listing.get_option_at_index(0).prompt)
        screen = screen_text(app)
        assert "1 error" in screen and "returns f32 but expected i32" in screen
        # the cursor skips the note row
        await pilot.press("down")
        assert view.cursor_key == 2
        await pilot.press("down")
        assert view.cursor_key == 3
        # choosing the diagnostic in the list jumps to its line
        listing.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: view.cursor_key == 2)


async def test_reloads_when_the_file_changes(fma_copy):
    app = make_app(fma_copy, poll=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        before = app.stages
        fma_copy.write_text(BAD)
        os.utime(fma_copy, ns=(1, 1))  # a different stamp even within the same clock tick
        await until(pilot, lambda: app.stages is not before and not app.compiling)
        view = app.query_one("#source-view", CodeView)
        assert row_texts(view)[1] == "    return a"
        assert app.stages.analysis.errors
        fma_copy.unlink()
        await until(pilot, lambda: app.stages is None and app.problem is not None)
        assert "cannot read" in app.problem and "cannot read" in row_texts(view)[0]


async def test_random_bytes_show_diagnostics_not_a_crash(tmp_path):
    path = tmp_path / "noise.ea"
    path.write_bytes(bytes(range(256)) * 3 + b"\x1b[2J\x1b]0;title\x07" + "é中".encode())
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        view = app.query_one("#source-view", CodeView)
        assert app.stages.analysis.errors
        assert all("\x1b" not in t and "\x07" not in t for t in row_texts(view))
        for pane in "234":
            await pilot.press(pane)
        await pilot.press("1", "end", "pagedown")
        assert "No assembly" in row_texts(app.query_one("#asm-code", CodeView))[0]


async def test_folder_opens_first_file_with_the_file_list(tmp_path):
    (tmp_path / "b.ea").write_text(BAD)
    (tmp_path / "a.ea").write_text("export func one() -> i32 { return 1 }\n")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        files = app.query_one("#files")
        assert files.display and files.option_count == 2
        assert app.workspace.current.name == "a.ea"
        files.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.workspace.current.name == "b.ea" and not app.compiling)
        await compiled(pilot)
        assert app.stages.analysis.errors
        await pilot.press("f")
        assert not files.display


async def test_empty_folder_says_so(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        assert "No .ea files" in row_texts(app.query_one("#source-view", CodeView))[0]
