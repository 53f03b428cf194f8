"""The session view: one session's tree beside the conversation up to the highlighted entry.

Data flow: a thread reads the file (:class:`~pitui.store.reader.Session`) and lays out the
tree (:class:`~pitui.store.tree.model.TreeModel`); the screen hands both widgets plain data.
Moving in the tree shows the path up to the highlighted entry as the model sees it. While pi
writes the file, the screen reads what was appended and the tree follows the leaf.

The UI thread never waits for the disk: message bodies (the tree's rows, the path's messages)
are read in worker threads, the first screen of both while the session is read; what pi appended
is read in a thread too, never at the same time as a write (``_disk_lock``), and keys typed
meanwhile wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import OrderedDict
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from pitui.safe_text import safe_line
from pitui.store import tuning
from pitui.store.context_size import format_tokens as context_tokens_text
from pitui.store.conversation import replaced_items
from pitui.store.model import FileChangedError, NotASessionError, ReadCancelled
from pitui.store.pane import PaneItem, model_sees
from pitui.store.reader import Session
from pitui.store.session_cwd import missing_cwds
from pitui.store.session_index import IndexCache
from pitui.store.stats import SessionFacts, session_facts
from pitui.store.tree.model import TreeModel
from pitui.store.write.editing import SessionEditor
from pitui.ui import bindings
from pitui.ui.commands import PaletteCommand, ScreenCommands, session_commands
from pitui.ui.format import fit_middle, format_cost, format_size, format_tokens, plural, shorten_home_folder
from pitui.ui.keys import OrderedKeys
from pitui.ui.screens.base import PituiScreen
from pitui.ui.screens.session_compare import ComparesSession
from pitui.ui.screens.session_context import ContextSession
from pitui.ui.screens.session_live import FollowsFile, PathShown, path_items
from pitui.ui.screens.session_writes import WritesSession
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.footer import KeysFooter
from pitui.ui.widgets.session_tree import SessionTree
from pitui.ui.workers import work

__all__ = ["SessionScreen"]


# Moving the cursor fast (a key held down) shows the path once the cursor rests.
PATH_DELAY = 0.04


class SessionScreen(OrderedKeys, ComparesSession, ContextSession, WritesSession, FollowsFile, PituiScreen):
    """One session file, ``session_path`` (the picker refuses to trash a session open here).

    ``entry_id`` is highlighted at start (else the leaf), and the pane first shows its path with
    that entry at the top (where a search hit's text is), not the end.
    """

    BINDING_GROUP_TITLE = "Session view"
    COMMANDS: ClassVar = {ScreenCommands}
    # Text typed here goes into the tree's search, all of it but pi's own Shift+L and Shift+T:
    # every other key of the view is one that cannot be typed as text.
    BINDINGS: ClassVar[list[BindingType]] = bindings.SESSION

    def __init__(self, path: str, entry_id: str | None = None, status: str | None = None) -> None:
        super().__init__()
        self.session_path = path
        self.start_entry = entry_id
        self._anchor_once: Any = entry_id  # the first path shown for it starts at it
        self._opening_status = status  # said in the status line once the session is shown
        self.session: Session | None = None
        self.editor: SessionEditor | None = None
        self.stats: SessionFacts | None = None
        self.removed = False
        self._items: OrderedDict[Any, list[PaneItem]] = OrderedDict()
        self._path: PathShown = PathShown([], -1)  # what the pane shows, in full
        self.model_view = False  # the pane shows what the model sees, not everything on the path
        self._shown_id: Any = object()
        self._path_shown = False
        self._path_timer: Timer | None = None
        self._usage_timer: Timer | None = None
        self._stop_following = asyncio.Event()
        self._writes = 0  # writes running in a thread
        self._init_following()
        self._path_running = False  # a thread makes the path's items (one at a time)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="session-title")
        yield Static(id="session-facts")
        with Horizontal(id="session-panes"):
            with Vertical(id="tree-pane"):
                tree = SessionTree(id="tree")
                tree.hold_after_select = True  # branch_here releases the keys typed after Enter
                yield tree
                yield Static(id="tree-status")
            # In a container of its own, so that a frame changing the tree alone does not render
            # the conversation too: Textual's compositor renders every widget whose clip (its
            # container's region) overlaps the change.
            with Vertical(id="conversation-pane"):
                yield ConversationView(id="conversation")
        yield Static(id="session-status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#tree-pane").border_title = "Tree"
        self.query_one("#conversation").border_title = "Conversation"
        self._show_title()
        # Focused at once (not covered by a loading indicator, which would refuse the focus): keys
        # typed while the session is read wait in the tree for its rows.
        tree = self.query_one(SessionTree)
        tree.waiting_for_rows = True
        tree.focus()
        self.query_one("#tree-status", Static).update(Text("Reading the session…", style="dim"))
        self.query_one(ConversationView).empty_text = ""  # no path yet: not "no messages"
        self.call_after_refresh(self.load, self.start_entry)
        if self.app.watch_files:
            self.follow()

    def on_unmount(self) -> None:
        self._stop_following.set()
        tuning.thaw_heap()  # the session goes: what was frozen with it can be collected

    # ------------------------------------------------------------------ reading

    def load(self, select: Any = None) -> None:
        """Read the whole file and lay the tree out, off the UI thread (``select`` highlighted)."""
        height = max(self.query_one(SessionTree).size.height, self.app.size.height, 1)
        self._load(select, self._filter_mode(), height, self.app.session_index)

    @work(thread=True, exclusive=True, group="session-load", exit_on_error=False)
    def _load(self, select: Any, filter_mode: str, height: int, index: IndexCache) -> None:
        # The cyclic collector paused while the file becomes entries (they make no cycles): at
        # 100,000 entries it would otherwise walk them again and again, a third of the read.
        # Then they are kept out of its walks (the session read before, if any, given back).
        tuning.thaw_heap()
        with tuning.gc_paused():
            try:
                shown = self._read(select, filter_mode, height, index)
            except ReadCancelled:  # the view is gone (the app is quitting): nothing to show
                return
            except (OSError, NotASessionError) as error:
                self.app.call_from_thread(self._failed, error)
                return
            tuning.freeze_heap()
        self.app.call_from_thread(self._loaded, *shown)
        # After the first screen: the tokens, cost and branches (not once the view is gone or
        # the app is ending, whose end would wait for them: a second at 1 GB), then the index of
        # a session read whole (written even then: it is what makes the next open quick).
        if not self.app.ending and not get_current_worker().is_cancelled:
            self._count(shown[0])
        index.write_pending()

    def _read(
        self, select: Any, filter_mode: str, height: int, index: IndexCache
    ) -> tuple[Session, TreeModel, OrderedDict[Any, list[PaneItem]], PathShown | None]:
        """The session, its tree laid out and the path to the cursor: the first screen."""
        # A big file is read in blocks, and given up between two of them once the view is gone
        # (the app quitting would otherwise wait for the whole read: seconds at 1 GB).
        worker = get_current_worker()
        session = Session.load(self.session_path, index=index, cancelled=lambda: worker.is_cancelled)
        if worker.is_cancelled:  # (the tree's layout is seconds more at 1,000,000 entries)
            raise ReadCancelled(f"{self.session_path}: no longer shown")
        model = TreeModel(session, selected_id=select, filter_mode=filter_mode)
        if select is not None and model.selected_id != select:
            # Asked for an entry the filter hides (an assistant reply under "user only"):
            # the first filter that shows it, so the cursor is on it, not near it.
            for mode in ("default", "all"):
                model.set_filter(mode)
                model.select(select)
                if model.selected_id == select:
                    break
        # The first screen, ready before it is drawn: the rows around the cursor (the tree
        # scrolls to show it) and the path up to it.
        model.fill_rows(model.cursor - height, model.cursor + height)
        items: OrderedDict[Any, list[PaneItem]] = OrderedDict()
        path: PathShown | None = None
        with contextlib.suppress(FileChangedError):  # changed already: the pane reads it again
            path = path_items(session, model.selected_id, items)
        return session, model, items, path

    def _filter_mode(self) -> str:
        """The filter the tree shows now, or the configured one at first."""
        tree_model = self.query_one(SessionTree).model
        return tree_model.filter_mode if tree_model is not None else self.app.config.tree_filter

    def _failed(self, error: Exception) -> None:
        tree = self.query_one(SessionTree)
        tree.waiting_for_rows = False
        tree.flush_keys()  # what was typed while it was read: there are no rows to act on
        self.query_one("#tree-status", Static).update("")
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        self.query_one("#session-facts", Static).update(
            Text(safe_line(f"Cannot read this session: {reason}"), style="bold red")
        )

    def _loaded(
        self,
        session: Session,
        model: TreeModel,
        items: OrderedDict[Any, list[PaneItem]],
        path: PathShown | None,
    ) -> None:
        self.session = session
        if self.editor is None:
            self.editor = SessionEditor(session)
        else:  # read again: the undo history stays, it names entries of the same file
            self.editor.session = session
        self._items = items  # a path thread of the session read before keeps its own
        view = self.query_one(ConversationView)
        view.empty_text = ConversationView.EMPTY
        view.refresh()
        self._shown_id, self._path_shown = object(), False
        if path is not None:
            self._shown_id, self._path_shown = model.selected_id, True
            self._show_items(path, self._start_anchor(model.selected_id))
        tree = self.query_one(SessionTree)
        tree.waiting_for_rows = False
        tree.model = model
        tree.focus()
        self._show_title()
        self._show_facts()
        if session.problems:
            count = len(session.problems)
            first = session.problems[0]
            self._say(
                f"{count} unreadable line{'s' if count != 1 else ''} skipped; line {first.line}: {first.reason}",
                error=True,
            )
        elif self._opening_status:
            self._say(self._opening_status)
        self._opening_status = None

    @work(thread=True, exclusive=True, group="session-usage", exit_on_error=False)
    def count_usage(self) -> None:
        """Tokens, cost and branches again, once the session changed (appended to, written)."""
        if self.session is not None:
            self._count(self.session)

    def _count(self, session: Session) -> None:
        """Count the facts of ``session`` (from a thread) and show them, if it is still the one shown."""
        try:
            with tuning.gc_paused():
                facts = session_facts(session)
        except OSError:  # gone or replaced: the file's follower says so
            return
        with contextlib.suppress(RuntimeError):  # the app is shutting down
            self.app.call_from_thread(self._counted, session, facts)

    def _counted(self, session: Session, facts: SessionFacts) -> None:
        if session is self.session:
            self.stats = facts
            self._show_facts()

    # ------------------------------------------------------------------ header

    def _show_title(self) -> None:
        """One line: the name, the project folder and the file (its name: the folder only
        repeats the project's path). Where that is too wide, the file goes first, then the
        middle of the folder."""
        session = self.session
        width = max(self.size.width - 2, 20)
        name = safe_line(session.name) if session is not None and session.name else ""
        home = os.path.expanduser("~")
        cwd = safe_line(shorten_home_folder(session.cwd, home)) if session is not None and session.cwd else ""
        file = safe_line(os.path.basename(self.session_path))
        gone = "  (file removed)" if self.removed else ""
        folder_gone = bool(cwd) and session is not None and bool(missing_cwds([session.cwd]))
        cwd = f"✗ {cwd} (folder gone)" if folder_gone else cwd
        if cell_len(f"{name}  {cwd}  {file}{gone}") > width:
            file = "" if name or cwd else file
        if cwd and cell_len(f"{name}  {cwd}{gone}") > width:
            cwd = fit_middle(cwd, max(width - cell_len(gone) - (cell_len(name) + 2 if name else 0), 8))
        title = Text("  ").join(
            Text(part, style)
            for part, style in ((name, "bold"), (cwd, "red" if folder_gone else ""), (file, "dim"))
            if part
        )
        if gone:
            title.append(gone, style="bold red")
        title.truncate(width, overflow="ellipsis")
        self.query_one("#session-title", Static).update(title, layout=False)  # always one line

    def on_resize(self) -> None:
        if self.is_mounted:
            self._show_title()
            self._show_facts()

    def _show_facts(self) -> None:
        """One line of facts; where it is too wide, the separators narrow, then the facts that
        matter least go first (the size, the labels, the branches, the entries, the leaf)."""
        session = self.session
        if session is None:
            return
        stats = self.stats
        leaf = session.leaf_id
        facts: list[tuple[int, str]] = [  # (rank: the higher, the longer it stays; fact)
            (2, f"leaf {safe_line(str(leaf))[:8]}" if leaf else "no entries yet"),
            (3, f"{len(session.entries):,} entries"),
        ]
        if stats is not None:
            facts.append((4, plural(stats.leaves, "branch", "branches")))
        facts.append((5, plural(len(session.labels), "label", "labels")))
        if stats is not None:
            facts += [(8, f"{format_tokens(stats.tokens)} tokens"), (7, format_cost(stats.cost))]
            facts.append((1, format_size(stats.size)))
        if session.problems:
            facts.append((9, plural(len(session.problems), "line skipped", "lines skipped")))
        width = max(self.size.width - 2, 20)
        line = "  ·  ".join(fact for _, fact in facts)
        while cell_len(line) > width:
            line = " · ".join(fact for _, fact in facts)
            if cell_len(line) <= width or len(facts) == 1:
                break
            facts.remove(min(facts))
        self.query_one("#session-facts", Static).update(Text(line, style="dim", no_wrap=True, overflow="ellipsis"))

    @on(SessionTree.StatusChanged)
    def _status_changed(self, event: SessionTree.StatusChanged) -> None:
        status = Text(event.status, style="dim")
        if event.query:
            status.append("  search: ", style="dim")
            status.append(event.query, style="bold")
        elif event.session_tree.model is not None and len(event.session_tree.model):
            status.append("  type to search", style="dim")
        # One line, always: a cursor step must not cost a new layout of the screen.
        self.query_one("#tree-status", Static).update(status, layout=False)

    # ------------------------------------------------------------------ the conversation pane

    @on(SessionTree.Highlighted)
    def _highlighted(self, event: SessionTree.Highlighted) -> None:
        if self._path_timer is not None:
            self._path_timer.stop()
        if not self._path_shown:  # the first path shows at once
            self._show_path(event.entry_id)
            return
        self._path_timer = self.set_timer(PATH_DELAY, lambda: self._show_path(event.entry_id))

    def _show_path(self, entry_id: Any) -> None:
        """Show the path up to ``entry_id``: its items are made in a thread (they are the
        messages' bodies), one path at a time, the latest asked for next."""
        session = self.session
        if session is None or entry_id == self._shown_id:
            return
        self._shown_id = entry_id
        self._path_shown = True
        if entry_id is None:
            self._show_items(PathShown([], -1))
            return
        if not self._path_running:
            self._path_running = True
            self._make_path(session, entry_id, self._items)

    @work(thread=True, group="session-path", exit_on_error=False)
    def _make_path(self, session: Session, entry_id: Any, cache: OrderedDict[Any, list[PaneItem]]) -> None:
        path: PathShown | None = None
        changed = False
        try:
            path = path_items(session, entry_id, cache)
        except FileChangedError:
            changed = True
        finally:
            with contextlib.suppress(RuntimeError):  # the app is shutting down
                self.app.call_from_thread(self._path_made, session, entry_id, path, changed)

    def _path_made(self, session: Session, entry_id: Any, path: PathShown | None, changed: bool) -> None:
        self._path_running = False
        if session is not self.session:
            return
        if changed:  # the file was rewritten under the view: read it again
            self.action_reload()
        elif entry_id == self._shown_id:
            if path is not None:
                self._show_items(path, self._start_anchor(entry_id))
        elif self._shown_id is not None:  # the cursor moved on meanwhile
            self._path_running = True
            self._make_path(session, self._shown_id, self._items)

    def _start_anchor(self, entry_id: Any) -> Any:
        """The entry to put at the pane's top: the one the view was opened at, the first time
        its path is shown (later paths end at the cursor, as always)."""
        anchor, self._anchor_once = (entry_id if entry_id == self._anchor_once else None), None
        return anchor

    def _show_items(self, path: PathShown, anchor: Any = None) -> None:
        """The pane shows ``path``: everything on it, or what the model sees (``model_view``);
        its border says which, how many messages, and the context size at the entry. With
        ``anchor``, that entry's first message is at the top, else the end."""
        self._path = path
        view = self.query_one(ConversationView)
        items = model_sees(path.items) if self.model_view else path.items
        view.show(items, anchor_entry_id=anchor)
        which = "As the model sees it" if self.model_view else "Everything on the path"
        messages = sum(1 for item in items if item.entry_id is not None)
        if path.messages < 0:
            view.border_title = "Conversation"
            view.border_subtitle = ""
            return
        view.border_title = f"{which} · {messages:,} message{'s' if messages != 1 else ''}"
        view.border_subtitle = _context_text(path.tokens, path.window)

    def action_context_view(self) -> None:
        """Ctrl+S: the pane shows what the model sees, or everything on the path."""
        self.model_view = not self.model_view
        if self._path.messages >= 0:
            self._show_items(self._path)
        self._say("The pane shows " + ("what the model sees" if self.model_view else "everything on the path"))

    @on(ConversationView.ReplacedRequested)
    def _replaced_requested(self, event: ConversationView.ReplacedRequested) -> None:
        if self.session is not None:
            self._make_replaced(self.session, event.view, event.entry_id)

    @work(thread=True, group="session-path", exit_on_error=False)
    def _make_replaced(self, session: Session, view: ConversationView, entry_id: Any) -> None:
        """What a compaction replaced: the bodies are read here, then shown in the pane."""
        try:
            items = replaced_items(session, entry_id)
        except FileChangedError:  # rewritten under the view: read it again
            with contextlib.suppress(RuntimeError):
                self.app.call_from_thread(self.action_reload)
            return
        with contextlib.suppress(RuntimeError):
            self.app.call_from_thread(view.set_replaced, entry_id, items)

    # ------------------------------------------------------------------ writing (session_writes)

    # Handlers of the mixin's messages live here: Textual collects ``@on`` only from its own
    # classes.
    @on(SessionTree.Selected)
    def _selected(self, event: SessionTree.Selected) -> None:
        """Enter in the tree: branch there."""
        self.branch_here(event.entry_id, at_leaf=event.at_leaf)

    @on(SessionTree.Copied)
    def _copied(self, event: SessionTree.Copied) -> None:
        """Ctrl+X in the tree: pi's words for what it did."""
        if event.text is None:
            self._say("Selected entry has no text to copy", error=True)
        else:
            self._say("Copied selected message to clipboard")

    def palette_commands(self) -> list[PaletteCommand]:
        """The view's actions in the command palette (F2)."""
        if self.session is None:
            return []
        tree = self.query_one(SessionTree)
        return session_commands(
            self,
            tree,
            self.query_one(ConversationView),
            lambda: self.branch_here(tree.selected_id, at_leaf=tree.at_leaf),
        )

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        if self.clear_compare_mark():  # Escape clears a comparison's mark first
            self._say("Mark cleared")
            return
        self.app.leave_session()

    def action_reload(self) -> None:
        self.load(self.query_one(SessionTree).selected_id)


def _context_text(tokens: float | None, window: float | None) -> str:
    """The context size at the entry, as pi's footer writes it: ``12k/200k (6.0%)``, ``?/200k``
    after a compaction, the size alone when the model's window is not known."""
    size = "?" if tokens is None else context_tokens_text(tokens)
    if not window:
        return f"context {size}"
    percent = "" if tokens is None else f" ({tokens / window * 100:.1f}%)"
    return f"context {size}/{context_tokens_text(window)}{percent}"
