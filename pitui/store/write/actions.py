"""Path-level writes for the command line: each action on a session file is an append pi reads back exactly.

Each function opens the file named, writes, and lets go (the picker's rename and trash use them
too); an entry is named by its id or a unique prefix of it (:func:`resolve_entry`). The writes
of an open session view go through :mod:`pitui.store.write.editing`, which passes the exact
:class:`~pitui.store.reader.Entry` to :func:`plan_branch` and :func:`branch_in`.

pi has no leaf pointer: on load, the leaf is the last line. Every action that moves the leaf
therefore appends an entry (DESIGN "Compatibility rules").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from msgspec import Struct

from pitui.store.content import extract_user_message_text
from pitui.store.js import MISSING, js_trim
from pitui.store.jsonl import BadLine, parse_line, split_lines
from pitui.store.model import Entry, FileChangedError
from pitui.store.reader import Session
from pitui.store.write.manager import EntryNotFoundError, SessionManager, holds_conversation
from pitui.store.write.trash import move_to_trash

BRANCH_CUSTOM_TYPE = "pitui.branch"


class ActionError(ValueError):
    """An action that cannot be done, with a message for the user; nothing was written."""


def entry_by_id(session: Session, entry_id: Any) -> Entry:
    """The entry whose id is exactly ``entry_id`` (as a view has it); one whose id is not a
    string is refused, since pi could not name it in a new entry."""
    if not isinstance(entry_id, str):
        raise ActionError("This entry has no id pi could use: nothing written")
    entry = session.entry(entry_id)
    if entry is None:
        raise ActionError(f"no entry {entry_id!r} in {session.path}")
    return entry


def resolve_entry(session: Session, ref: str) -> Entry:
    """An entry by id, or by a prefix of exactly one id (as the command line names it)."""
    entry = session.entry(ref)
    if entry is not None:
        return entry
    matches = [e for e in session.by_id.values() if isinstance(e.id, str) and e.id.startswith(ref)]
    if not ref or not matches:
        raise ActionError(f"no entry {ref!r} in {session.path}")
    if len(matches) > 1:
        shown = ", ".join(e.id for e in matches[:5])
        raise ActionError(f"entry prefix {ref!r} is ambiguous in {session.path}: {shown}")
    return matches[0]


def message_text(entry: Entry) -> str:
    """A user or custom message's text, text blocks joined as pi joins them for the editor."""
    source = entry.message if entry.type == "message" else entry.data
    return extract_user_message_text(source.get("content") if isinstance(source, dict) else None)


def is_prompt(entry: Entry) -> bool:
    """A user message or an extension's message: choosing one means asking it again."""
    prompt: bool = (entry.type == "message" and entry.role == "user") or entry.type == "custom_message"
    return prompt


class BranchResult(Struct, frozen=True):
    entry_id: str | None  # the entry written (None: nothing was)
    new_leaf: str | None
    prompt_text: str | None  # the chosen user message's text, to copy: pitui has no editor
    summary_dropped: bool = False  # a summary was given but the move leaves nothing behind (pi writes none)


class BranchPlan(Struct, frozen=True):
    """What branching at an entry would do, before anything is written."""

    target: Entry
    new_leaf: Any  # an entry id, or None: before everything
    old_leaf: Any  # the file's leaf now
    already_there: bool  # nothing to write
    abandoned: list[Entry]  # the entries a summary would be about (pi's rule); may be empty
    prompt_text: str | None


# The entries a branch summary is made of (pi's getMessageFromEntry); the rest is bookkeeping.
_SUMMARISED_TYPES = frozenset({"message", "custom_message", "branch_summary", "compaction"})


def plan_branch(session: Session, target: Entry, *, left_behind: bool = True) -> BranchPlan:
    """Where the leaf goes when the user chooses ``target``, and what it leaves behind.

    Choosing a user message puts the leaf on its parent (so the message can be asked again) and
    offers its text; a root user message puts it before everything. Choosing where the
    conversation already is writes nothing. ``left_behind=False`` skips finding the entries a
    summary would be about (a walk as long as the branch left).
    """
    from pitui.store.digest import abandoned_entries

    prompt = message_text(target) if is_prompt(target) else None
    current = effective_leaf(session)
    new_leaf: Any = target.parent_id if is_prompt(target) else target.id
    if new_leaf is MISSING or (new_leaf is not None and new_leaf not in session.by_id):
        new_leaf = None  # an orphan's parent is gone: before everything
    already = target.id == session.leaf_id or new_leaf == current
    old_leaf = None if session.leaf_id is MISSING else session.leaf_id
    abandoned = [] if already or not left_behind else abandoned_entries(session, old_leaf, target.id)
    if not any(type(e.type) is str and e.type in _SUMMARISED_TYPES for e in abandoned):
        abandoned = []  # only bookkeeping left behind (labels, markers): nothing to summarise
    return BranchPlan(target, new_leaf, old_leaf, already, abandoned, prompt)


def _open(path: str) -> SessionManager:
    if not os.path.isfile(path):
        raise ActionError(f"{path}: no such session file")
    if os.path.getsize(path) == 0:  # the manager would treat it as a new session, written later
        raise ActionError(f"{path}: empty file: not a pi session yet")
    return SessionManager.open(path)


def _retrying(action: Callable[[], T]) -> T:
    """Run an action that reads the file and appends to it, reading it again if pi wrote to
    it in between (the append must hang off the leaf pi left, not the one read before)."""
    for attempt in range(_ATTEMPTS):
        try:
            return action()
        except FileChangedError:
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


_ATTEMPTS = 3
T = TypeVar("T")


def set_label(path: str, entry_ref: str, label: str | None) -> str:
    """Label an entry (or clear its label when ``label`` is empty or None)."""

    def attempt() -> str:
        manager = _open(path)
        target = resolve_entry(manager.session, entry_ref)
        text = js_trim(label) if label else ""
        return manager.append_label_change(target.id, text or None)

    return _retrying(attempt)


def rename(path: str, name: str) -> str:
    """Name the session; an empty name clears it."""
    return _retrying(lambda: _open(path).append_session_info(name))


def branch(path: str, entry_ref: str, summary: str | None = None) -> BranchResult:
    """Move the leaf to an entry, persistently, with or without a branch summary (see
    :func:`plan_branch` for where the leaf goes)."""

    def attempt() -> BranchResult:
        manager = _open(path)
        return branch_in(manager, resolve_entry(manager.session, entry_ref), summary)

    return _retrying(attempt)


def branch_in(manager: SessionManager, target: Entry, summary: str | None = None, details: Any = None) -> BranchResult:
    """:func:`branch` to an entry of the manager's session. A summary is written only when the
    move leaves entries behind (pi's rule); its ``details`` default to the files they read and changed."""
    from pitui.store.digest import file_lists

    session = manager.session
    wanted = summary is not None and bool(js_trim(summary))
    plan = plan_branch(session, target, left_behind=wanted)
    if plan.already_there:
        return BranchResult(None, plan.new_leaf, plan.prompt_text)  # pi: "Already at this point"
    new_leaf = plan.new_leaf
    if new_leaf is not None and session.in_cycle(session.by_id[new_leaf]):
        raise ActionError(f"entry {new_leaf} is in a parentId cycle: pi would hang on a leaf there")
    if wanted and plan.abandoned:
        assert summary is not None
        if details is None:
            details = file_lists(plan.abandoned).details()
        entry_id = manager.branch_with_summary(new_leaf, js_trim(summary), details)
        return BranchResult(entry_id, new_leaf, plan.prompt_text)
    entry_id = move_leaf(manager, new_leaf)
    return BranchResult(entry_id, new_leaf, plan.prompt_text, summary_dropped=wanted)


def move_leaf(manager: SessionManager, new_leaf: Any) -> str:
    """Make ``new_leaf`` (an entry id, or None: before everything) the leaf pi will read: a
    ``pitui.branch`` entry under it records the leaf it came from."""
    session = manager.session
    previous_leaf = session.leaf_id
    if new_leaf is None:
        manager.reset_leaf()
    else:
        manager.move_leaf_in_memory(new_leaf)
    data = {"from": previous_leaf if previous_leaf is not MISSING else None}
    return manager.append_custom_entry(BRANCH_CUSTOM_TYPE, data)


def is_branch_marker(entry: Entry | None) -> bool:
    return entry is not None and entry.type == "custom" and entry.get("customType") == BRANCH_CUSTOM_TYPE


def effective_leaf(session: Session, leaf_id: Any = MISSING) -> Any:
    """Where the conversation is: the leaf (or ``leaf_id``), or the entry pitui's branch
    markers stand for."""
    if leaf_id is MISSING:
        leaf_id = session.leaf_id
    leaf = session.entry(leaf_id)
    seen = 0
    while is_branch_marker(leaf) and seen < 1_000:
        assert leaf is not None
        parent = leaf.parent_id
        if parent is None or parent is MISSING:
            return None
        leaf = session.entry(parent)
        seen += 1
    return leaf.id if leaf is not None else leaf_id


def check_copyable(session: Session, end: Any) -> int:
    """How many entries a fork or clone ending at ``end`` copies; refused (nothing written) when
    they hold no user or assistant message: pi creates a session's file only once it holds one,
    and pitui adds no message that would make it."""
    path = session.path_to(end)
    if not path:
        raise ActionError(f"no entry {end!r} in {session.path}")
    if not holds_conversation(path):
        raise ActionError("Nothing to copy: no user or assistant message up to there (pi saves no session before one)")
    return len(path)


def copy_to_new_session(manager: SessionManager, end: Any) -> str:
    """The new file of a fork or clone holding the path root..``end``, created whole."""
    check_copyable(manager.session, end)
    try:
        new_file = manager.create_branched_session(end)
    except EntryNotFoundError as error:
        raise ActionError(str(error)) from None
    assert new_file is not None and os.path.isfile(new_file)
    return new_file


def context_edit(path: str, op: str, entry_ref: str, note: str | None = None) -> tuple[str, list[str]]:
    """Omit, restore or replace (with ``note``) an entry's part of the model's context
    (:mod:`pitui.store.write.surgery`): what was done, and the ``context_edit`` entries written."""
    from pitui.store.write import surgery

    def attempt() -> tuple[str, list[str]]:
        manager = _open(path)
        plan = surgery.plan(manager.session, resolve_entry(manager.session, entry_ref), op, note)
        return plan.describe(), surgery.write_plan(manager, plan)

    return _retrying(attempt)


def fork(path: str, entry_ref: str) -> str:
    """A new session with the path root..entry (pi's ``/fork``); returns its file."""
    manager = _open(path)
    return copy_to_new_session(manager, resolve_entry(manager.session, entry_ref).id)


def clone(path: str) -> str:
    """A new session with the active path (pi's ``/clone``); returns its file."""
    manager = _open(path)
    leaf = manager.session.leaf()
    if leaf is None:
        raise ActionError(f"{path} has no entries to clone")
    return copy_to_new_session(manager, leaf.id)


def trash(path: str) -> None:
    """Move a session file to the trash (only a pi session: the header is checked first)."""
    if not os.path.isfile(path):
        raise ActionError(f"{path}: no such session file")
    if not is_session_file(path):
        raise ActionError(f"{path}: not a pi session file; not moved")
    move_to_trash(path)


def is_session_file(path: str) -> bool:
    """Whether the first line that parses is a session header, as pi decides it."""
    with open(path, "rb") as handle:
        head = handle.read(1 << 20)
    for _, _, line in split_lines(head):
        try:
            value = parse_line(line)
        except BadLine:
            continue
        return isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str)
    return False
