"""CodeView: the one line-based code widget (Textual's Line API) behind the
source, assembly and stage panes.

It shows a list of `Row`s: a gutter (line numbers, markers), the text with
coloured spans, a cursor row and a set of highlighted rows. Colours are style
categories (`keyword`, `fma`, `note-error`, ...) resolved through component
classes, so themes restyle everything. Only visible lines are rendered, and
rendered lines are cached, so a 20 000-line IR dump scrolls as fast as a
ten-line kernel.

The cursor moves over rows with a `key` (notes under a line are skipped).
User moves (keys, mouse) post `CodeView.CursorMoved`; programmatic moves
(`move_to_key(..., notify=False)`) do not, so two views can follow each other
without echoing.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .code_row import Row

CATEGORIES = (
    "keyword", "type", "number", "string", "comment", "intrinsic", "function", "operator",
    "error", "warning", "note-error", "note-warning", "muted", "heading",
    "vector", "fma", "memory", "scalar", "branch", "label", "directive",
)


class CodeView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"code-view--cursor", "code-view--highlight", "code-view--gutter",
                         "code-view--cursor-gutter", *(f"code-view--{c}" for c in CATEGORIES)}

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "edge(0)", "First line", show=False),
        Binding("end,G", "edge(1)", "Last line", show=False),
    ]

    DEFAULT_CSS = """
    CodeView {
        background: $surface;
        color: $foreground;
        & > .code-view--cursor { background: $primary 20%; }
        &:focus > .code-view--cursor { background: $primary 45%; }
        & > .code-view--highlight { background: $warning 25%; }
        & > .code-view--gutter { color: $text-muted; }
        & > .code-view--cursor-gutter { color: $foreground; text-style: bold; }
        & > .code-view--keyword { color: $text-primary; text-style: bold; }
        & > .code-view--type { color: $text-success; }
        & > .code-view--number { color: $text-secondary; }
        & > .code-view--string { color: $text-success; text-style: italic; }
        & > .code-view--comment { color: $text-muted; text-style: italic; }
        & > .code-view--intrinsic { color: $text-accent; }
        & > .code-view--function { color: $foreground; text-style: bold; }
        & > .code-view--operator { color: $text-accent; text-style: bold; }
        & > .code-view--error { background: $error 35%; text-style: underline; }
        & > .code-view--warning { background: $warning 30%; text-style: underline; }
        & > .code-view--note-error { color: $text-error; }
        & > .code-view--note-warning { color: $text-warning; }
        & > .code-view--muted { color: $text-muted; }
        & > .code-view--heading { text-style: bold; }
        & > .code-view--vector { color: $text-primary; }
        & > .code-view--fma { color: $text-accent; text-style: bold; }
        & > .code-view--memory { color: $text-success; }
        & > .code-view--scalar { color: $foreground; }
        & > .code-view--branch { color: $text-secondary; }
        & > .code-view--label { color: $text-muted; text-style: bold; }
        & > .code-view--directive { color: $text-muted; }
    }
    """

    @dataclass
    class CursorMoved(Message):
        """The user moved the cursor to the row with `key` (and `tag`)."""
        view: "CodeView"
        key: int
        tag: int | None

        @property
        def control(self) -> "CodeView":
            return self.view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._rows: list[Row] = []
        self._stops: list[int] = []  # indices of rows with a key
        self._index_of_key: dict[int, int] = {}
        self._cursor = -1  # row index, or -1 without rows
        self._highlight: int | None = None  # highlighted tag
        self._gutter_width = 0
        self._version = 0
        self._line_cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self._styles: dict[str, Style] = {}
        self._pending_view: tuple[int, int] | None = None  # (first, last) rows to show once laid out

    # ---- content -------------------------------------------------------------

    @property
    def rows(self) -> list[Row]:
        return self._rows

    def set_rows(self, rows: list[Row], *, keep_cursor: bool = True, scroll_home: bool = False) -> None:
        """Show `rows`; the cursor stays on the same key when it still exists,
        else near the same place (or on the first stop without keep_cursor)."""
        old_key, old_index = self.cursor_key, self._cursor
        self._rows = rows
        self._stops = [i for i, r in enumerate(rows) if r.key is not None]
        self._index_of_key = {}
        for i in self._stops:
            self._index_of_key.setdefault(rows[i].key, i)
        self._gutter_width = max((len(r.gutter) for r in rows), default=0)
        width = max((cell_len(r.text) for r in rows), default=0)
        index = self._index_of_key.get(old_key, -1) if keep_cursor and old_key is not None else -1
        if index < 0 and self._stops:
            index = self._nearest_stop(min(max(old_index, 0), len(rows) - 1)) if keep_cursor else self._stops[0]
        self._cursor = index
        self._invalidate()
        self.virtual_size = Size(width + self._gutter_size + 1, len(rows))
        if scroll_home:
            self.scroll_to(0, 0, animate=False, immediate=True)

    @property
    def cursor_row(self) -> Row | None:
        return self._rows[self._cursor] if 0 <= self._cursor < len(self._rows) else None

    @property
    def cursor_key(self) -> int | None:
        row = self.cursor_row
        return row.key if row is not None else None

    @property
    def highlighted_tag(self) -> int | None:
        return self._highlight

    def highlighted_rows(self) -> list[int]:
        """Indices of the rows highlighted now."""
        if self._highlight is None:
            return []
        return [i for i, r in enumerate(self._rows) if r.tag == self._highlight]

    def move_to_key(self, key: int | None, *, notify: bool = False, center: bool = False) -> bool:
        index = self._index_of_key.get(key, -1) if key is not None else -1
        if index < 0:
            return False
        self._set_cursor(index, notify=notify, center=center)
        return True

    def highlight(self, tag: int | None, *, scroll: bool = True) -> None:
        """Highlight every row with `tag` (None: none) and bring them into view."""
        if tag != self._highlight:
            self._highlight = tag
            self._invalidate()
        if scroll and tag is not None:
            rows = self.highlighted_rows()
            if rows:
                self._ensure_visible(rows[0], rows[-1], center=True)

    # ---- cursor --------------------------------------------------------------

    def _nearest_stop(self, index: int) -> int:
        if not self._stops:
            return -1
        before = [i for i in self._stops if i <= index]
        return before[-1] if before else self._stops[0]

    def _set_cursor(self, index: int, *, notify: bool, center: bool = False) -> None:
        if index != self._cursor:
            self._cursor = index
            self._invalidate()
        last = index
        while last + 1 < len(self._rows) and self._rows[last + 1].key is None:
            last += 1  # keep the notes under the line in view
        self._ensure_visible(index, min(last, index + self._viewport_height - 1), center=center)
        row = self.cursor_row
        if notify and row is not None and row.key is not None:
            self.post_message(self.CursorMoved(self, row.key, row.tag))

    def _step(self, delta: int) -> int:
        if not self._stops:
            return -1
        pos = bisect_left(self._stops, self._cursor)
        pos = min(max(pos + delta, 0), len(self._stops) - 1)
        return self._stops[pos]

    def action_cursor(self, delta: int) -> None:
        if self._stops:
            self._set_cursor(self._step(delta), notify=True)

    def action_page(self, direction: int) -> None:
        if self._stops:
            target = min(max(self._cursor + direction * max(self._viewport_height - 1, 1), 0), len(self._rows) - 1)
            index = self._nearest_stop(target)
            if index == self._cursor:
                index = self._step(direction)
            self._set_cursor(index, notify=True)

    def action_edge(self, end: int) -> None:
        if self._stops:
            self._set_cursor(self._stops[-1] if end else self._stops[0], notify=True)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self._stops:
            return
        index = min(offset.y + self.scroll_offset.y, len(self._rows) - 1)
        self._set_cursor(self._nearest_stop(index), notify=True)

    # ---- scrolling -----------------------------------------------------------

    @property
    def _viewport_height(self) -> int:
        return max(self.scrollable_content_region.height, 1)

    @property
    def _gutter_size(self) -> int:
        return self._gutter_width + 1 if self._gutter_width else 0

    def _ensure_visible(self, first: int, last: int, *, center: bool = False) -> None:
        if not self.scrollable_content_region.height:  # not laid out (a hidden tab): once it is
            self._pending_view = (first, last) if center else None
            return
        height, top = self._viewport_height, round(self.scroll_y)
        if top <= first and last < top + height:
            return
        if center:
            y = max(first - max((height - (last - first + 1)) // 2, 0), 0)
        elif first < top:
            y = first
        else:
            y = max(last - height + 1, 0) if last - first < height else first
        self.scroll_to(y=y, animate=False, immediate=True)

    # ---- rendering -----------------------------------------------------------

    def _invalidate(self) -> None:
        self._version += 1
        self._line_cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._invalidate()

    def on_resize(self, event: events.Resize) -> None:
        if self._pending_view is not None and self.scrollable_content_region.height:
            first, last = self._pending_view
            self._pending_view = None
            self._ensure_visible(first, last, center=True)

    def _on_focus(self, event: events.Focus) -> None:
        self.notify_style_update()

    def _on_blur(self, event: events.Blur) -> None:
        self.notify_style_update()

    def _style(self, category: str) -> Style:
        """The category's own settings only (so it layers over cursor and
        highlight backgrounds), with translucent colours blended as Textual
        blends them for the widget."""
        style = self._styles.get(category)
        if style is None:
            name = f"code-view--{category}"
            rules = self.get_component_styles(name)
            full = self.get_component_rich_style(name)
            own = self.get_component_rich_style(name, partial=True)
            style = Style(color=full.color if rules.has_rule("color") else None,
                          bgcolor=full.bgcolor if rules.has_rule("background") else None,
                          bold=own.bold, italic=own.italic, underline=own.underline, dim=own.dim,
                          reverse=own.reverse)
            self._styles[category] = style
        return style

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        if not 0 <= index < len(self._rows):
            return Strip.blank(width, self.rich_style)
        cursor = index == self._cursor
        lit = self._highlight is not None and self._rows[index].tag == self._highlight
        key = (index, scroll_x, width, cursor, lit, self._version)
        strip = self._line_cache.get(key)
        if strip is None:
            strip = self._render_row(self._rows[index], scroll_x, width, cursor, lit)
            self._line_cache[key] = strip
        return strip

    def _render_row(self, row: Row, scroll_x: int, width: int, cursor: bool, lit: bool) -> Strip:
        base = self.rich_style
        if lit:
            base += self._style("highlight")
        if cursor:
            base += self._style("cursor")
        gutter: list[Segment] = []
        if self._gutter_width:
            gstyle = self._style("cursor-gutter" if cursor else "gutter")
            if row.gutter_style:
                gstyle += self._style(row.gutter_style)
            gutter = [Segment(row.gutter.rjust(self._gutter_width), base + gstyle), Segment(" ", base)]
        text = Text(row.text, style=self._style(row.style) if row.style else "", end="", no_wrap=True)
        for start, end, category in row.spans:
            if end > start:
                text.stylize(self._style(category), start, end)
        body = Strip(Segment.apply_style(text.render(self.app.console), base))
        content_width = max(width - self._gutter_size, 0)
        body = body.crop_extend(scroll_x, scroll_x + content_width, base)
        return Strip(gutter + list(body), width) if gutter else body
