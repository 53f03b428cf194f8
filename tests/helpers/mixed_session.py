"""A session file with odd lines of every kind, and what a read of it gives, compared between
the ways a big file is read (whole, in blocks)."""

from __future__ import annotations

import json
from typing import Any

from pitui.store.reader import Session

HEADER = {
    "type": "session",
    "version": 3,
    "id": "019c1159-7000-70ed-8ae1-96c124638736",
    "timestamp": "2026-01-31T00:00:00.000Z",
    "cwd": "/tmp/p",
}


def make_entry(i: int, parent: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"{i:08x}",
        "parentId": parent,
        "timestamp": f"2026-01-31T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
        **extra,
    }


def mixed_lines(count: int) -> list[bytes]:
    """Ordinary entries with odd lines scattered through all of them."""
    out = [json.dumps(HEADER, separators=(",", ":")).encode()]
    parent = None
    for i in range(1, count + 1):
        kind = i % 37
        if kind == 3:
            out.append(b'{"type":"message","id":"broken')  # unreadable
            continue
        if kind == 5:
            out.append(b"null")
        elif kind == 7:
            out.append(b"[1,2,3]")  # kept as an entry without id
        elif kind == 11:
            out.append(json.dumps(HEADER).encode())  # a second header
        elif kind == 13:
            out.append(b"   \t ")  # blank
        elif kind == 17:
            out.append(
                b'{"type":"label","id":"L%d","parentId":"%s","targetId":"%s","label":"x%d"}   '
                % (i, (parent or "").encode(), (parent or "").encode(), i)
            )  # trailing spaces
        elif kind == 19:
            out.append(b'{"type":"custom","id":["array"],"parentId":null}')  # an id no Map key equals
        elif kind == 23:
            out.append(
                b'{"type":"custom","id":"big%d","parentId":"%s","n":123456789012345678901234567890}'
                % (i, (parent or "").encode())
            )  # an integer orjson refuses
        elif kind == 29:
            out.append(b'{"type":"custom","id":"s%d","parentId":null,"t":"\\ud800"}' % i)  # a lone surrogate
        elif kind == 31 and parent:
            out.append(
                json.dumps(make_entry(i, parent)).encode().replace(b'"type":"message"', b'"type":"model_change"')
            )
        elif kind == 2:
            out.append(
                json.dumps(
                    make_entry(
                        i,
                        parent,
                        message={
                            "role": "assistant",
                            "provider": "p",
                            "model": "m",
                            "stopReason": "toolUse",
                            "content": [{"type": "thinking", "thinking": "hm"}, {"type": "toolCall", "id": "c"}],
                        },
                    )
                ).encode()
            )
        elif kind == 4:
            out.append(json.dumps(make_entry(i, parent, message={"role": "assistant", "content": "hello"})).encode())
        elif kind == 6:
            out.append(json.dumps(make_entry(i, f"{i - 1:08x}")).encode())  # a duplicate id follows
            out.append(json.dumps(make_entry(i, parent)).encode())
        else:
            entry = make_entry(i, parent, message={"role": "user", "content": f"line {i} " + "x" * (i % 200)})
            if i % 41 == 0:
                del entry["timestamp"]
            out.append(json.dumps(entry).encode())
        parent = f"{i:08x}"
    return out


def signature(s: Session) -> Any:
    entries = [
        (
            e.line,
            e.offset,
            e.length,
            e.type,
            repr(e.id) if not isinstance(e.id, str) else e.id,
            repr(e.parent_id),
            e.timestamp,
            e.role,
            e.provider_model,
            e.textless,
            e._data is None,
            e.data,
        )
        for e in s.entries
    ]
    return (
        entries,
        s.problems,
        s.leaf_id,
        s.unparsed,
        s.read_upto,
        s.next_line,
        s.torn_line,
        s.header,
        s.header_offset,
        dict(s.labels),
        s.original_version,
        [e.id for e in s.tree().roots if isinstance(e.id, str)],
        [e.id for e in s.path_to()],
    )
