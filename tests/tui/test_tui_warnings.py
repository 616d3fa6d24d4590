"""The workbench shows the analysis warnings (kernel coverage here) like
errors: underlined, a note row under the line, a ▲ in the gutter, in the
diagnostics list and counted in the status line."""
from __future__ import annotations

from tui_support import SIZE, compiled, make_app, row_texts, screen_text

from ea_tui.widgets.code_view import CodeView

VSCALE = """\
export kernel vscale(data: *f32, out: *mut f32, factor: f32)
    over i in n step 8
    tail scalar { out[i] = data[i] * factor }
{
    store(out, i, load(data, i) .* splat(factor))
}
"""
MESSAGE = ("this store writes 4 lanes (f32x4, inferred: `load` defaults to 4 lanes here) at i, but the kernel "
           "steps by 8: elements i+4..i+7 are never written")


async def test_coverage_warning_is_shown(tmp_path):
    path = tmp_path / "vscale.ea"
    path.write_text(VSCALE)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        view = app.query_one("#source-view", CodeView)
        texts = row_texts(view)
        note = texts.index(next(t for t in texts if "warning[type]" in t))
        assert texts[note - 1] == "    store(out, i, load(data, i) .* splat(factor))" and view.rows[note - 1].key == 5
        assert view.rows[note].style == "note-warning"
        assert texts[note] == "    " + "^" * 45 + " warning[type]: " + MESSAGE
        assert texts[note + 1].strip() == "= help: load 8 lanes: load_f32x8(...)"
        assert view.rows[note - 1].gutter.endswith("\u25b2")
        assert "warning" in {c for _, _, c in view.rows[note - 1].spans}
        listing = app.query_one("#diagnostics")
        assert listing.option_count == 1 and "5:5" in str(listing.get_option_at_index(0).prompt)
        view.move_to_key(5)
        await pilot.pause()
        assert "no errors, 1 warning" in screen_text(app)
