"""What the model is sent: pi 1.6.0's ``buildContextEntries``, ``sessionEntryToContextMessages``
and ``buildSessionProjection`` (reference pi-1.6.md R6–R8).

The path root..leaf is cut at its latest compaction (:func:`select_entries`); each selected
entry gives its messages (:func:`context_messages`); the latest selected ``context_edit`` aimed
at an entry then omits or replaces them (:func:`project`). The result is kept per entry, so
that a view can show an omitted or replaced message where it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from operator import attrgetter, indexOf
from typing import Any

from msgspec import Struct

from pitui.store.js import MISSING, js_truthy
from pitui.store.model import Entry, date_ms

# The roles whose content a context_edit replacement swaps (the others are kept as they are).
EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})
# The roles pi gives an empty list for a null content (a system message gets "").
_LIST_CONTENT_ROLES = frozenset({"user", "assistant", "toolResult"})


def select_entries(path: Sequence[Entry], by_id: Mapping[Any, Entry] | None = None) -> list[Entry]:
    """``buildContextEntries``: the entries of ``path`` the context is built from.

    Without a compaction that is the whole path. With one, the latest compaction comes first,
    then the entries from its ``firstKeptEntryId`` up to it (system messages left out: the
    compaction carries its own copy of the prompt), then everything after it. Older
    compactions in the kept range stay in the list; they give no messages (:func:`project`).

    ``by_id``: the session's id map, given when no two entries share an id. The first kept
    entry is then the one it names, found from the compaction back; otherwise (and where it is
    not on the path before the compaction) every id of the path is compared, as pi does.
    """
    try:  # the latest compaction, looked for from the end (in C: the path can be long)
        back = indexOf(map(_TYPE, reversed(path)), "compaction")
    except ValueError:
        return list(path)  # a copy: the path itself may be cached
    at = len(path) - 1 - back
    compaction = path[at]
    first_kept = compaction.get("firstKeptEntryId")
    start = -1 if by_id is None else _kept_from(path, at, by_id, first_kept)
    if start < 0:
        # pi looks the compaction up again by id (``findIndex``): the first entry with that id
        # (an entry is only itself: ``path.index`` finds it by identity).
        at = path.index(compaction)
        ids = list(map(_ID, itertools.islice(path, at)))
        if type(compaction.id) is str and compaction.id in ids:  # an earlier entry with its id
            at = ids.index(compaction.id)
            del ids[at:]
        # pi keeps from the first entry whose id is firstKeptEntryId (none found: nothing before)
        try:
            start = ids.index(first_kept)
        except ValueError:
            start = at
    selected = [compaction]
    kept = path[start:at]
    # (the kept range can hold most of a long branch: looked through in C first)
    if "system" in map(_ROLE, kept):
        selected.extend(entry for entry in kept if not (entry.type == "message" and entry.role == "system"))
    else:
        selected.extend(kept)
    selected.extend(path[at + 1 :])
    return selected


def _kept_from(path: Sequence[Entry], at: int, by_id: Mapping[Any, Entry], first_kept: Any) -> int:
    """Where the entry ``first_kept`` names is in ``path`` before ``at``, looked for from ``at``
    back (the kept range is short, the path before it long), or -1: not there, or not a key."""
    try:
        kept = by_id.get(first_kept)
    except TypeError:  # a JSON array or object
        return -1
    if kept is None:
        return -1
    try:
        steps = indexOf(itertools.islice(reversed(path), len(path) - at, None), kept)
    except ValueError:
        return -1
    return at - 1 - steps


_TYPE = attrgetter("type")
_ID = attrgetter("id")
_ROLE = attrgetter("role")


def context_messages(entry: Entry) -> list[dict[str, Any]]:
    """``sessionEntryToContextMessages``: what one selected entry gives, before edits."""
    kind = entry.type
    if kind == "message":
        message = entry.message
        if type(message) is dict and message.get("content") is None:  # null or missing
            role = message.get("role", MISSING)
            if role == "system":
                return [{**message, "content": ""}]
            if type(role) is str and role in _LIST_CONTENT_ROLES:
                return [{**message, "content": []}]
        return [message]
    if kind == "custom_message":
        # pi copies the fields over: one the entry lacks is undefined, not null, in the message.
        data = entry.data
        content = data.get("content")
        message = {
            "role": "custom",
            "customType": data.get("customType", MISSING),
            "content": [] if content is None else content,
            "display": data.get("display", MISSING),
            "details": data.get("details", MISSING),
            "timestamp": date_ms(entry.timestamp),
        }
        return [{key: value for key, value in message.items() if value is not MISSING}]
    if kind == "branch_summary":
        summary = entry.get("summary")
        if not js_truthy(summary):
            return []
        return [
            {
                "role": "branchSummary",
                "summary": summary,
                "fromId": entry.get("fromId"),
                "timestamp": date_ms(entry.timestamp),
            }
        ]
    if kind == "compaction":
        summary = {
            "role": "compactionSummary",
            "summary": entry.get("summary"),
            "tokensBefore": entry.get("tokensBefore"),
            "timestamp": date_ms(entry.timestamp),
        }
        checkpoint = entry.get("systemMessage")
        return [checkpoint, summary] if js_truthy(checkpoint) else [summary]
    return []


class ProjectedEntry(Struct, frozen=True):
    """One selected entry and what it gives the model: ``messages`` after ``edit`` (the
    latest selected ``context_edit`` aimed at it, or None), ``original`` before it."""

    entry: Entry
    messages: list[dict[str, Any]]
    original: list[dict[str, Any]]
    edit: Entry | None = None

    @property
    def omitted(self) -> bool:
        """The edit takes the entry's messages out of the context."""
        return self.edit is not None and bool(self.original) and not self.messages


def edit_key(value: Any) -> Any:
    """An id as a key of pi's ``Map`` (SameValueZero): None for an id that is a JSON array or
    object, which equals nothing read from another line."""
    if type(value) is str:
        return value
    if value is None or value is MISSING:
        return ("null",) if value is None else ("undefined",)
    if type(value) is bool:
        return ("bool", value)
    if type(value) in (int, float):
        return ("number", float(value)) if value == value else ("nan",)
    return None


def has_replacement(edit: Entry) -> bool:
    """Whether a ``context_edit`` has its ``replacement`` key (pi 1.6.0 throws on one without)."""
    return edit.get("replacement") is not MISSING


def project(selected: Sequence[Entry]) -> list[ProjectedEntry]:
    """``buildSessionProjection``: each selected entry with the messages it gives the model.

    Edits are looked up among the selected entries only (an edit on another branch, or one a
    compaction summarised away, does nothing). An edit without ``replacement``, on which pi
    throws, is shown as the edit of its target but changes nothing."""
    edits = edit_map(selected)
    return [project_entry(entry, index, edits) for index, entry in enumerate(selected)]


def edit_map(selected: Sequence[Entry]) -> dict[Any, Entry]:
    """The latest selected ``context_edit`` aimed at each target, by :func:`edit_key`."""
    edits: dict[Any, Entry] = {}
    for entry in selected:
        if entry.type == "context_edit":
            key = edit_key(entry.get("targetId"))
            if key is not None:
                edits[key] = entry
    return edits


def project_entry(entry: Entry, index: int, edits: dict[Any, Entry]) -> ProjectedEntry:
    """One selected entry (at ``index`` among them) projected with the edits in force."""
    if entry.type == "compaction" and index > 0:
        return ProjectedEntry(entry, [], [])
    original = context_messages(entry)
    key = edit_key(entry.id) if edits else None
    edit = edits.get(key) if key is not None else None
    messages = original if edit is None or not has_replacement(edit) else apply_edit(original, edit)
    return ProjectedEntry(entry, messages, original, edit)


def apply_edit(messages: list[dict[str, Any]], edit: Entry) -> list[dict[str, Any]]:
    """``projectContextEntry``: a ``null`` replacement omits every message; one with content
    swaps the content of the user, assistant, tool result and custom messages (a string becomes
    one text block for an assistant or a tool result); other messages are kept."""
    replacement = edit.get("replacement")
    if replacement is None:
        return []
    content = replacement.get("content", MISSING) if type(replacement) is dict else MISSING
    out = []
    for message in messages:
        role = message.get("role") if type(message) is dict else None
        if type(role) is not str or role not in EDITABLE_ROLES:
            out.append(message)
            continue
        if role in ("assistant", "toolResult") and type(content) is str:
            new: Any = [{"type": "text", "text": content}]
        else:
            new = content
        if new is MISSING:  # undefined: JSON.stringify leaves the key out
            out.append({k: v for k, v in message.items() if k != "content"})
        else:
            out.append({**message, "content": new})
    return out


def projected_messages(projection: Sequence[ProjectedEntry]) -> list[dict[str, Any]]:
    """The messages the model is sent, in order."""
    return [m for p in projection for m in p.messages]
