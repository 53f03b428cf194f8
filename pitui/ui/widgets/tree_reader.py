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


class RowReader:
    """The rows' reading for one :class:`~pitui.ui.widgets.session_tree.SessionTree`."""

    def __init__(self, tree: SessionTree) -> None:
        self._tree = tree
        self._running = False  # a worker reads rows
        self._again = False  # more rows were wanted meanwhile
        self._scheduled = False
        self._failed: tuple[TreeModel, int] | None = None  # no new try until the rows change
        self._placeholders = False  # a row was drawn without its text

    def drew_placeholder(self) -> None:
        """A row was drawn without its text: read it, then draw it again."""
        self._placeholders = True
        self.want()

    def want(self) -> None:
        """Check, once this paint is done, that the rows on screen and a page either side have
        their text; a worker reads those that do not."""
        if not self._scheduled:
            self._scheduled = True
            self._tree.call_later(self._check)

    def _check(self) -> None:
        self._scheduled = False
        tree = self._tree
        model = tree.model
        if model is None or not len(model) or self._failed == (model, model.version):
            return
        height = max(1, tree.scrollable_content_region.height)
        top = round(tree.scroll_y)
        if model.rows_ready(top, top + height) and model.rows_ready(top - height, top + 2 * height):
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
