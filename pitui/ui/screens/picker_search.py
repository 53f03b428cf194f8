"""The picker's search workers: a search per keystroke in a thread, and the snippets of the rows
that come on screen. A mixin of :class:`~pitui.ui.screens.picker.PickerScreen`, which owns the
state these read (the newest search's generation, the rows shown) and handles the messages."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, ClassVar

from textual.worker import get_current_worker

from pitui.store import tuning
from pitui.store.threads import ListRow
from pitui.ui.workers import work

if TYPE_CHECKING:
    from collections.abc import Callable

    from pitui.store.catalog import Catalog, SearchHit, SessionInfo
    from pitui.store.query import SortMode
    from pitui.ui.widgets.session_list import SessionList

__all__ = ["PickerSearching"]


class PickerSearching:
    """Searching for :class:`~pitui.ui.screens.picker.PickerScreen` (mixed in before the screen).

    A key typed into the search box and the rows it finds are drawn in one frame when the
    search answers within ``FRAME_HOLD_S``: Textual draws at most one frame every 1/60 s, so a
    frame for the key alone would put 17 ms between it and its rows. A slower search shows
    the key when the hold runs out, and its rows when they come.
    """

    FRAME_HOLD_S: ClassVar[float] = 0.025
    _frame_hold: contextlib.ExitStack | None = None

    if TYPE_CHECKING:
        _searching: int
        _search_error: str | None
        _hits_query: str

        @property
        def catalog(self) -> Catalog: ...
        @property
        def session_list(self) -> SessionList: ...
        def _from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None: ...
        def _show_rows(self, rows: list[ListRow], *, two_lines: bool, follow: str | None = None) -> None: ...

    def _query_typed(self, value: str) -> None:
        """The search box's text changed (called at once, in the key's handler: before the
        screen can draw the key alone)."""
        if value.strip():
            self._hold_frames()

    def _hold_frames(self) -> None:
        """No frame until the rows of the search just started are shown, or ``FRAME_HOLD_S``."""
        if self._frame_hold is not None:  # the first key's hold bounds the keys typed meanwhile
            return
        app = self.session_list.app
        hold = self._frame_hold = contextlib.ExitStack()
        hold.enter_context(app.batch_update())
        # The app's timer, not the screen's: it runs out even if the screen goes away.
        app.set_timer(self.FRAME_HOLD_S, lambda: self._release_frames(hold), name="picker frame hold")

    def _release_frames(self, hold: contextlib.ExitStack | None = None) -> None:
        """Draw again (``hold``: only if it is still the one in force)."""
        current = self._frame_hold
        if current is not None and (hold is None or hold is current):
            self._frame_hold = None
            current.close()

    def _start_search(self, generation: int, *args: Any) -> None:
        if generation == self._searching:  # else a newer keystroke came meanwhile
            self._search(generation, *args)

    # A description, or Textual would spell out every argument (all the sessions) for each search.
    @work(thread=True, exclusive=True, group="picker-search", exit_on_error=False, description="search")
    def _search(
        self,
        generation: int,
        query: str,
        infos: list[SessionInfo],
        sort: SortMode,
        named: bool,
        new_query: bool,
        snippets: int,
    ) -> None:
        from pitui.store.catalog import SearchCancelled
        from pitui.store.query import QueryError

        worker = get_current_worker()
        if worker.is_cancelled:
            return

        def cancelled() -> bool:
            # Asked every few hundred sessions: let the UI thread have the interpreter lock
            # now if it waits for it (else it may wait up to sys.getswitchinterval(), 5 ms, at
            # every turn of its event loop while this thread searches).
            tuning.yield_gil()
            return worker.is_cancelled

        try:
            hits = self.catalog.search(
                query,
                scope=infos,
                mode=sort,
                name_filter="named" if named else "all",
                snippets=snippets,
                cancelled=cancelled,
            )
        except SearchCancelled:  # a newer keystroke's search is on its way
            return
        except QueryError as error:
            self._from_thread(self._searched, generation, query, [], str(error), False)
            return
        except Exception as error:  # a damaged cache, a vanished file: say so, keep the app
            self._from_thread(self._searched, generation, query, [], f"Search failed: {error}", False)
            return
        # The rows are made here, not on the UI thread: thousands of them, at every keystroke.
        self._from_thread(
            self._searched, generation, query, [ListRow(hit.info, "", hit) for hit in hits], None, new_query
        )

    def _searched(self, generation: int, query: str, rows: list[ListRow], error: str | None, best_first: bool) -> None:
        if generation != self._searching:
            return
        self._search_error = error
        self._hits_query = query
        follow = rows[0].path if best_first and rows else None
        self._show_rows(rows, two_lines=True, follow=follow)

    @work(thread=True, group="picker-snippets", exit_on_error=False, description="snippets")
    def _fill_snippets(self, generation: int, query: str, hits: list[SearchHit]) -> None:
        for hit in hits:
            if get_current_worker().is_cancelled or generation != self._searching:
                return
            try:
                self.catalog.snippet(hit, query)
            except Exception:  # a snippet is a nicety: the row is there without it
                continue
        self._from_thread(self.session_list.refresh_hits)
