"""Assembly pane: cross-highlighting both ways, functions, directives, summary."""
from __future__ import annotations

from tui_support import EXAMPLES, SIZE, compiled, make_app, row_texts, screen_text

from ea_tui.widgets.code_view import CodeView

FMA_STORE_LINE = 9  # store(out, i, fma(va, vb, vc))


async def test_source_cursor_highlights_its_instructions(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press(*["down"] * (FMA_STORE_LINE - 1))  # in the Source pane
        await pilot.press("2")
        asm = app.query_one("#asm-code", CodeView)
        source = app.query_one("#asm-source", CodeView)
        assert source.cursor_key == FMA_STORE_LINE
        lit = [asm.rows[i] for i in asm.highlighted_rows()]
        assert lit and all(r.tag == FMA_STORE_LINE for r in lit)
        assert any(r.text.strip().startswith("vfmadd213ps") and "ymm" in r.text for r in lit)
        first = asm.highlighted_rows()[0]
        assert asm.scroll_offset.y <= first < asm.scroll_offset.y + asm.size.height  # scrolled into view
        # moving the cursor in this pane's source view follows too, and reaches the Source pane
        source.focus()
        await pilot.press("up", "up", "up")  # line 6: let va = load(a, i)
        assert {asm.rows[i].text.split()[0] for i in asm.highlighted_rows()} == {"vmovups"}
        assert app.query_one("#source-view", CodeView).cursor_key == 6


async def test_asm_cursor_highlights_its_source_line(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("2")
        asm = app.query_one("#asm-code", CodeView)
        assert app.focused is asm
        target = next(i for i, r in enumerate(asm.rows) if r.text.strip().startswith("vfmadd213ps"))
        start = asm.rows.index(asm.cursor_row)  # the pane opens at the main loop, before its fma
        assert 0 < start < target
        await pilot.press(*["down"] * (target - start))
        assert asm.cursor_row.text.strip().startswith("vfmadd213ps")
        source = app.query_one("#asm-source", CodeView)
        assert source.highlighted_tag == FMA_STORE_LINE
        assert source.rows[source.highlighted_rows()[0]].text.strip().startswith("store(out")


async def test_summary_functions_and_directives():
    app = make_app(EXAMPLES / "reductions.ea")
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("2")
        pane = app.query_one("#assembly-pane")
        asm = app.query_one("#asm-code", CodeView)
        assert pane.function == "sum_f32"
        screen = screen_text(app)
        assert "sum_f32" in screen and "bottleneck" in screen and "vector registers" in screen
        assert all(not t.strip().startswith((".loc", ".cfi")) for t in row_texts(asm))
        await pilot.press("n")
        assert pane.function == "max_f32" and "max_f32" in screen_text(app)
        await pilot.press("p")
        assert pane.function == "sum_f32"
        await pilot.press("d")
        assert any(t.strip().startswith(".loc") for t in row_texts(asm))
        # the source cursor inside another function switches to it
        source = app.query_one("#asm-source", CodeView)
        source.focus()
        line = next(n for n, t in enumerate(app.stages.analysis.source.data.decode().splitlines(), 1)
                    if "func min_f32" in t)
        source.move_to_key(line - 1)
        await pilot.press("down")
        assert pane.function == "min_f32"
