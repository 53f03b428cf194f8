"""Hypothesis strategies for the store's property tests: valid pi sessions, and the ways a
file on disk goes wrong (cut, flipped, duplicated, torn appends, ...)."""

from __future__ import annotations

import re
from typing import Any

import orjson
from hypothesis import strategies as st

from devkit.builder import entry, header, lines, msg, ts

# ------------------------------------------------------------------------------ valid sessions

TEXT = st.text(max_size=12)
KINDS = (
    "user",
    "assistant",
    "toolResult",
    "label",
    "session_info",
    "custom",
    "custom_message",
    "model_change",
    "thinking_level_change",
    "branch_summary",
    "compaction",
)
# The reference model of the write test knows no compaction (its context would be pi's whole
# compaction rule again): its sessions are made of the rest. Its files hold only the branch
# markers pitui wrote itself, each under the entry the user chose.
MODEL_KINDS = tuple(k for k in KINDS if k != "compaction")
# What a branch summary is about (pi's getMessageFromEntry); the rest is bookkeeping.
SUMMARISED = {"message", "custom_message", "branch_summary", "compaction"}


def eid(i: int) -> str:
    return f"{0xE0000000 + i:08x}"


@st.composite
def session_objects(
    draw: Any,
    kinds: tuple[str, ...] = KINDS,
    max_entries: int = 12,
    custom_types: tuple[str, ...] = ("ext", "pitui.branch"),
) -> list[dict[str, Any]]:
    """A valid v3 session: a header and entries whose parents are mostly the previous entry,
    sometimes an earlier one (a branch), rarely none (another root)."""
    objects: list[dict[str, Any]] = [header()]
    ids: list[str] = []
    for i in range(draw(st.integers(0, max_entries))):
        new = eid(i)
        pick = draw(st.integers(0, 9))
        parent = None if not ids or pick == 0 else draw(st.sampled_from(ids)) if pick <= 2 else ids[-1]
        kind = draw(st.sampled_from(kinds))
        if kind in ("label", "compaction") and not ids:
            kind = "user"
        if kind in ("user", "assistant", "toolResult"):
            obj = msg(new, parent, kind, draw(TEXT), n=i)
        elif kind == "label":
            label = draw(st.one_of(st.none(), st.just(""), TEXT))
            fields = {"targetId": draw(st.sampled_from(ids))} | ({} if label is None else {"label": label})
            obj = entry("label", new, parent, n=i, **fields)
        elif kind == "session_info":
            obj = entry("session_info", new, parent, n=i, name=draw(TEXT))
        elif kind == "custom":
            obj = {
                "type": "custom",
                "customType": draw(st.sampled_from(custom_types)),
                "data": {"from": parent},
                "id": new,
                "parentId": parent,
                "timestamp": ts(i),
            }
        elif kind == "custom_message":
            obj = {
                "type": "custom_message",
                "customType": "ext",
                "content": draw(TEXT),
                "display": True,
                "id": new,
                "parentId": parent,
                "timestamp": ts(i),
            }
        elif kind == "model_change":
            obj = entry("model_change", new, parent, n=i, provider="p", modelId=draw(TEXT))
        elif kind == "thinking_level_change":
            obj = entry("thinking_level_change", new, parent, n=i, thinkingLevel="high")
        elif kind == "branch_summary":
            obj = entry("branch_summary", new, parent, n=i, fromId=parent or "root", summary=draw(TEXT))
        else:
            obj = entry(
                "compaction",
                new,
                parent,
                n=i,
                summary=draw(TEXT),
                firstKeptEntryId=draw(st.sampled_from(ids)),
                tokensBefore=100,
            )
        objects.append(obj)
        ids.append(new)
    return objects


# ------------------------------------------------------------------------------ mutations

MUTATIONS = (
    "flip",
    "cut",
    "duplicate",
    "swap",
    "truncate",
    "bad_utf8",
    "huge",
    "blank",
    "second_header",
    "crlf",
    "nul",
    "bom",
    "torn_append",
    "odd_value",
    "version",
)
INVALID_UTF8 = (b"\xff", b"\xfe\xfe", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80")
# JSON that parses but is no ordinary entry: pi keeps some of these as entries, chokes on others.
ODD_VALUES = (
    b"null",
    b"[1,2]",
    b'"text"',
    b"42",
    b"{}",
    b"true",
    b'{"type":"message"}',
    b'{"type":"message","id":"e0000001","parentId":"e0000001","message":null}',
    b'{"type":"label","id":"aaaaaaaa","parentId":"e0000000","targetId":[1],"label":"x"}',
    b'{"type":"message","id":[1],"parentId":{"a":1},"message":{"role":"user","content":"x"}}',
    b'{"type":"message","id":"e0000000","parentId":"e0000002","message":{"role":"user","content":[null]}}',
    b'{"type":"session_info","id":"bbbbbbbb","parentId":"e0000000","name":7}',
    b'{"type":"compaction","id":"cccccccc","parentId":"e0000001","summary":"s","firstKeptEntryId":"e0000000",'
    b'"tokensBefore":1,"retainedTail":[]}',
    b'{"type":"message","id":"dddddddd","parentId":"e0000000","message":{"role":"user","content":"\\ud800"}}',
    b'{"type":"message","id":"eeeeeeee","parentId":null,"message":{"role":"user","content":"x","timestamp":1e400}}',
)
BLANKS = (b"\n", b"   \n", b"\t\r\n", "\u00a0\n".encode(), "\ufeff\n".encode(), "\u2028\n".encode(), b"\r\n")


@st.composite
def mutated_bytes(draw: Any) -> bytes:
    data = lines(*draw(session_objects()))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(MUTATIONS))
        at = draw(st.integers(0, len(data)))
        rows = re.findall(rb"[^\n]*\n|[^\n]+$", data)
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        elif kind == "cut":
            end = draw(st.integers(at, min(len(data), at + 200)))
            data = data[:at] + data[end:]
        elif kind == "duplicate" and rows:
            i = draw(st.integers(0, len(rows) - 1))
            data = b"".join(rows[: i + 1] + rows[i:])
        elif kind == "swap" and len(rows) > 1:
            i, j = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, len(rows) - 1))
            rows[i], rows[j] = rows[j], rows[i]
            data = b"".join(rows)
        elif kind == "truncate":
            data = data[:at]
        elif kind == "bad_utf8":
            data = data[:at] + draw(st.sampled_from(INVALID_UTF8)) + data[at:]
        elif kind == "huge":
            line = draw(
                st.sampled_from(
                    [
                        b"x" * 300_000,
                        orjson.dumps(msg("ffffffff", None, "user", "y" * 300_000)),
                        b'{"type":"message","id":"fffffffe","message":{"content":"' + b"z" * 300_000,
                    ]
                )
            )
            i = draw(st.integers(0, len(rows)))
            data = b"".join(rows[:i]) + line + b"\n" + b"".join(rows[i:])
        elif kind == "blank":
            i = draw(st.integers(0, len(rows)))
            data = b"".join(rows[:i]) + draw(st.sampled_from(BLANKS)) + b"".join(rows[i:])
        elif kind == "second_header":
            i = draw(st.integers(0, len(rows)))
            data = b"".join(rows[:i]) + lines(header(id="second")) + b"".join(rows[i:])
        elif kind == "crlf":
            data = data.replace(b"\n", b"\r\n") if draw(st.booleans()) else data[:at] + b"\r\n" + data[at:]
        elif kind == "nul":
            data = data[:at] + b"\x00" * draw(st.integers(1, 64)) + data[at:]
        elif kind == "bom":
            data = "\ufeff".encode() + data
        elif kind == "odd_value":
            i = draw(st.integers(0, len(rows)))
            data = b"".join(rows[:i]) + draw(st.sampled_from(ODD_VALUES)) + b"\n" + b"".join(rows[i:])
        elif kind == "version":
            version = draw(st.sampled_from([b"1", b"2", b'"3"', b"null", b"4", b"[3]", b"2.5"]))
            data = data.replace(b'"version":3', b'"version":' + version, 1)
        elif kind == "torn_append":
            data += orjson.dumps(msg("fffffffd", eid(0), "user", "torn"))[: draw(st.integers(1, 40))]
    return data
