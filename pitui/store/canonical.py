"""A session as canonical JSON, in the schema of the pi oracle's ``open`` command.

The same schema from pitui and from pi's own SessionManager lets the two be compared field by
field (``pitui inspect FILE --json``).
"""

from __future__ import annotations

import itertools
from operator import attrgetter
from typing import Any

from pitui.store.js import MISSING, Opaque, js_len, js_string, js_truthy
from pitui.store.jsonl import prepare
from pitui.store.model import Tree
from pitui.store.pi_verdict import pi_verdicts
from pitui.store.reader import Session
from pitui.store.totals import stats_json


def _id(value: Any) -> Any:
    """An id, type or parent as JSON.stringify writes it inside an array (undefined is null)."""
    if type(value) is str or value is None:
        return value
    if isinstance(value, Opaque):
        value = value.value
    return None if value is MISSING else prepare(value)


def _key(value: Any) -> str:
    """An id as an object key, as JavaScript converts it."""
    return js_string(value.value if isinstance(value, Opaque) else value)


def _put(digest: dict[str, Any], key: str, value: Any) -> None:
    if value is not MISSING:  # JSON.stringify leaves undefined keys out
        digest[key] = value if type(value) is str else prepare(value)


def message_digest(message: Any) -> dict[str, Any]:
    """The oracle's ``messageDigest``: role, text or block types and text length, a few role
    fields, and what a system message sets (sections, tools added and removed)."""
    if type(message) is not dict:
        return {}
    digest: dict[str, Any] = {}
    role = message.get("role", MISSING)
    _put(digest, "role", role)
    content = message.get("content")
    if type(content) is list:
        digest["blocks"] = [b.get("type") if type(b) is dict else None for b in content]
        if not all(type(t) is str for t in digest["blocks"]):
            digest["blocks"] = prepare(digest["blocks"])
        digest["textLen"] = sum(
            js_len(b["text"])
            for b in content
            if type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str
        )
    elif type(content) is str:
        digest["text"] = content
    if type(role) is str and role in _ROLE_FIELDS:
        for key in _ROLE_FIELDS[role]:
            _put(digest, key, message.get(key, MISSING))
    if role == "system":
        _system_digest(digest, message)
    return digest


def _system_digest(digest: dict[str, Any], message: dict[str, Any]) -> None:
    sections = message.get("sections")
    if js_truthy(sections):
        items = sections.items() if type(sections) is dict else enumerate(sections) if type(sections) is list else ()
        digest["sections"] = {js_string(k): None if v is None else "set" for k, v in items}
    for key in ("toolsAdded", "toolsRemoved"):
        tools = message.get(key)
        if js_truthy(tools) and type(tools) is list:
            digest[key] = prepare([t.get("name", MISSING) if type(t) is dict else MISSING for t in tools])


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


def inspect_session(session: Session) -> dict[str, Any]:
    """Header, entries, leaf, branch, tree, labels, name, context and projection, as the
    oracle prints them, and ``pi``: where pi 1.6.0 fails on the file (:mod:`pi_verdict`).

    The result is ready for ``dumps(..., prepared=True)``: every value taken from the file
    went through :func:`prepare` (ids and types are strings in any file pi wrote; others are
    prepared where they are put in).
    """
    tree = session.tree()
    entries = session.entries
    # Ids, types and parents all strings (or no parent) and no id twice: every file pi writes.
    # Then the three go out as they are, with no per-entry checks.
    triples = list(map(_TRIPLE, entries))
    plain = len(session.by_id) == len(entries) and _all_plain(triples)
    children = _children_plain(tree) if plain else _children(tree)
    labels = _labels(session)
    projection = session.projection()
    messages = [message_digest(m) for p in projection for m in p.messages]
    thinking, model = session.context_settings()
    result: dict[str, Any] = {
        "header": prepare(session.header),
        "entryIds": list(map(list, triples))
        if plain
        else [[_id(e.id), _id(e.type), _id(e.parent_id)] for e in entries],
        "leafId": session.leaf_id if session.leaf_id is MISSING else _id(session.leaf_id),
        "branch": list(map(_ID, session.path_to())) if plain else [_id(e.id) for e in session.path_to()],
        "tree": {"roots": [_id(r.id) for r in tree.roots], "children": children},
        "labels": prepare(labels),
        "name": session.name,
        "context": {"model": prepare(model), "thinkingLevel": prepare(thinking), "messages": messages},
        "projection": [[_id(p.entry.id), len(p.messages)] for p in projection],
        # what pi 1.6.0 does with the file where it is not what pitui does (pitui's own key)
        "pi": [verdict.as_json() for verdict in pi_verdicts(session, projection)],
    }
    if result["leafId"] is MISSING:
        del result["leafId"]
    if thinking is MISSING:
        del result["context"]["thinkingLevel"]
    result["stats"] = stats_json(session.stats())
    return result


_TRIPLE = attrgetter("id", "type", "parent_id")
_ID = attrgetter("id")
_STR_OR_NONE = frozenset({str, type(None)})


def _all_plain(triples: list[tuple[Any, Any, Any]]) -> bool:
    """Whether every id, type and parent is a string or null (each then goes out as it is)."""
    return set(map(type, itertools.chain.from_iterable(triples))) <= _STR_OR_NONE


def _children(tree: Tree) -> dict[str, list[Any]]:
    """The tree's children as the oracle lists them, for any ids.

    The oracle flattens the tree from the roots down, so entries caught in a parentId cycle
    (unreachable from any root) are not listed; a node placed twice (duplicate ids) has the
    same children both times."""
    children: dict[str, list[Any]] = {}
    stack = list(tree.roots)
    pop, push, children_of = stack.pop, stack.extend, tree.children.get
    while stack:
        node = pop()
        kids = children_of(node.id)
        if kids is None:
            continue
        key = node.id if type(node.id) is str else _key(node.id)
        if key in children:
            continue
        ids = [k.id for k in kids]
        children[key] = ids if all(type(i) is str for i in ids) else [_id(k.id) for k in kids]
        push(kids)
    return children


def _children_plain(tree: Tree) -> dict[str, list[Any]]:
    """:func:`_children` when ids are strings and unique: each node is met once (a parentId
    cycle is never reached from a root), in the same order. Down a run of only children
    (most of a session) without the stack."""
    children: dict[str, list[Any]] = {}
    stack = list(tree.roots)
    pop, push, children_of = stack.pop, stack.extend, tree.children.get
    while stack:
        node = pop()
        kids = children_of(node.id)
        while kids is not None and len(kids) == 1:
            only = kids[0]
            children[node.id] = [only.id]
            node = only
            kids = children_of(node.id)
        if kids is not None:
            children[node.id] = list(map(_ID, kids))
            push(kids)
    return children


def _labels(session: Session) -> dict[str, Any]:
    """The labels in force, in the file order of the entries they are on."""
    labels = session.labels
    if not labels:
        return {}
    out: dict[str, Any] = {}
    for entry in session.entries:
        if entry.id in labels:
            out[_key(entry.id)] = labels[entry.id]
    return out
