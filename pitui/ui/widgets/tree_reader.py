"""Reading the session tree's rows off the UI thread.

A row whose message body was not kept needs the file: :class:`RowReader` has a worker thread
read the rows on screen and a page either side (:meth:`TreeModel.fill_rows`), one worker at a
time, the latest rows wanted next, and has the widget draw again what it drew without its text.
The widget draws only what :meth:`TreeModel.cached_row` has ready.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.store.tree import TreeModel
    from pitui.ui.widgets.session_tree import SessionTree

__all__ = ["RowReader"]

_NEAR = 8  # rows past the known ones that a draw checks itself


class RowReader:
    """The rows' reading for one :class:`~pitui.ui.widgets.session_tree.SessionTree`."""

    def __init__(self, tree: SessionTree) -> None:
        self._tree = tree
        self._running = False  # a worker reads rows
        self._again = False  # more rows were wanted meanwhile
        self._scheduled = False
        self._failed: tuple[TreeModel, int] | None = None  # no new try until the rows change
        self._placeholders = False  # a row was drawn without its text
        # Rows known to have their text: (model, its ready_mark, start, end). A scroll by a row
        # checks the row it brings in here, not every row around the screen in a callback.
        self._known: tuple[TreeModel, tuple[int, int], int, int] | None = None

    def drew_placeholder(self) -> None:
        """A row was drawn without its text: read it, then draw it again."""
        self._placeholders = True
        self._known = None
        self.want()

    def want(self) -> None:
        """Check, once this paint is done, that the rows on screen and a page either side have
        their text; a worker reads those that do not."""
        if self._scheduled or self._covered():
            return
        self._scheduled = True
        self._tree.call_later(self._check)

    def _window(self, model: TreeModel) -> tuple[int, int]:
        """The rows wanted: those on screen and a page either side."""
        tree = self._tree
        height = max(1, tree.scrollable_content_region.height)
        top = round(tree.scroll_y)
        return max(0, top - height), min(len(model), top + 2 * height)

    def _covered(self) -> bool:
        """Whether the rows wanted are known to have their text (a few rows past what is known,
        as a scroll brings in, are checked here)."""
        known, model = self._known, self._tree.model
        if known is None or model is None or known[0] is not model or known[1] != model.ready_mark:
            return False
        start, end = self._window(model)
        low, high = known[2], known[3]
        if high < end <= high + _NEAR and start >= low and model.rows_ready(high, end):
            high = end
        elif start < low <= start + _NEAR and end <= high and model.rows_ready(start, low):
            low = start
        self._known = (model, known[1], low, high)
        return low <= start and end <= high

    def _check(self) -> None:
        self._scheduled = False
        tree = self._tree
        model = tree.model
        if model is None or not len(model) or self._failed == (model, model.version):
            return
        height = max(1, tree.scrollable_content_region.height)
        top = round(tree.scroll_y)
        if model.rows_ready(top, top + height) and model.rows_ready(top - height, top + 2 * height):
            self._known = (model, model.ready_mark, *self._window(model))
            self._redraw()  # made meanwhile (a cursor move, a fold)
            return
        if self._running:
            self._again = True
            return
        self._running = True

        def work() -> None:
            done = False
            try:
                model.fill_rows(top, top + height)  # the screen first
                model.fill_rows(top + height, top + 2 * height)
                model.fill_rows(top - height, top)
                done = True
            finally:
                with contextlib.suppress(RuntimeError):  # the app is shutting down
                    tree.app.call_from_thread(filled, done)

        def filled(done: bool) -> None:
            self._running = False
            if not done:  # it failed (and said why): not again until the rows change
                self._failed = (model, model.version)
            if tree.model is not model:
                return
            self._redraw()
            if self._again:
                self._again = False
                self._check()

        tree.run_worker(work, thread=True, group="tree-rows", exclusive=True, exit_on_error=False)

    def _redraw(self) -> None:
        if self._placeholders:
            self._placeholders = False
            self._tree.refresh()
