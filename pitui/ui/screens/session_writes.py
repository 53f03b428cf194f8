"""The session view's writes: branching (with or without a summary), labels, the name, undo,
fork, clone and the trash, each run in a thread while the keys typed meanwhile wait.

:class:`WritesSession` is the part of :class:`~pitui.ui.screens.session.SessionScreen` that
writes; every write goes through :class:`~pitui.store.write.editing.SessionEditor`, one at a
time, never while what pi appended is read (the screen's ``_disk_lock``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual.widgets import Static
from textual.worker import Worker

from pitui.safe_text import safe_line
from pitui.store.branch_prompt import SUMMARY_SYSTEM_PROMPT, branch_prompt, finish_summary
from pitui.store.digest import branch_digest, branch_transcript, file_lists, format_file_operations
from pitui.store.model import Entry, FileChangedError
from pitui.store.reader import Session
from pitui.store.summarize import SummarizerError, find_pi, pi_summary_argv
from pitui.store.write.actions import ActionError
from pitui.store.write.editing import SessionEditor, Written
from pitui.ui.format import fit_middle, plural, shorten_home_folder
from pitui.ui.widgets.session_tree import SessionTree
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.ui.screens.base import PituiScreen

    _Base = PituiScreen
else:
    _Base = object

__all__ = ["WritesSession"]

T = TypeVar("T")


class WritesSession(_Base):
    """Writing to the session: a mixin of the session view, which provides the rest."""

    session: Session | None
    session_path: str
    editor: SessionEditor | None
    removed: bool
    _writes: int
    _appends_waiting: bool
    _stop_following: Any
    _disk_lock: Any

    if TYPE_CHECKING:

        def load(self, select: Any = None) -> None: ...
        def take_appends(self) -> None: ...
        def _show_title(self) -> None: ...
        def _show_facts(self) -> None: ...
        def _count_usage_soon(self) -> None: ...

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
    async def branch_here(self, entry_id: Any, *, at_leaf: bool = False) -> None:
        """pi's tree selection: move the leaf here, asking first whether to summarise the branch
        being left (when it leaves something behind). Cancelling at any step writes nothing.
        ``at_leaf``: the tree showed this row as where the conversation is (the leaf, hidden
        below it, is bookkeeping): nothing to do, where pi would move past the leaf (its B10)."""
        try:
            await self._branch_here(entry_id, at_leaf)
        finally:
            self.query_one(SessionTree).release_keys()

    async def _branch_here(self, entry_id: Any, at_leaf: bool) -> None:
        # The dialogs (and Textual's TextArea) are imported when first asked for: not for the
        # session's first screen.
        from pitui.ui.screens.dialogs import (
            BRANCH_COMMAND,
            BRANCH_PI,
            BRANCH_PI_FOCUS,
            BRANCH_WRITE,
            BranchDialog,
            InstructionsEditor,
            SummaryEditor,
        )

        if at_leaf:
            self._say("Already at this point: nothing written")
            return
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
        details: Any = None  # the files the branch read and changed, unless pi's lists are known
        if plan.abandoned:
            config = self.app.config
            command = config.summarizer_command
            pi = find_pi() if config.pi_summaries and not command else None  # a command wins
            while True:
                destination = (
                    self._describe(plan.new_leaf) if plan.new_leaf is not None else "the start (an empty conversation)"
                )
                choice = await self._ask(
                    BranchDialog(
                        destination,
                        _left_behind(plan.abandoned),
                        " ".join(command) if command else None,
                        pi is not None,
                    )
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
                    outcome = await self._summarize(command, transcript, " ".join(command))
                    if outcome is None:
                        return
                    # As pi's own summaries end: the files the branch read and changed.
                    summary = outcome + format_file_operations(file_lists(plan.abandoned))
                elif choice in (BRANCH_PI, BRANCH_PI_FOCUS) and pi is not None:
                    focus = await self._ask(InstructionsEditor()) if choice == BRANCH_PI_FOCUS else ""
                    if focus is None:
                        continue  # back to the question, as in pi
                    made = await self._pi_summary(pi, plan.abandoned, focus)
                    if made is None:
                        return
                    summary, details = made
                break

        def branched(written: Written) -> None:
            self._show_written(written)
            if written.prompt_text:
                self.app.copy_to_clipboard(written.prompt_text)
                self._say(f"{written.message} · the message is copied to the clipboard, to ask again in pi")

        await self._write(lambda: editor.branch(entry_id, summary, details), branched).wait()

    async def _summarize(self, argv: Sequence[str], text: str, label: str) -> str | None:
        """A summarizer's answer to ``text`` (spinner, cancel, timeout), or None once the status
        line says why there is none."""
        from pitui.ui.screens.dialogs import SummarizingDialog

        outcome = await self._ask(
            SummarizingDialog(
                argv, text, self.app.config.summarizer_timeout, self.session.cwd if self.session else None, label
            )
        )
        if outcome is None:
            self._say("Summarization cancelled: nothing written")
            return None
        if isinstance(outcome, SummarizerError):
            self._say(f"No summary: {outcome}. Nothing written", error=True)
            return None
        return str(outcome)

    async def _pi_summary(self, pi: str, abandoned: list[Entry], focus: str) -> tuple[str, Any] | None:
        """pi's own kind of summary of ``abandoned``, made by the pi installed with the user's
        default model: the summary as pi writes it, and its ``details``; None: none made."""
        prompt = await asyncio.to_thread(branch_prompt, abandoned, focus or None)
        if prompt.text is None:  # nothing a model could summarise: pi writes its placeholder
            return finish_summary(None, prompt.files), prompt.files.details()
        answer = await self._summarize(
            pi_summary_argv(pi, SUMMARY_SYSTEM_PROMPT), prompt.text, "pi --print (your default model)"
        )
        if answer is None:
            return None
        return finish_summary(answer, prompt.files), prompt.files.details()

    def action_edit_label(self) -> None:
        from pitui.ui.screens.dialogs import LabelDialog

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
        from pitui.ui.screens.dialogs import ConfirmDialog

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
        from pitui.ui.screens.dialogs import ConfirmDialog

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


def _left_behind(entries: list[Entry]) -> str:
    prompts = sum(1 for e in entries if e.type == "message" and e.role == "user")
    text = plural(len(entries), "entry", "entries")
    return f"{text} ({plural(prompts, 'prompt', 'prompts')})" if prompts else text
