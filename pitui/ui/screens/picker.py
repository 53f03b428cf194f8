"""The session picker: pi's ``/resume``, full screen.

Rows, header, hints, scopes, sort modes, search, the named filter, paths, rename and delete
behave as in pi 0.73.1 (reference §1). Beyond pi: a preview of the highlighted session, the
text around each search match, rows from the cache at once, progress while loading instead of
an empty list, a visible error for a bad ``re:`` pattern, a cursor that stays on its session
across every change, live updates from the disk, Escape that clears the search first, a key to
resume in pi, the mouse, and the command palette.

Threads: listing, searching, previews and writes run in thread workers; their results are
applied on the UI thread. Widgets get plain data and never open files.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from pitui.safe_text import safe_line
from pitui.store import tuning
from pitui.store.catalog import ListingCancelled, Scope
from pitui.store.query import SortMode, has_session_name
from pitui.store.threads import ListRow, threaded_rows
from pitui.ui import bindings
from pitui.ui.commands import PaletteCommand, ScreenCommands, picker_commands
from pitui.ui.format import error_about, problems_text, sentence_case
from pitui.ui.keys import OrderedKeys
from pitui.ui.screens.base import PituiScreen
from pitui.ui.screens.picker_follow import PickerFollowing
from pitui.ui.screens.picker_listing import PickerListing, Resolved, ScopeState
from pitui.ui.screens.picker_only import PickerOnly, only_these
from pitui.ui.screens.picker_search import PickerSearching
from pitui.ui.widgets.fields import SearchField
from pitui.ui.widgets.picker_header import PickerFooter, PickerHeader, footer_keys, picker_hints
from pitui.ui.widgets.preview_pane import PreviewPane
from pitui.ui.widgets.session_list import SessionList
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.store.catalog import Catalog, ListingProblem, SessionInfo

__all__ = ["PickerScreen"]

NEXT_SORT: dict[str, SortMode] = {"threaded": "recent", "recent": "relevance", "relevance": "threaded"}


class PickerScreen(PickerOnly, PickerSearching, PickerFollowing, OrderedKeys, PituiScreen):
    """pi's ``/resume`` over this folder's sessions (``scope="current"``) or every project's."""

    BINDING_GROUP_TITLE = "Session picker"
    COMMANDS: ClassVar = {ScreenCommands}
    # The search box has the focus and takes text; these keys are the picker's, also where the
    # box would have used them (Enter, Ctrl+D): a SearchField asks its screen first.
    BINDINGS: ClassVar[list[BindingType]] = bindings.PICKER
    # What these act on is the highlighted row: they wait for the rows of a search in progress.
    ROW_ACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"cursor", "page", "confirm", "delete", "delete_if_no_query", "rename", "resume"}
    )
    # Moves closer together than this make one preview. (A search starts at once: the next
    # keystroke cancels it, and a search typed further starts from the one before.)
    PREVIEW_DELAY_S: ClassVar[float] = 0.1
    # Snippets made with the search, at most: those of the rows on screen; the rest as they
    # scroll into view.
    SNIPPETS: ClassVar[int] = 60

    @dataclass(eq=False)
    class _Progress(Message):
        scope: Scope
        loaded: int
        total: int

    @dataclass(eq=False)
    class _Listed(Message):
        """A listing's rows, every file read (its cache writes follow); ``drawn`` is called
        once they are on screen."""

        scope: Scope
        infos: list[SessionInfo]
        problems: list[ListingProblem]
        found: Resolved
        drawn: Callable[[], object]

    def __init__(self, scope: Scope = "current") -> None:
        super().__init__()
        self.scope: Scope = scope
        self.sort: SortMode = "threaded"
        self.named_only = False
        self.show_path = False
        self.query_text = ""
        self.listing: PickerListing  # made on mount, once the catalog is open
        self._confirming: str | None = None
        self._hinted_query = ""
        self._shown_generation = 0  # the search generation whose rows are on screen
        self._search_error: str | None = None
        self._searching = 0  # generation of the newest search; older results are dropped
        self._hits_query = ""
        self._catalog_lock = threading.Lock()  # one listing at a time: catalog.problems is per call
        self._stop_watch = threading.Event()
        self._preview_path: str | None = None
        self._watching = False  # the watcher starts once the first listing is on screen

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield PickerHeader(id="picker-header")
        with Horizontal(id="picker-search"):
            yield Static("> ", id="picker-prompt", markup=False)
            yield SearchField(
                id="picker-query",
                compact=True,
                select_on_focus=False,
                placeholder='type to search: words, "exact phrase", re:regex',
            )
        yield Static(id="picker-only", markup=False)
        with Horizontal(id="picker-body"):
            yield SessionList(id="picker-list")
            yield PreviewPane(id="picker-preview")
        yield PickerFooter(id="picker-status")

    @property
    def catalog(self) -> Catalog:
        return self.app.catalog

    @property
    def session_list(self) -> SessionList:
        return self.query_one("#picker-list", SessionList)

    @property
    def search_box(self) -> SearchField:
        return self.query_one("#picker-query", SearchField)

    def palette_commands(self) -> list[PaletteCommand]:
        """The picker's actions in the command palette (F2): those that can run now."""
        return picker_commands(self, self.check_action, self.run_palette_action)

    def on_mount(self) -> None:
        catalog = self.app.ensure_catalog()  # made here, on the UI thread, before any worker asks for it
        self.listing = PickerListing(self.app.cwd, self.app.session_dir, catalog.agent_dir)
        self.session_list.configure(now_ms=self.app.now_ms(), show_cwd=self.scope == "all")
        self._update_header()
        self._refilter()
        self.search_box.focus()
        self.watch(self.search_box, "value", self._query_typed, init=False)
        self._request_load(self.scope)
        self.set_interval(60, self._clock_ticked)  # ages ("5m") move on while the picker is open

    def _clock_ticked(self) -> None:
        self.session_list.configure(now_ms=self.app.now_ms())

    def on_unmount(self) -> None:
        self._stop_watch.set()
        self._release_frames()

    def on_screen_resume(self) -> None:
        # Back from a session view: which session is open may have changed, time has passed,
        # and the view may have written to a session (re-listing costs a stat per unchanged file).
        self.session_list.configure(now_ms=self.app.now_ms(), current_paths=self._open_rows())
        if self._confirming is None:
            self.search_box.focus()
        if any(state.complete for state in self.listing.states.values()):
            self._written()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#picker-preview").display = event.size.width >= 100

    # -- listing ---------------------------------------------------------------------------

    def _request_load(self, scope: Scope) -> None:
        if self.listing.start(scope):
            self._update_header()
            self._load(scope, cached_first=not self.listing.states[scope].complete)

    @work(thread=True, group="picker-load", exit_on_error=False)
    def _load(self, scope: Scope, cached_first: bool) -> None:
        worker = get_current_worker()
        catalog, listing = self.catalog, self.listing
        last = 0.0

        def progress(loaded: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if loaded == total or now - last >= 0.05:
                last = now
                self.post_message(self._Progress(scope, loaded, total))

        shown = False

        def listed(infos: list[SessionInfo], problems: list[ListingProblem]) -> None:
            # Every file read: the rows go on screen, then the cache is written (after the
            # frame, which would otherwise share the interpreter with the writing). Posted, not
            # called and waited for: the listing holds the cache's lock here, and the UI thread
            # may be waiting for that lock (the app closes the cache as it quits).
            nonlocal shown
            shown = True
            drawn = threading.Event()
            message = self._Listed(scope, infos, problems, listing.resolve(infos), drawn.set)
            if not worker.is_cancelled and self.post_message(message):
                drawn.wait(1)

        try:
            with self._catalog_lock:
                if cached_first:
                    cached = listing.cached(catalog, scope)
                    if cached and not worker.is_cancelled:
                        self._from_thread(self._loaded, scope, cached, None, listing.resolve(cached))
                infos, problems = listing.listed(catalog, scope, progress, listed)
        except ListingCancelled:  # the app is quitting: it closed the catalog
            return
        except Exception as error:  # a listing must never take the app down
            self._from_thread(self._load_failed, scope, f"{type(error).__name__}: {error}")
            return
        if not shown:  # (a listing that found no folder to read)
            listed(infos, problems)
        self._from_thread(self._stored, scope, infos)

    @work(thread=True, exclusive=True, group="picker-prepare", exit_on_error=False, description="prepare search")
    def _prepare_search(self, infos: list[SessionInfo]) -> None:
        """Read and lower-case the listed sessions' texts now, so the first search keystroke
        does not have to."""
        worker = get_current_worker()

        def cancelled() -> bool:
            tuning.yield_gil()  # between batches, the UI thread first (see _search)
            return worker.is_cancelled

        with contextlib.suppress(Exception):  # only a head start: a search does this itself
            self.catalog.prepare_search(infos, cancelled=cancelled)
        if not worker.is_cancelled and self.is_active:
            # The listing and its texts stay as they are until the next listing: out of the
            # collector's walks, which would otherwise go through them every few keystrokes.
            # (Not under a session view: it keeps its own session frozen, and a collection now
            # would walk that session's entries.)
            tuning.freeze_heap(collect=True)

    def _from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """Run ``callback`` on the UI thread, unless the app is gone or the worker cancelled
        (then False)."""
        if get_current_worker().is_cancelled:
            return False
        try:
            self.app.call_from_thread(callback, *args, **kwargs)
        except RuntimeError:  # the app is shutting down
            return False
        return True

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        # Workers catch what they expect; anything else is a bug, shown rather than lost.
        if event.state == WorkerState.ERROR and event.worker.group.startswith("picker-"):
            error = event.worker.error
            self._set_status(
                f"Internal error ({event.worker.group}): {type(error).__name__}: {error}", error=True, seconds=6
            )

    @on(_Progress)
    def _progressed(self, message: _Progress) -> None:
        state = self.listing.states[message.scope]
        if state.loading:
            state.progress = (message.loaded, message.total)
            if message.scope == self.scope:
                self._update_header()
                self._update_body_message()

    @on(_Listed)
    def _listed(self, message: _Listed) -> None:
        self._loaded(message.scope, message.infos, message.problems, message.found, message.drawn)

    def _loaded(
        self,
        scope: Scope,
        infos: list[SessionInfo],
        problems: list[ListingProblem] | None,
        found: Resolved,
        drawn: Callable[[], object] | None = None,
    ) -> None:
        """Rows of ``scope`` (``problems`` None: the cached ones); ``drawn`` is called once
        they are on screen."""
        if problems is not None and self.is_active:  # the full listing, not the cached rows
            tuning.thaw_heap()  # the rows it replaces go (frozen again once its texts are made)
        self.listing.loaded(scope, infos, problems, found)
        if scope == self.scope:
            self._update_header()
            self._refilter()
        if drawn is not None:
            self.call_after_refresh(drawn)

    def _stored(self, scope: Scope, infos: list[SessionInfo]) -> None:
        """A full listing is in the cache too: its texts can be made ready for a search, a
        change on disk meanwhile lists again, and the disk is followed from now on."""
        self._finish_load(scope)
        self._prepare_search(infos)
        self._follow_disk()

    def _load_failed(self, scope: Scope, message: str) -> None:
        self.listing.failed(scope)
        self._finish_load(scope)
        self._update_header()  # no longer "Loading"
        if scope == self.scope:
            self._set_status(f"Failed to load sessions: {message}", error=True, seconds=4)
            self._refilter()
        self._follow_disk()

    def _finish_load(self, scope: Scope) -> None:
        if self.listing.finish(scope):
            self._request_load(scope)

    # -- filtering -------------------------------------------------------------------------

    @property
    def _state(self) -> ScopeState:
        return self.listing.states[self.scope]

    def _refilter(self, *, new_query: bool = False) -> None:
        """Rows for the scope, filter, sort and query in force (pi's ``filterSessions``).

        The cursor stays on its session through every change, except that a query the user
        has just typed puts it on the best match, as a search box is expected to.
        """
        state = self._state
        infos = only_these(self.only, state.infos or [])
        self._searching += 1
        if self.query_text.strip():
            if state.infos is not None:
                # The rows the screen shows get their snippet with the search; others when shown.
                on_screen = max(1, self.session_list.scrollable_content_region.height // 2) + 1
                # Once the screen shows the key just typed: drawing it and searching at the same
                # time would make both wait for each other (one interpreter lock). (A key typed is
                # drawn with its rows when they come soon: picker_search.FRAME_HOLD_S.)
                self.call_after_refresh(
                    self._start_search,
                    self._searching,
                    self.query_text,
                    list(infos),
                    self.sort,
                    self.named_only,
                    new_query,
                    min(self.SNIPPETS, on_screen),
                )
            else:
                self._show_rows([], two_lines=True)
            return
        self._search_error = None
        pool = [info for info in infos if has_session_name(info)] if self.named_only else infos
        rows = threaded_rows(pool, self.listing.canonical) if self.sort == "threaded" else [ListRow(i) for i in pool]
        self._show_rows(rows, two_lines=False)

    def _show_rows(self, rows: list[ListRow], *, two_lines: bool, follow: str | None = None) -> None:
        listing = self.session_list
        listing.configure(
            show_cwd=self.scope == "all",
            show_path=self.show_path,
            current_paths=self._open_rows(),
            now_ms=self.app.now_ms(),
            gone_cwds=self.listing.gone_cwds,
        )
        listing.set_rows(rows, two_lines=two_lines, follow=follow)
        self._update_body_message()
        self._update_status_line()
        self._shown_generation = self._searching
        self.search_box.flush_keys()
        self._release_frames()

    def _open_rows(self) -> set[str]:
        """The listed sessions open in a session view (compared as real paths, as pi does)."""
        return self.listing.open_rows(self.scope, self.app.open_session_paths())

    @on(SessionList.SnippetsWanted)
    def _snippets_wanted(self, message: SessionList.SnippetsWanted) -> None:
        self._fill_snippets(self._searching, self._hits_query, message.hits)

    def _update_body_message(self) -> None:
        """What the list says when it has no rows (pi's empty states, §1.7, or better)."""
        if self._search_error is not None and self.query_text.strip():
            self.session_list.configure(message="  " + sentence_case(self._search_error), message_is_error=True)
            return
        text = self.listing.empty_text(
            self.scope, self.named_only, self.app.keys_text, max(self.session_list.size.width - 14, 24)
        )
        self.session_list.configure(message=text, message_is_error=False)

    # -- header and status -----------------------------------------------------------------

    def _update_header(self) -> None:
        header = self.query_one(PickerHeader)
        state = self._state
        header.scope = self.scope
        header.named = self.named_only
        header.sort = self.sort
        header.listing = False
        if state.loading and not state.complete:
            header.listing = state.progress or True
        k = self.app.keys_text
        header.hints = picker_hints(k, bool(self.query_text), self.show_path)
        self._hinted_query = self.query_text
        footer = self.query_one(PickerFooter)
        footer.keys = footer_keys(k)
        footer.refresh()
        header.question = None
        if self._confirming is not None:
            name = os.path.basename(self._confirming)
            header.question = (
                f"Delete session? {k('picker.open')} confirm · {k('picker.cancel')} cancel",
                (safe_line(self.listing.title_of(self._confirming) or ""), safe_line(name)),
            )
        header.refresh()

    def say(self, message: str, *, error: bool = False) -> None:
        """A word in the header's status line for a few seconds (what just happened)."""
        self._set_status(message, error=error, seconds=4)

    def _set_status(self, message: str, *, error: bool = False, seconds: float = 2) -> None:
        self.query_one(PickerHeader).flash(safe_line(message), error=error, seconds=seconds)

    def _update_status_line(self) -> None:
        listing = self.session_list
        total = len(listing.rows)
        self.query_one(PickerFooter).show((listing.cursor + 1 if total else 0, total), len(self._state.problems))

    # -- events ----------------------------------------------------------------------------

    @on(Input.Changed, "#picker-query")
    def _query_changed(self, event: Input.Changed) -> None:
        if event.value != self.query_text:  # else a waiting key already took it
            self.query_text = event.value
            self._refilter(new_query=True)
        if bool(event.value) != bool(self._hinted_query):  # "esc quit" becomes "esc clear"
            self._update_header()

    @on(Input.Submitted, "#picker-query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # Enter is the picker's (a priority binding): nothing to do here

    @on(SessionList.Highlighted)
    def _highlighted(self, message: SessionList.Highlighted) -> None:
        self._update_status_line()
        path = message.row.path if message.row is not None else None
        if path != self._preview_path:
            self._preview_path = path
            if path is None:
                self.query_one(PreviewPane).show(None, now_ms=self.app.now_ms())
            else:
                self._preview(path)

    @on(SessionList.Chosen)
    def _chosen(self, message: SessionList.Chosen) -> None:
        if self._confirming is None:
            self.app.choose_session(message.row.path)

    @work(thread=True, exclusive=True, group="picker-preview", exit_on_error=False)
    def _preview(self, path: str) -> None:
        from pitui.store.stats import PreviewCancelled, PreviewError, session_preview

        worker = get_current_worker()
        time.sleep(self.PREVIEW_DELAY_S)
        if worker.is_cancelled:
            return
        try:
            preview = session_preview(path, cancelled=lambda: worker.is_cancelled)
        except PreviewCancelled:
            return
        except PreviewError as error:
            self._from_thread(self._show_preview_error, path, str(error))
            return
        except Exception as error:  # a preview must never take the picker down
            self._from_thread(self._show_preview_error, path, f"Cannot preview this session: {error}")
            return
        self._from_thread(self._show_preview, path, preview)

    def _show_preview(self, path: str, preview: Any) -> None:
        if path == self._preview_path:
            title, gone = self.listing.title_of(preview.parent_session), preview.cwd in self.listing.gone_cwds
            self.query_one(PreviewPane).show(preview, now_ms=self.app.now_ms(), parent_title=title, folder_gone=gone)

    def _show_preview_error(self, path: str, message: str) -> None:
        if path == self._preview_path:
            self.query_one(PreviewPane).show_error(message)

    # -- keys in order ---------------------------------------------------------------------

    @property
    def typing_locked(self) -> bool:
        """While a delete waits for its answer, only the answer's keys do anything (as pi)."""
        return self._confirming is not None

    @property
    def rows_settled(self) -> bool:
        """Whether the rows on screen are those of the search box's text (no search under way)."""
        return self._shown_generation == self._searching and self.search_box.value == self.query_text

    def key_waits(self, actions: list[tuple[object, str]]) -> bool:
        """A key that acts on the highlighted row waits for the rows of the text typed before it."""
        if self.rows_settled or not actions:
            return False
        node, action = actions[0]
        if node is not self or action.split("(")[0] not in self.ROW_ACTIONS:
            return False
        if self.search_box.value != self.query_text:  # its Changed message is still on its way
            self.query_text = self.search_box.value
            self._refilter(new_query=True)
        return not self.rows_settled

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._confirming is not None:
            return action in ("confirm", "cancel")  # pi: every other key is ignored
        if action in ("rename", "delete", "resume") and self.session_list.selected is None:
            return False
        if action == "delete_if_no_query":
            return not self.query_text and self.session_list.selected is not None  # else: the search box's
        return True

    def run_palette_action(self, action: str) -> None:
        self.call_later(self.run_action, action)

    def action_cursor(self, delta: int) -> None:
        self.session_list.move_cursor(delta)

    def action_page(self, direction: int) -> None:
        listing = self.session_list
        listing.move_cursor(direction * listing.page_rows)

    def action_confirm(self) -> None:
        if self._confirming is not None:
            path = self._confirming
            self._end_confirm()
            self._trash(path)
            return
        row = self.session_list.selected
        if row is not None:
            self.app.choose_session(row.path)

    def action_cancel(self) -> None:
        if self._confirming is not None:
            self._end_confirm()
        elif self.query_text:
            self.search_box.value = ""
        elif self.only is not None:
            self.show_only(None)
        else:
            self.app.exit()

    def action_clear_search(self) -> None:
        self.search_box.value = ""

    def action_toggle_scope(self) -> None:
        self.scope = "all" if self.scope == "current" else "current"
        state = self._state
        if state.infos is None and not state.loading:
            self._request_load(self.scope)
        self._update_header()
        self._refilter()

    def action_toggle_sort(self) -> None:
        self.sort = NEXT_SORT[self.sort]
        self._update_header()
        self._refilter()

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only
        self._update_header()
        self._refilter()

    def action_toggle_path(self) -> None:
        self.show_path = not self.show_path
        self.session_list.configure(show_path=self.show_path)
        self._update_header()

    def action_find_entries(self) -> None:
        from pitui.ui.screens.entry_search import EntrySearchScreen

        self.app.push_screen(EntrySearchScreen(self.listing, self.scope))

    def action_resume(self) -> None:
        row = self.session_list.selected
        if row is not None:
            self.app.resume_in_pi(row.path, row.info.cwd)

    def action_show_problems(self) -> None:
        problems = self._state.problems
        if not problems:
            self.notify("Every session file in this scope could be read.", markup=False)
            return
        self.notify(
            problems_text(problems),
            title=f"{len(problems)} files skipped",
            severity="warning",
            markup=False,
            timeout=12,
        )

    # rename

    def action_rename(self) -> None:
        row = self.session_list.selected
        if row is None:
            return
        from pitui.ui.screens.dialogs import RenameScreen  # not needed for the first screen

        hint = f"{self.app.keys_text('picker.open')} to save · escape/ctrl+c to cancel"
        self.app.push_screen(RenameScreen(row.info.name or "", hint), partial(self._rename_chosen, row.path))

    def _rename_chosen(self, path: str, name: str | None) -> None:
        if name:
            self._rename(path, name)

    @work(thread=True, group="picker-write", exit_on_error=False)
    def _rename(self, path: str, name: str) -> None:
        from pitui.store.write import actions

        try:
            actions.rename(path, name)
        except Exception as error:  # ActionError, OSError, a file pi made unreadable meanwhile
            self._from_thread(self._set_status, f"Failed to rename: {error_about(error, path)}", error=True, seconds=3)
            return
        self._from_thread(self._written)

    def _written(self) -> None:
        for scope, state in self.listing.states.items():
            if state.infos is not None:
                self._request_load(scope)

    # delete

    def action_delete(self) -> None:
        row = self.session_list.selected
        if row is None:
            return
        if self.listing.canonical(row.path) in self.app.open_session_paths():
            self._set_status("Cannot delete the currently active session", error=True, seconds=3)
            return
        self._confirming = row.path
        self.session_list.set_delete_path(row.path)
        self._update_header()

    def action_delete_if_no_query(self) -> None:
        self.action_delete()

    def _end_confirm(self) -> None:
        self._confirming = None
        self.session_list.set_delete_path(None)
        self._update_header()

    @work(thread=True, group="picker-write", exit_on_error=False)
    def _trash(self, path: str) -> None:
        from pitui.store.write import actions

        try:
            actions.trash(path)
        except Exception as error:  # ActionError, TrashError: the file is still there
            self._from_thread(self._set_status, f"Failed to delete: {error_about(error, path)}", error=True, seconds=3)
            return
        self._from_thread(self._trashed, path)

    def _trashed(self, path: str) -> None:
        for state in self.listing.states.values():
            if state.infos is not None:
                state.infos = [info for info in state.infos if info.path != path]
        self._refilter()
        self._set_status("Session moved to trash")
        self._written()
