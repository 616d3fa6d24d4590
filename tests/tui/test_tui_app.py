"""App-wide: target switching, theme, help, command palette, entry point."""
from __future__ import annotations

import pytest
from textual.command import CommandPalette

from tui_support import SIZE, compiled, make_app, row_texts, screen_text, until

from ea_tui.app import main
from ea_tui.screens.help import HelpScreen
from ea_tui.screens.target import TargetScreen
from ea_tui.widgets.code_view import CodeView


async def test_avx512_switch_recompiles_with_zmm(tmp_path):
    # An f32x16 kernel: split into ymm halves on haswell, zmm once AVX-512 is on.
    path = tmp_path / "wide.ea"
    path.write_text("export kernel scale16(x: *restrict f32, y: *restrict mut f32, a: f32)\n"
                    "    over i in n step 16\n    tail scalar { y[i] = a * x[i] }\n{\n"
                    "    let v: f32x16 = load(x, i)\n    store(y, i, v .* splat(a))\n}\n")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        assert "zmm" not in app.stages.asm and "AVX-512" not in app.sub_title
        await pilot.press("a")
        await compiled(pilot)
        assert app.options.avx512 and "AVX-512" in app.sub_title
        assert "zmm" in app.stages.asm
        await pilot.press("2", "d")
        assert any("zmm" in t for t in row_texts(app.query_one("#asm-code", CodeView)))


async def test_target_dialog_and_aarch64(tmp_path):
    path = tmp_path / "arm.ea"
    path.write_text("export kernel scale(x: *restrict f32, y: *restrict mut f32, a: f32)\n"
                    "    over i in n step 4\n    tail scalar { y[i] = a * x[i] }\n{\n"
                    "    store(y, i, splat(a) .* load(x, i))\n}\n")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("T")
        assert isinstance(app.screen, TargetScreen)
        app.screen.query_one("#triple").value = "aarch64-unknown-linux-gnu"
        app.screen.query_one("#opt").value = 2
        await pilot.click("#apply")
        await compiled(pilot)
        assert app.options.target_triple == "aarch64-unknown-linux-gnu" and app.options.opt_level == 2
        assert app.options.target_cpu == "native"  # haswell dropped: it is an x86 CPU
        assert "aarch64" in app.sub_title and "-O2" in app.sub_title
        assert "fmul" in app.stages.asm and "ymm" not in app.stages.asm
        await pilot.press("a")  # AVX-512 on AArch64: refused with a notice
        assert not app.options.avx512


async def test_unknown_cpu_is_reported_not_fatal(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        app.action_set_cpu("no-such-cpu")
        await compiled(pilot)
        assert app.stages.asm is None and "no-such-cpu" in app.stages.error
        assert "no-such-cpu" in app.sub_title


async def test_theme_toggle(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        view = app.query_one("#source-view", CodeView)
        dark = view.render_line(0)
        await pilot.press("t")
        assert app.theme == "textual-light" and not app.current_theme.dark
        await pilot.pause()
        assert view.render_line(0) != dark  # re-rendered with the light theme's colours
        await pilot.press("t")
        assert app.theme == "textual-dark"


async def test_help_screen_opens_and_closes(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "next or previous stage" in screen_text(app)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        assert not isinstance(app.screen, HelpScreen) and app.is_running


async def test_command_palette_runs_our_commands(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"stage llvm ir (optimised)")
        await until(pilot, lambda: "Stage: LLVM IR (optimised)" in screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
        assert app.query_one("#stages-pane").stage == "ir_opt"
        assert app.query_one("#panes").active == "stages"


def test_main_rejects_a_missing_path(capsys, tmp_path):
    assert main([str(tmp_path / "nope.ea")]) == 1
    assert "no such file or directory" in capsys.readouterr().err


def test_main_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0 and "FILE_OR_DIR" in capsys.readouterr().out
