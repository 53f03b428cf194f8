"""Builders of pi session entries in pi's key order (§2.4 of the format reference): the one place
the development code makes an entry of a given type, for the tests, the fixture files, the
benchmark data, the random corpus and the demo sessions.

A field passed as :data:`MISSING` is left out (JavaScript ``undefined``); ``None`` is written as
``null``. Extra keys go after pi's own, in the order given.

Times. The entry builders take a ``timestamp`` that is either the ISO text to write or a number of
seconds after :data:`T0` (2026-01-05T10:00:00.000Z, :func:`iso_at`); message builders take Unix
milliseconds. The tests' short forms (:func:`msg`, :func:`entry`, :func:`assistant`,
:func:`result`, :func:`header`) count whole seconds ``n`` after 2025-01-01T00:00:00Z (:func:`ts`),
the message's ``timestamp`` the same instant in milliseconds.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from devkit.pijson import line
from pitui.store.ids import uuid7 as pitui_uuid7
from pitui.store.js import MISSING

# --------------------------------------------------------------------------------------------
# Ids, clocks, file names


def uuid7(rng: random.Random, ms: int) -> str:
    """A UUIDv7 session id as pi makes them (:func:`pitui.store.ids.uuid7`), for the instant
    ``ms`` and random bits drawn from ``rng``: 12 bits, then 62, so that a seed gives the same
    ids as it always did."""
    return pitui_uuid7(ms, (rng.getrandbits(12) << 62) | rng.getrandbits(62))


def entry_id(n: int) -> str:
    """A readable 8-hex entry id: ``e0000003`` is the third entry."""
    return f"e{n:07d}"


def file_name(header_timestamp: str, session_id: str) -> str:
    """The name pi gives a session file: the header's timestamp with ``:`` and ``.`` as ``-``."""
    return re.sub(r"[:.]", "-", header_timestamp) + "_" + session_id + ".jsonl"


T0 = datetime(2026, 1, 5, 10, 0, 0, tzinfo=UTC)


def iso_at(sec: float) -> str:
    """The ISO timestamp ``sec`` seconds after :data:`T0`, to the millisecond."""
    t = T0 + timedelta(seconds=sec)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms_at(sec: float) -> int:
    """The Unix milliseconds of ``sec`` seconds after :data:`T0`."""
    return int((T0 + timedelta(seconds=sec)).timestamp() * 1000)


def _when(t: Any) -> Any:
    return iso_at(t) if isinstance(t, int | float) else t


def ts(n: int) -> str:
    """The tests' clock: ``n`` whole seconds after 2025-01-01T00:00:00Z."""
    return f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


TS_MS = 1735689600000  # 2025-01-01T00:00:00Z, the tests' clock in milliseconds


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not MISSING}


# --------------------------------------------------------------------------------------------
# Content blocks and messages (the ``message`` of a message entry)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: Any = MISSING) -> dict[str, Any]:
    return _clean({"type": "thinking", "thinking": thinking, "thinkingSignature": signature})


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def user_message(content: Any, timestamp: Any) -> dict[str, Any]:
    """A user message; ``content`` as given (a string or blocks)."""
    return {"role": "user", "content": content, "timestamp": timestamp}


def assistant_message(
    content: list[Any],
    *,
    model: str,
    timestamp: Any,
    api: str = "anthropic-messages",
    provider: str = "anthropic",
    usage: Any = MISSING,
    stop: str = "stop",
    **extra: Any,
) -> dict[str, Any]:
    """An assistant message; ``extra`` (``errorMessage``, ``responseId`` ...) after ``timestamp``."""
    message = {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": usage,
        "stopReason": stop,
        "timestamp": timestamp,
    }
    if usage is MISSING:
        del message["usage"]
    if extra:
        message.update(extra)
    return message


def tool_result_message(
    call_id: str, tool: str, content: Any, timestamp: Any, *, is_error: bool = False, details: Any = MISSING
) -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": tool, "content": content}
    if details is not MISSING:
        message["details"] = details
    message["isError"] = is_error
    message["timestamp"] = timestamp
    return message


def bash_execution_message(
    command: str,
    output: str,
    exit_code: int,
    timestamp: Any,
    *,
    cancelled: bool = False,
    truncated: bool = False,
    exclude: bool = False,
) -> dict[str, Any]:
    """A command the user ran with ``!`` (``exclude``: ``!!``, left out of the model's context)."""
    message = {
        "role": "bashExecution",
        "command": command,
        "output": output,
        "exitCode": exit_code,
        "cancelled": cancelled,
        "truncated": truncated,
        "timestamp": timestamp,
    }
    if exclude:
        message["excludeFromContext"] = True
    return message


# --------------------------------------------------------------------------------------------
# Entries, one builder per type. ``timestamp``: ISO text or seconds after T0 (see above).


def header(version: Any = 3, cwd: str = "/home/me/proj", **extra: Any) -> dict[str, Any]:
    """The session header. ``version`` None or MISSING: no version key (a v1 file). ``extra``
    may replace ``id`` (default :data:`HEADER_ID`) and ``timestamp`` (the tests' clock at 0) in
    place, or add keys after ``cwd`` (``parentSession``, ...)."""
    h: dict[str, Any] = {"type": "session"}
    if version is not None and version is not MISSING:
        h["version"] = version
    h["id"] = HEADER_ID
    h["timestamp"] = "2025-01-01T00:00:00.000Z"
    h["cwd"] = cwd
    if extra:
        h.update(extra)
        return _clean(h)
    return h


HEADER_ID = "11111111-2222-4333-8444-555555555555"


def message(i: Any, parent: Any, timestamp: Any, body: Any) -> dict[str, Any]:
    """A message entry holding ``body`` (a user, assistant, toolResult ... message)."""
    return _clean({"type": "message", "id": i, "parentId": parent, "timestamp": _when(timestamp), "message": body})


def model_change(
    i: str, parent: str | None, timestamp: Any, provider: str = "anthropic", model: str = "claude-sonnet-4-5"
) -> dict[str, Any]:
    return {
        "type": "model_change",
        "id": i,
        "parentId": parent,
        "timestamp": _when(timestamp),
        "provider": provider,
        "modelId": model,
    }


def thinking_level_change(i: str, parent: str | None, timestamp: Any, level: str = "medium") -> dict[str, Any]:
    return {
        "type": "thinking_level_change",
        "id": i,
        "parentId": parent,
        "timestamp": _when(timestamp),
        "thinkingLevel": level,
    }


def label(i: str, parent: str | None, timestamp: Any, target: Any, value: Any = MISSING) -> dict[str, Any]:
    """A label on ``target``; no ``value`` (or ``""``) clears it."""
    t = _when(timestamp)
    return _clean({"type": "label", "id": i, "parentId": parent, "timestamp": t, "targetId": target, "label": value})


def session_info(i: str, parent: str | None, timestamp: Any, name: Any) -> dict[str, Any]:
    return _clean({"type": "session_info", "id": i, "parentId": parent, "timestamp": _when(timestamp), "name": name})


READ_APP = {"readFiles": ["src/app.py"], "modifiedFiles": []}  # the default details of a compaction
EDIT_APP = {"readFiles": ["src/app.py"], "modifiedFiles": ["src/app.py"]}  # ... of a branch summary


def compaction(
    i: str,
    parent: str | None,
    timestamp: Any,
    summary: str,
    first_kept: Any = MISSING,
    tokens: Any = 48_210,
    retained: Any = MISSING,
    *,
    details: Any = READ_APP,
    usage: Any = MISSING,
    from_hook: Any = MISSING,
) -> dict[str, Any]:
    """A compaction: ``first_kept`` (``firstKeptEntryId``) and ``retained`` (``retainedTail``,
    the newer format) are optional, as in pi."""
    return _clean(
        {
            "type": "compaction",
            "id": i,
            "parentId": parent,
            "timestamp": _when(timestamp),
            "summary": summary,
            "firstKeptEntryId": first_kept,
            "tokensBefore": tokens,
            "details": details,
            "usage": usage,
            "fromHook": from_hook,
            "retainedTail": retained,
        }
    )


def branch_summary(
    i: str,
    parent: str | None,
    timestamp: Any,
    from_id: Any,
    summary: str,
    details: Any = EDIT_APP,
    *,
    from_hook: Any = MISSING,
) -> dict[str, Any]:
    return _clean(
        {
            "type": "branch_summary",
            "id": i,
            "parentId": parent,
            "timestamp": _when(timestamp),
            "fromId": from_id,
            "summary": summary,
            "details": details,
            "fromHook": from_hook,
        }
    )


def custom(i: str, parent: str | None, timestamp: Any, custom_type: str, data: Any = MISSING) -> dict[str, Any]:
    """An extension's state; pi writes ``customType`` and ``data`` before the id."""
    return _clean(
        {
            "type": "custom",
            "customType": custom_type,
            "data": data,
            "id": i,
            "parentId": parent,
            "timestamp": _when(timestamp),
        }
    )


def custom_message(
    i: str,
    parent: str | None,
    timestamp: Any,
    custom_type: str,
    content: Any,
    display: bool,
    details: Any = MISSING,
) -> dict[str, Any]:
    """A message from an extension; pi writes its fields before the id."""
    return _clean(
        {
            "type": "custom_message",
            "customType": custom_type,
            "content": content,
            "display": display,
            "details": details,
            "id": i,
            "parentId": parent,
            "timestamp": _when(timestamp),
        }
    )


# --------------------------------------------------------------------------------------------
# Short forms of the fixture files (tests/fixtures): readable ids (entry_id), the T0 clock,
# Anthropic messages with USAGE.

FIXTURE_CWD = "/home/user/projects/fixture"
FIXTURE_SESSION_ID = "0f6c1a52-3d4e-4b8a-9c21-7e5f0a1b2c3d"

USAGE = {
    "input": 3,
    "output": 42,
    "cacheRead": 2048,
    "cacheWrite": 120,
    "totalTokens": 2213,
    "cost": {"input": 0.000009, "output": 0.00063, "cacheRead": 0.0006144, "cacheWrite": 0.00045, "total": 0.0017034},
}


def fixture_header(version: Any = 3, **extra: Any) -> dict[str, Any]:
    """The header of a fixture file: its session id, T0, :data:`FIXTURE_CWD`."""
    return header(version, FIXTURE_CWD, id=FIXTURE_SESSION_ID, timestamp=iso_at(0), **extra)


def user_msg(text: Any, t: float) -> dict[str, Any]:
    """A user message at second ``t``; a string becomes one text block."""
    return user_message([text_block(text)] if isinstance(text, str) else text, ms_at(t))


def assistant_msg(
    text: str | None,
    t: float,
    stop: str = "stop",
    tool: tuple[str, str, dict[str, Any]] | None = None,
    model: str = "claude-sonnet-4-5",
) -> dict[str, Any]:
    """An Anthropic assistant message at second ``t``: ``text`` if any, then the call ``tool``
    (id, name, arguments) if any, with :data:`USAGE`."""
    content: list[dict[str, Any]] = []
    if text:
        content.append(text_block(text))
    if tool:
        content.append(tool_call(*tool))
    return assistant_message(content, model=model, usage=USAGE, stop=stop, timestamp=ms_at(t))


def tool_result_msg(call: str, name: str, text: str, t: float, is_error: bool = False) -> dict[str, Any]:
    return tool_result_message(call, name, [text_block(text)], ms_at(t), is_error=is_error)


def user_entry(i: str, parent: Any, t: float, text: Any) -> dict[str, Any]:
    """A user message entry at second ``t``, its message 2 ms earlier."""
    return message(i, parent, t, user_msg(text, t - 0.002))


def assistant_entry(i: str, parent: Any, t: float, text: str | None, **kw: Any) -> dict[str, Any]:
    """An assistant message entry at second ``t``, its message 2 s earlier (:func:`assistant_msg`)."""
    return message(i, parent, t, assistant_msg(text, t - 2, **kw))


def start(n: int = 2) -> list[dict[str, Any]]:
    """What a real pi file starts with: model_change and thinking_level_change (ids 1, 2)."""
    out = [model_change(entry_id(1), None, 0.01)]
    if n > 1:
        out.append(thinking_level_change(entry_id(2), entry_id(1), 0.012))
    return out


def chat(first: int, parent: str, t: float, pairs: int) -> list[dict[str, Any]]:
    """``pairs`` user/assistant exchanges, ids first, first+1, ...; returns the entries."""
    out = []
    for k in range(pairs):
        u, a = first + 2 * k, first + 2 * k + 1
        out.append(user_entry(entry_id(u), parent, t + 20 * k, f"Question {k + 1}"))
        out.append(assistant_entry(entry_id(a), entry_id(u), t + 20 * k + 5, f"Answer {k + 1}"))
        parent = entry_id(a)
    return out


# --------------------------------------------------------------------------------------------
# Short forms of the tests: ids given by the caller, the tests' clock (ts).


def msg(id: str, parent: str | None, role: str = "user", text: Any = "hi", n: int = 0, **extra: Any) -> dict[str, Any]:
    """A message entry at second ``n``: user (``text`` as the content), assistant (one text
    block, no usage) or toolResult (of ``call1``, bash); ``extra`` replaces or adds message keys."""
    t = TS_MS + n * 1000
    body: dict[str, Any]
    if role == "assistant":
        body = assistant_message([text_block(text)], model="claude-x", timestamp=t)
    elif role == "toolResult":
        body = tool_result_message("call1", "bash", [text_block(text)], t)
    else:
        body = user_message(text, t)
        body["role"] = role
    if extra:
        body.update(extra)
    return {"type": "message", "id": id, "parentId": parent, "timestamp": ts(n), "message": body}


def entry(type: str, id: str, parent: str | None, n: int = 0, **fields: Any) -> dict[str, Any]:
    """An entry of any ``type`` at second ``n``, its fields in the order given."""
    return {"type": type, "id": id, "parentId": parent, "timestamp": ts(n), **fields}


def call(id: str, name: str, **args: Any) -> dict[str, Any]:
    """A tool call block of an assistant message."""
    return tool_call(id, name, args)


def assistant(
    id: str, parent: str, n: int, *blocks: dict[str, Any], text: str = "", stop: str = "toolUse", **extra: Any
) -> dict[str, Any]:
    """An assistant message entry: ``text`` (if any), then ``blocks`` (tool calls)."""
    e = msg(id, parent, "assistant", n=n, **extra)
    e["message"]["content"] = ([text_block(text)] if text else []) + list(blocks)
    e["message"]["stopReason"] = stop
    return e


def result(id: str, parent: str, n: int, call_id: str, tool: str, text: str, error: bool = False) -> dict[str, Any]:
    """The tool result entry answering the call ``call_id``."""
    e = msg(id, parent, "toolResult", text, n=n)
    e["message"].update({"toolCallId": call_id, "toolName": tool, "isError": error})
    return e


# --------------------------------------------------------------------------------------------
# Lines and files


def pi_lines(*objects: Any) -> bytes:
    """JSONL as pi writes it (``JSON.stringify``, :mod:`devkit.pijson`: ``1.0`` is ``1``, lone
    surrogates escaped); bytes go in as they are. The fixture files are written with it."""
    return b"".join(o if isinstance(o, bytes) else line(o) for o in objects)


def lines(*objects: Any) -> bytes:
    """JSONL in orjson's spelling (``1.0`` stays ``1.0``), as the tests' files are written."""
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
