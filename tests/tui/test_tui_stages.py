"""Stages pane: each compiler stage's text, cycled with keys."""
from __future__ import annotations

from tui_support import SIZE, compiled, make_app, row_texts, screen_text

from ea_tui.widgets.code_view import CodeView

EXPECTED = [  # stage -> text every line of which must be shown, a fragment of it
    ("tokens", 'Export("export") at 2:1'),
    ("ast", 'Kernel 2:1 name="fma_kernel"'),
    ("desugared", 'Func 2:1 name="fma_kernel" export : void'),
    ("ir", "alloca <8 x float>"),
    ("ir_opt", "define void @fma_kernel"),
    ("asm", "vfmadd213ps"),
]


async def test_every_stage_in_turn(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("3")
        pane = app.query_one("#stages-pane")
        view = app.query_one("#stage-view", CodeView)
        seen = []
        for stage, fragment in EXPECTED:
            assert pane.stage == stage
            assert any(fragment in t for t in row_texts(view)), stage
            seen.append(pane.text())
            await pilot.press("]")
        assert pane.stage == "tokens"  # wrapped around
        assert len(set(seen)) == len(EXPECTED) and seen[3] != seen[4]
        await pilot.press("[")
        assert pane.stage == "asm" and "Assembly" in screen_text(app)
        await pilot.press("S", "s")
        assert pane.stage == "asm"


async def test_stage_keeps_its_cursor(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("3", "down", "down", "down")
        view = app.query_one("#stage-view", CodeView)
        assert view.cursor_key == 4
        await pilot.press("]", "[")
        assert view.cursor_key == 4


async def test_missing_codegen_stages_say_why(tmp_path):
    path = tmp_path / "bad.ea"
    path.write_text("export func f() -> i32 { return 1.5 }\n")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("3", "]", "]", "]")
        assert app.query_one("#stages-pane").stage == "ir"
        text = row_texts(app.query_one("#stage-view", CodeView))[0]
        assert text == "No LLVM IR: does not compile: 1 error."
