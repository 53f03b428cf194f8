"""pitui's writing actions on a session file, each one an append pi reads back exactly.

pi has no leaf pointer: on load, the leaf is the last line. Every action that moves the leaf
therefore appends an entry (DESIGN "Compatibility rules").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .jsonl import MISSING
from .manager import EntryNotFoundError, SessionManager
from .session import Entry, Session
from .trash import move_to_trash

BRANCH_CUSTOM_TYPE = "pitui.branch"


class ActionError(ValueError):
    """An action that cannot be done, with a message for the user; nothing was written."""


def resolve_entry(session: Session, ref: str) -> Entry:
    """An entry by id, or by a prefix of exactly one id."""
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
    content = source.get("content") if isinstance(source, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))
    return ""


def _is_prompt(entry: Entry) -> bool:
    return (entry.type == "message" and entry.role == "user") or entry.type == "custom_message"


@dataclass(frozen=True, slots=True)
class BranchResult:
    entry_id: str | None
    new_leaf: str | None
    prompt_text: str | None  # the chosen user message's text, to copy: pitui has no editor


def _open(path: str) -> SessionManager:
    manager = SessionManager.open(path)
    if manager.session.header is None:
        raise ActionError(f"{path} is empty: not a pi session")
    return manager


def set_label(path: str, entry_ref: str, label: str | None) -> str:
    """Label an entry (or clear its label when ``label`` is empty or None)."""
    manager = _open(path)
    target = resolve_entry(manager.session, entry_ref)
    text = label.strip() if label else ""
    return manager.append_label_change(target.id, text or None)


def rename(path: str, name: str) -> str:
    """Name the session; an empty name clears it."""
    return _open(path).append_session_info(name)


def branch(path: str, entry_ref: str, summary: str | None = None) -> BranchResult:
    """Move the leaf to an entry, persistently, with or without a branch summary.

    Choosing a user message puts the leaf on its parent (so the message can be asked again) and
    returns its text; a root user message puts it before everything (the new entry is a root).
    """
    manager = _open(path)
    session = manager.session
    target = resolve_entry(session, entry_ref)
    prompt = message_text(target) if _is_prompt(target) else None
    new_leaf: Any = target.parent_id if _is_prompt(target) else target.id
    if new_leaf is MISSING or (new_leaf is not None and new_leaf not in session.by_id):
        new_leaf = None  # an orphan's parent is gone: before everything
    previous_leaf = session.leaf_id
    if new_leaf == previous_leaf:
        return BranchResult(None, new_leaf, prompt)  # already there: nothing to write
    if summary is not None and summary.strip():
        entry_id = manager.branch_with_summary(new_leaf, summary.strip())
        return BranchResult(entry_id, new_leaf, prompt)
    if new_leaf is None:
        manager.reset_leaf()
    else:
        manager.branch(new_leaf)
    data = {"from": previous_leaf if previous_leaf is not MISSING else None}
    entry_id = manager.append_custom_entry(BRANCH_CUSTOM_TYPE, data)
    return BranchResult(entry_id, new_leaf, prompt)


def fork(path: str, entry_ref: str) -> str:
    """A new session with the path root..entry (pi's ``/fork``); returns its file."""
    manager = _open(path)
    target = resolve_entry(manager.session, entry_ref)
    try:
        new_file = manager.create_branched_session(target.id, write_now=True)
    except EntryNotFoundError as error:
        raise ActionError(str(error)) from None
    assert new_file is not None
    return new_file


def clone(path: str) -> str:
    """A new session with the active path (pi's ``/clone``); returns its file."""
    manager = _open(path)
    leaf = manager.session.leaf()
    if leaf is None:
        raise ActionError(f"{path} has no entries to clone")
    new_file = manager.create_branched_session(leaf.id, write_now=True)
    assert new_file is not None
    return new_file


def trash(path: str) -> None:
    """Move a session file to the trash."""
    if not os.path.isfile(path):
        raise ActionError(f"{path}: no such session file")
    move_to_trash(path)
