"""A session as canonical JSON, in the schema of the pi oracle's ``open`` command.

The same schema from pitui and from pi's own SessionManager lets the two be compared field by
field (``pitui inspect FILE --json``).
"""

from __future__ import annotations

from typing import Any

from .jsonl import MISSING
from .jsvalues import js_string
from .session import Session, context_messages


def _id(value: Any) -> Any:
    return None if value is MISSING else value


def _put(digest: dict[str, Any], key: str, value: Any) -> None:
    if value is not MISSING:  # JSON.stringify leaves undefined keys out
        digest[key] = value


def message_digest(message: Any) -> dict[str, Any]:
    """The oracle's ``messageDigest``: role, text or block types, and a few role fields."""
    if type(message) is not dict:
        return {}
    digest: dict[str, Any] = {}
    role = message.get("role", MISSING)
    if role is not MISSING:
        digest["role"] = role
    content = message.get("content")
    if type(content) is list:
        digest["blocks"] = [b.get("type") if type(b) is dict else None for b in content]
    elif type(content) is str:
        digest["text"] = content
    if type(role) is str and role in _ROLE_FIELDS:
        for key in _ROLE_FIELDS[role]:
            _put(digest, key, message.get(key, MISSING))
    return digest


_ROLE_FIELDS = {
    "compactionSummary": ("summary",),
    "branchSummary": ("summary", "fromId"),
    "custom": ("customType",),
    "toolResult": ("toolCallId",),
    "bashExecution": ("command",),
}


def inspect_file(path: str) -> tuple[Session, dict[str, Any]]:
    """Load ``path`` and inspect it."""
    session = Session.load(path)
    return session, inspect_session(session)


def _defined(value: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else {k: v for k, v in value.items() if v is not MISSING}


def inspect_session(session: Session) -> dict[str, Any]:
    """Header, entries, leaf, branch, tree, labels, name and context, as the oracle prints them."""
    tree = session.tree()
    children: dict[str, list[Any]] = {}
    stack = list(tree.roots)
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # a node reachable twice (duplicate ids) has the same children
            continue
        seen.add(id(node))
        kids = tree.children.get(node.id)
        if kids:
            children[js_string(node.id)] = [_id(k.id) for k in kids]
            stack.extend(kids)
    labels: dict[str, Any] = {}
    for entry in session.entries:
        if entry.id in session.labels:
            labels[js_string(entry.id)] = session.labels[entry.id]
    messages: list[dict[str, Any]] = []
    for entry in session.context_entries():
        messages.extend(message_digest(m) for m in context_messages(entry))
    thinking, model = session.context_settings()
    result: dict[str, Any] = {
        "header": session.header,
        "entryIds": [[e.id, e.type, e.parent_id] if e.id and e.type and e.parent_id is not MISSING
                     else [_id(e.id), _id(e.type), _id(e.parent_id)] for e in session.entries],
        "leafId": session.leaf_id,
        "branch": [_id(e.id) for e in session.branch()],
        "tree": {"roots": [_id(r.id) for r in tree.roots], "children": children},
        "labels": labels,
        "name": session.name,
        "context": {"model": _defined(model), "thinkingLevel": thinking, "messages": messages},
    }
    if result["leafId"] is MISSING:
        del result["leafId"]
    if thinking is MISSING:
        del result["context"]["thinkingLevel"]
    return result
