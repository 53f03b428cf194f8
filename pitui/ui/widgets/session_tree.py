"""The session tree: pi's ``/tree`` navigator as a Textual widget.

:class:`SessionTree` draws a :class:`~pitui.store.tree.model.TreeModel` with Textual's line API:
one row per line, never wrapped, made only for the lines on screen and cached; a cursor move
repaints two lines. It never opens files: it is given the model, and says what the user wants
with messages (:class:`SessionTree.Highlighted`, :class:`SessionTree.Selected`,
:class:`SessionTree.StatusChanged`, :class:`SessionTree.Copied`).

Nor does it wait for the disk while it draws: a row whose message body is still on disk is drawn
with its gutters and a dim placeholder until a worker thread has read it
(:class:`~pitui.ui.widgets.tree_reader.RowReader`). Whoever reads the session can have the
first screen ready before it hands the model over (:meth:`TreeModel.fill_rows`).

Keys are pi's (pi-ui-behaviour.md §2.8), each binding with an id ``tree.<action>`` so that
``App.set_keymap`` can move it; printable characters go into the search query, as in pi, except ``L`` and ``T``
(pi's Shift+L and Shift+T). Keys act in the order they were typed (:class:`~pitui.ui.keys.OrderedKeys`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from textual import events
from textual.actions import SkipAction
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from pitui.safe_text import safe_line
from pitui.store.tree import RowText, TreeModel
from pitui.store.tree.model import copy_text_of
from pitui.ui import bindings
from pitui.ui.keys import OrderedKeys
from pitui.ui.widgets import tree_paint
from pitui.ui.widgets.tree_reader import RowReader

__all__ = ["SessionTree"]

# Model roles -> component classes.
_ROLE_CLASSES = {
    "accent": "session-tree--accent",
    "success": "session-tree--success",
    "muted": "session-tree--muted",
    "dim": "session-tree--dim",
    "dim_italic": "session-tree--dim-italic",
    "error": "session-tree--error",
    "warning": "session-tree--warning",
    "custom": "session-tree--custom",
    "border_accent": "session-tree--border-accent",
}
_RESERVED = frozenset({"L", "T"})  # pi's Shift+L (label) and Shift+T (label times): never search text
_SMALL = 5_000  # entries: below this, the first search decodes them at once, not in a thread
_PLACEHOLDER = ("…", "dim")  # a row's own text while its body is read
_KEPT_STRIPS = 1024  # rows' Strips kept: a few screens


class SessionTree(OrderedKeys, ScrollView, can_focus=True, inherit_bindings=False):
    """A session's entry tree, row by row as pi's ``/tree`` shows it.

    Beyond pi: the cursor row is highlighted across the whole width; paging moves by the
    widget's height; a folded row ends in ``+N``, the rows its fold hides; in the ``no-tools``,
    ``user-only`` and ``labeled-only`` modes and while searching, a row ends in ``+N`` (dim)
    for the entries hidden under it; ``Ctrl+G`` goes to the leaf, ``Alt+↑`` to the parent,
    ``Ctrl+↓``/``Alt+↓`` and ``Ctrl+↑`` to the next and previous branch beside the current one,
    ``Alt+N``/``Alt+P`` to the next and previous labelled entry; text can be pasted into the
    search; a click selects a row and a double click chooses it. As pi 1.6: ``Ctrl+X`` copies
    the highlighted entry's full text (:class:`SessionTree.Copied`).
    """

    ALLOW_SELECT = False

    BINDING_GROUP_TITLE = "Tree"
    BINDINGS: ClassVar[list[BindingType]] = bindings.TREE

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-tree--cursor",
        "session-tree--count",
        "session-tree--fold-count",
        *_ROLE_CLASSES.values(),
    }

    DEFAULT_CSS = """
    SessionTree {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        & > .session-tree--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .session-tree--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .session-tree--accent { color: $text-accent; }
        & > .session-tree--success { color: $text-success; }
        & > .session-tree--muted { color: $text-muted; }
        & > .session-tree--dim { color: $text-disabled; }
        & > .session-tree--dim-italic { color: $text-disabled; text-style: italic; }
        & > .session-tree--error { color: $text-error; }
        & > .session-tree--warning { color: $text-warning; }
        & > .session-tree--custom { color: $text-secondary; }
        & > .session-tree--border-accent { color: $text-primary; }
        & > .session-tree--count { color: $text-disabled; }
        & > .session-tree--fold-count { color: $text-accent; }
    }
    """

    @dataclass(eq=False)
    class Highlighted(Message):
        """The selected entry changed (bursts coalesce: only the latest is handled)."""

        session_tree: SessionTree
        entry_id: Any
        """The selected entry's id, or None when no row is shown."""

        @property
        def control(self) -> SessionTree:
            return self.session_tree

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SessionTree.Highlighted) and message.session_tree is self.session_tree

    @dataclass(eq=False)
    class Selected(Message):
        """The user chose an entry (Enter or a double click): the screen decides what that does."""

        session_tree: SessionTree
        entry_id: Any
        at_leaf: bool = False
        """Choosing it leaves the conversation where it is (:meth:`TreeModel.at_leaf`)."""

        @property
        def control(self) -> SessionTree:
            return self.session_tree

    @dataclass(eq=False)
    class Copied(Message):
        """Ctrl+X: the highlighted entry's text went to the clipboard (``text``), or it has none
        (None); the screen says which."""

        session_tree: SessionTree
        text: str | None

        @property
        def control(self) -> SessionTree:
            return self.session_tree

    @dataclass(eq=False)
    class StatusChanged(Message):
        """The status line changed: ``status`` is pi's ``(3/17) [no-tools] [+label time]``."""

        session_tree: SessionTree
        status: str
        filter_mode: str
        query: str
        """The search query, safe to show."""

        @property
        def control(self) -> SessionTree:
            return self.session_tree

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SessionTree.StatusChanged) and message.session_tree is self.session_tree

    def __init__(
        self,
        model: TreeModel | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._model = model
        # Rows' Strips by (row, cursor), for the model's version, width and pan in _strips_for.
        self._strips: dict[tuple[int, bool], Strip] = {}
        self._strips_for: tuple[Any, ...] = ()
        self._role_styles: dict[str, Style] = {}
        self._seen_version = -1
        self._posted_id: Any = object()
        self._posted_status: tuple[str, str, str] | None = None
        self._searching = False  # the first search's decoding runs in a thread
        self._pan = 0  # columns of every row scrolled out to the left (a deep branch)
        self._pending_query = ""  # what was typed meanwhile
        # Whoever handles Selected answers it (with a dialog, say) and then releases the keys
        # typed after Enter, which wait for that answer.
        self.hold_after_select = False
        # Set while the screen reads the session: keys wait for the rows (see key_waits).
        self.waiting_for_rows = False
        # Set while the screen reads what pi appended to it: keys wait for those rows too.
        self.reading_appends = False
        self._reader = RowReader(self)  # reads the bodies of rows drawn without them
        self._frame: tuple[int, int, int] | None = None  # set while a frame's lines are drawn
        self.marked_id: Any = None  # the entry marked for a comparison (drawn with a ◆)

    # ------------------------------------------------------------------ the model

    @property
    def model(self) -> TreeModel | None:
        return self._model

    @model.setter
    def model(self, model: TreeModel | None) -> None:
        """Show another model (another session, or the same one read again)."""
        self._model = model
        self._searching = False
        self.flush_keys()
        self._posted_id, self._posted_status = object(), None  # tell the screen afresh
        if self.is_mounted:
            self._rows_changed(center=True)

    def reload(self) -> bool:
        """Take in what was appended to the session (after ``Session.refresh``): see
        :meth:`TreeModel.update`. True when the cursor followed the leaf."""
        if self._model is None:
            return False
        followed = self._model.update()
        self._rows_changed(center=followed)
        return followed

    @property
    def status(self) -> str:
        """pi's status line, e.g. ``(3/17) [no-tools] [+label time]``."""
        return self._model.status_text if self._model is not None else "(0/0)"

    @property
    def filter_mode(self) -> str:
        return self._model.filter_mode if self._model is not None else "default"

    @property
    def query(self) -> str:
        """The search query, safe to show."""
        return safe_line(self._model.query) if self._model is not None else ""

    @property
    def selected_id(self) -> Any:
        return self._model.selected_id if self._model is not None else None

    def mark(self, entry_id: Any) -> None:
        """Show ``entry_id``'s row as marked (for a comparison; None: no row)."""
        self.marked_id = entry_id
        self.refresh()

    def reveal(self, entry_id: Any) -> bool:
        """Put the cursor on the entry itself, clearing the search, showing every entry and
        unfolding what hides it when it is not shown; False if it is not in the tree."""
        model = self._model
        if model is None or not model.select(entry_id):
            return False
        before = model.cursor
        if model.selected_id != entry_id and model.query:
            model.clear_query()
            model.select(entry_id)
        if model.selected_id != entry_id and model.filter_mode != "all":
            model.set_filter("all")
            model.select(entry_id)
        for _ in range(len(model)):  # each unfold shows one level more
            if model.selected_id == entry_id or not model.unfold(model.cursor):
                break
            model.select(entry_id)
        self._rows_changed(center=True)
        self._cursor_moved(before, center=True)
        return bool(model.selected_id == entry_id)

    def select(self, entry_id: Any) -> bool:
        """Put the cursor on an entry (or its nearest shown ancestor)."""
        if self._model is None:
            return False
        before = self._model.cursor
        found = self._model.select(entry_id)
        self._cursor_moved(before, center=True)
        return found

    # ------------------------------------------------------------------ keeping the view in step

    def on_mount(self) -> None:
        self._rows_changed(center=True)

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()
        self._pan = self._pan_for_cursor()
        self._update_size()
        self.call_after_refresh(self._scroll_to_cursor, True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._restyle()

    def on_focus(self) -> None:
        self._restyle()  # the cursor row has a focused and a blurred style

    def on_blur(self) -> None:
        self._restyle()

    def _restyle(self) -> None:
        self._strips.clear()
        self._role_styles.clear()
        self.refresh()

    def _update_size(self) -> None:
        rows = len(self._model) if self._model is not None else 0
        self.virtual_size = Size(self.scrollable_content_region.width, rows)

    def _rows_changed(self, *, center: bool = False) -> None:
        """Rows came or went (filter, search, fold, a new model): redraw all, keep the cursor shown."""
        self._strips.clear()
        self._pan = self._pan_for_cursor()
        if self._model is not None:
            self._seen_version = self._model.version
        self._update_size()
        self.refresh()
        self._scroll_to_cursor(center=center)
        # A scroll is clamped to the size the widget had: when the rows grew, the cursor is
        # shown again once the new size has been laid out (nothing happens if it is shown).
        self.call_after_refresh(self._scroll_to_cursor, center)
        self._post_changes()

    def cursor_region(self) -> Region | None:
        """Where the cursor row is on the screen (None: no row, or scrolled out of view)."""
        model = self._model
        if model is None or not len(model):
            return None
        region = self.content_region
        y = region.y + model.cursor - round(self.scroll_y)
        if not region.y <= y < region.bottom:
            return None
        return Region(region.x, y, region.width, 1)

    def _cursor_moved(self, before: int, *, center: bool = False) -> None:
        """After a model call: repaint what changed and tell the screen."""
        model = self._model
        if model is None:
            return
        if model.version != self._seen_version:
            self._rows_changed(center=center)
            return
        if model.cursor != before:
            pan = self._pan_for_cursor()
            top = round(self.scroll_y)
            self._scroll_to_cursor(center=center)
            if pan != self._pan:  # every row shifts
                self._pan = pan
                self.refresh()
            elif round(self.scroll_y) == top:  # (a scroll repaints every line)
                self.refresh_lines(before)
                self.refresh_lines(model.cursor)
        self._post_changes()

    def _scroll_to_cursor(self, center: bool = False) -> None:
        """Scroll as little as needed to show the cursor; a far jump centres it."""
        if self._model is None or not len(self._model):
            return
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        cursor = self._model.cursor
        top = round(self.scroll_y)
        if top <= cursor < top + height:
            return
        near = top - 1 <= cursor <= top + height
        if center and not near:
            target = cursor - height // 2
        elif cursor < top:
            target = cursor
        else:
            target = cursor - height + 1
        # Forced: the scrollbar that allows a scroll may not have been worked out yet for rows
        # that just came (a scroll refused then would leave the cursor out of sight).
        self.scroll_to(y=max(0, target), animate=False, immediate=True, force=True)

    def _post_changes(self) -> None:
        model = self._model
        if model is None:
            return
        # Straight to the screen (they bubble on from there): through each container between,
        # they would reach it after the next frame, and the status line would take a frame of
        # its own, as costly as the step's.
        post = self.screen.post_message if self.is_attached else self.post_message
        entry_id = model.selected_id
        if entry_id != self._posted_id:
            self._posted_id = entry_id
            post(self.Highlighted(self, entry_id))
        status = (model.status_text, model.filter_mode, safe_line(model.query))
        if status != self._posted_status:
            self._posted_status = status
            post(self.StatusChanged(self, *status))

    # ------------------------------------------------------------------ drawing

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line of this frame shares, found once (a scroll repaints them all).
        self._frame = (self.scrollable_content_region.width, self.size.width, self.scroll_offset.y)
        try:
            lines = tree_paint.plain_lines(self, crop, self.render_line)
            return super().render_lines(crop) if lines is None else lines
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        width, full_width, top = self._frame or (
            self.scrollable_content_region.width,
            self.size.width,
            self.scroll_offset.y,
        )
        model = self._model
        row = top + y
        if y == 0:
            self._reader.want()  # the rows around the screen, read ahead
        if model is None or row >= len(model) or width <= 0:
            return Strip.blank(max(width, full_width), self.rich_style)
        cursor = row == model.cursor
        strips = self._strips
        made_for = (model.version, width, full_width, self._pan, self.marked_id)
        if made_for != self._strips_for or len(strips) >= _KEPT_STRIPS:
            strips.clear()
            self._strips_for = made_for
        strip = strips.get((row, cursor))
        if strip is None:
            text = model.cached_row(row)
            if text is None:  # its body is on disk: drawn again once a worker has read it
                self._reader.drew_placeholder()
                head = model.row_head(row)
                text = RowText((*head.segments, _PLACEHOLDER), len(head.segments))
                return self._render_row(row, cursor, width, full_width, text)
            strip = strips[row, cursor] = self._render_row(row, cursor, width, full_width, text)
        return strip

    def _render_row(self, row: int, cursor: bool, width: int, full_width: int, text: RowText) -> Strip:
        assert self._model is not None
        return tree_paint.row_strip(
            self._model,
            row,
            text,
            cursor=cursor,
            width=width,
            full_width=full_width,
            pan=self._pan,
            style_of=self._role_style,
            marked=self.marked_id is not None and self._model.entry_id_at(row) == self.marked_id,
        )

    def _pan_for_cursor(self) -> int:
        """How far to scroll rows left so the cursor row's text is in sight: a row deep in a
        session with many branch points starts with more gutter columns than the pane is wide
        (newer pi pans the same way). Whole gutter levels, so columns stay lined up."""
        model = self._model
        width = self.scrollable_content_region.width
        if model is None or not len(model) or width <= 0:
            return 0
        gutter = tree_paint.gutter_width(model.row_head(model.cursor))
        if gutter <= width // 2:
            return 0
        return min(gutter, (gutter - width // 4) // 3 * 3)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """ScrollView's, but the scrollbar is drawn again only when its thumb moves on screen."""
        if self.show_vertical_scrollbar:
            bar = self.vertical_scrollbar
            if tree_paint.same_thumb(bar, new_value):
                bar.set_reactive(ScrollBar.position, bar.validate_position(new_value))
            else:
                bar.position = new_value
        if round(old_value) != round(new_value):
            self.refresh(self.size.region)

    def _role_style(self, role: str) -> Style:
        """A role's colour and text style, without a background (rows keep theirs)."""
        style = self._role_styles.get(role)
        if style is None and role in ("row", "cursor_row"):
            style = self._role_styles[role] = (
                self.rich_style if role == "row" else self.get_component_rich_style("session-tree--cursor")
            )
        if style is None:
            name = _ROLE_CLASSES.get(role) or (
                "session-tree--count"
                if role == "count"
                else "session-tree--fold-count"
                if role == "fold_count"
                else None
            )
            # The full style, not the partial one: a translucent theme colour ($text-muted)
            # is only resolved against a background.
            full = self.get_component_rich_style(name) if name else Style.null()
            style = self._role_styles[role] = Style(
                color=full.color, bold=full.bold, dim=full.dim, italic=full.italic, underline=full.underline
            )
        return style

    # ------------------------------------------------------------------ keys and mouse

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Printable characters are search text here, as in an Input, except pi's Shift+L and
        Shift+T: a binding of the screen or the app on any other one never runs."""
        return character is not None and character.isprintable() and character not in _RESERVED

    def key_waits(self, key: str, character: str | None, actions: list[tuple[Any, str]]) -> bool:
        """Keys wait for the rows they act on. Until the session is read, and while what pi
        appended is read, every key waits but the screen's Escape (back: a session opened by
        mistake need not be read to the end); while the first search of a big session is
        prepared, a key that acts on the rows waits for the rows of that search (text and its
        editing keys go on meanwhile)."""
        if (self._model is None and self.waiting_for_rows) or self.reading_appends:
            return not any(action == "back" for _, action in actions)
        if not self._searching or not actions:
            return False
        node, action = actions[0]
        return not (node is self and action in ("clear_query", "delete_query_char"))

    def type_key(self, key: str, character: str | None) -> None:
        if character is not None and character.isprintable() and character not in _RESERVED:
            self._type(character)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        text = safe_line(event.text)  # newlines and control characters become spaces
        if text:
            self._type(text)

    def _type(self, text: str) -> None:
        model = self._model
        if model is None:
            return
        if self._searching:
            self._pending_query += text
            return
        if not model.search_ready and len(model.session.entries) >= _SMALL:
            self._prepare_search(model.query + text)
            return
        before = model.cursor
        model.type_text(text)
        self._cursor_moved(before, center=True)

    def _prepare_search(self, query: str) -> None:
        """The first search of a big session decodes every entry: that runs in a thread, and the
        query (with whatever is typed meanwhile) is applied when it is done."""
        model = self._model
        assert model is not None
        self._pending_query = query
        self._searching = True

        def work() -> None:
            model.prepare_search()
            self.app.call_from_thread(done)

        def done() -> None:
            if self._searching and self._model is model:
                self._searching = False
                before = model.cursor
                model.set_query(self._pending_query)
                self._cursor_moved(before, center=True)
            self.flush_keys()

        self.run_worker(work, thread=True, group="tree-search", exclusive=True, exit_on_error=False)

    def on_click(self, event: events.Click) -> None:
        model = self._model
        offset = event.get_content_offset(self)
        if model is None or offset is None:
            return
        row = self.scroll_offset.y + offset.y
        if not 0 <= row < len(model):
            return
        event.stop()
        before = model.cursor
        model.select_row(row)
        self._cursor_moved(before)
        if event.chain == 2:
            self.action_select()

    # ------------------------------------------------------------------ actions

    def _act(self, change: Any, *, center: bool = False) -> None:
        model = self._model
        if model is None:
            return
        before = model.cursor
        change(model)
        self._cursor_moved(before, center=center)

    def action_cursor_up(self) -> None:
        self._act(TreeModel.up)

    def action_cursor_down(self) -> None:
        self._act(TreeModel.down)

    def action_page_up(self) -> None:
        self._act(lambda m: m.page_up(max(1, self.scrollable_content_region.height)))

    def action_page_down(self) -> None:
        self._act(lambda m: m.page_down(max(1, self.scrollable_content_region.height)))

    def action_first(self) -> None:
        self._act(TreeModel.first)

    def action_last(self) -> None:
        self._act(TreeModel.last)

    def action_fold_or_up(self) -> None:
        self._act(TreeModel.fold_or_up)

    def action_unfold_or_down(self) -> None:
        self._act(TreeModel.unfold_or_down)

    def action_select(self) -> None:
        model = self._model
        if model is not None and len(model):
            if self.hold_after_select:
                # The screen answers with a dialog, or a word in its status line: keys typed
                # after Enter wait for it (the screen releases them).
                self.hold_keys()
            self.post_message(self.Selected(self, model.selected_id, model.at_leaf()))

    @property
    def at_leaf(self) -> bool:
        """Whether choosing the highlighted row leaves the conversation where it is."""
        return self._model is not None and self._model.at_leaf()

    def action_copy(self) -> None:
        """pi's Ctrl+X: the highlighted entry's full text to the clipboard. A body that is only
        on disk is read in a thread; the entry is the one highlighted when the key was pressed."""
        model = self._model
        entry = model.selected_entry if model is not None else None
        if entry is None:
            self.post_message(self.Copied(self, None))
            return
        if entry._data is not None:
            self._copied(copy_text_of(entry))
            return

        def work() -> None:
            text = copy_text_of(entry)
            with contextlib.suppress(RuntimeError):  # the app is closing
                self.app.call_from_thread(self._copied, text)

        self.run_worker(work, thread=True, group="tree-copy", exit_on_error=False)

    def _copied(self, text: str | None) -> None:
        if text is not None:
            self.app.copy_to_clipboard(text)
        self.post_message(self.Copied(self, text))

    def action_clear_query(self) -> None:
        if self._searching:
            self._searching = False
            self._pending_query = ""
            self.flush_keys()
            return
        if self._model is None or not self._model.query:
            raise SkipAction()  # no search to clear: Escape belongs to the screen
        self._act(TreeModel.clear_query, center=True)

    def action_delete_query_char(self) -> None:
        if self._searching:
            self._pending_query = self._pending_query[:-1]
            return
        self._act(TreeModel.backspace, center=True)

    def action_filter(self, mode: str) -> None:
        self._act(lambda m: m.set_filter(mode), center=True)

    def action_toggle_filter(self, mode: str) -> None:
        self._act(lambda m: m.toggle_filter(mode), center=True)

    def action_cycle_filter(self, step: int) -> None:
        self._act(lambda m: m.cycle_filter(step), center=True)

    def action_toggle_label_times(self) -> None:
        self._act(TreeModel.toggle_label_times)

    def action_leaf(self) -> None:
        self._act(TreeModel.jump_to_leaf, center=True)

    def action_parent(self) -> None:
        self._act(TreeModel.jump_to_parent, center=True)

    def action_sibling(self, step: int) -> None:
        self._act(lambda m: m.next_sibling(step), center=True)

    def action_label(self, step: int) -> None:
        self._act(lambda m: m.next_label(step), center=True)
