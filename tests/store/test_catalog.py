"""The session catalog: pi's listing rules, the cache, growth, damage, and search over it."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

import pitui.store.catalog.catalog as catalog_mod
import pitui.store.catalog.search as search_mod
import pitui.store.catalog.workers as workers_mod
from pitui.store.catalog import Catalog, ScanState, build_session_info, scan_file
from pitui.store.js import iso_ms, js_date_parse, js_number_string
from pitui.store.query import QueryError

T0 = "2025-01-02T03:04:05.678Z"
T0_MS = 1735787045678.0


def line(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def header(sid="s1", cwd="/home/me/proj", ts=T0, **extra) -> dict:
    return {"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": cwd, **extra}


def msg(eid, role, content, ts=None, entry_ts="2025-01-02T03:05:00.000Z", parent=None, **extra) -> dict:
    message = {"role": role, "content": content, **extra}
    if ts is not None:
        message["timestamp"] = ts
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": entry_ts, "message": message}


def write(path: Path, *entries, raw: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line(e) for e in entries) + raw, encoding="utf-8")
    return path


def info_of(path: Path):
    return build_session_info(str(path))


@pytest.fixture
def cat(tmp_path):
    c = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"))
    yield c
    c.close()


# -- buildSessionInfo rules ---------------------------------------------------------------------------


def test_fields_of_a_plain_session(tmp_path):
    p = write(
        tmp_path / "a.jsonl",
        header(parentSession="/x/parent.jsonl"),
        {"type": "model_change", "id": "m1", "parentId": None, "timestamp": T0, "provider": "p", "modelId": "m"},
        msg("u1", "user", "hello there", ts=1735787100000),
        msg(
            "a1",
            "assistant",
            [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "hi"},
                {"type": "toolCall", "id": "t", "name": "read", "arguments": {}},
                {"type": "text", "text": "again"},
            ],
            ts=1735787200000,
        ),
        msg("r1", "toolResult", [{"type": "text", "text": "file body"}], ts=1735787300000),
        {
            "type": "message",
            "id": "b1",
            "parentId": None,
            "timestamp": T0,
            "message": {"role": "bashExecution", "command": "ls", "output": "x"},
        },
    )
    info = info_of(p)
    assert info is not None
    assert info.to_json() == {
        "path": str(p),
        "id": "s1",
        "cwd": "/home/me/proj",
        "name": None,
        "parentSessionPath": "/x/parent.jsonl",
        "created": "2025-01-02T03:04:05.678Z",
        # the last user/assistant activity, not the toolResult's
        "modified": iso_ms(1735787200000),
        "messageCount": 4,  # toolResult and bashExecution count too
        "firstMessage": "hello there",
    }
    # the text pi searches: text blocks joined with spaces, messages joined with spaces
    rows = scan_file(str(p)).rows
    assert [r[3] for r in rows] == ["hello there", "hi again"]


def test_first_message_is_first_user_message_with_text(tmp_path):
    p = write(
        tmp_path / "a.jsonl",
        header(),
        msg("a0", "assistant", "assistant first"),
        msg("u0", "user", ""),
        msg("u1", "user", [{"type": "image", "data": "..."}]),
        msg("u2", "user", [{"type": "text", "text": "real"}]),
    )
    assert info_of(p).first_message == "real"
    assert info_of(write(tmp_path / "b.jsonl", header())).first_message == "(no messages)"


def test_name_latest_session_info_wins_and_empty_clears(tmp_path):
    named = {"type": "session_info", "id": "i1", "parentId": None, "timestamp": T0, "name": "  First  "}
    p = write(tmp_path / "a.jsonl", header(), named)
    assert info_of(p).name == "First"
    cleared = dict(named, id="i2", name="   ")
    assert info_of(write(tmp_path / "b.jsonl", header(), named, cleared)).name is None
    missing = {k: v for k, v in named.items() if k != "name"}
    assert info_of(write(tmp_path / "c.jsonl", header(), named, missing)).name is None


def test_modified_falls_back_to_entry_timestamp_header_then_mtime(tmp_path):
    # no numeric message timestamp: the entry's ISO timestamp
    p = write(tmp_path / "a.jsonl", header(), msg("u", "user", "x", entry_ts="2025-02-01T00:00:00.000Z"))
    assert info_of(p).modified == js_date_parse("2025-02-01T00:00:00.000Z")
    # no messages: the header timestamp
    assert info_of(write(tmp_path / "b.jsonl", header())).modified == T0_MS
    # invalid header timestamp: the file's mtime (ms, truncated); created is invalid
    p = write(tmp_path / "c.jsonl", header(ts="not a date"))
    os.utime(p, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    info = info_of(p)
    assert info.modified == 1_700_000_000_123.0
    assert info.created is None and info.to_json()["created"] is None
    # model and label entries never count as activity; a message without content neither
    p = write(
        tmp_path / "d.jsonl",
        header(),
        {
            "type": "message",
            "id": "x",
            "parentId": None,
            "timestamp": "2030-01-01T00:00:00.000Z",
            "message": {"role": "user", "timestamp": 1900000000000},
        },
        {
            "type": "label",
            "id": "l",
            "parentId": None,
            "timestamp": "2031-01-01T00:00:00.000Z",
            "targetId": "x",
            "label": "k",
        },
    )
    assert info_of(p).modified == T0_MS
    # negative activity is not activity
    assert info_of(write(tmp_path / "e.jsonl", header(), msg("u", "user", "x", ts=-5))).modified == T0_MS


def test_lines_are_split_and_skipped_like_pi(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(
        b"\xef\xbb\xbf\n  \n"  # a BOM and blank lines before the header: trim() drops them
        + line(header()).encode()
        + b"{not json\n"
        + b"\xa0\n"  # a line that is only (JavaScript) whitespace
        + line(msg("u", "user", "line\u2028separator")).encode()
        + line(msg("v", "user", "second")).encode()[:-1]
        + "\u00a0".encode()  # trailing whitespace on the last line: trim() removes it
    )
    info = info_of(p)
    assert info is not None and info.message_count == 2 and info.first_message == "line\u2028separator"


def test_garbage_first_line_then_header_is_accepted(tmp_path):
    p = write(tmp_path / "a.jsonl", header(), raw="")
    p.write_text("garbage\n" + p.read_text())
    assert info_of(p) is not None


@pytest.mark.parametrize(
    "bad",
    [
        [msg("u", "user", "x")],  # first parsed line is not a header
        [header(), {"type": "message", "id": "m", "parentId": None, "timestamp": T0}],  # no message
        [header(), msg("u", "user", {"not": "a list"})],  # content.filter is not a function
        [header(), msg("u", "user", [None])],  # null content block
        [header(), {"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": 5}],
    ],
)
def test_files_pi_drops(tmp_path, cat, bad):
    p = write(tmp_path / "agent" / "sessions" / "--p--" / "a.jsonl", *bad)
    assert info_of(p) is None
    assert cat.list_dir(str(p.parent)) == []
    assert [pr.path for pr in cat.problems] == [str(p)]


def test_odd_values_pi_tolerates(tmp_path):
    p = write(
        tmp_path / "a.jsonl",
        header(sid=42),
        5,
        "str",
        [1, 2],
        {"type": "message", "id": "m", "parentId": None, "timestamp": T0, "message": "text"},
        msg("u", "user", [{"type": "text", "text": 7}, {"type": "text"}, 3, {"type": "text", "text": [1, None]}]),
    )
    info = info_of(p)
    assert info.id == 42 and info.id_text == "42"
    assert info.message_count == 2
    assert info.first_message == "7  1,"


def test_js_dates_and_numbers():
    assert js_date_parse("2025-01-02") == 1735776000000
    assert js_date_parse("2025-01-02T24:00:00Z") == 1735862400000
    assert js_date_parse("2025-01-02T03:04:05.6789Z") == 1735787045678
    assert js_date_parse("2025-01-02T03:04:05+01:00") == 1735783445000
    assert js_date_parse("+002025-01-02T00:00:00Z") == 1735776000000
    assert js_date_parse("2025-01-02T03Z") is None
    assert js_date_parse("2025-13-01") is None
    assert iso_ms(-62198755200000) == "-000001-01-01T00:00:00.000Z"
    # Either side of the C library's range (1970 to 9999), where the text is made another way
    assert iso_ms(-1) == "1969-12-31T23:59:59.999Z"
    assert iso_ms(0.9) == "1970-01-01T00:00:00.000Z"
    assert iso_ms(951782400123) == "2000-02-29T00:00:00.123Z"
    assert iso_ms(253402300799999) == "9999-12-31T23:59:59.999Z"
    assert iso_ms(253402300800000) == "+010000-01-01T00:00:00.000Z"
    assert iso_ms(8.64e15) == "+275760-09-13T00:00:00.000Z"
    assert iso_ms(8.64e15 + 1) is None
    assert [js_number_string(x) for x in (1e21, 1e-7, 1e-6, 123456789012345680000.0, 0.1 + 0.2, 5.0)] == [
        "1e+21",
        "1e-7",
        "0.000001",
        "123456789012345680000",
        "0.30000000000000004",
        "5",
    ]


# -- listing and folders ------------------------------------------------------------------------------


def test_list_uses_the_default_folder_and_never_creates_it(tmp_path, cat, monkeypatch):
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    folder = tmp_path / "agent" / "sessions" / "--home-me-proj--"
    assert cat.list("/home/me/proj") == []
    assert not folder.exists()
    write(folder / "b.jsonl", header("b"), msg("u", "user", "x", ts=2000))
    write(folder / "a.jsonl", header("a"), msg("u", "user", "x", ts=3000))
    write(folder / "c.jsonl", header("c"), msg("u", "user", "x", ts=2000))
    (folder / "notes.txt").write_text("not a session")
    (folder / "dir.jsonl").mkdir()
    # modified desc, ties by file name descending (pi 1.6: b.localeCompare(a))
    assert [i.id for i in cat.list("/home/me/proj")] == ["a", "c", "b"]


def test_custom_folder_is_filtered_by_header_cwd(tmp_path, cat):
    custom = tmp_path / "custom"
    write(custom / "1.jsonl", header("mine", cwd="/home/me/proj"))
    write(custom / "2.jsonl", header("other", cwd="/elsewhere"))
    write(custom / "3.jsonl", header("empty", cwd=""))
    write(custom / "4.jsonl", header("trailing", cwd="/home/me/proj/"))
    got = cat.list("/home/me/proj", session_dir=str(custom))
    assert sorted(i.id for i in got) == ["mine", "trailing"]
    assert len(cat.list_dir(str(custom))) == 4


def test_list_all_reads_only_immediate_subfolders(tmp_path, cat):
    root = tmp_path / "agent" / "sessions"
    write(root / "--a--" / "1.jsonl", header("one"))
    write(root / "--b--" / "2.jsonl", header("two"))
    write(root / "loose.jsonl", header("loose"))
    write(root / "--a--" / "deeper" / "3.jsonl", header("deep"))
    os.symlink(root / "--b--", root / "--link--")
    progress = []
    got = cat.list_all(on_progress=lambda done, total: progress.append((done, total)))
    # a symbolic link to a folder is a project folder too (pi 1.6's listAll)
    assert sorted(i.path for i in got) == sorted(
        str(p) for p in (root / "--a--" / "1.jsonl", root / "--b--" / "2.jsonl", root / "--link--" / "2.jsonl")
    )
    assert progress == [(1, 3), (2, 3), (3, 3)]


def test_falsy_json_lines_are_skipped_and_the_file_listed(tmp_path, cat):
    # pi 1.6 skips null, false, 0 and "" lines (``if (!entry) continue``), before the header too
    p = write(tmp_path / "s" / "a.jsonl", None, header("a"), None, False, 0, "", msg("u", "user", "hi"))
    [info] = cat.list_dir(str(p.parent))
    assert (info.id, info.message_count, info.first_message) == ("a", 1, "hi")
    truthy = write(tmp_path / "t" / "b.jsonl", 1, header("b"))  # a truthy first value is no header
    assert cat.list_dir(str(truthy.parent)) == []


def test_lone_cr_does_not_end_a_line(tmp_path, cat):
    # pi 1.6's listing (readline) would end the line at the CR and see one message; opening the
    # file sees two, and so does pitui's listing
    folder = tmp_path / "s"
    folder.mkdir()
    data = line(header("a")) + "\n" + line(msg("u", "user", "one")) + "\r" + " " + "\n" + line(msg("v", "user", "two"))
    (folder / "a.jsonl").write_text(data + "\n")
    [info] = cat.list_dir(str(folder))
    assert info.message_count == 2


def test_all_projects_ties_by_mtime_then_file_name(tmp_path, cat):
    root = tmp_path / "agent" / "sessions"
    paths = [
        write(root / "--a--" / "x.jsonl", header("ax"), msg("u", "user", "m", ts=5000)),
        write(root / "--b--" / "y.jsonl", header("by"), msg("u", "user", "m", ts=5000)),
        write(root / "--c--" / "z.jsonl", header("cz"), msg("u", "user", "m", ts=5000)),
        write(root / "--c--" / "Y.jsonl", header("cY"), msg("u", "user", "m", ts=5000)),
    ]
    for path, ns in zip(paths, (3, 1, 2, 1), strict=True):
        os.utime(path, ns=(ns * 10**18,) * 2)
    # same modified: newest mtime first, then the base name by localeCompare, descending
    assert [i.id for i in cat.list_all()] == ["ax", "cz", "cY", "by"]
    assert [i.id for i in cat.cached_all()] == ["ax", "cz", "cY", "by"]


def test_current_folder_ties_by_locale_order_of_names(tmp_path, cat):
    folder = tmp_path / "s"
    for name in ("a_b", "a-b", "ab", "aB", "Ab", "a b", "a1"):
        write(folder / f"{name}.jsonl", header(name))
    # ICU: space, "_", "-" before digits before letters; case only breaks ties, lower first
    expected = ["Ab", "aB", "ab", "a1", "a-b", "a_b", "a b"]
    assert [i.id for i in cat.list_dir(str(folder))] == expected
    assert [i.id for i in cat.cached_dir(str(folder))] == expected


def test_list_all_without_sessions_folder(cat):
    assert cat.list_all() == []


def test_vanished_and_unreadable_files_are_problems_not_crashes(tmp_path, cat):
    folder = tmp_path / "s"
    write(folder / "ok.jsonl", header("ok"))
    os.symlink(folder / "gone", folder / "gone.jsonl")
    got = cat.list_dir(str(folder))
    assert [i.id for i in got] == ["ok"]
    assert [(Path(p.path).name, "vanished" in p.reason) for p in cat.problems] == [("gone.jsonl", True)]


def test_file_vanishing_between_stat_and_read(tmp_path, cat, monkeypatch):
    folder = tmp_path / "s"
    p = write(folder / "a.jsonl", header("a"))
    real = workers_mod.scan_file

    def vanish(path, *args, **kwargs):
        os.remove(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(workers_mod, "scan_file", vanish)
    assert cat.list_dir(str(folder)) == []
    assert cat.problems[0].path == str(p)


# -- the cache ----------------------------------------------------------------------------------------


def forbid_reads(monkeypatch):
    def no(*args, **kwargs):
        raise AssertionError("a cached file was read")

    monkeypatch.setattr(catalog_mod, "scan_job", no)


def test_unchanged_files_come_from_the_cache_without_reading(tmp_path, monkeypatch):
    folder = tmp_path / "agent" / "sessions" / "--p--"
    p = write(folder / "a.jsonl", header(), msg("u", "user", "hello", ts=5000))
    first = Catalog(str(tmp_path / "agent"), str(tmp_path / "cache")).list_all()
    forbid_reads(monkeypatch)
    os.chmod(p, 0)  # (root can still read it: the patched scanner is the proof)
    again = Catalog(str(tmp_path / "agent"), str(tmp_path / "cache"))
    assert [i.to_json() for i in again.list_all()] == [i.to_json() for i in first]
    assert again.stats["hits"] == 1 and again.stats["scanned"] == 0


def test_rejected_files_are_cached_too(tmp_path, monkeypatch):
    folder = tmp_path / "s"
    write(folder / "a.jsonl", msg("u", "user", "no header"))
    Catalog(cache_dir=str(tmp_path / "cache")).list_dir(str(folder))
    forbid_reads(monkeypatch)
    c = Catalog(cache_dir=str(tmp_path / "cache"))
    assert c.list_dir(str(folder)) == []
    assert "session header" in c.problems[0].reason


def test_grown_file_is_read_from_where_the_last_scan_stopped(tmp_path, cat, monkeypatch):
    folder = tmp_path / "s"
    p = write(folder / "a.jsonl", header(), msg("u1", "user", "first", ts=1000))
    cat.list_dir(str(folder))
    size_before = p.stat().st_size
    with p.open("a") as f:
        f.write(line(msg("a1", "assistant", "answer", ts=2000)))
        f.write(line({"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": "N"}))
    starts = []
    real = workers_mod.scan_file

    def spy(path, state=None, *args, **kwargs):
        starts.append(state.offset if state else 0)
        return real(path, state, *args, **kwargs)

    monkeypatch.setattr(workers_mod, "scan_file", spy)
    got = cat.list_dir(str(folder))
    assert cat.stats["resumed"] == 1
    assert 0 < starts[0] < size_before  # from the start of the last line, not from 0
    assert got[0].to_json() == info_of(p).to_json()
    assert (got[0].message_count, got[0].name, got[0].modified) == (2, "N", 2000)
    assert [t for _, _, t in cat.messages(got[0])] == ["first", "answer"]


def test_torn_last_line_is_not_counted_then_read_again(tmp_path, cat):
    folder = tmp_path / "s"
    full = line(msg("u2", "user", "second", ts=3000))
    p = write(folder / "a.jsonl", header(), msg("u1", "user", "first", ts=1000), raw=full[:25])
    got = cat.list_dir(str(folder))
    assert got[0].message_count == 1 and got[0].modified == 1000
    with p.open("a") as f:
        f.write(full[25:])
    got = cat.list_dir(str(folder))
    assert cat.stats["resumed"] == 1
    assert got[0].message_count == 2 and got[0].modified == 3000
    assert got[0].to_json() == info_of(p).to_json()
    assert [t for _, _, t in cat.messages(got[0])] == ["first", "second"]


def test_growth_resume_equals_a_fresh_scan_at_every_cut(tmp_path):
    entries = [
        header(),
        msg("u1", "user", "one", ts=1),
        {"type": "session_info", "name": "A"},
        None,
        msg("u2", "user", "two", ts=5),
    ]
    data = b"\xef\xbb\xbf" + "".join(line(e) for e in entries).encode()
    p = tmp_path / "a.jsonl"
    for cut in range(0, len(data) + 1, 7):
        p.write_bytes(data[:cut])
        first = scan_file(str(p))
        p.write_bytes(data)
        resumed = scan_file(str(p), first.state)
        fresh = scan_file(str(p))
        assert resumed.final.info("x", 0, 0) == fresh.final.info("x", 0, 0), cut
        assert resumed.final.reason() == fresh.final.reason()


def test_state_round_trips(tmp_path):
    p = write(tmp_path / "a.jsonl", header(sid=None), msg("u", "user", "x", ts=1))
    state = scan_file(str(p)).state
    back = ScanState.from_blob(state.to_blob())
    assert {s: getattr(back, s) for s in ScanState.__slots__} == {s: getattr(state, s) for s in ScanState.__slots__}


def test_replaced_or_shrunk_files_are_read_again_whole(tmp_path, cat):
    folder = tmp_path / "s"
    p = write(folder / "a.jsonl", header("old"), msg("u", "user", "x" * 50))
    cat.list_dir(str(folder))
    # same size, other content, new inode (an atomic rewrite)
    q = write(folder / "tmp", header("new"), msg("u", "user", "y" * 50))
    os.replace(q, p)
    assert cat.list_dir(str(folder))[0].id == "new"
    assert cat.stats["scanned"] == 2 and cat.stats["resumed"] == 0
    # shrunk in place
    write(p, header("short"))
    assert cat.list_dir(str(folder))[0].id == "short"
    assert cat.stats["scanned"] == 3
    # grown, but the old part changed: not resumable
    with p.open("r+") as f:
        text = f.read()
        f.seek(0)
        f.write(text.replace("short", "SHORT") + line(msg("u", "user", "z")))
    got = cat.list_dir(str(folder))[0]
    assert got.id == "SHORT" and got.message_count == 1


def test_lone_surrogates_are_cached_and_searched(tmp_path, cat):
    # JSON.parse takes "\\ud800"; SQLite cannot store such a string as text.
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        line(header("a", cwd="/p\\udc00q")).replace("\\\\udc00", "\\udc00")
        + '{"type":"message","id":"m\\ud801","message":{"role":"user","content":"hi \\ud800 there","timestamp":5}}\n'
        + '{"type":"session_info","name":"n \\udfff"}\n',
        encoding="utf-8",
    )
    expected = info_of(folder / "a.jsonl")
    assert expected is not None and expected.first_message == "hi \ud800 there"
    for _ in range(2):  # scanned, then from the cache
        got = cat.list_dir(str(folder))
        assert [i.to_json() for i in got] == [expected.to_json()]
    assert cat.messages(got[0]) == [("m\ud801", "user", "hi \ud800 there")]
    for built in (False, True):
        if built:
            cat.build_index()
        hits = cat.search('"\ud800 there"', got)
        assert [(h.info.id, h.entry_id) for h in hits] == [("a", "m\ud801")]
        assert [h.info.id for h in cat.search("there", got)] == ["a"]


def test_file_name_that_is_not_utf8(tmp_path, cat):
    folder = tmp_path / "s"
    folder.mkdir()
    with open(os.path.join(os.fsencode(folder), b"a\xff.jsonl"), "w") as f:
        f.write(line(header("a")))
    for _ in range(2):  # scanned, then from the cache
        got = cat.list_dir(str(folder))
        assert [i.path for i in got] == [str(folder / "a\udcff.jsonl")]
    assert cat.stats["hits"] == 1


def test_corrupt_cache_is_rebuilt_silently(tmp_path):
    folder = tmp_path / "s"
    write(folder / "a.jsonl", header("a"))
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "catalog.sqlite3").write_bytes(b"this is not a database" * 100)
    c = Catalog(cache_dir=str(cache))
    assert [i.id for i in c.list_dir(str(folder))] == ["a"]
    c.close()
    with sqlite3.connect(cache / "catalog.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_cache_corrupted_while_open_is_rebuilt(tmp_path):
    folder = tmp_path / "s"
    write(folder / "a.jsonl", header("a"))
    c = Catalog(cache_dir=str(tmp_path / "cache"))
    c.list_dir(str(folder))
    c._db.conn().execute("DROP TABLE texts")  # any damage that makes a query fail
    write(folder / "b.jsonl", header("b"))
    assert sorted(i.id for i in c.list_dir(str(folder))) == ["a", "b"]


def test_stale_schema_is_rebuilt(tmp_path):
    folder = tmp_path / "s"
    write(folder / "a.jsonl", header("a"))
    cache = tmp_path / "cache"
    Catalog(cache_dir=str(cache)).list_dir(str(folder))
    with sqlite3.connect(cache / "catalog.sqlite3") as db:
        db.execute("PRAGMA user_version=999")
    c = Catalog(cache_dir=str(cache))
    assert [i.id for i in c.list_dir(str(folder))] == ["a"]
    assert c.stats["scanned"] == 1


def test_unwritable_cache_falls_back_to_memory(tmp_path):
    folder = tmp_path / "s"
    write(folder / "a.jsonl", header("a"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    c = Catalog(cache_dir=str(blocker / "cache"))
    assert [i.id for i in c.list_dir(str(folder))] == ["a"]
    assert blocker.read_text() == "x"


def test_writes_only_to_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    agent = tmp_path / "agent"
    p = write(agent / "sessions" / "--p--" / "a.jsonl", header("a"), msg("u", "user", "x"))
    before = {f: f.stat().st_mtime_ns for f in agent.rglob("*")}
    c = Catalog(agent_dir=str(agent))
    assert c.cache_dir == str(tmp_path / "xdg" / "pitui")
    c.list_all()
    c.list("/nowhere")
    c.build_index()
    c.close()
    assert {f: f.stat().st_mtime_ns for f in agent.rglob("*")} == before
    assert p.read_text().count("\n") == 2
    assert sorted(os.listdir(tmp_path)) == ["agent", "xdg"]


def test_worker_processes_give_the_same_rows(tmp_path):
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for i in range(20):
        write(folder / f"{i:02d}.jsonl", header(f"s{i}"), msg("u", "user", f"text {i}", ts=1000 + i % 3))
    serial = Catalog(str(tmp_path / "agent"), str(tmp_path / "c1"), workers=0).list_all()
    parallel_cat = Catalog(str(tmp_path / "agent"), str(tmp_path / "c2"), workers=2)
    parallel = parallel_cat.list_all()
    assert [i.to_json() for i in parallel] == [i.to_json() for i in serial]
    assert parallel_cat.messages(parallel[0])[0][2].startswith("text")


# -- search over the catalog ------------------------------------------------------------------------


def search_corpus(tmp_path):
    folder = tmp_path / "agent" / "sessions" / "--p--"
    write(
        folder / "1.jsonl",
        header("s1"),
        msg("u", "user", "Brave is great", ts=1000),
        msg("a", "assistant", [{"type": "text", "text": "the node\n\n   cve was discussed"}], ts=1100),
    )
    write(folder / "2.jsonl", header("s2"), msg("u", "user", "bravery counts", ts=2000))
    write(
        folder / "3.jsonl",
        header("s3", cwd="/srv/cve-tracker"),
        msg("u", "user", "nothing", ts=3000),
        {"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": "Brave name"},
    )
    return folder


def test_search_matches_pi_rules_and_points_at_the_message(tmp_path, cat):
    search_corpus(tmp_path)
    hits = cat.search(r"re:\bbrave\b")
    assert [h.info.id for h in hits] == ["s1", "s3"] or [h.info.id for h in hits] == ["s3", "s1"]
    by_id = {h.info.id: h for h in hits}
    assert by_id["s3"].field == "name"
    hit = cat.search('"node cve"')[0]
    assert hit.info.id == "s1" and hit.field == "message" and hit.role == "assistant" and hit.entry_id == "a"
    a, b = hit.spans[0]
    assert hit.snippet[a:b] == "node     cve"  # the newlines became spaces
    assert "\n" not in hit.snippet
    assert [h.info.id for h in cat.search("cve", mode="recent")] == ["s3", "s1"]


def test_search_scores_equal_the_pure_functions(tmp_path, cat):
    from pitui.store.query import filter_and_sort_sessions, match_session, parse_search_query

    search_corpus(tmp_path)
    infos = cat.list_all()
    for info in infos:
        cat.load_text(info)
    for query in ["brave", '"node cve"', "re:gre+at", "s3 nothing", "xyz", 'cve "was"', "brv"]:
        for mode in ("relevance", "recent", "threaded"):
            expected = filter_and_sort_sessions(infos, query, mode)
            hits = cat.search(query, infos, mode=mode)
            assert [h.info.path for h in hits] == [i.path for i in expected], (query, mode)
            parsed = parse_search_query(query)
            assert [h.score for h in hits] == [match_session(i, parsed).score for i in expected]


def test_search_is_the_same_with_the_index_built_and_after_growth(tmp_path, cat):
    folder = search_corpus(tmp_path)
    queries = ['"node cve"', '"is great"', '"brave name"', '"cve-tracker"', '"zzz yyy"', '"br"']
    before = {q: [h.info.id for h in cat.search(q)] for q in queries}
    assert cat.pending_index() == 3
    assert cat.build_index()
    assert cat.pending_index() == 0
    assert {q: [h.info.id for h in cat.search(q)] for q in queries} == before
    with (folder / "2.jsonl").open("a") as f:
        f.write(line(msg("n", "user", "now the node cve too", ts=2500)))
    assert sorted(h.info.id for h in cat.search('"node cve"')) == ["s1", "s2"]
    assert cat.stats["resumed"] == 1


def test_the_search_text_allowance_counts_bytes_and_what_it_leaves_out_is_still_searched(tmp_path, cat):
    """Lower-cased texts are held as UTF-8: one emoji would make a Python string of them take
    four bytes a character. The allowance counts those bytes, and the sessions it cannot hold
    are searched the same."""
    from pitui.store.query import SessionFields

    wide = "deploy the fix 🚀 " * 12000  # 204,000 characters
    emoji = SessionFields("a", None, "/p", wide)
    assert sys.getsizeof(wide) > 4 * len(wide)  # as a string: four bytes a character
    assert len(wide) < emoji.size < 1.2 * len(wide)  # one emoji (four bytes) in 17 characters
    assert b"the fix \xf0\x9f\x9a\x80" in emoji.messages
    folder = search_corpus(tmp_path)
    write(folder / "4.jsonl", header("s4", cwd="/srv/wide"), msg("w", "user", wide, ts=4000))
    queries = ["deploy", '"the fix 🚀"', "brave", '"node cve"']
    everything = {q: [h.info.id for h in cat.search(q)] for q in queries}
    assert everything["deploy"] == ["s4"]
    small = Catalog(cat.agent_dir, cache_dir=cat.cache_dir)
    small.text_cache_bytes = 100_000  # room for the small sessions, not for the wide one
    try:
        assert {q: [h.info.id for h in small.search(q)] for q in queries} == everything
        kept = small._search._fields_cache.values()
        assert sorted(fields.id for _, fields, _ in kept) == ["s1", "s2", "s3"]  # not the wide one
        assert small._search._cache_bytes == sum(size for _, _, size in kept) <= 100_000
    finally:
        small.close()


def test_search_rejects_bad_regex(tmp_path, cat):
    search_corpus(tmp_path)
    with pytest.raises(QueryError):
        cat.search("re:(")


def test_search_scope_by_paths_and_named_filter(tmp_path, cat):
    folder = search_corpus(tmp_path)
    hits = cat.search("brave", [str(folder / "2.jsonl")])
    assert [h.info.id for h in hits] == ["s2"]
    assert [h.info.id for h in cat.search("", name_filter="named")] == ["s3"]


def keystroke_corpus(tmp_path, n=40, seed=7):
    import random

    rng = random.Random(seed)
    words = ["websocket", "reconnect", "socket", "web", "recon", "the", "ab12", "12ab", "Σίσυφος", "😀", "x/y-z"]
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for i in range(n):
        texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 4))]
        entries = [
            msg(f"m{j}", "user" if j % 2 == 0 else "assistant", t, ts=1000 + i * 10 + j) for j, t in enumerate(texts)
        ]
        if i % 5 == 0:
            entries.append(
                {"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": rng.choice(words)}
            )
        write(folder / f"{i:02d}.jsonl", header(f"s{i}", cwd=f"/w/{rng.choice(words)}"), *entries)
    return folder


def fresh_search(tmp_path, query, infos, mode):
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as other:
        return [(h.info.path, h.score, h.snippet, h.spans, h.field) for h in other.search(query, infos, mode=mode)]


@pytest.mark.parametrize("mode", ["relevance", "recent"])
def test_searching_a_key_at_a_time_equals_searching_afresh(tmp_path, cat, mode):
    from pitui.store.query import filter_and_sort_sessions

    keystroke_corpus(tmp_path)
    infos = cat.list_all()
    texts = {info.path: " ".join(t for _, _, t in cat.messages(info)) for info in infos}
    for full in ["websocket reconnect", "web 12ab", "ab12 x", "σίσ 😀", 'web "socket recon" th']:
        typed = [full[:i] for i in range(1, len(full) + 1)] + [full[:-1], full]
        for query in typed:
            hits = cat.search(query, infos, mode=mode, snippets=None)
            got = [(h.info.path, h.score, h.snippet, h.spans, h.field) for h in hits]
            assert got == fresh_search(tmp_path, query, infos, mode), query
            expected = filter_and_sort_sessions(infos, query, mode, text_of=lambda i: texts[i.path])
            assert [h.info.path for h in hits] == [i.path for i in expected], query


def test_a_session_that_changed_between_keystrokes_is_matched_again(tmp_path, cat):
    folder = keystroke_corpus(tmp_path, n=5)
    infos = cat.list_all()
    assert cat.search("zq", infos) == []
    with (folder / "03.jsonl").open("a") as f:
        f.write(line(msg("late", "user", "zqx arrived", ts=99999)))
    infos = cat.list_all()
    assert [h.info.id for h in cat.search("zqx", infos)] == ["s3"]


def test_prepare_search_makes_the_first_search_need_no_reading(tmp_path, cat, monkeypatch):
    keystroke_corpus(tmp_path, n=12)
    infos = cat.list_all()
    assert cat.prepare_search(infos)
    monkeypatch.setattr(search_mod, "texts", lambda *a: pytest.fail("read a text again"))
    assert cat.search("websocket", infos, snippets=0)
    assert not cat.prepare_search(infos, cancelled=lambda: True)


def test_a_cancelled_search_raises_and_leaves_nothing_behind(tmp_path, cat):
    from pitui.store.catalog import SearchCancelled

    keystroke_corpus(tmp_path, n=300)
    infos = cat.list_all()
    with pytest.raises(SearchCancelled):
        cat.search("websocket", infos, cancelled=lambda: True)
    asked = []

    def later() -> bool:
        asked.append(1)
        return len(asked) > 2  # the search has begun by then

    with pytest.raises(SearchCancelled):
        cat.search("websocket", infos, cancelled=later)
    hits = cat.search("websocket", infos)
    assert [(h.info.path, h.score) for h in hits] == [
        (p, sc) for p, sc, *_ in fresh_search(tmp_path, "websocket", infos, "relevance")
    ]
