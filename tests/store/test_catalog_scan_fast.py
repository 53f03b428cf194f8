"""The listing's fast line decoding (msgspec, only the fields a listing reads) gives the rows the
exact rules (orjson, then pitui.store.jsonl) give, line for line, odd lines included."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.store.catalog import scan, scan_fields

HEADER = b'{"type":"session","version":3,"id":"s1","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/p"}'
USER = (
    b'{"type":"message","id":"u0","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z",'
    b'"message":{"role":"user","content":"first","timestamp":1767323046000}}'
)

ODD_LINES = [
    # the shapes pi writes
    b'{"type":"message","id":"a1","timestamp":"2026-01-02T03:05:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"x"},{"type":"text","text":"done"},{"type":"toolCall","id":"c","name":"read","arguments":{}}],"timestamp":1767323100000}}',
    b'{"type":"message","id":"t1","message":{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"out"}],"timestamp":1767323200000}}',
    b'{"type":"message","id":"s","message":{"role":"system","content":"You are"}}',
    b'{"type":"message","id":"u2","message":{"role":"user","content":[{"type":"text","text":"two"},{"type":"image","data":"AA"},{"type":"text","text":"blocks"}]}}',
    b'{"type":"session_info","id":"n","name":"  My name  "}',
    b'{"type":"session_info","id":"n","name":""}',
    b'{"type":"session_info","id":"n"}',
    # what the fast decoding does not take, which the exact rules decide
    b'{"type":"session_info","name":7}',
    b'{"type":"message","message":null}',
    b'{"type":"message"}',
    b'{"type":"message","message":"text"}',
    b'{"type":"message","message":{"role":"user","content":[null]}}',
    b'{"type":"message","message":{"role":"user","content":[{"type":"text","text":5}]}}',
    b'{"type":"message","message":{"role":"user","content":[{"type":"text","text":null}, "x", 3]}}',
    b'{"type":"message","message":{"role":"user","content":{"type":"text","text":"obj"}}}',
    b'{"type":"message","message":{"role":"user","content":7}}',
    b'{"type":"message","message":{"role":"user"}}',
    b'{"type":"message","message":{"role":"narrator","content":"who"}}',
    b'{"type":"message","message":{"content":"late role","role":"user"}}',
    b'{"type":"message","message":{"role":"user","role":"toolResult","content":"dup"}}',
    b'{"type":"message","message":{"role":"toolResult","role":"user","content":"dup"}}',
    b'{"type":"message","type":"label","message":{"role":"user","content":"dup type"}}',
    b'{"type":"message","message":{"role":"user","content":"big time","timestamp":123456789012345678901234567890}}',
    b'{"type":"message","message":{"role":"user","content":"u64 time","timestamp":18446744073709551615}}',
    b'{"type":"message","message":{"role":"user","content":"neg","timestamp":-5}}',
    b'{"type":"message","message":{"role":"user","content":"bool time","timestamp":true}}',
    b'{"type":"message","timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"entry time"}}',
    b'{"type":"message","message":{"role":"user","content":"huge","x":1e99999}}',
    b'{"type":"message","message":{"role":"user","content":"lone \\ud800 surrogate"}}',
    b'{"type":"message","message":{"role":"user","content":"ok"},"x":"\\ud800"}',
    b'{"type":"message","message":{"role":"user","content":"bad \xff utf8"}}',
    b'{"type":"message","message":{"role":"user","content":"ok"},"x":"\xff"}',
    b'{"type":"message","message":{"role":"user","content":"trailing"}}\r',
    b'{"type":"message","message":{"role":"user","content":"trailing"}}\x0b',
    b'{"type":"message","message":{"role":"user","content":"two"}} {"type":"x"}',
    b'{"type":"message","message":{"role":"user","content":"comma",}}',
    b'{"type":"message","message":{"role":"user","content":"torn"',
    b'{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":""}]}}',
    b'{"type":"message","id":5,"message":{"role":"user","content":"number id"}}',
    b"null",
    b"0",
    b'"text"',
    b"[1,2]",
]


def _write(tmp_path, lines: list[bytes]) -> str:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([HEADER, USER, *lines]) + b"\n")
    return str(path)


def _list(path: str) -> tuple[object, object, list[scan.ScanRow]]:
    result = scan.scan_file(path)
    return result.final.info(path, result.size, result.mtime_ns), result.final.reason(), result.rows


def _both(tmp_path, lines: list[bytes]) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """The listing of a file of ``lines``, fast, and with the exact rules alone."""
    path = _write(tmp_path, lines)
    fast = _list(path)

    def refuse(_: object) -> None:
        raise msgspec.DecodeError("exact rules only")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(scan_fields, "decode_entry", refuse)
        return fast, _list(path)


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_each_odd_line_lists_as_the_exact_rules_list_it(tmp_path, line):
    fast, exact = _both(tmp_path, [line, USER.replace(b'"first"', b'"after"')])
    assert fast == exact


def test_the_lines_pi_writes_list_with_their_text_and_name(tmp_path):
    info, reason, rows = _list(_write(tmp_path, ODD_LINES[:5]))
    assert reason is None
    assert info is not None
    assert (info.message_count, info.first_message, info.name) == (5, "first", "My name")
    assert [(row[1], row[2], row[3]) for row in rows] == [
        ("u0", False, "first"),
        ("a1", True, "done"),
        ("u2", False, "two blocks"),
    ]


def test_all_odd_lines_in_one_file_list_as_the_exact_rules_list_them(tmp_path):
    fast, exact = _both(tmp_path, ODD_LINES)
    assert fast == exact
    assert exact[1] is not None  # (a null message: pi does not list the file)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["user", "assistant", "toolResult", "text", "message", "session_info", ""])
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "text", "role", "x"]), inner),
    max_leaves=8,
)
_message = st.fixed_dictionaries(
    {},
    optional={
        "role": _json | st.sampled_from(["user", "assistant", "toolResult"]),
        "content": _json,
        "timestamp": _json,
    },
)
_entry = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "session_info", "label"]) | _json},
    optional={"id": _json, "timestamp": _json, "message": _message | _json, "name": _json},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_entry, min_size=1, max_size=4))
def test_generated_entries_list_as_the_exact_rules_list_them(tmp_path_factory, entries):
    tmp_path = tmp_path_factory.mktemp("gen")
    fast, exact = _both(tmp_path, [json.dumps(entry).encode() for entry in entries])
    assert fast == exact
