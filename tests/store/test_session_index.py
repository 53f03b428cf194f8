"""The persistent per-session index: a session reopened from it (and from the lines appended
since) is the session a whole read of the file gives, and an index that no longer holds for the
file, or is itself damaged, is a whole read, never a wrong session."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
from pathlib import Path

import msgspec
import pytest
from helpers.bench_session import small_session
from helpers.same_session import assert_same_session
from helpers.strategies import mutated_bytes
from hypothesis import given
from hypothesis import strategies as st

from devkit.builder import entry, header, lines, msg
from pitui.store import session_index
from pitui.store.reader import Session
from pitui.store.session_index import IndexCache, index_files

FIXTURES = Path(__file__).parent.parent / "fixtures"


def cache_at(tmp: Path, **options) -> IndexCache:
    return IndexCache(str(tmp / "index"), min_bytes=options.pop("min_bytes", 0), **options)


def reopened(path: Path, cache: IndexCache) -> Session:
    """The session read with the index, checked against a whole read of the file."""
    got = Session.load(str(path), index=cache)
    assert_same_session(got, Session.load(str(path)))
    return got


def a_session(path: Path, count: int = 60) -> Path:
    """A session with branches, labels, a name, odd and bad lines."""
    objects = [header()]
    for i in range(count):
        parent = None if i == 0 else f"{0xE0000000 + (i - 1 if i % 7 else max(i - 4, 0)):08x}"
        kind = ("user", "assistant", "toolResult")[i % 3]
        objects.append(msg(f"{0xE0000000 + i:08x}", parent, kind, f"text {i}", n=i))
    objects.append(entry("label", "aaaaaaaa", "e0000003", n=90, targetId="e0000002", label="here"))
    objects.append(entry("session_info", "bbbbbbbb", "aaaaaaaa", n=91, name="named"))
    data = lines(*objects)
    data += b"not json\n" + b'{"type":"message","id":[1],"parentId":null,"message":{"role":"user"}}\n'
    data += lines(msg("e0000002", "e0000001", "user", "a duplicate id", n=95))
    path.write_bytes(data)
    return path


def test_a_session_reopened_from_its_index_is_the_session_read_whole(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    first = Session.load(str(path), index=cache)
    assert cache.last == "miss"
    assert len(list(index_files(cache.directory))) == 1
    got = reopened(path, cache)
    assert cache.last == "hit"
    assert_same_session(got, first)
    assert got.problems and got.labels and got.leaf_id == "e0000002"
    assert "text 5" in str(got.entries[5].read_data()["message"])  # bodies read from the file


@pytest.mark.parametrize(
    "figure",
    [
        *("3", "2.5", "9007199254740993", "9223372036854775808", "-9223372036854775809", "2e21"),
        *("1180591620717411303424", "1e400", "true", '"7"', "null"),
    ],
)
def test_usage_figures_of_any_kind_reopen_as_they_read(tmp_path: Path, figure: str) -> None:
    """The index holds a message's usage figures when each is a double or a 64-bit integer;
    any other (a bigger integer, a boolean, a string, infinity from 1e400) has its line read
    again. Either way the session reopened is the one read whole (``figure``: as the file
    spells it)."""
    objects = [header()]
    for i in range(6):
        usage = {"input": 10 + i, "output": 2.5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.01}}
        if i == 3:
            usage["output"] = 424242  # spelt as ``figure`` below
        parent = None if i == 0 else f"{0xE0000000 + i - 1:08x}"
        objects.append(msg(f"{0xE0000000 + i:08x}", parent, "assistant", f"reply {i}", n=i, usage=usage))
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(*objects).replace(b"424242", figure.encode()))
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    got = reopened(path, cache)
    assert cache.last == "hit"
    assert len(got.entries) == 6


def test_a_parent_id_that_is_the_id_before_is_held_once_read_whole_or_reopened(tmp_path: Path) -> None:
    """Most messages hang under the entry before them: their parentId is that entry's id string
    itself, not an equal copy (at 1,000,000 entries the copies were 57 MB)."""
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    for session in (Session.load(str(path), index=cache), reopened(path, cache)):
        pairs = zip(session.entries, session.entries[1:], strict=False)
        chained = [(e.parent_id, b.id) for b, e in pairs if e.type == "message" and e.parent_id == b.id]
        assert len(chained) > 40
        assert all(parent is id_ for parent, id_ in chained)
    assert cache.last == "hit"


def test_the_library_default_reads_whole_and_writes_no_index(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    Session.load(str(path))
    assert not (tmp_path / "index").exists()
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl"]


def test_an_index_is_written_only_in_its_folder_and_deferred_until_asked(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = a_session(folder / "s.jsonl")
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    cache = cache_at(tmp_path, deferred=True)
    Session.load(str(path), index=cache)
    assert not list(index_files(cache.directory))
    cache.write_pending()
    assert len(list(index_files(cache.directory))) == 1
    assert os.listdir(folder) == ["s.jsonl"]
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_small_sessions_are_not_indexed(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = IndexCache(str(tmp_path / "index"))  # the default threshold
    Session.load(str(path), index=cache)
    Session.load(str(path), index=cache)
    assert cache.last == "miss"
    assert not list(index_files(cache.directory))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_every_fixture_reopens_as_it_reads(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    shutil.copyfile(FIXTURES / name, path)
    cache = cache_at(tmp_path)
    try:
        whole = Session.load(str(path), index=cache)
    except (ValueError, OSError):
        return  # not a session: nothing to index
    got = reopened(path, cache)
    indexed = bool(list(index_files(cache.directory)))
    # Only old formats and a header pi cannot parse where it starts are never indexed.
    indexable = whole.header is not None and not whole.migrated and "byte order mark" not in str(whole.problems)
    assert indexed == indexable, name
    assert cache.last == ("hit" if indexed else "miss")
    assert_same_session(got, whole)


def test_the_benchmark_generator_session_reopens_as_it_reads(tmp_path: Path) -> None:
    path = tmp_path / "bench.jsonl"
    small_session(path, 4)
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    reopened(path, cache)
    assert cache.last == "hit"


# ---------------------------------------------------------------- a file that changed


def test_a_grown_file_reads_only_what_was_appended_and_equals_a_whole_read(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    with open(path, "ab") as out:
        out.write(lines(msg("f0000001", "e0000002", "user", "appended", n=99)))
        out.write(lines(entry("label", "f0000002", "f0000001", n=99, targetId="e0000002", label="")))
    got = reopened(path, cache)
    assert cache.last == "grown"
    assert got.leaf_id == "f0000002" and not got.labels
    reopened(path, cache)  # the grown file was indexed again
    assert cache.last == "hit"


def test_a_torn_last_line_then_completed(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    line = lines(msg("f0000001", "e0000002", "assistant", "half written", n=99))
    with open(path, "ab") as out:
        out.write(line[:30])
    torn = reopened(path, cache)
    assert cache.last == "grown" and torn.torn_line
    reopened(path, cache)
    assert cache.last == "hit"
    with open(path, "ab") as out:
        out.write(line[30:])
    whole = reopened(path, cache)
    assert cache.last == "grown" and not whole.torn_line and whole.leaf_id == "f0000001"


@pytest.mark.parametrize("ending", [b" \n", "\u00a0\n".encode(), b"\r\n", b"\n  ", b""])
def test_a_file_whose_end_a_whole_read_trims_is_read_whole_when_it_grows(tmp_path: Path, ending: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(header(), msg("e0000000", None, "user", "x", n=0)).rstrip(b"\n") + ending)
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    with open(path, "ab") as out:
        out.write(lines(msg("e0000001", "e0000000", "user", "y", n=1)))
    reopened(path, cache)
    assert cache.last == "miss"


def _rewrite_keeping_size_and_time(path: Path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    st = os.stat(path)
    data = path.read_bytes()
    assert data.count(old) == 1
    with open(path, "r+b") as out:  # in place: same inode
        out.seek(data.index(old))
        out.write(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("where", ["start", "end"])
def test_a_file_rewritten_to_the_same_size_and_time_is_read_whole(tmp_path: Path, where: str) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    old, new = (b"text 0", b"TEXT 0") if where == "start" else (b"a duplicate id", b"a DUPLICATE id")
    _rewrite_keeping_size_and_time(path, old, new)
    got = reopened(path, cache)
    assert cache.last == "miss"
    assert old.decode() not in str([e.read_data() for e in got.entries])


def test_a_changed_time_alone_is_read_whole(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    reopened(path, cache)
    assert cache.last == "miss"


def test_a_grown_file_whose_indexed_part_changed_is_read_whole(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    _rewrite_keeping_size_and_time(path, b"a duplicate id", b"A DUPLICATE ID")
    with open(path, "ab") as out:
        out.write(lines(msg("f0000001", "e0000002", "user", "appended", n=99)))
    reopened(path, cache)
    assert cache.last == "miss"


def test_a_truncated_or_replaced_file_is_read_whole(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    reopened(path, cache)
    assert cache.last == "miss"
    Session.load(str(path), index=cache)
    other = tmp_path / "other.jsonl"
    other.write_bytes(path.read_bytes())
    os.replace(other, path)  # the same bytes in another file (inode)
    reopened(path, cache)
    assert cache.last == "miss"


# ---------------------------------------------------------------- a damaged index


def _damage(cache: IndexCache, path: Path, how: str) -> None:
    (index,) = index_files(cache.directory)
    blob = Path(index).read_bytes()
    start = len(session_index.MAGIC) + 16  # after the checksum
    if how == "truncated":
        blob = blob[: len(blob) // 2]
    elif how == "empty":
        blob = b""
    elif how == "garbage":
        blob = bytes(random.Random(1).randrange(256) for _ in range(len(blob)))
    elif how == "flipped":
        blob = blob[:-40] + bytes(b ^ 0x55 for b in blob[-40:])
    elif how == "no magic":
        blob = blob[len(session_index.MAGIC) :]
    elif how in ("another format", "wrong columns"):  # whole, with its checksum
        value = msgspec.msgpack.decode(blob[start:])
        if how == "another format":
            value[0] = session_index.FORMAT + 1
        else:
            value[-3] = value[-3][:-1]  # a message row less
        body = msgspec.msgpack.encode(value)
        blob = session_index.MAGIC + session_index._digest(body) + body
    Path(index).write_bytes(blob)


@pytest.mark.parametrize(
    "how", ["truncated", "empty", "garbage", "flipped", "no magic", "another format", "wrong columns"]
)
def test_a_damaged_index_is_a_whole_read(tmp_path: Path, how: str) -> None:
    path = a_session(tmp_path / "s.jsonl")
    cache = cache_at(tmp_path)
    Session.load(str(path), index=cache)
    _damage(cache, path, how)
    got = reopened(path, cache)
    assert cache.last == "miss"
    assert got.entries


def test_an_index_that_cannot_be_written_does_not_stop_the_read(tmp_path: Path) -> None:
    path = a_session(tmp_path / "s.jsonl")
    (tmp_path / "index").write_text("a file where the folder should be")
    cache = cache_at(tmp_path)
    reopened(path, cache)
    reopened(path, cache)
    assert cache.last == "miss"


def test_the_folder_is_kept_under_its_cap(tmp_path: Path) -> None:
    cache = cache_at(tmp_path, cap_bytes=1)
    for name in ("a", "b", "c"):
        Session.load(str(a_session(tmp_path / f"{name}.jsonl")), index=cache)
    (kept,) = index_files(cache.directory)
    assert kept == cache.file_for(str(tmp_path / "c.jsonl"))


# ---------------------------------------------------------------- any file, cut anywhere


@given(data=mutated_bytes(), cut=st.floats(0, 1))
def test_any_file_grown_from_any_prefix_reopens_as_it_reads(tmp_path_factory, data: bytes, cut: float) -> None:
    folder = tmp_path_factory.mktemp("prop")
    path = folder / "s.jsonl"
    at = int(len(data) * cut)
    path.write_bytes(data[:at])
    cache = cache_at(folder)
    with contextlib.suppress(ValueError, OSError):
        Session.load(str(path), index=cache)
    with open(path, "ab") as out:
        out.write(data[at:])
    try:
        want = Session.load(str(path))
    except (ValueError, OSError):
        return
    assert_same_session(Session.load(str(path), index=cache), want)
    assert_same_session(Session.load(str(path), index=cache), want)
