"""The picker's list of sessions: pi's ``/resume`` rows, drawn with the line API.

One line per session as pi draws it (cursor, threaded prefix, name or first message, then
``[path] [cwd] count age`` flush right, after ``✗`` when the session's folder no longer
exists); while searching, each hit takes a second line with the
text around the match, the matched parts highlighted. Only the visible lines are rendered, so
thousands of rows cost what a screenful costs. The widget never reads files: the screen hands it
plain rows (:class:`ListRow`) and settings.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from pitui.safe_text import safe_line
from pitui.store.catalog import SearchHit, SessionInfo
from pitui.store.threads import ListRow
from pitui.ui.format import fit_middle, format_age, row_title, shorten_home_path
from pitui.ui.widgets import tree_paint

__all__ = [
    "SessionList",
]


# -- pi's formats --------------------------------------------------------------------------------


def last_activity(info: SessionInfo) -> float:
    """When the session last changed, for its age: pi's ``modified`` (the last message), or
    its creation when that is later (a fork or clone made today of messages months old)."""
    created = info.created
    if isinstance(created, int | float) and math.isfinite(created) and created > info.modified:
        return created
    return info.modified


def _foreground(style: Style) -> Style:
    return Style(color=style.color, bold=style.bold, italic=style.italic, underline=style.underline)


def _fit(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to ``width`` cells, ending in ``ellipsis`` when cut (pi's truncateToWidth)."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    if room <= 0:
        return set_cell_size(ellipsis, width)
    return _crop(text, room) + ellipsis


def _wrapped(message: str, width: int) -> list[str]:
    """The list's message, its lines wrapped at spaces to ``width``, indented as they start."""
    out: list[str] = []
    for line in message.split("\n"):
        indent = line[: len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line, max(width, 8), subsequent_indent=indent, break_on_hyphens=False) or [""])
    return out


def _crop(text: str, width: int) -> str:
    """At most ``width`` cells of ``text`` (a wide character that does not fit is dropped)."""
    out = set_cell_size(text, width)
    return out.rstrip(" ") if cell_len(text[: len(out)]) > width else out


def _fit_left(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells keeping its end (``…`` + tail): the end of a path is the
    part that tells paths apart."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    room = width - 1
    start = len(text)
    while start > 0 and cell_len(text[start - 1 :]) <= room:
        start -= 1
    # Start at a folder boundary when one is near: "…/projects/app", not "…jects/app".
    sep = text.find("/", start, start + 8)
    if sep > start:
        start = sep
    return "…" + text[start:]


GONE_MARK = "✗ "  # before the places of a session whose folder no longer exists

# -- the widget ----------------------------------------------------------------------------------


class SessionList(ScrollView, can_focus=False):
    """The rows of the picker. Focus stays in the search box; the screen moves the cursor.

    Set ``rows`` with :meth:`set_rows` (the same session stays under the cursor), and what rows
    show with :meth:`configure`. Posts :class:`Highlighted` when another session comes under
    the cursor, :class:`Chosen` on a double click, :class:`SnippetsWanted` for search hits on
    screen that have no snippet yet.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--cursor",
        "session-list--pointer",
        "session-list--tree",
        "session-list--named",
        "session-list--current",
        "session-list--meta",
        "session-list--delete",
        "session-list--snippet",
        "session-list--label",
        "session-list--match",
        "session-list--message",
        "session-list--error",
        "session-list--gone",
    }

    DEFAULT_CSS = """
    SessionList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        background: $background;
        & > .session-list--cursor { background: $panel; }
        & > .session-list--pointer { color: $accent; }
        & > .session-list--tree { color: $text-disabled; }
        & > .session-list--named { color: $text-warning; }
        & > .session-list--current { color: $text-accent; }
        & > .session-list--meta { color: $text-disabled; }
        & > .session-list--delete { color: $text-error; }
        & > .session-list--snippet { color: $text-muted; }
        & > .session-list--label { color: $text-disabled; }
        & > .session-list--match { color: $text-accent; text-style: bold underline; }
        & > .session-list--message { color: $text-muted; }
        & > .session-list--error { color: $text-error; }
        & > .session-list--gone { color: $text-error; text-style: bold; }
    }
    """

    @dataclass(eq=False)
    class Highlighted(Message):
        """Another session is under the cursor (``row`` None: the list is empty)."""

        row: ListRow | None

    @dataclass(eq=False)
    class Chosen(Message):
        """The user double-clicked a row."""

        row: ListRow

    @dataclass(eq=False)
    class SnippetsWanted(Message):
        """Search hits on screen whose snippet is not filled in yet."""

        hits: list[SearchHit]

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._rows: list[ListRow] = []
        self._cursor = 0
        self._highlighted: str | None = None
        # Until the user moves the cursor, it stays on the top row as rows come and go (the
        # newest session, which pi just wrote); afterwards it stays on the session they chose.
        self._on_top = True
        self._two_lines = False
        self.show_cwd = False
        self.show_path = False
        self.delete_path: str | None = None
        self.current_paths: frozenset[str] = frozenset()
        self.gone_cwds: frozenset[str] = frozenset()  # header cwds whose folder no longer exists
        self.now_ms = 0.0
        self.home = os.path.expanduser("~")
        self.message = ""  # shown when there are no rows
        self.message_is_error = False
        self.locked = False  # clicks ignored (while a delete waits for confirmation)
        self._lines: LRUCache[tuple[int, int, bool, int], Strip] = LRUCache(1024)
        # A session's first line outlives its row: the next search keystroke makes new rows of
        # mostly the same sessions. Keyed by the session, prefix, cursor, width and age shown;
        # emptied when anything else a first line shows changes (_titles_changed).
        self._titles: dict[tuple[int, str, bool, int, int, str], tuple[SessionInfo, Strip]] = {}
        # A hit's second line by what it shows: the next keystroke's hits are new objects, but
        # mostly of the same sessions with the same snippets. Emptied with _titles' styles.
        self._snippets: dict[tuple[str, tuple[tuple[int, int], ...], str, str | None, bool, int, int], Strip] = {}
        self._asked: set[int] = set()  # ids of hits whose snippet was asked for
        self._pending: list[SearchHit] = []
        # While lines are drawn: the text's width, the widget's style, the component styles
        # found so far, and the widget's whole width (lines are that wide, under the scrollbar
        # too, so that they go to the screen as they are: see tree_paint.plain_lines).
        self._frame: tuple[int, Style, dict[str, Style], int] | None = None

    # -- state -----------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[ListRow]:
        return self._rows

    @property
    def cursor(self) -> int:
        return self._cursor

    @property
    def selected(self) -> ListRow | None:
        return self._rows[self._cursor] if self._rows else None

    @property
    def line_height(self) -> int:
        return 2 if self._two_lines else 1

    def set_rows(self, rows: Iterable[ListRow], *, two_lines: bool = False, follow: str | None = None) -> None:
        """Show ``rows``. The cursor goes to the session at path ``follow`` (a new search's best
        match, from then on followed as one the user chose), else to the top row if the user
        has not moved it, else to the session under it now if still listed, else stays at its
        index."""
        if follow is not None:
            self._on_top = False
        elif not self._on_top:
            follow = self._highlighted
        self._rows = list(rows)
        self._two_lines = two_lines
        self._asked.clear()
        cursor = 0 if self._on_top else min(self._cursor, max(0, len(self._rows) - 1))
        if follow is not None:
            cursor = next((i for i, row in enumerate(self._rows) if row.path == follow), cursor)
        self._cursor = cursor
        self._changed()
        self._scroll_to_cursor()
        self._announce()

    def configure(
        self,
        *,
        show_cwd: bool | None = None,
        show_path: bool | None = None,
        current_paths: Iterable[str] | None = None,
        now_ms: float | None = None,
        message: str | None = None,
        message_is_error: bool | None = None,
        gone_cwds: frozenset[str] | None = None,
    ) -> None:
        """Change what the rows show. ``gone_cwds``: the header cwds whose folder no longer
        exists (their rows are marked)."""
        shown = (self.show_cwd, self.show_path, self.current_paths, self.gone_cwds)
        if show_cwd is not None:
            self.show_cwd = show_cwd
        if show_path is not None:
            self.show_path = show_path
        if current_paths is not None:
            self.current_paths = frozenset(current_paths)
        if now_ms is not None:
            self.now_ms = now_ms
        if message is not None:
            self.message = message
        if message_is_error is not None:
            self.message_is_error = message_is_error
        if gone_cwds is not None:
            self.gone_cwds = gone_cwds
        if shown != (self.show_cwd, self.show_path, self.current_paths, self.gone_cwds):
            self._titles.clear()
        self._changed()

    def set_delete_path(self, path: str | None) -> None:
        """Mark the row awaiting a delete confirmation (None: no row)."""
        self.delete_path = path
        self.locked = path is not None
        self._titles.clear()
        self._changed()

    def refresh_hits(self) -> None:
        """Snippets were filled in: draw them."""
        self._lines.clear()
        self.refresh()

    def move_cursor(self, delta: int) -> None:
        """The user moves the cursor (the cursor stays with their session from now on)."""
        self.set_cursor(self._cursor + delta)

    def set_cursor(self, index: int) -> None:
        """The user puts the cursor on row ``index``."""
        if not self._rows:
            return
        self._on_top = False
        index = max(0, min(index, len(self._rows) - 1))
        if index != self._cursor:
            old = self._cursor
            self._cursor = index
            self._refresh_row(old)
            self._refresh_row(index)
        self._scroll_to_cursor()
        self._announce()

    @property
    def page_rows(self) -> int:
        """How many rows fit on screen (what a page key moves by)."""
        return max(1, self.scrollable_content_region.height // self.line_height)

    # -- internals -------------------------------------------------------------------------

    def _changed(self) -> None:
        self._lines.clear()
        size = Size(0, max(1, len(self._rows) * self.line_height))
        if size != self.virtual_size:
            if self.outer_size.height:
                # As Textual does when it lays the screen out: a new height to scroll in is only
                # a new scrollbar, not a new layout of the whole screen (which is what assigning
                # virtual_size asks for, at every search keystroke). Should the scrollbar appear
                # or go, that asks for the layout.
                self.set_reactive(Widget.virtual_size, size)
                self._scroll_update(size)
            else:
                self.virtual_size = size
        self.refresh()

    def _scroll_update(self, virtual_size: Size) -> None:
        """Widget's, but the scrollbar is drawn again only when what it shows changes: each search
        keystroke changes the count of rows, which seldom moves the thumb (one cell over
        thousands of rows), and drawing the bar is about 1.5 ms of the key's frame."""
        shown = (self.show_vertical_scrollbar, self.show_horizontal_scrollbar)
        self._refresh_scrollbars()
        if shown == (self.show_vertical_scrollbar, self.show_horizontal_scrollbar) == (True, False):
            bar = self.vertical_scrollbar
            window = self.container_size.height - self.scrollbar_size_horizontal
            if tree_paint.same_thumb(bar, bar.position, virtual_size.height, window):
                bar.set_reactive(ScrollBar.window_virtual_size, virtual_size.height)
                bar.set_reactive(ScrollBar.window_size, window)
                self.scroll_y = self.validate_scroll_y(self.scroll_y)
                return
        super()._scroll_update(virtual_size)

    def _announce(self) -> None:
        row = self.selected
        path = row.path if row is not None else None
        if path != self._highlighted or row is None:
            self._highlighted = path
            self.post_message(self.Highlighted(row))

    def _refresh_row(self, index: int) -> None:
        h = self.line_height
        self.refresh_lines(index * h - round(self.scroll_y), h)

    def _scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            self.call_after_refresh(self._scroll_to_cursor_later)
            return
        h = self.line_height
        top = self._cursor * h
        y = self.scroll_y
        if top < y:
            self._jump_to(top)
        elif top + h > y + height:
            self._jump_to(top + h - height)

    def _jump_to(self, y: int) -> None:
        # Not scroll_to: it refuses to scroll until a layout has shown the scrollbar, and the
        # rows may have grown this very moment.
        y = max(0, min(y, self.max_scroll_y))
        self.scroll_target_y = y
        self.scroll_y = y

    def _scroll_to_cursor_later(self) -> None:
        if self.scrollable_content_region.height > 0:
            self._scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()
        self._titles.clear()
        self._snippets.clear()

    def on_resize(self, event: events.Resize) -> None:
        self._lines.clear()
        self._scroll_to_cursor()

    def on_click(self, event: events.Click) -> None:
        if self.locked or not self._rows:
            return
        index = (event.y + round(self.scroll_y)) // self.line_height
        if not 0 <= index < len(self._rows):
            return
        self.set_cursor(index)
        if event.chain >= 2:
            self.post_message(self.Chosen(self._rows[index]))

    # -- drawing ---------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line needs, worked out once for the lines of this update, not per line:
        # each of these walks the widget's ancestors or styles.
        self._frame = self._frame_now()
        try:
            lines = tree_paint.plain_lines(self, crop, self.render_line)
            return super().render_lines(crop) if lines is None else lines
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        if self._frame is None:
            self._frame = self._frame_now()
            try:
                return self.render_line(y)
            finally:
                self._frame = None
        width, base, _, full = self._frame
        line = y + round(self.scroll_y)
        h = self.line_height
        index, part = divmod(line, h)
        if not self._rows:
            lines = _wrapped(self.message, width)
            if line < len(lines):
                style = self._style("error" if self.message_is_error else "message")
                return self._strip([Segment(_fit(lines[line], width), base + style)], width, base)
            return Strip.blank(full, base)
        if index >= len(self._rows):
            return Strip.blank(full, base)
        selected = index == self._cursor
        row = self._rows[index]
        key = (id(row), part, selected, width)
        strip = self._lines.get(key)
        if strip is None:
            if part == 0:
                strip = self._title_strip(row, selected, width, base)
            else:
                strip = self._snippet_strip(row, selected, width, base)
            self._lines[key] = strip
        return strip

    def _frame_now(self) -> tuple[int, Style, dict[str, Style], int]:
        width = self.scrollable_content_region.width
        return (width, self.rich_style, {}, max(width, self.size.width))

    def _style(self, name: str) -> Style:
        """A component's colour and text style, without its background: the cursor row has
        its own. (The full style, because the partial one keeps alpha that Rich cannot draw.)"""
        known = self._frame[2] if self._frame is not None else {}
        style = known.get(name)
        if style is None:
            style = known[name] = _foreground(self.get_component_rich_style(f"session-list--{name}"))
        return style

    def _cursor_fill(self, base: Style) -> Style:
        known = self._frame[2] if self._frame is not None else {}
        fill = known.get("\0cursor")
        if fill is None:
            fill = known["\0cursor"] = base + self.get_component_rich_style("session-list--cursor")
        return fill

    def _strip(self, segments: list[Segment], width: int, fill: Style) -> Strip:
        """``width`` cells of ``segments``, then ``fill`` to the widget's whole width."""
        full = self._frame[3] if self._frame is not None else width
        return Strip(segments).crop(0, width).extend_cell_length(full, fill)

    def _right_text(self, info: SessionInfo, budget: int) -> str:
        """pi's right part, ``[file] [cwd] count age``, within ``budget`` cells. Where pi cuts
        the whole line (losing count and age), the places give way: the cwd first when the
        file is shown (its folder is named after the cwd), then the start of the path."""
        tail = f"{info.message_count} {format_age(last_activity(info), self.now_ms)}"
        path = shorten_home_path(safe_line(info.path), self.home) if self.show_path else ""
        cwd = shorten_home_path(safe_line(info.cwd), self.home) if self.show_cwd and info.cwd else ""
        right = " ".join(part for part in (path, cwd, tail) if part)
        if cell_len(right) <= budget:
            return right
        place = path or cwd
        # Cut every row's place to the same width (as if its count and age took 8 cells), so
        # that the places line up as far as they can. A file keeps its start and its end.
        room = budget - max(cell_len(tail), 8) - 1
        if not place or room < 8:  # too little room to say anything useful
            return tail
        return f"{fit_middle(place, room) if path else _fit_left(place, room)} {tail}"

    def _title_strip(self, row: ListRow, selected: bool, width: int, base: Style) -> Strip:
        info = row.info
        full = self._frame[3] if self._frame is not None else width
        key = (id(info), row.prefix, selected, width, full, format_age(last_activity(info), self.now_ms))
        kept = self._titles.get(key)
        if kept is not None and kept[0] is info:
            return kept[1]
        strip = self._row_strip(row, selected, width, base)
        if len(self._titles) >= 4096:
            self._titles.clear()
        self._titles[key] = (info, strip)
        return strip

    def _row_strip(self, row: ListRow, selected: bool, width: int, base: Style) -> Strip:
        info = row.info
        fill = self._cursor_fill(base) if selected else base
        deleting = row.path == self.delete_path
        prefix_w = cell_len(row.prefix)
        # The places (file, cwd) may take half the row, the file two thirds: the title is what
        # the row is about, but a path the user asked to see should be readable.
        share = 2 / 3 if self.show_path else 1 / 2
        gone = GONE_MARK if info.cwd in self.gone_cwds else ""
        right = self._right_text(info, int(max(width - 14, 0) * share) - len(gone))
        title = _fit(row_title(info), max(10, width - 2 - prefix_w - (cell_len(right) + len(gone) + 2)))
        if deleting:
            title_style = self._style("delete")
        elif row.path in self.current_paths:
            title_style = self._style("current")
        elif info.name:
            title_style = self._style("named")
        else:
            title_style = Style()
        if selected:
            title_style += Style(bold=True)
        left_w = 2 + prefix_w + cell_len(title)
        gap = max(1, width - left_w - len(gone) - cell_len(right))
        segments = [
            Segment("› " if selected else "  ", fill + self._style("pointer")),
            Segment(row.prefix, fill + self._style("tree")),
            Segment(title, fill + title_style),
            Segment(" " * gap, fill),
            Segment(right, fill + self._style("delete" if deleting else "meta")),
        ]
        if gone:
            segments.insert(-1, Segment(gone, fill + self._style("gone")))
        return self._strip(segments, width, fill)

    def _snippet_strip(self, row: ListRow, selected: bool, width: int, base: Style) -> Strip:
        fill = self._cursor_fill(base) if selected else base
        hit = row.hit
        if hit is None or not hit.snippet:
            if hit is not None and id(hit) not in self._asked:
                self._asked.add(id(hit))
                self._ask_snippet(hit)
            return Strip.blank(self._frame[3] if self._frame is not None else width, fill)
        full = self._frame[3] if self._frame is not None else width
        key = (hit.snippet, tuple(hit.spans), hit.field, hit.role, selected, width, full)
        strip = self._snippets.get(key)
        if strip is None:
            if len(self._snippets) >= 4096:
                self._snippets.clear()
            strip = self._snippets[key] = self._hit_strip(hit, fill, width)
        return strip

    def _hit_strip(self, hit: SearchHit, fill: Style, width: int) -> Strip:
        indent = "    "
        if hit.field == "id" and max((end - start for start, end in hit.spans), default=0) < 3:
            # A fuzzy match whose first letter happens to be in the id: the id says nothing about
            # why the session matched, so say how it did.
            note = "fuzzy match: the letters are far apart"
            return self._strip(
                [Segment(indent, fill), Segment(_fit(note, width - 5), fill + self._style("label"))], width, fill
            )
        label = {"message": f"{hit.role}: " if hit.role else "", "name": "name: ", "cwd": "cwd: ", "id": "id: "}.get(
            hit.field, ""
        )
        text = safe_line(hit.snippet)  # one character for one: the spans still line up
        muted = fill + self._style("snippet")
        match = muted + self._style("match")
        segments = [Segment(indent, fill), Segment(label, fill + self._style("label"))]
        pos = 0
        for start, end in sorted(hit.spans):
            start, end = max(start, pos), min(end, len(text))
            if start >= end:
                continue
            segments.append(Segment(text[pos:start], muted))
            segments.append(Segment(text[start:end], match))
            pos = end
        segments.append(Segment(text[pos:], muted))
        room = width - 1
        if Segment.get_line_length(segments) > room:
            segments = [*next(iter(Segment.divide(segments, [room - 1]))), Segment("…", muted)]
        return self._strip(segments, width, fill)

    def _ask_snippet(self, hit: SearchHit) -> None:
        # Rows are drawn one line at a time: gather the screenful into one request.
        if not self._pending:
            self.call_later(self._send_snippet_request)
        self._pending.append(hit)

    def _send_snippet_request(self) -> None:
        hits, self._pending = self._pending, []
        if hits:
            self.post_message(self.SnippetsWanted(hits))
