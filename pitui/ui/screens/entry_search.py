"""Find entries: the messages of every session in this folder (or all projects) that match a
query, newest first; Enter opens the session at the entry.

Reached from the picker (its ``picker.find_entries`` key, or the palette) over the picker's own
listing, which it leaves as it was. Searching runs in a thread worker, a new one per keystroke
(the one before is cancelled); the hits come in as each batch of sessions is searched. A key
that acts on the highlighted hit (Up, Down, Enter) waits, with the keys behind it, until the
hits of the text typed before it are on screen: the first ones, or the search has ended.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from pitui.safe_text import safe_line
from pitui.store import tuning
from pitui.ui import bindings
from pitui.ui.format import format_age
from pitui.ui.keys import OrderedKeys
from pitui.ui.screens.base import PituiScreen
from pitui.ui.widgets.fields import SearchField
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.store.catalog import Catalog, Scope, SessionInfo
    from pitui.store.catalog.entry_search import EntryHit, EntryResults, EntrySearch
    from pitui.ui.screens.picker_listing import PickerListing

__all__ = ["EntrySearchScreen"]

SCOPE_TEXT = {"current": "this folder", "all": "all projects"}


class EntrySearchScreen(OrderedKeys, PituiScreen):
    """Find any entry, in this folder's sessions or every project's (Tab)."""

    BINDING_GROUP_TITLE = "Find entries"
    BINDINGS: ClassVar[list[BindingType]] = bindings.ENTRIES
    ROW_ACTIONS: ClassVar[frozenset[str]] = frozenset({"cursor", "open"})
    # Hits asked for: a few screens of them (the search stops once these are final).
    LIMIT: ClassVar[int] = 200

    def __init__(self, listing: PickerListing, scope: Scope = "current") -> None:
        super().__init__()
        self.listing = listing
        self.scope: Scope = scope
        self.query_text = ""
        self.hits: list[EntryHit] = []
        self._searcher: EntrySearch | None = None
        self._generation = 0  # the newest search
        self._shown = -1  # the search whose hits are on screen
        self._settled = True  # those hits are the first ones of their search, or it ended
        self._infos: dict[str, list[SessionInfo]] = {}  # listed here (a scope the picker had not)

    def compose(self) -> ComposeResult:
        yield Static(id="entries-header", markup=False)
        with Horizontal(id="entries-search"):
            yield Static("> ", id="entries-prompt", markup=False)
            yield SearchField(
                id="entries-query",
                compact=True,
                select_on_focus=False,
                placeholder='find entries: words, "exact phrase", re:regex',
            )
        yield OptionList(id="entries-list")
        yield Static(id="entries-status", markup=False)

    @property
    def catalog(self) -> Catalog:
        return self.app.catalog

    @property
    def search_box(self) -> SearchField:
        return self.query_one("#entries-query", SearchField)

    @property
    def hit_list(self) -> OptionList:
        return self.query_one("#entries-list", OptionList)

    def on_mount(self) -> None:
        from pitui.store.catalog.entry_search import EntrySearch

        self._searcher = EntrySearch(self.app.ensure_catalog())
        self.hit_list.can_focus = False
        self.search_box.focus()
        self._update_header()
        self._update_status()
        if self._scope_infos() is None:
            self._load(self.scope)

    # -- what is searched ------------------------------------------------------------------

    def _scope_infos(self) -> list[SessionInfo] | None:
        listed = self._infos.get(self.scope)
        if listed is not None:
            return listed
        state = self.listing.states[self.scope]
        return state.infos if state.complete else None

    @work(thread=True, group="entries-load", exit_on_error=False)
    def _load(self, scope: Scope) -> None:
        try:
            infos, _ = self.listing.listed(self.catalog, scope, lambda done, total: None)
        except Exception as error:  # a listing must never take the app down
            self._from_thread(self._say, f"Failed to load sessions: {error}")
            return
        self._from_thread(self._loaded, scope, infos)

    def _loaded(self, scope: Scope, infos: list[SessionInfo]) -> None:
        self._infos[scope] = infos
        if scope == self.scope:
            self._refilter()

    def _from_thread(self, callback: Any, *args: Any) -> None:
        if get_current_worker().is_cancelled:
            return
        with contextlib.suppress(RuntimeError):  # the app is shutting down
            self.app.call_from_thread(callback, *args)

    # -- searching -------------------------------------------------------------------------

    @on(Input.Changed, "#entries-query")
    def _query_changed(self, event: Input.Changed) -> None:
        if event.value != self.query_text:
            self.query_text = event.value
            self._refilter()

    def _refilter(self) -> None:
        self._generation += 1
        infos = self._scope_infos()
        if not self.query_text.strip():
            self.workers.cancel_group(self, "entries-search")
            self._show(self._generation, [], "", done=True)
            return
        if infos is None:  # listed first; searched when that is done
            self._settled = False
            self._update_status("Loading sessions…")
            return
        self._settled = False
        self._search(self._generation, self.query_text, list(infos))

    @work(thread=True, exclusive=True, group="entries-search", exit_on_error=False, description="find entries")
    def _search(self, generation: int, query: str, infos: list[SessionInfo]) -> None:
        from pitui.store.catalog import SearchCancelled
        from pitui.store.query import QueryError

        worker = get_current_worker()
        searcher = self._searcher
        if searcher is None or worker.is_cancelled:
            return

        def cancelled() -> bool:
            tuning.yield_gil()  # the UI thread first, if it waits for the interpreter
            return worker.is_cancelled or generation != self._generation

        try:
            for results in searcher.search(query, infos, limit=self.LIMIT, cancelled=cancelled):
                if cancelled():
                    return
                self._from_thread(self._results, generation, results)
        except SearchCancelled:
            return
        except QueryError as error:
            self._from_thread(self._show, generation, [], str(error), True)
        except Exception as error:  # a damaged cache, a vanished file: say so, keep the app
            self._from_thread(self._show, generation, [], f"Search failed: {error}", True)

    def _results(self, generation: int, results: EntryResults) -> None:
        count = len(results.hits)
        found = f"{count}{'+' if results.more else ''} {'hit' if count == 1 and not results.more else 'hits'}"
        if not results.done:
            found += f" so far · searched {results.searched}/{results.total} sessions…"
        self._show(generation, results.hits, found, results.done or bool(results.hits))

    def _show(self, generation: int, hits: list[EntryHit], status: str, done: bool) -> None:
        if generation != self._generation:
            return
        listing = self.hit_list
        keep = self.hits[listing.highlighted] if self.hits and listing.highlighted is not None else None
        first = self._shown != generation
        self.hits = hits
        now = self.app.now_ms()
        width = max(20, listing.size.width - 3)  # room for the scrollbar, there or not
        listing.clear_options()
        listing.add_options([Option(_hit_text(hit, now, width)) for hit in hits])
        if hits:
            index = 0
            if not first and keep is not None:  # more hits came: the cursor stays on its hit
                index = next((i for i, hit in enumerate(hits) if hit is keep), 0)
            listing.highlighted = index
        self._shown = generation
        self._settled = done
        self._update_status(status)
        self.search_box.flush_keys()

    # -- keys ------------------------------------------------------------------------------

    @property
    def rows_settled(self) -> bool:
        """The hits on screen are those of the text in the search box (the first ones at least)."""
        return self._shown == self._generation and self._settled and self.search_box.value == self.query_text

    def key_waits(self, actions: list[tuple[object, str]]) -> bool:
        """A key that acts on the highlighted hit waits for the hits of the text typed before it."""
        if self.rows_settled or not actions:
            return False
        node, action = actions[0]
        if node is not self or action.split("(")[0] not in self.ROW_ACTIONS:
            return False
        if self.search_box.value != self.query_text:  # its Changed message is still on its way
            self.query_text = self.search_box.value
            self._refilter()
        return not self.rows_settled

    def action_cursor(self, delta: int) -> None:
        listing = self.hit_list
        if not self.hits:
            return
        current = listing.highlighted or 0
        listing.highlighted = max(0, min(len(self.hits) - 1, current + delta))

    def action_open(self) -> None:
        index = self.hit_list.highlighted
        if not self.hits or index is None:
            return
        hit = self.hits[index]
        self.app.open_session(hit.info.path, entry_id=hit.entry_id)

    def action_toggle_scope(self) -> None:
        self.scope = "all" if self.scope == "current" else "current"
        self._update_header()
        if self._scope_infos() is None and self.scope not in self._infos:
            self._load(self.scope)
        self._refilter()

    def action_back(self) -> None:
        self.workers.cancel_group(self, "entries-search")
        self.app.pop_screen()

    # -- text ------------------------------------------------------------------------------

    def _update_header(self) -> None:
        header = Text()
        header.append("Find entries", style="bold")
        header.append(f"  in {SCOPE_TEXT[self.scope]}\n", style="dim")
        header.append("enter", style="bold")
        header.append(" open at the entry · ", style="dim")
        header.append("tab", style="bold")
        header.append(" scope · ", style="dim")
        header.append("esc", style="bold")
        header.append(" back", style="dim")
        self.query_one("#entries-header", Static).update(header)

    def _update_status(self, text: str = "") -> None:
        self.query_one("#entries-status", Static).update(Text(safe_line(text), style="dim"))

    def _say(self, text: str) -> None:
        self._update_status(text)


def _hit_text(hit: EntryHit, now_ms: float, width: int) -> Text:
    """Two lines: the session's title, the entry's role and age; the snippet, matches marked."""
    age = format_age(hit.time, now_ms)
    role = "you" if hit.role == "user" else "assistant"
    head = f"{role} · {age}"
    title = safe_line(" ".join(hit.title.split()))
    room = max(1, width - len(head) - 2)
    if len(title) > room:
        title = title[: room - 1] + "…"
    text = Text()
    text.append(title, style="bold")
    text.append(" " * max(1, width - len(title) - len(head)))
    text.append(head, style="dim")
    text.append("\n  ")
    snippet = safe_line(hit.snippet)
    if len(snippet) > width - 2:
        snippet = snippet[: max(1, width - 3)] + "…"
    line = Text(snippet)
    for start, end in hit.spans:
        if start < len(snippet):
            line.stylize("bold reverse", start, min(end, len(snippet)))
    text.append_text(line)
    return text
