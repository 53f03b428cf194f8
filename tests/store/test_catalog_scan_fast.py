"""The listing's fast line decoding (msgspec, only the fields a listing reads; a block's lines in
one call where each is one object) gives the rows the exact rules (orjson, then
pitui.store.jsonl) give, line for line, odd lines and odd line breaks included."""

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

    with pytest.MonkeyPatch.context() as m:
        m.setattr(scan_fields, "decode_entry", _refuse)
        m.setattr(scan_fields, "decode_lines", _refuse)
        return fast, _list(path)


def _refuse(_: object) -> None:
    raise msgspec.DecodeError("exact rules only")


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


# -- a block's lines in one call (ScanState.feed_lines) ------------------------------------------

_PLAIN = [ODD_LINES[0], ODD_LINES[1], ODD_LINES[3], ODD_LINES[4], USER.replace(b'"first"', b'"later"')]
# What can sit between or around lines, or take a line's place: each makes the one call refused
# (or undone) for its block, which is then read line by line.
_BREAKS = [
    b"",
    b"   ",
    b"\t",
    b"\r",
    b"\xc2\xa0",  # a no-break space: blank to trim(), not JSON whitespace
    b'{"type":"label"} {"type":"label"}',
    b'{"type":"label"}{"type":"label"}',
    b'{"type":"message","message":',
    b'{"role":"user","content":"spans lines"}}',
    b'{"type":"message","message":{"role":"user","content":"a"}} ',
    b' {"type":"message","message":{"role":"user","content":"lead"}}',
    b"null",
    b"{}",
    b"[]",
]


def _scan_all(path: str, chunk: int | None = None) -> tuple[object, ...]:
    with pytest.MonkeyPatch.context() as m:
        if chunk is not None:
            m.setattr(scan, "CHUNK", chunk)
        result = scan.scan_file(path)
    state = {slot: getattr(result.state, slot) for slot in scan.ScanState.__slots__}
    final = {slot: getattr(result.final, slot) for slot in scan.ScanState.__slots__}
    return state, final, result.rows, result.check


def _line_by_line(path: str, chunk: int | None = None) -> tuple[object, ...]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(scan_fields, "decode_lines", _refuse)
        return _scan_all(path, chunk)


def _exact(path: str, chunk: int | None = None) -> tuple[object, ...]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(scan_fields, "decode_lines", _refuse)
        m.setattr(scan_fields, "decode_entry", _refuse)
        return _scan_all(path, chunk)


def test_a_clean_file_is_read_in_one_call_with_each_row_at_its_line(tmp_path, monkeypatch):
    lines = [HEADER, USER, *_PLAIN, *_PLAIN]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    calls = []
    decode_lines = scan_fields.decode_lines
    monkeypatch.setattr(scan_fields, "decode_lines", lambda data: calls.append(len(data)) or decode_lines(data))
    state, final, rows, _ = _scan_all(str(path))
    # one call, for every line from the third (the header and the line after it are read first,
    # which tells that the header is one) up to the last (read on its own: it may be torn)
    assert calls == [sum(len(line) + 1 for line in lines[2:-1])]
    starts = [sum(len(line) + 1 for line in lines[:k]) for k in range(len(lines))]
    texted = [k for k, line in enumerate(lines) if b'"text":"done"' in line or b'"role":"user"' in line]
    assert [row[0] for row in rows] == [starts[k] for k in texted]
    assert final["message_count"] == len(lines) - 1 - 2 * 1  # (two session_info lines)
    assert state["offset"] == starts[-1]
    assert (state, final, rows) == _exact(str(path))[:3]


@pytest.mark.parametrize("odd", _BREAKS, ids=range(len(_BREAKS)))
@pytest.mark.parametrize("where", [2, 4, 6])
def test_an_odd_line_anywhere_reads_as_line_by_line_and_exactly(tmp_path, odd, where):
    lines = [HEADER, USER, *_PLAIN]
    lines.insert(where, odd)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert _scan_all(str(path)) == _line_by_line(str(path)) == _exact(str(path))


_layout = st.lists(
    st.sampled_from(_PLAIN) | st.sampled_from(_BREAKS) | st.sampled_from(ODD_LINES), min_size=0, max_size=14
)


@settings(max_examples=300, deadline=None)
@given(
    body=_layout,
    tail=st.sampled_from([b"\n", b"", b"\n\n", b"  ", b"\r\n"]),
    lead=st.sampled_from([b"", b"\n", b" ", b"\xef\xbb\xbf"]),
    chunk=st.sampled_from([None, 64, 200, 512]),
    grown=st.integers(min_value=0, max_value=6),
)
def test_generated_files_read_in_blocks_and_resumed_list_as_line_by_line(
    tmp_path_factory, body, tail, lead, chunk, grown
):
    """Blocks of any size, blank and odd lines anywhere, a file that grows after a first scan:
    the one call per block gives what reading line by line gives, and the exact rules."""
    path = tmp_path_factory.mktemp("gen") / "s.jsonl"
    first, later = body[: len(body) - grown] if grown else body, body[len(body) - grown :] if grown else []
    path.write_bytes(lead + b"\n".join([HEADER, USER, *first]) + tail)
    seen = _scan_all(str(path), chunk)
    assert seen == _line_by_line(str(path), chunk) == _exact(str(path), chunk)
    if later:
        with path.open("ab") as out:
            out.write(b"\n".join(later) + b"\n")
        with pytest.MonkeyPatch.context() as m:
            m.setattr(scan, "CHUNK", chunk or scan.CHUNK)
            resumed = scan.scan_file(str(path), scan.ScanState.from_blob(scan.scan_file(str(path)).state.to_blob()))
            m.setattr(scan_fields, "decode_lines", _refuse)
            again = scan.scan_file(str(path), scan.ScanState.from_blob(scan.scan_file(str(path)).state.to_blob()))
        assert resumed.rows == again.rows
        assert [getattr(resumed.final, s) for s in scan.ScanState.__slots__] == [
            getattr(again.final, s) for s in scan.ScanState.__slots__
        ]
