"""Two sessions compared as everything a caller can see of them: each entry's every field (its
``__slots__``), the problems, the lines that are not entries, the header, labels, leaf, where
reading goes on, the version read and the file's state on disk."""

from __future__ import annotations

from typing import Any

from pitui.store.js import Opaque
from pitui.store.model import Entry
from pitui.store.reader import Session


def _plain(value: Any) -> Any:
    """An Opaque id (equal only to itself) as the value it stands for, to compare two reads."""
    if isinstance(value, Opaque):
        return ("Opaque", repr(value.value))
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def entry_fields(entry: Entry, session: Session) -> tuple[Any, ...]:
    fields = []
    for name in Entry.__slots__:
        value = getattr(entry, name)
        if name == "_source":
            value = "the session's" if value is session.source else repr(value)
        fields.append((name, type(value).__name__, _plain(value)))
    return tuple(fields)


def session_facts(session: Session) -> dict[str, Any]:
    return {
        "entries": [entry_fields(e, session) for e in session.entries],
        "by_id": [_plain(k) for k in session.by_id],
        "problems": list(session.problems),
        "unparsed": list(session.unparsed),
        "header": session.header,
        "header_offset": session.header_offset,
        "labels": {_plain(k): v for k, v in session.labels.items()},
        "label_times": {_plain(k): v for k, v in session.label_times.items()},
        "leaf_id": _plain(session.leaf_id),
        "read_upto": session.read_upto,
        "next_line": session.next_line,
        "torn_line": session.torn_line,
        "original_version": session.original_version,
        "disk": session.disk,
        "path": session.path,
        "has_source": session.source is not None,
    }


def assert_same_session(got: Session, want: Session) -> None:
    got_facts, want_facts = session_facts(got), session_facts(want)
    for key in want_facts:
        if key == "entries":
            assert len(got_facts[key]) == len(want_facts[key])
            for index, (a, b) in enumerate(zip(got_facts[key], want_facts[key], strict=True)):
                assert a == b, f"entry {index} differs"
        else:
            assert got_facts[key] == want_facts[key], key
