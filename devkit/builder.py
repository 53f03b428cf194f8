"""Small builders for hand-made session files in tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

HEADER_ID = "11111111-2222-4333-8444-555555555555"


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
