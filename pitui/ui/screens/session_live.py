"""The session view's reading that is not the whole file: the conversation path's items and
what pi appends, both off the UI thread.

:func:`path_items` makes the conversation pane's items (it reads the path's message bodies: a
worker thread's work). :class:`FollowsFile` is the part of
:class:`~pitui.ui.screens.session.SessionScreen` that follows the file while pi writes it: what
was appended is read in a thread, never at the same time as a write (the screen's
``_disk_lock``, which its writes hold too), and keys typed meanwhile wait for the new rows.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple

from textual.timer import Timer

from pitui.store.context import project
from pitui.store.context_size import context_tokens
from pitui.store.conversation import OtherMessage, TextPart
from pitui.store.model import Entry, FileChangedError
from pitui.store.model_windows import context_window
from pitui.store.pane import PaneItem, item_key, projected_items
from pitui.store.reader import Session
from pitui.store.system_prompt import path_system_prompt
from pitui.store.tree.model import TreeModel
from pitui.ui.widgets.session_tree import SessionTree
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.ui.screens.base import PituiScreen

    _Base = PituiScreen
else:
    _Base = object

__all__ = ["ITEM_CACHE_ENTRIES", "PATH_WINDOW", "USAGE_DELAY", "FollowsFile", "PathShown", "path_items"]

# A path longer than this shows its last entries only: a 100,000-entry session must open at
# once, and older messages are one tree move away.
PATH_WINDOW = 500
# Items decoded per entry, kept so that moving along a path decodes only what is new.
ITEM_CACHE_ENTRIES = 20_000
# After pi wrote to the session, the header's usage is counted again once it pauses this long.
USAGE_DELAY = 1.0


class FollowsFile(_Base):
    """Following the session file: a mixin of the session view, which provides the rest."""

    session: Session | None
    session_path: str
    removed: bool
    _writes: int
    _usage_timer: Timer | None
    _stop_following: Any

    def _init_following(self) -> None:
        self._appends_waiting = False  # pi appended during a write: read it once it is done
        self._appends_reading = False  # a thread reads what pi appended
        self._disk_lock = threading.Lock()  # a write and a read of appends, one after the other

    if TYPE_CHECKING:

        def load(self, select: Any = None) -> None: ...

        count_usage: Any  # a worker

        def _show_title(self) -> None: ...
        def _show_facts(self) -> None: ...
        def _say(self, message: str, *, error: bool = False) -> None: ...

    @work(exclusive=True, group="session-follow", exit_on_error=False)
    async def follow(self) -> None:
        from pitui.store.watch import FileEvent, follow_file

        async for event in follow_file(self.session_path, self._stop_following):
            if event is FileEvent.REMOVED:
                self._file_removed()
            else:
                self.take_appends()

    def _file_removed(self) -> None:
        if not self.removed:
            self.removed = True
            self._show_title()
            self._say(
                "The session file was removed (moved to the trash?). What is shown stays until you leave.", error=True
            )

    def take_appends(self) -> None:
        """Read what pi appended since the last read, in a thread; the tree follows the leaf
        if it was there. Keys typed meanwhile wait for the new rows."""
        session = self.session
        if session is None:
            return
        if self._writes or self._appends_reading:  # the session is being written to or read
            self._appends_waiting = True  # from a thread: read after it
            return
        self._appends_reading = True
        tree = self.query_one(SessionTree)
        tree.reading_appends = True
        self._read_appends(session, tree.model, self.removed)

    @work(thread=True, group="session-write", exit_on_error=False)
    def _read_appends(self, session: Session, model: TreeModel | None, removed: bool) -> None:
        # stat and pread (a slow disk, a network folder) must not stop the UI.
        back = removed and os.path.exists(self.session_path)
        added = 0
        error: Exception | None = None
        try:
            with self._disk_lock:  # not while a write runs
                before = len(session.entries)
                added = session.refresh()
            if added and model is not None and model.session is session:
                model.prefill_appended(before)  # their rows show at once, with their text
        except OSError as caught:  # FileChangedError too
            error = caught
        finally:
            with contextlib.suppress(RuntimeError):  # the app is shutting down
                self.app.call_from_thread(self._appends_read, session, added, error, back)

    def _appends_read(self, session: Session, added: int, error: Exception | None, back: bool) -> None:
        self._appends_reading = False
        tree = self.query_one(SessionTree)
        tree.reading_appends = False
        try:
            if session is not self.session:
                return  # read again meanwhile
            if back and self.removed:
                self.removed = False
                self._show_title()
            if isinstance(error, FileChangedError):
                self.load(tree.selected_id)  # replaced or cut: read it again
            elif error is not None:
                self._file_removed()
            elif added:
                tree.reload()
                self._show_facts()
                self._count_usage_soon()
        finally:
            tree.flush_keys()
            if self._appends_waiting and not self._writes:
                self._appends_waiting = False
                self.take_appends()

    def _count_usage_soon(self) -> None:
        # Usage is counted over the whole file: once writing pauses, not after every line.
        if self._usage_timer is not None:
            self._usage_timer.stop()
        self._usage_timer = self.set_timer(USAGE_DELAY, self.count_usage)


class PathShown(NamedTuple):
    """The pane's items for a path (every entry on it, omitted ones marked), how many are
    messages (-1: no path), and the context size at its end (None: pi's "?"), with the model's
    window when known."""

    items: list[PaneItem]
    messages: int
    tokens: float | None = 0
    window: float | None = None


def path_items(session: Session, entry_id: Any, cache: OrderedDict[Any, list[PaneItem]]) -> PathShown:
    """The conversation pane's items for the path up to ``entry_id`` (pi's projection, what it
    no longer sends kept in place and marked), and the context size there: it reads the bodies
    (a thread's work). ``cache`` keeps each entry's items by entry and the edit in force on it
    (an edit appended later changes how an earlier entry shows), so that moving along a path
    decodes only what is new; one thread at a time may use it."""
    if entry_id is None:
        return PathShown([], -1)
    entries = session.context_entries(entry_id)
    items: list[PaneItem] = []
    hidden = len(entries) - PATH_WINDOW
    head: list[Entry] = []
    if hidden > 0:
        # The context's first entry is a compaction when there is one: keep it in view.
        head = entries[:1] if entries[0].type == "compaction" else []
        start = len(entries) - PATH_WINDOW
        # The edits before the window still apply to it; they give no items of their own.
        earlier = [e for e in entries[len(head) : start] if e.type == "context_edit"]
        hidden -= len(head)
        entries = head + earlier + entries[start:]
        items.append(
            OtherMessage(
                None,
                "earlier",
                (
                    TextPart(
                        f"{hidden:,} earlier entries on this path are not shown here: highlight an earlier "
                        "entry in the tree to read them."
                    ),
                ),
            )
        )
    changes = {c.entry_id: c for c in path_system_prompt(session, entry_id).changes}
    first_system = next((c.entry_id for c in changes.values() if c.first), None)
    for projected in project(entries):
        if projected.entry.type == "context_edit":
            continue
        key = item_key(projected, first_system)
        made = cache.get(key)
        if made is None:
            made = cache[key] = projected_items(session, projected, changes.get(projected.entry.id))
            if len(cache) > ITEM_CACHE_ENTRIES:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        items.extend(made)
    tokens = context_tokens(session, entry_id)
    _, model = session.context_settings(entry_id)
    window = context_window(model.get("provider"), model.get("modelId")) if model else None
    return PathShown(items, sum(1 for item in items if item.entry_id is not None), tokens, window)
