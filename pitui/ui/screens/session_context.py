"""The session view's context surgery: Ctrl+E omits the highlighted entry from the model's
context or restores it, Ctrl+W replaces its content with a note (an editor prefilled with what it
replaces). Each writes ``context_edit`` entries through the view's editor
(:mod:`pitui.store.write.surgery`), undone with Ctrl+Z like the other writes.

:class:`ContextSession` is a mixin of :class:`~pitui.ui.screens.session.SessionScreen`; its
writes go through :class:`~pitui.ui.screens.session_writes.WritesSession`'s ``_write``, so keys
typed meanwhile wait and then act in order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from pitui.store.model import FileChangedError
from pitui.store.write.actions import ActionError, entry_by_id
from pitui.store.write.editing import Written
from pitui.store.write.surgery import describe
from pitui.ui.screens.session_live import PathShown, path_items
from pitui.ui.widgets.session_tree import SessionTree
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.ui.screens.session_writes import WritesSession

    _Base = WritesSession
else:
    _Base = object

__all__ = ["ContextSession"]


class ContextSession(_Base):
    """Omitting, restoring and replacing entries of the model's context: a mixin of the view."""

    def action_context_omit(self) -> None:
        """Omit the highlighted entry from the model's context, or restore it if it is edited."""
        editor = self._editor_for_writing()
        entry_id = self.query_one(SessionTree).selected_id
        if editor is None or entry_id is None:
            return
        self._write(lambda: editor.context_edit(entry_id, "toggle"), self._show_context_written)

    def action_context_replace(self) -> None:
        """Replace the highlighted entry's content with a note the user writes."""
        tree = self.query_one(SessionTree)
        tree.hold_keys()  # at once: the keys typed after Ctrl+W are the editor's
        self._replace_asked(tree.selected_id)

    @work(exclusive=True, group="session-write", exit_on_error=False)
    async def _replace_asked(self, entry_id: Any) -> None:
        try:
            await self._replace(entry_id)
        finally:
            self.query_one(SessionTree).release_keys()

    async def _replace(self, entry_id: Any) -> None:
        editor = self._editor_for_writing()
        if editor is None or entry_id is None:
            return
        session = editor.session

        def prefill() -> str:
            editor.context_plan(entry_id, "replace", "-")  # refused here, before the editor opens
            return describe(session, entry_by_id(session, entry_id))

        try:
            note = await asyncio.to_thread(prefill)
        except (ActionError, FileChangedError, OSError) as error:
            self._write_failed(error)
            return
        from pitui.ui.screens.dialogs import NoteEditor  # (the dialogs: not for the first screen)

        text = await self._ask(NoteEditor(note, self._describe(entry_id)))
        if text is None:
            self._say("Not replaced: nothing written")
            return
        await self._write(lambda: editor.context_edit(entry_id, "replace", text), self._show_context_written).wait()

    def _show_context_written(self, written: Written) -> None:
        """A context edit shown at once: the tree's rows, the status line, and the pane with
        the conversation as the model now sees it (the path to the leaf, where the edit is),
        the edited entry at its top. The cursor stays on the entry: moving it shows its path
        again."""
        self._show_written(written)
        session = self.session
        if session is None or written.show_id is None:
            return
        self._shown_id = written.show_id  # the pane shows the edit's effect for it
        self._edited_path(session, session.leaf_id, written.show_id)

    @work(thread=True, group="session-path", exit_on_error=False)
    def _edited_path(self, session: Any, leaf: Any, anchor: Any) -> None:
        try:
            path = path_items(session, leaf, OrderedDict())  # a cache of its own: one thread each
        except FileChangedError:
            return  # rewritten under the view: the watcher reads it again
        with contextlib.suppress(RuntimeError):  # the app is shutting down
            self.app.call_from_thread(self._edited_path_made, session, anchor, path)

    def _edited_path_made(self, session: Any, anchor: Any, path: PathShown) -> None:
        if session is self.session and self._shown_id == anchor:  # the cursor has not moved on
            self._show_items(path, anchor)

    if TYPE_CHECKING:
        _shown_id: Any

        def _show_items(self, path: PathShown, anchor: Any = None) -> None: ...
