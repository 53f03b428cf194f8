"""Builders of pi session entries in pi's key order, for hand-made session files in tests.

Ids are given by the caller; times are fixed: entry ``n`` is stamped ``n`` seconds after
2025-01-01T00:00:00Z (:func:`ts`), its message's ``timestamp`` the same instant in milliseconds.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson

from pitui.store.ids import uuid7 as pitui_uuid7

HEADER_ID = "11111111-2222-4333-8444-555555555555"


def uuid7(rng: random.Random, ms: int) -> str:
    """A UUIDv7 session id as pi makes them (:func:`pitui.store.ids.uuid7`), for the instant
    ``ms`` and random bits drawn from ``rng``: 12 bits, then 62, so that a seed gives the same
    ids as it always did."""
    return pitui_uuid7(ms, (rng.getrandbits(12) << 62) | rng.getrandbits(62))


def header(version: int | None = 3, cwd: str = "/home/me/proj", **extra: Any) -> dict[str, Any]:
    h: dict[str, Any] = {"type": "session"}
    if version is not None:
        h["version"] = version
    h.update({"id": HEADER_ID, "timestamp": "2025-01-01T00:00:00.000Z", "cwd": cwd})
    h.update(extra)
    return h


def ts(n: int) -> str:
    return f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


def msg(id: str, parent: str | None, role: str = "user", text: str = "hi", n: int = 0, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role}
    if role == "assistant":
        message.update({"content": [{"type": "text", "text": text}], "api": "anthropic-messages",
                        "provider": "anthropic", "model": "claude-x", "stopReason": "stop"})
    elif role == "toolResult":
        message.update({"toolCallId": "call1", "toolName": "bash", "content": [{"type": "text", "text": text}],
                        "isError": False})
    else:
        message["content"] = text
    message["timestamp"] = 1735689600000 + n * 1000
    message.update(extra)
    return {"type": "message", "id": id, "parentId": parent, "timestamp": ts(n), "message": message}


def entry(type: str, id: str, parent: str | None, n: int = 0, **fields: Any) -> dict[str, Any]:
    return {"type": type, "id": id, "parentId": parent, "timestamp": ts(n), **fields}


def lines(*objects: Any) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objects)


def write(path: Path, *objects: Any, raw: bytes = b"") -> Path:
    path.write_bytes(lines(*objects) + raw)
    return path


def linear(path: Path, count: int = 4) -> Path:
    """header + alternating user/assistant messages a0..a{count-1}."""
    objects: list[Any] = [header()]
    parent = None
    for i in range(count):
        eid = f"a{i:07d}"
        objects.append(msg(eid, parent, "user" if i % 2 == 0 else "assistant", f"text {i}", n=i))
        parent = eid
    return write(path, *objects)


def call(id: str, name: str, **args: Any) -> dict[str, Any]:
    """A tool call block of an assistant message."""
    return {"type": "toolCall", "id": id, "name": name, "arguments": args}


def assistant(id: str, parent: str, n: int, *blocks: dict[str, Any], text: str = "",
              stop: str = "toolUse", **extra: Any) -> dict[str, Any]:
    """An assistant message entry: ``text`` (if any), then ``blocks`` (tool calls)."""
    content = ([{"type": "text", "text": text}] if text else []) + list(blocks)
    e = msg(id, parent, "assistant", n=n, **extra)
    e["message"]["content"] = content
    e["message"]["stopReason"] = stop
    return e


def result(id: str, parent: str, n: int, call_id: str, tool: str, text: str, error: bool = False) -> dict[str, Any]:
    """The tool result entry answering the call ``call_id``."""
    e = msg(id, parent, "toolResult", text, n=n)
    e["message"].update({"toolCallId": call_id, "toolName": tool, "isError": error})
    return e
