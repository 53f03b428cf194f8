"""The writes of an open session view, with undo: label, rename, branch, context edits, fork
and clone.

:class:`SessionEditor` writes through the :class:`~pitui.store.reader.Session` the view
already holds, so a write on a 100,000-entry file is one appended line, not a new read of the
file. Before each write it reads what pi appended meanwhile, so the new entry hangs off the
leaf pi left; the write itself is refused if the file changed after that read.

Undo appends the entry that restores the state before an action (the previous label, name,
leaf, or each edited entry's part of the context): the file only ever grows, and pi reads the
restored state back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from msgspec import Struct

from pitui.store.js import js_trim
from pitui.store.model import FileChangedError
from pitui.store.reader import Session
from pitui.store.write import surgery
from pitui.store.write.actions import (
    ActionError,
    BranchPlan,
    branch_in,
    check_copyable,
    copy_to_new_session,
    effective_leaf,
    entry_by_id,
    is_prompt,
    message_text,
    move_leaf,
    plan_branch,
)
from pitui.store.write.manager import SessionManager, clean_name
from pitui.store.write.surgery import EditPlan

__all__ = ["Forked", "SessionEditor", "Written"]


class Written(Struct, frozen=True):
    """The outcome of one action, for the status line."""

    entry_id: str | None  # the entry appended; None: nothing was written
    message: str  # what was written (or why nothing was), in a sentence
    show_id: Any = None  # the entry to highlight after it
    prompt_text: str | None = None  # a chosen user message's text, to ask again


class CopyPlan(NamedTuple):
    """What a fork or a clone would copy into its new file."""

    end: Any  # the id of the last entry copied
    entries: int  # how many entries the new file holds
    prompt_text: str | None  # a fork before a user message: its text, to ask again


class Forked(Struct, frozen=True):
    path: str  # the new session file
    prompt_text: str | None  # the user message forked before, to ask again


class _Undo(Struct, frozen=True):
    kind: str  # "label", "name", "leaf" or "context"
    written_id: str  # the entry the action appended
    before: Any  # the label, name or leaf before the action (a context edit: its EditPlan)
    after: Any  # the label or name the action set (a context edit: the edits' ids)
    target: Any = None  # the labelled entry
    description: str = ""


T = TypeVar("T")
_ATTEMPTS = 3


def _fresh(method: Callable[..., T]) -> Callable[..., T]:
    """Read pi's appends first; if pi appends again before the write lands (the write checks
    the file and refuses), read them and try again."""

    @functools.wraps(method)
    def run(self: SessionEditor, *args: Any, **kwargs: Any) -> T:
        for attempt in range(_ATTEMPTS):
            self.catch_up()  # a replaced file raises here: it must be read again whole
            try:
                return method(self, *args, **kwargs)
            except FileChangedError:
                if attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    return run


class SessionEditor:
    """The writes of one session view. ``session`` must have been read from its file."""

    def __init__(self, session: Session) -> None:
        if session.path is None:
            raise ValueError("the session was not read from a file")
        self.session = session
        self._undo: list[_Undo] = []
        self._last_written: str | None = None  # undoing a branch needs it to be the leaf still

    # ------------------------------------------------------------------ reading first

    def catch_up(self) -> int:
        """Read what was appended since the last read (pi writing); returns the entries read.

        Raises :class:`~pitui.store.model.FileChangedError` when the file was replaced: it must be read again
        whole before anything is written to it.
        """
        if self.session.migrated:
            return 0  # an old-format file is rewritten whole on its first write; that write checks it
        return self.session.refresh()

    def _manager(self) -> SessionManager:
        return SessionManager.attach(self.session)

    # ------------------------------------------------------------------ actions

    @_fresh
    def plan_branch(self, entry_id: Any) -> BranchPlan:
        return plan_branch(self.session, entry_by_id(self.session, entry_id))

    @_fresh
    def branch(self, entry_id: Any, summary: str | None = None, details: Any = None) -> Written:
        """Move the leaf to ``entry_id`` (pi's rules), with a summary of the branch left, if given."""
        session = self.session
        before = session.leaf_id
        result = branch_in(self._manager(), entry_by_id(session, entry_id), summary, details)
        if result.entry_id is None:
            return Written(None, "Already at this point: nothing written", result.new_leaf, result.prompt_text)
        self._remember(_Undo("leaf", result.entry_id, before, None, description="branch"))
        where = _short(result.new_leaf) if result.new_leaf is not None else "the start (an empty conversation)"
        written = session.entry(result.entry_id)
        if written is not None and written.type == "branch_summary":
            message = f"Branched to {where}: wrote branch summary {result.entry_id}"
        else:
            message = f"Branched to {where}: wrote a pitui.branch entry {result.entry_id}"
            if result.summary_dropped:
                message += " (no summary: this move leaves nothing behind)"
        show = result.entry_id if written is not None and written.type == "branch_summary" else result.new_leaf
        return Written(result.entry_id, message, show, result.prompt_text)

    @_fresh
    def label(self, entry_id: Any, label: str | None) -> Written:
        """Set a label (``None`` or blank: clear it). An unchanged label writes nothing."""
        session = self.session
        target = entry_by_id(session, entry_id)
        text = js_trim(label or "") or None
        before = session.labels.get(target.id)
        if text == before:
            return Written(None, "Label unchanged: nothing written", target.id)
        written = self._manager().append_label_change(target.id, text)
        self._remember(_Undo("label", written, before, text, target.id, "label"))
        what = f"Label “{text}” set on {_short(target.id)}" if text else f"Label cleared on {_short(target.id)}"
        return Written(written, f"{what}: wrote label entry {written}", target.id)

    @_fresh
    def rename(self, name: str) -> Written:
        """Name the session (blank: clear the name). An unchanged name writes nothing."""
        session = self.session
        text = clean_name(name)
        before = session.name
        if (text or None) == before:
            return Written(None, "Name unchanged: nothing written", None)
        written = self._manager().append_session_info(text)
        self._remember(_Undo("name", written, before, session.name, description="rename"))
        what = f"Named “{session.name}”" if session.name else "Name cleared"
        return Written(written, f"{what}: wrote session_info entry {written}", None)

    def context_plan(self, entry_id: Any, op: str, note: str | None = None) -> EditPlan:
        """What :meth:`context_edit` would write, without writing (ActionError: nothing)."""
        return surgery.plan(self.session, entry_by_id(self.session, entry_id), op, note)

    @_fresh
    def context_edit(self, entry_id: Any, op: str, note: str | None = None) -> Written:
        """Omit, restore, replace (with ``note``) or toggle (omit, or restore an edited entry)
        an entry's part of the model's context (:mod:`pitui.store.write.surgery`)."""
        plan = self.context_plan(entry_id, op, note)
        written = surgery.write_plan(self._manager(), plan)
        self._remember(_Undo("context", written[-1], plan, written, plan.target.id, plan.op))
        return Written(written[-1], f"{plan.describe()}: wrote {_edits(written)}", plan.target.id)

    def copy_plan(self, entry_id: Any = None) -> CopyPlan:
        """What :meth:`fork` (``entry_id``) or :meth:`clone` (None) would write, without writing:
        the last entry copied and how many entries the new file gets."""
        session = self.session
        if entry_id is None:
            leaf = session.leaf()
            if leaf is None:
                raise ActionError("Nothing to clone yet")
            return CopyPlan(leaf.id, check_copyable(session, leaf.id), None)
        target = entry_by_id(session, entry_id)
        prompt = message_text(target) if is_prompt(target) else None
        end = target.parent_id if prompt is not None else target.id
        if end is None or end not in session.by_id:
            raise ActionError("Nothing comes before the first message: highlight a later entry to fork")
        return CopyPlan(end, check_copyable(session, end), prompt)

    @_fresh
    def fork(self, entry_id: Any) -> Forked:
        """A new session in the same folder holding the path up to ``entry_id``; on a user
        message, up to the entry before it (pi's ``/fork``), with the message's text to ask again."""
        end, _, prompt = self.copy_plan(entry_id)
        return Forked(copy_to_new_session(self._manager(), end), prompt)

    @_fresh
    def clone(self) -> str:
        """A new session in the same folder holding the whole active path (pi's ``/clone``)."""
        return copy_to_new_session(self._manager(), self.copy_plan().end)

    # ------------------------------------------------------------------ undo

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @_fresh
    def undo(self) -> Written:
        """Undo the last label, rename, branch or context edit by appending the entry that restores it.

        Refused (:class:`ActionError`, nothing written) when the state it would restore was
        changed since by someone else: a label or name set again, or, for a branch, anything
        appended after pitui's last write (undoing it would leave pi's new entries behind).
        """
        if not self._undo:
            raise ActionError("Nothing to undo")
        session = self.session
        last = self._undo[-1]
        manager = self._manager()
        if last.kind == "label":
            if session.labels.get(last.target) != last.after:
                raise ActionError("The label was changed since: nothing undone")
            written = manager.append_label_change(last.target, last.before)
            what = (
                f"the label on {_short(last.target)} is “{last.before}” again"
                if last.before
                else f"the label on {_short(last.target)} is gone again"
            )
            show = last.target
        elif last.kind == "context":
            plan = surgery.plan_undo(session, last.before, last.after)
            ids = surgery.write_plan(manager, plan)
            written = ids[-1]
            what = f"{_short(last.target)} is in the context as before (wrote {_edits(ids)})"
            self._undo.pop()
            self._last_written = written
            return Written(written, f"Undid the {last.description}: {what}", last.target)
        elif last.kind == "name":
            if session.name != last.after:
                raise ActionError("The session was renamed since: nothing undone")
            written = manager.append_session_info(last.before or "")
            what = f"the name is “{last.before}” again" if last.before else "the session has no name again"
            show = None
        else:
            if session.leaf_id != self._last_written:
                raise ActionError(
                    "The session went on since (pi wrote to it): undoing the branch would leave "
                    "that behind; nothing undone"
                )
            restored = effective_leaf(session, last.before) if last.before in session.by_id else None
            written = move_leaf(manager, restored)
            where = _short(restored) if restored is not None else "the start"
            what = f"the leaf is back on {where}"
            show = restored
        self._undo.pop()
        self._last_written = written
        return Written(written, f"Undid the {last.description}: {what} (wrote entry {written})", show)

    # ------------------------------------------------------------------ helpers

    def _remember(self, undo: _Undo) -> None:
        self._undo.append(undo)
        self._last_written = undo.written_id


def _edits(ids: list[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{len(ids)} context_edit entries, the last {ids[-1]}"


def _short(entry_id: Any) -> str:
    return str(entry_id)[:8]
