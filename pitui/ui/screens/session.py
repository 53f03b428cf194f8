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
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Footer, Static
from textual.worker import Worker, get_current_worker

from pitui.safe_text import safe_line
from pitui.store.conversation import Item, replaced_items
from pitui.store.digest import branch_digest, branch_transcript, file_lists, format_file_operations
from pitui.store.model import Entry, FileChangedError, NotASessionError
from pitui.store.reader import Session
from pitui.store.stats import PreviewCancelled, PreviewError, SessionPreview, session_preview
from pitui.store.summarize import SummarizerError
from pitui.store.tree.model import TreeModel
from pitui.store.write.actions import ActionError
from pitui.store.write.editing import SessionEditor, Written
from pitui.ui import bindings
from pitui.ui.commands import PaletteCommand, ScreenCommands, session_commands
from pitui.ui.format import fit_middle, format_cost, format_size, format_tokens, plural, shorten_home_folder
from pitui.ui.keys import OrderedKeys
from pitui.ui.screens.base import PituiScreen
from pitui.ui.screens.dialogs import (
    BRANCH_COMMAND,
    BRANCH_WRITE,
    BranchDialog,
    ConfirmDialog,
    LabelDialog,
    SummarizingDialog,
    SummaryEditor,
)
from pitui.ui.screens.session_live import FollowsFile, path_items
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_tree import SessionTree

__all__ = ["SessionScreen"]

T = TypeVar("T")

# Moving the cursor fast (a key held down) shows the path once the cursor rests.
PATH_DELAY = 0.04


class SessionScreen(OrderedKeys, FollowsFile, PituiScreen):
    """One session file, ``session_path`` (the picker refuses to trash a session open here).

    ``entry_id`` is highlighted at start (else the leaf).
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
        self._opening_status = status  # said in the status line once the session is shown
        self.session: Session | None = None
        self.editor: SessionEditor | None = None
        self.stats: SessionPreview | None = None
        self.removed = False
        self._items: OrderedDict[Entry, list[Item]] = OrderedDict()
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
            yield ConversationView(id="conversation")
        yield Static(id="session-status")
        yield Footer()

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
        self.load(self.start_entry)
        if self.app.watch_files:
            self.follow()

    def on_unmount(self) -> None:
        self._stop_following.set()

    # ------------------------------------------------------------------ reading

    def load(self, select: Any = None) -> None:
        """Read the whole file and lay the tree out, off the UI thread (``select`` highlighted)."""
        height = max(self.query_one(SessionTree).size.height, self.app.size.height, 1)
        self._load(select, self._filter_mode(), height)

    @work(thread=True, exclusive=True, group="session-load", exit_on_error=False)
    def _load(self, select: Any, filter_mode: str, height: int) -> None:
        try:
            session = Session.load(self.session_path)
            model = TreeModel(session, selected_id=select, filter_mode=filter_mode)
            # The first screen, ready before it is drawn: the rows around the cursor (the tree
            # scrolls to show it) and the path up to it.
            model.fill_rows(model.cursor - height, model.cursor + height)
        except (OSError, NotASessionError) as error:
            self.app.call_from_thread(self._failed, error)
            return
        items: OrderedDict[Entry, list[Item]] = OrderedDict()
        path: tuple[list[Item], int] | None = None
        with contextlib.suppress(FileChangedError):  # changed already: the pane reads it again
            path = path_items(session, model.selected_id, items)
        self.app.call_from_thread(self._loaded, session, model, items, path)

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
        items: OrderedDict[Entry, list[Item]],
        path: tuple[list[Item], int] | None,
    ) -> None:
        self.session = session
        if self.editor is None:
            self.editor = SessionEditor(session)
        else:  # read again: the undo history stays, it names entries of the same file
            self.editor.session = session
        self._items = items  # a path thread of the session read before keeps its own
        self._shown_id, self._path_shown = object(), False
        if path is not None:
            self._shown_id, self._path_shown = model.selected_id, True
            self._show_items(*path)
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
        # Counting reads the whole file again: only once the first screen is drawn.
        self.call_after_refresh(self.count_usage)

    @work(thread=True, exclusive=True, group="session-usage", exit_on_error=False)
    def count_usage(self) -> None:
        """Tokens, cost and branches of the whole file: a second pass, so it comes after the view."""
        worker = get_current_worker()
        try:
            stats = session_preview(self.session_path, cancelled=lambda: worker.is_cancelled)
        except (PreviewError, PreviewCancelled):
            return
        self.app.call_from_thread(self._counted, stats)

    def _counted(self, stats: SessionPreview) -> None:
        self.stats = stats
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
        if cell_len(f"{name}  {cwd}  {file}{gone}") > width:
            file = "" if name or cwd else file
        if cwd and cell_len(f"{name}  {cwd}{gone}") > width:
            cwd = fit_middle(cwd, max(width - cell_len(gone) - (cell_len(name) + 2 if name else 0), 8))
        title = Text("  ").join(Text(part, style) for part, style in ((name, "bold"), (cwd, ""), (file, "dim")) if part)
        if gone:
            title.append(gone, style="bold red")
        title.truncate(width, overflow="ellipsis")
        self.query_one("#session-title", Static).update(title, layout=False)  # always one line

    def on_resize(self) -> None:
        if self.is_mounted:
            self._show_title()

    def _show_facts(self) -> None:
        session = self.session
        if session is None:
            return
        facts: list[str] = []
        leaf = session.leaf_id
        facts.append(f"leaf {safe_line(str(leaf))[:8]}" if leaf else "no entries yet")
        facts.append(f"{len(session.entries):,} entries")
        stats = self.stats
        if stats is not None:
            facts.append(plural(stats.leaves, "branch", "branches"))
        facts.append(plural(len(session.labels), "label", "labels"))
        if stats is not None:
            facts.append(f"{format_tokens(stats.tokens.total)} tokens")
            facts.append(format_cost(stats.cost))
            facts.append(format_size(stats.size))
        if session.problems:
            facts.append(plural(len(session.problems), "line skipped", "lines skipped"))
        self.query_one("#session-facts", Static).update(Text("  ·  ".join(facts), style="dim"))

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
            self._show_items([], -1)
            return
        if not self._path_running:
            self._path_running = True
            self._make_path(session, entry_id, self._items)

    @work(thread=True, group="session-path", exit_on_error=False)
    def _make_path(self, session: Session, entry_id: Any, cache: OrderedDict[Entry, list[Item]]) -> None:
        path: tuple[list[Item], int] | None = None
        changed = False
        try:
            path = path_items(session, entry_id, cache)
        except FileChangedError:
            changed = True
        finally:
            with contextlib.suppress(RuntimeError):  # the app is shutting down
                self.app.call_from_thread(self._path_made, session, entry_id, path, changed)

    def _path_made(self, session: Session, entry_id: Any, path: tuple[list[Item], int] | None, changed: bool) -> None:
        self._path_running = False
        if session is not self.session:
            return
        if changed:  # the file was rewritten under the view: read it again
            self.action_reload()
        elif entry_id == self._shown_id:
            if path is not None:
                self._show_items(*path)
        elif self._shown_id is not None:  # the cursor moved on meanwhile
            self._path_running = True
            self._make_path(session, self._shown_id, self._items)

    def _show_items(self, items: list[Item], messages: int) -> None:
        """The pane shows ``items``, ``messages`` of them messages (-1: no path at all)."""
        view = self.query_one(ConversationView)
        view.show(items)
        view.border_title = (
            f"Conversation · {messages:,} message{'s' if messages != 1 else ''}" if messages >= 0 else "Conversation"
        )

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

    # ------------------------------------------------------------------ writing

    @on(SessionTree.Selected)
    def _selected(self, event: SessionTree.Selected) -> None:
        """Enter in the tree: branch there."""
        self.branch_here(event.entry_id)

    async def _ask(self, dialog: Any) -> Any:
        """A dialog's answer, from a worker. The tree holds every key until the worker ends:
        those it holds when the dialog opens (typed after Enter) go to the dialog, and those
        that reach it between two dialogs wait for the next one."""
        tree = self.query_one(SessionTree)
        tree.hold_keys()
        answer = self.app.push_screen(dialog, wait_for_dismiss=True)
        tree.flush_keys()
        return await answer

    @work(exclusive=True, group="session-write", exit_on_error=False)
    async def branch_here(self, entry_id: Any) -> None:
        """pi's tree selection: move the leaf here, asking first whether to summarise the branch
        being left (when it leaves something behind). Cancelling at any step writes nothing."""
        try:
            await self._branch_here(entry_id)
        finally:
            self.query_one(SessionTree).release_keys()

    async def _branch_here(self, entry_id: Any) -> None:
        editor = self._editor_for_writing()
        if editor is None:
            return
        try:
            plan = editor.plan_branch(entry_id)
        except (ActionError, FileChangedError, OSError) as error:
            self._write_failed(error)
            return
        if plan.already_there:
            self._say("Already at this point: nothing written")
            return
        summary: str | None = None
        if plan.abandoned:
            config = self.app.config
            command = config.summarizer_command
            while True:
                destination = (
                    self._describe(plan.new_leaf) if plan.new_leaf is not None else "the start (an empty conversation)"
                )
                choice = await self._ask(
                    BranchDialog(destination, _left_behind(plan.abandoned), " ".join(command) if command else None)
                )
                if choice is None:
                    self._say("Branch cancelled: nothing written")
                    return
                if choice == BRANCH_WRITE:
                    digest = await asyncio.to_thread(branch_digest, plan.abandoned)
                    summary = await self._ask(SummaryEditor(digest))
                    if summary is None:
                        continue  # back to the question
                elif choice == BRANCH_COMMAND and command:
                    transcript = await asyncio.to_thread(branch_transcript, plan.abandoned)
                    outcome = await self._ask(
                        SummarizingDialog(
                            command, transcript, config.summarizer_timeout, self.session.cwd if self.session else None
                        )
                    )
                    if outcome is None:
                        self._say("Summarization cancelled: nothing written")
                        return
                    if isinstance(outcome, SummarizerError):
                        self._say(f"No summary: {outcome}. Nothing written", error=True)
                        return
                    # As pi's own summaries end: the files the branch read and changed.
                    summary = outcome + format_file_operations(file_lists(plan.abandoned))
                break

        def branched(written: Written) -> None:
            self._show_written(written)
            if written.prompt_text:
                self.app.copy_to_clipboard(written.prompt_text)
                self._say(f"{written.message} · the message is copied to the clipboard, to ask again in pi")

        await self._write(lambda: editor.branch(entry_id, summary), branched).wait()

    def action_edit_label(self) -> None:
        editor = self._editor_for_writing()
        entry_id = self.query_one(SessionTree).selected_id
        if editor is None or entry_id is None:
            return
        current = editor.session.labels.get(entry_id)

        def chosen(label: str | None) -> None:
            if label is not None:
                self._write(lambda: editor.label(entry_id, label), self._show_written)
            else:
                self._say("Label unchanged: nothing written")

        tree = self.query_one(SessionTree)
        self.app.push_screen(
            LabelDialog(
                current if isinstance(current, str) else "", self._describe(entry_id), beside=tree.cursor_region()
            ),
            chosen,
        )

    def action_rename(self) -> None:
        from pitui.ui.screens.dialogs import RenameScreen

        editor = self._editor_for_writing()
        if editor is None:
            return

        def chosen(name: str | None) -> None:
            if name is not None:
                self._write(lambda: editor.rename(name), self._show_written)

        self.app.push_screen(RenameScreen(editor.session.name or "", "enter save · escape cancel"), chosen)

    def action_undo(self) -> None:
        editor = self._editor_for_writing()
        if editor is not None:
            self._write(editor.undo, self._show_written)

    def action_fork(self) -> None:
        entry_id = self.query_one(SessionTree).selected_id
        if entry_id is not None:
            self._copy_asked(entry_id)

    def action_clone(self) -> None:
        self._copy_asked(None)

    def _copy_asked(self, entry_id: Any) -> None:
        """Fork (from ``entry_id``) or clone (None), once the user agreed to the new file."""
        editor = self._editor_for_writing()
        if editor is None:
            return
        try:
            plan = editor.copy_plan(entry_id)
        except (ActionError, OSError) as error:
            self._write_failed(error)
            return
        fork = entry_id is not None
        what = f"the path from the first entry to {self._describe(plan.end)}" if fork else "the whole active path"
        # The folder on a line of its own, its middle elided to fit the dialog (never wrapped).
        folder = fit_middle(
            shorten_home_folder(os.path.dirname(self.session_path), os.path.expanduser("~")),
            max(min(self.size.width, 80) - 12, 20),
        )
        question = (
            f"Writes a new session file, in the same folder as this one:\n{folder}"
            f"\nwith {what} ({plan.entries} {'entry' if plan.entries == 1 else 'entries'})."
            "\nThis session is not changed."
        )
        if plan.prompt_text:
            question += "\nThe highlighted message is left out and copied, to ask again."

        def chosen(sure: bool | None) -> None:
            if sure:
                self._copy(editor, entry_id)
            else:
                self._say("Not forked: nothing written" if fork else "Not cloned: nothing written")

        title = "Fork a new session?" if fork else "Clone this session?"
        self.app.push_screen(ConfirmDialog(title, question), chosen)

    def _copy(self, editor: SessionEditor, entry_id: Any) -> None:
        def copy() -> tuple[str, str | None, str]:
            if entry_id is not None:
                forked = editor.fork(entry_id)
                return forked.path, forked.prompt_text, "Forked"
            return editor.clone(), None, "Cloned"

        def copied(made: tuple[str, str | None, str]) -> None:
            path, prompt, verb = made
            self._opened_copy(path, f"{verb} into {os.path.basename(path)}", prompt)

        self._write(copy, copied)

    def _opened_copy(self, path: str, message: str, prompt_text: str | None) -> None:
        self._say(message)
        if prompt_text:
            self.app.copy_to_clipboard(prompt_text)
            message += " · the message forked before is copied to the clipboard"
        self.app.open_session(path, status=f"{message} · escape goes back")

    def action_trash(self) -> None:
        name = self.session.name if self.session else None
        about = f"{name}\n{self.session_path}" if name else self.session_path

        def chosen(sure: bool | None) -> None:
            if not sure:
                self._say("Not moved to the trash")
                return
            from pitui.store.write.actions import trash

            def trashed(_: None) -> None:
                self._stop_following.set()
                self.app.back_to_picker(f"{os.path.basename(self.session_path)} moved to the trash")

            self._write(lambda: trash(self.session_path), trashed)

        self.app.push_screen(
            ConfirmDialog("Move this session to the trash?", f"{about}\n\nIt can be restored from the system trash."),
            chosen,
        )

    def action_resume(self) -> None:
        self.app.resume_in_pi(self.session_path, self.session.cwd if self.session else None)

    def _editor_for_writing(self) -> SessionEditor | None:
        if self.editor is None:
            return None
        if self.removed:
            self._say("The session file is gone: nothing can be written to it", error=True)
            return None
        return self.editor

    def _write(self, action: Callable[[], T], done: Callable[[T], None]) -> Worker[None]:
        """Run one write in a thread, then ``done`` with what it returned (on the UI thread);
        a write refused or failed is said instead. Keys typed meanwhile wait in the tree and
        act once ``done`` has shown the write, in the order they were typed."""
        self.query_one(SessionTree).hold_keys()
        self._writes += 1
        return self._write_in_thread(action, done)

    @work(thread=True, group="session-write", exclusive=False)
    def _write_in_thread(self, action: Callable[[], T], done: Callable[[T], None]) -> None:
        # os.write and fsync (a slow disk, a network folder) must not stop the UI.
        result: Any = None
        error: Exception | None = None
        ok = False
        try:
            with self._disk_lock:  # not while what pi appended is read
                result = action()
            ok = True
        except (ActionError, FileChangedError, OSError) as caught:
            error = caught
        finally:  # also after an unexpected error (which ends the app): the keys are let go
            with contextlib.suppress(RuntimeError):  # the app is shutting down
                self.app.call_from_thread(self._write_finished, done, ok, result, error)

    def _write_finished(self, done: Callable[[Any], None], ok: bool, result: Any, error: Exception | None) -> None:
        self._writes -= 1
        try:
            if ok:
                done(result)
            elif error is not None:
                self._write_failed(error)
        finally:
            self.query_one(SessionTree).release_keys()
            if not self._writes and self._appends_waiting:
                self._appends_waiting = False
                self.take_appends()

    def _show_written(self, written: Written) -> None:
        """Show a write at once in the tree, the pane and the status line."""
        session = self.session
        tree = self.query_one(SessionTree)
        if session is not None and session.source is None:
            # An old-format file was rewritten whole: its offsets are gone, read it afresh.
            self.load(written.show_id)
        else:
            tree.reload()
            if written.show_id is not None:
                tree.select(written.show_id)
            else:
                tree.action_leaf()
        self._show_title()
        self._show_facts()
        self._count_usage_soon()
        self._say(written.message, error=written.entry_id is None and "nothing written" not in written.message)

    def _write_failed(self, error: Exception) -> None:
        if isinstance(error, FileChangedError):
            message = "The file was replaced on disk, so it was read again. Nothing was written: try again."
            self.load(self.query_one(SessionTree).selected_id)
        elif isinstance(error, OSError):
            reason = error.strerror or str(error)
            message = f"Cannot write to the session ({reason}). Nothing was written."
        else:
            message = str(error)
        self._say(message, error=True)

    def _say(self, message: str, *, error: bool = False) -> None:
        """The status line under the panes: what the last action wrote, or why it wrote nothing."""
        status = self.query_one("#session-status", Static)
        status.update(Text(safe_line(message), style="bold red" if error else ""))

    def _describe(self, entry_id: Any) -> str:
        """An entry as its tree row shows it, for the dialogs."""
        model = self.query_one(SessionTree).model
        text = model.entry_text(entry_id) if model is not None else ""
        return f"{str(entry_id)[:8]}  {text}".rstrip()

    def palette_commands(self) -> list[PaletteCommand]:
        """The view's actions in the command palette (F2)."""
        if self.session is None:
            return []
        tree = self.query_one(SessionTree)
        return session_commands(
            self, tree, self.query_one(ConversationView), lambda: self.branch_here(tree.selected_id)
        )

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.leave_session()

    def action_reload(self) -> None:
        self.load(self.query_one(SessionTree).selected_id)


def _left_behind(entries: list[Entry]) -> str:
    prompts = sum(1 for e in entries if e.type == "message" and e.role == "user")
    text = plural(len(entries), "entry", "entries")
    return f"{text} ({plural(prompts, 'prompt', 'prompts')})" if prompts else text
