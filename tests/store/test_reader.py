"""Reading sessions: tolerant parsing, migration, leaf, labels, name, tree and context (pi's rules)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from devkit.builder import entry, header, lines, msg, ts, write
from pitui.store.ids import uuid7
from pitui.store.js import MISSING
from pitui.store.jsonl import BadLine, iter_lines, parse_fast, parse_line, split_lines
from pitui.store.model import NotASessionError
from pitui.store.reader import Session


def ids(entries):
    return [e.id for e in entries]


# ---------------------------------------------------------------- lines


def test_split_lines_only_on_newline_and_trims_like_javascript():
    data = "\ufeff".encode() + b'{"a":"x\xe2\x80\xa8y"}\r\n\n   \n{"b":1}\n\n'
    got = list(split_lines(data))
    assert [number for number, _, _ in got] == [1, 4]
    assert parse_line(got[0][2]) == {"a": "x\u2028y"}
    assert got[1][1] == data.index(b'{"b"')


def test_parse_line_accepts_what_json_parse_accepts_and_rejects_the_rest():
    assert parse_line(b'{"t":"\\ud800"}') == {"t": "\ud800"}  # lone surrogate escape
    assert parse_line(b'{"t":"a\xffb"}') == {"t": "a\ufffdb"}  # invalid UTF-8 becomes U+FFFD
    for bad in (b'{"t":NaN}', b'{"t":1', b"garbage", b'{"t":Infinity}'):
        with pytest.raises(BadLine):
            parse_line(bad)


@pytest.mark.parametrize("block", [1, 3, 7, 1 << 20])
def test_iter_lines_reads_a_file_in_blocks_as_it_reads_a_buffer_and_resumes(tmp_path: Path, block: int):
    data = b'{"a":1}\n  \n\n{"b":"x\xe2\x80\xa8y"}\r\n' + b"z" * 20 + b'\n{"torn'
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        for blanks in (False, True):
            whole = list(iter_lines(data, blanks=blanks))
            assert list(iter_lines(fd, 0, len(data), blanks=blanks, block=block)) == whole
            assert list(iter_lines(fd, blanks=blanks, block=block)) == whole  # to the end of the file
        assert [n for n, _, _ in iter_lines(data)] == [1, 4, 5, 6]
        _, offset, line = list(iter_lines(data))[1]
        rest = offset + len(line) + 1  # resume after line 4
        assert list(iter_lines(fd, rest, len(data), 5, block=block)) == list(iter_lines(data))[2:]
        assert list(iter_lines(data[rest:], number=5, base_offset=rest)) == list(iter_lines(data))[2:]
        blocks = []
        list(iter_lines(fd, 0, len(data), block=block, before_block=lambda: blocks.append(1)))
        assert len(blocks) == -(-len(data) // block)
    finally:
        os.close(fd)


def test_parse_fast_is_parse_line():
    for line in (b'{"t":"\\ud800"}', b'{"n":123456789012345678901234567890}', b"[1]", b" {}", b"null", b'"s"'):
        assert parse_fast(line) == parse_line(line)
    for bad in (b'{"t":NaN}', b"{", b"garbage", b"\x00" * 10, b""):
        with pytest.raises(BadLine) as fast:
            parse_fast(bad)
        with pytest.raises(BadLine) as slow:
            parse_line(bad)
        assert str(fast.value) == str(slow.value)


def test_uuid7_from_a_given_time_and_random_bits():
    got = uuid7(0x0123456789AB, (0xABC << 62) | 0x123456789ABCDEF)
    assert got == "01234567-89ab-7abc-8123-456789abcdef"
    assert uuid7()[14] == "7" and uuid7() != uuid7()


# ---------------------------------------------------------------- loading


def test_bad_and_torn_lines_are_skipped_and_reported_with_line_numbers(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    write(
        path,
        header(),
        msg("a", None),
        raw=b"not json\n\x00\x00\x00\n" + lines(msg("b", "a", n=1)) + b'{"type":"message","id":"c","parentId":"b"',
    )
    session = Session.load(str(path))
    assert ids(session.entries) == ["a", "b"]
    assert session.leaf_id == "b"
    assert [(p.line, p.reason) for p in session.problems] == [
        (3, "skipped: not valid JSON (Expecting value at column 1)"),
        (4, "skipped: a line of NUL bytes (a crash while writing?)"),
        (6, "skipped: an incomplete last line (still being written?)"),
    ]
    assert all(p.path == str(path) for p in session.problems)


def test_torn_line_followed_by_an_entry_on_the_same_line_is_skipped(tmp_path: Path):
    torn = b'{"type":"message","id":"x","parentId":"a","timestamp":"2025'
    path = write(tmp_path / "s.jsonl", header(), msg("a", None), raw=torn + lines(msg("b", "a", n=2)))
    session = Session.load(str(path))
    assert ids(session.entries) == ["a"]
    assert len(session.problems) == 1


def test_foreign_and_empty_files(tmp_path: Path):
    foreign = write(tmp_path / "f.jsonl", {"kind": "header", "version": 4}, msg("a", None))
    with pytest.raises(NotASessionError):
        Session.load(str(foreign))
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert Session.load(str(empty)).header is None
    only = write(tmp_path / "h.jsonl", header())
    session = Session.load(str(only))
    assert session.entries == [] and session.leaf_id is None and session.context().messages == []


def test_garbage_first_line_then_header_is_accepted_as_pi_does(tmp_path: Path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"}}}\n" + lines(header(), msg("a", None)))
    assert ids(Session.load(str(path)).entries) == ["a"]


def test_reading_never_writes(tmp_path: Path):
    path = write(
        tmp_path / "v1.jsonl",
        header(version=None),
        {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "x"}},
    )
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    Session.load(str(path)).context()
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_second_header_line_is_not_an_entry(tmp_path: Path):
    path = write(tmp_path / "d.jsonl", header(), msg("a", None), header(), msg("b", "a", n=1))
    session = Session.load(str(path))
    assert ids(session.entries) == ["a", "b"]


# ---------------------------------------------------------------- migration


def test_v1_becomes_a_linear_chain_with_first_kept_index_mapped(tmp_path: Path):
    v1 = [header(version=None, provider="anthropic", modelId="m", thinkingLevel="off")]
    v1 += [{"type": "message", "timestamp": ts(i), "message": {"role": "user", "content": f"m{i}"}} for i in range(3)]
    v1.append(
        {"type": "compaction", "timestamp": ts(5), "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 1000}
    )
    session = Session.load(str(write(tmp_path / "v1.jsonl", *v1)))
    assert session.header["version"] == 3 and session.migrated
    chain = session.entries
    assert [e.parent_id for e in chain] == [None, *[e.id for e in chain[:-1]]]
    assert all(len(e.id) == 8 for e in chain)
    compaction = chain[-1]
    assert compaction.get("firstKeptEntryId") == chain[1].id
    assert "firstKeptEntryIndex" not in compaction.data
    texts = [m.get("content") or m.get("summary") for m in session.context().messages]
    assert texts == ["S", "m1", "m2"]
    again = Session.load(str(tmp_path / "v1.jsonl"))
    assert [e.id for e in again.entries] == [e.id for e in chain], "ids stay the same from one read to the next"


def test_v2_hook_message_becomes_custom(tmp_path: Path):
    path = write(
        tmp_path / "v2.jsonl",
        header(version=2),
        msg("a", None, role="hookMessage", text="hook", customType="x", display=True),
    )
    session = Session.load(str(path))
    assert session.context().messages[0]["role"] == "custom"


# ---------------------------------------------------------------- tree, leaf, labels, name


def test_tree_children_sorted_by_timestamp_stably_orphans_and_self_parents_are_roots(tmp_path: Path):
    path = write(
        tmp_path / "t.jsonl",
        header(),
        msg("r", None, n=0),
        msg("late", "r", n=9),
        msg("early", "r", n=1),
        msg("tie1", "r", n=5),
        msg("tie2", "r", n=5),
        msg("orphan", "gone", n=2),
        msg("self", "self", n=3),
    )
    tree = Session.load(str(path)).tree()
    assert ids(tree.roots) == ["r", "orphan", "self"]
    assert ids(tree.children["r"]) == ["early", "tie1", "tie2", "late"]


def test_invalid_timestamps_sort_as_v8_does(tmp_path: Path):
    bad = [msg("c1", "r", n=5), entry("custom", "c2", "r", customType="x"), msg("c3", "r", n=1)]
    bad[1]["timestamp"] = "not a date"
    path = write(tmp_path / "n.jsonl", header(), msg("r", None), *bad)
    assert ids(Session.load(str(path)).tree().children["r"]) == ["c1", "c2", "c3"]


# Orders printed by node for `array.sort((x, y) => x.t - y.t)` with these keys.
@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ([float("nan"), 3, 1, float("nan"), 0], [0, 4, 2, 1, 3]),
        ([3, 2, float("nan"), 1], [3, 1, 0, 2]),
    ],
)
def test_v8_sort_with_nan_matches_node(keys, expected):
    from pitui.store.model import _v8_sort

    assert _v8_sort(list(range(len(keys))), keys) == expected


def test_leaf_is_the_last_line_whatever_its_type(tmp_path: Path):
    path = write(
        tmp_path / "l.jsonl",
        header(),
        msg("a", None),
        msg("b", "a", n=1),
        entry("label", "l1", "b", n=2, targetId="a", label="start"),
    )
    session = Session.load(str(path))
    assert session.leaf_id == "l1"
    assert ids(session.path_to()) == ["a", "b", "l1"]


def test_labels_set_change_clear_and_timestamps(tmp_path: Path):
    path = write(
        tmp_path / "l.jsonl",
        header(),
        msg("a", None),
        msg("b", "a", n=1),
        entry("label", "l1", "b", n=2, targetId="a", label="one"),
        entry("label", "l2", "l1", n=3, targetId="b", label="two"),
        entry("label", "l3", "l2", n=4, targetId="a", label="uno"),
        entry("label", "l4", "l3", n=5, targetId="b", label=""),
        entry("label", "l5", "l4", n=6, targetId="missing", label="ghost"),
    )
    session = Session.load(str(path))
    assert session.labels == {"a": "uno", "missing": "ghost"}
    assert session.label_times["a"] == ts(4)


def test_name_latest_wins_and_empty_clears(tmp_path: Path):
    path = write(tmp_path / "n.jsonl", header(), msg("a", None), entry("session_info", "s1", "a", name=" One "))
    assert Session.load(str(path)).name == "One"
    with path.open("ab") as handle:
        handle.write(lines(entry("session_info", "s2", "s1", name="")))
    assert Session.load(str(path)).name is None


def test_cycles_never_hang(tmp_path: Path):
    path = write(tmp_path / "c.jsonl", header(), msg("a", "c"), msg("b", "a", n=1), msg("c", "b", n=2))
    session = Session.load(str(path))
    assert ids(session.path_to()) == ["a", "b", "c"]
    assert session.tree().roots == []
    assert len(session.context().messages) == 3


@pytest.mark.parametrize("leaf_parent", ["c", None], ids=["into a cycle", "a plain chain"])
def test_the_path_of_an_entry_on_the_last_path_walked_is_its_own_walk(tmp_path: Path, leaf_parent):
    """The path to an entry on the path walked last is taken from that one: the same list a walk
    gives, also for the entries of a parentId cycle the last walk was cut at."""
    path = write(
        tmp_path / "w.jsonl",
        header(),
        msg("a", leaf_parent or "r", n=1),
        msg("b", "a", n=2),
        msg("c", "b", n=3),
        msg("r", None if leaf_parent is None else "c", n=4),
        msg("z", "c", n=5),
    )
    session = Session.load(str(path))
    by_id = session.by_id
    for first in ("z", "c"):
        session.path_to(first)
        for entry_id in ("r", "a", "b", "c", "z"):
            session.path_to(first)  # the long walk is the one held
            walked = session._walk_up_uncached(by_id[entry_id])
            assert ids(session.path_to(entry_id)) == ids(walked), (first, entry_id)


def test_duplicate_ids_last_wins(tmp_path: Path):
    path = write(
        tmp_path / "d.jsonl",
        header(),
        msg("a", None),
        msg("x", "a", text="first", n=1),
        msg("x", "a", text="second", n=2),
    )
    session = Session.load(str(path))
    assert session.entry("x").message["content"] == "second"
    assert ids(session.tree().children["a"]) == ["x", "x"]  # pi places the last one twice
    assert any("duplicate id" in p.reason for p in session.problems)


def test_hundred_thousand_deep_chain_needs_no_recursion():
    objects = [header()]
    parent = None
    for i in range(100_000):
        objects.append({"type": "custom", "customType": "x", "id": f"{i:08x}", "parentId": parent, "timestamp": ts(0)})
        parent = f"{i:08x}"
    session = Session.from_bytes(lines(*objects))
    assert len(session.path_to()) == 100_000
    assert len(session.tree().roots) == 1


# ---------------------------------------------------------------- context


def _context(tmp_path: Path, *objects):
    return Session.load(str(write(tmp_path / "ctx.jsonl", header(), *objects))).context()


def test_context_with_compaction_keeps_from_first_kept_entry(tmp_path: Path):
    ctx = _context(
        tmp_path,
        msg("1", None, text="one"),
        msg("2", "1", "assistant", "two", n=1),
        msg("3", "2", text="three", n=2),
        msg("4", "3", "assistant", "four", n=3),
        entry("compaction", "5", "4", n=4, summary="SUM", firstKeptEntryId="3", tokensBefore=10),
        msg("6", "5", text="six", n=5),
    )
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "user", "assistant", "user"]
    assert ctx.messages[0]["summary"] == "SUM" and ctx.messages[0]["tokensBefore"] == 10
    assert ctx.messages[1]["content"] == "three"
    assert ctx.model == {"provider": "anthropic", "modelId": "claude-x"}


def test_context_compaction_with_first_kept_not_on_path_keeps_nothing_before(tmp_path: Path):
    ctx = _context(
        tmp_path,
        msg("1", None),
        entry("compaction", "2", "1", n=1, summary="S", firstKeptEntryId="nope", tokensBefore=1),
        msg("3", "2", n=2),
    )
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "user"]


@pytest.mark.parametrize("tail", [[], [{"role": "user", "content": "kept", "timestamp": 1}]])
def test_context_ignores_a_retained_tail(tmp_path: Path, tail):
    ctx = _context(
        tmp_path,
        msg("1", None, text="old"),
        msg("2", "1", text="older", n=1),
        entry("compaction", "3", "2", n=2, summary="S", firstKeptEntryId="1", tokensBefore=5, retainedTail=tail),
        msg("4", "3", text="new", n=3),
    )
    assert [m.get("content", m.get("summary")) for m in ctx.messages] == ["S", "old", "older", "new"]


def test_context_branch_summary_custom_message_model_and_thinking(tmp_path: Path):
    ctx = _context(
        tmp_path,
        entry("model_change", "0", None, provider="openai", modelId="gpt"),
        entry("thinking_level_change", "1", "0", thinkingLevel="high"),
        msg("2", "1"),
        entry("branch_summary", "3", "2", n=1, fromId="2", summary="went elsewhere"),
        entry("branch_summary", "4", "3", n=2, fromId="3", summary=""),
        {
            "type": "custom_message",
            "customType": "note",
            "content": "c",
            "display": True,
            "id": "5",
            "parentId": "4",
            "timestamp": ts(3),
        },
        entry("custom", "6", "5", n=4, customType="state"),
        entry("label", "7", "6", n=5, targetId="2", label="x"),
    )
    assert [m["role"] for m in ctx.messages] == ["user", "branchSummary", "custom"]
    assert ctx.messages[1] == {
        "role": "branchSummary",
        "summary": "went elsewhere",
        "fromId": "2",
        "timestamp": 1735689601000.0,
    }
    assert ctx.thinking_level == "high" and ctx.model == {"provider": "openai", "modelId": "gpt"}


def test_context_explicit_null_leaf_is_empty_and_unknown_leaf_falls_back_to_last(tmp_path: Path):
    session = Session.load(str(write(tmp_path / "x.jsonl", header(), msg("1", None), msg("2", "1", n=1))))
    assert session.context(None).messages == []
    assert len(session.context("nope").messages) == 2
    assert session.context("1").messages[0]["content"] == "hi"
    assert math.isnan(float("nan")) and MISSING is not None


def test_ids_that_are_arrays_or_objects_load_and_match_nothing(tmp_path: Path):
    path = write(
        tmp_path / "u.jsonl",
        header(),
        msg("a", None),
        {**msg("x", "a", n=1), "id": ["a"]},
        {**msg("c", None, n=2), "parentId": {"x": 1}},
        entry("label", "l", "c", n=3, targetId=["a"], label="z"),
    )
    session = Session.load(str(path))
    assert len(session.entries) == 4 and len(session.tree().roots) == 2  # a, and c (unknown parent)
    assert session.label("a") is None


def test_orphans_and_cycles_are_reported(tmp_path: Path):
    path = write(
        tmp_path / "o.jsonl",
        header(),
        msg("r", None),
        msg("o", "gone", n=1),
        msg("a", "b", n=2),
        msg("b", "a", n=3),
        msg("z", "r", n=4),
    )
    reasons = [p.reason for p in Session.load(str(path)).structure_problems()]
    assert reasons == [
        "entry o: its parent gone is not in the file; shown as a root",
        "entry a is in a parentId cycle: reachable from no root",
        "entry b is in a parentId cycle: reachable from no root",
    ]


# ---------------------------------------------------------------- following a file pi is writing


def test_refresh_reads_what_pi_appended_and_waits_for_a_torn_line(tmp_path: Path):
    path = write(tmp_path / "live.jsonl", header(), msg("a", None), raw=b'{"type":"message","id":"b","par')
    session = Session.load(str(path))
    assert [e.id for e in session.entries] == ["a"]
    assert [p.reason for p in session.problems] == ["skipped: an incomplete last line (still being written?)"]
    assert session.refresh() == 0
    with path.open("ab") as handle:  # pi finishes the line, appends a label, starts another line
        handle.write(
            b'entId":"a","timestamp":"' + ts(1).encode() + b'","message":{"role":"assistant",'
            b'"content":[],"timestamp":1}}\n'
            + lines(entry("label", "l", "b", n=2, targetId="a", label="x"))
            + b'{"type":"mess'
        )
    assert session.refresh() == 2
    assert [e.id for e in session.entries] == ["a", "b", "l"] and session.leaf_id == "l"
    assert session.labels == {"a": "x"} and [e.id for e in session.path_to()] == ["a", "b", "l"]
    assert [p.line for p in session.problems] == [5]  # only the new torn line
    assert session.entry("b").message["role"] == "assistant"  # bodies are read from the grown file
    fresh = Session.load(str(path))
    assert [e.id for e in fresh.entries] == [e.id for e in session.entries]


def test_a_body_not_kept_is_read_from_the_file_by_read_data(tmp_path: Path):
    from pitui.store.model import FileChangedError

    path = write(tmp_path / "s.jsonl", header(), msg("a", None, text="first"), msg("b", "a", n=1))
    session = Session.load(str(path))
    entry = session.entry("a")
    assert entry._data is None  # a message body is not kept
    assert entry.read_data() == entry.data and entry.data["message"]["content"] == "first"
    assert Session.load(str(path), keep_bodies=True).entry("a").read_data() == entry.data
    path.write_bytes(path.read_bytes().replace(b'"id":"a"', b'"id":"z"'))  # changed in place
    with pytest.raises(FileChangedError):
        entry.read_data()


def test_refresh_refuses_a_replaced_or_shortened_file(tmp_path: Path):
    from pitui.store.model import FileChangedError

    path = write(tmp_path / "s.jsonl", header(), msg("a", None), msg("b", "a", n=1))
    session = Session.load(str(path))
    path.write_bytes(lines(header(), msg("a", None)))
    with pytest.raises(FileChangedError):
        session.refresh()


def test_following_a_file_after_our_own_append_reads_only_pi_lines(tmp_path: Path):
    from pitui.store.write.manager import SessionManager

    path = write(tmp_path / "s.jsonl", header(), msg("a", None), msg("b", "a", "assistant", n=1))
    manager = SessionManager.open(str(path))
    manager.append_label_change("a", "mine")
    with path.open("ab") as handle:
        handle.write(lines(msg("c", manager.get_leaf_id(), n=5)))
    assert manager.session.refresh() == 1
    assert [e.type for e in manager.session.entries] == ["message", "message", "label", "message"]
    manager.append_session_info("named after pi's line")  # not refused: the read is current
    assert Session.load(str(path)).name == "named after pi's line"


@pytest.mark.parametrize(
    "tail",
    [
        b"",
        b"\n\n  \n",  # blank lines after the last entry
        b'{"torn',  # a last line still being written
        b"[1]",  # a last value that is not an object, no newline
        b"[1]\n\n",
        b"garbage\n",  # an unreadable last line
        b'{"type":"message","id":"z9","parentId":"m3","message":{"role":"user","content":"end"}}',
    ],
)
@pytest.mark.parametrize("block", [None, 64])
def test_reading_goes_on_at_the_line_after_what_was_read(tmp_path: Path, monkeypatch, tail: bytes, block):
    """The next line's number is one more than the newlines read: what a refresh numbers the
    appended lines from, whether the file was read whole or in blocks."""
    rows = [header()] + [msg(f"m{i}", f"m{i - 1}" if i else None, "user", "hi") for i in range(4)]
    data = lines(*rows) + tail
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    if block is not None:
        from pitui.store import tuning

        monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 0)
        monkeypatch.setattr(tuning, "READ_BLOCK_BYTES", block)
    session = Session.load(str(path))
    assert session.next_line == data[: session.read_upto].count(b"\n") + 1
    # A last line without its newline that does not read as an entry is read again once whole.
    assert session.read_upto == len(data) - (len(tail) if tail in (b'{"torn', b"[1]") else 0)
