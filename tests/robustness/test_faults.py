"""Faults: a full disk, I/O errors, read-only files and folders, files that vanish or are
replaced while they are read, symlink loops, huge lines and huge files.

Each test checks the error the user is shown (the exception the UI reports, or the command
line's message and exit status) and that nothing was changed: the file byte for byte, and no
other file left in its folder.

The 1 GB file test runs only with ``PITUI_BIG_FILES=1``: the file is sparse (no disk space is
used), but each of the three readers (load, preview, listing) goes through a gigabyte, about 13 s
in all and up to 2 GB of memory on a two-core test machine. By default a 64 MB sparse file is
read, and the memory each reader needs for such a line is checked on it, in a process of its own.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.trash import trash_dir

from devkit.builder import header, linear, lines, msg, ts, write
from pitui.cli import main as cli
from pitui.store import reader as session
from pitui.store import stats as preview
from pitui.store.catalog import Catalog, catalog, scan
from pitui.store.model import FileChangedError
from pitui.store.reader import Session
from pitui.store.stats import PreviewError, session_preview
from pitui.store.write import actions, writer

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOT_AS_ROOT = pytest.mark.skipif(IS_ROOT, reason="root ignores file permissions: this test needs an ordinary user")


class FakeOs:
    """The ``os`` module as one store module sees it, with some functions replaced."""

    def __init__(self, **replaced: Callable[..., Any]) -> None:
        self.__dict__.update(replaced)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def failing_write(error: int, after: int = 0) -> Callable[[int, Any], int]:
    """``os.write`` on a disk that takes ``after`` more bytes (a short write, as a nearly
    full disk gives) and then fails with ``error``."""
    room = [after]

    def write(fd: int, data: Any) -> int:
        if room[0] <= 0:
            raise OSError(error, os.strerror(error))
        n = os.write(fd, bytes(data[: room[0]]))
        room[0] -= n
        return n

    return write


def failing_fsync(fd: int) -> None:
    raise OSError(errno.EIO, os.strerror(errno.EIO))


FAULTS = {
    "disk full at once": {"write": failing_write(errno.ENOSPC)},
    "disk full after a few bytes": {"write": failing_write(errno.ENOSPC, after=10)},
    "I/O error after a few bytes": {"write": failing_write(errno.EIO, after=1)},
    "I/O error on fsync": {"fsync": failing_fsync},
}
ERRNO = {
    "disk full at once": errno.ENOSPC,
    "disk full after a few bytes": errno.ENOSPC,
    "I/O error after a few bytes": errno.EIO,
    "I/O error on fsync": errno.EIO,
}

APPENDS: dict[str, Callable[[str], Any]] = {
    "label": lambda path: actions.set_label(path, "a0000001", "important"),
    "clear label": lambda path: actions.set_label(path, "a0000001", None),
    "rename": lambda path: actions.rename(path, "a name"),
    "branch": lambda path: actions.branch(path, "a0000001"),
    "branch with summary": lambda path: actions.branch(path, "a0000001", summary="tried X"),
}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    def install(fault: str) -> None:
        monkeypatch.setattr(writer, "os", FakeOs(**FAULTS[fault]))

    return install


# ------------------------------------------------------------------ a full disk, an I/O error


@pytest.mark.parametrize("torn", [False, True], ids=["whole last line", "torn last line"])
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("action", list(APPENDS))
def test_a_failed_append_leaves_the_file_as_it_was(
    tmp_path: Path, faulty: Callable[[str], None], action: str, fault: str, torn: bool, monkeypatch: pytest.MonkeyPatch
):
    path = linear(tmp_path / "s.jsonl")
    if torn:  # the append would start with a newline: that too must go
        path.write_bytes(path.read_bytes() + b'{"type":"message","id":"torn"')
    before = snapshot(tmp_path)
    faulty(fault)
    with pytest.raises(OSError) as caught:
        APPENDS[action](str(path))
    assert caught.value.errno == ERRNO[fault]
    assert caught.value.filename == str(path), "the message names the file"
    assert snapshot(tmp_path) == before
    # With the disk back, the same action works, on a file pi reads as it should.
    monkeypatch.undo()
    APPENDS[action](str(path))
    assert len(path.read_bytes().splitlines()) == len(before["s.jsonl"].splitlines()) + 1
    assert all(p.reason.startswith("skipped") for p in Session.load(str(path)).problems) and (
        len(Session.load(str(path)).problems) == int(torn)
    )


def test_a_failed_append_keeps_what_another_writer_appended_after_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The undo cuts only the bytes this append wrote, and only while they are the end of the
    file: a line pi appended after them is not cut (it shares a line with the torn start of
    ours, which readers then skip and report: nothing can be done about that afterwards)."""
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    pi_line = lines(msg("pi000001", "a0000003", "assistant", "from pi", n=9))

    def write(fd: int, data: Any) -> int:
        n = os.write(fd, bytes(data[:10]))
        with open(path, "ab") as other:  # pi appends right after the torn start of our line
            other.write(pi_line)
        monkeypatch.setattr(writer, "os", FakeOs(write=failing_write(errno.ENOSPC)))
        return n

    monkeypatch.setattr(writer, "os", FakeOs(write=write))
    with pytest.raises(OSError):
        actions.rename(str(path), "x")
    data = path.read_bytes()
    assert data.startswith(before) and data.endswith(pi_line) and len(data) == len(before) + 10 + len(pi_line)
    assert [p.line for p in Session.load(str(path)).problems] == [6]


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("action", ["fork", "clone"])
def test_a_failed_fork_or_clone_leaves_no_half_file(
    tmp_path: Path, faulty: Callable[[str], None], action: str, fault: str
):
    path = linear(tmp_path / "s.jsonl")
    before = snapshot(tmp_path)
    faulty(fault)
    with pytest.raises(OSError) as caught:
        actions.fork(str(path), "a0000002") if action == "fork" else actions.clone(str(path))
    assert caught.value.errno == ERRNO[fault]
    assert caught.value.filename and caught.value.filename.startswith(str(tmp_path))
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_failed_first_write_to_an_old_file_leaves_it_and_the_trash_as_they_were(
    tmp_path: Path, faulty: Callable[[str], None], fault: str
):
    v1 = [header(version=None)] + [
        {"type": "message", "timestamp": ts(i), "message": {"role": "user", "content": f"m{i}"}} for i in range(3)
    ]
    path = write(tmp_path / f"old-{tmp_path.name}.jsonl", *v1)
    before = snapshot(tmp_path)
    trashed = sorted(os.listdir(trash_dir() / "files")) if (trash_dir() / "files").exists() else []
    faulty(fault)
    with pytest.raises(OSError) as caught:
        actions.rename(str(path), "x")
    assert caught.value.errno == ERRNO[fault] and caught.value.filename == str(path)
    assert snapshot(tmp_path) == before
    assert (sorted(os.listdir(trash_dir() / "files")) if (trash_dir() / "files").exists() else []) == trashed


def test_the_command_line_says_the_disk_is_full_without_a_traceback(
    tmp_path: Path, faulty: Callable[[str], None], capsys: pytest.CaptureFixture[str]
):
    path = linear(tmp_path / "s.jsonl")
    before = snapshot(tmp_path)
    faulty("disk full after a few bytes")
    assert cli.main(["label", str(path), "a0000001", "x"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"pitui: {path}: No space left on device\n"
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ permissions


@NOT_AS_ROOT
@pytest.mark.parametrize("action", list(APPENDS))
def test_a_read_only_file_is_refused_and_left_alone(tmp_path: Path, action: str):
    path = linear(tmp_path / "s.jsonl")
    path.chmod(0o444)
    before = snapshot(tmp_path)
    with pytest.raises(PermissionError) as caught:
        APPENDS[action](str(path))
    assert caught.value.filename == str(path)
    assert snapshot(tmp_path) == before


@NOT_AS_ROOT
def test_a_read_only_folder_refuses_a_fork_but_takes_an_append(tmp_path: Path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = linear(folder / "s.jsonl")
    folder.chmod(0o555)
    try:
        before = snapshot(folder)
        for act in (lambda: actions.fork(str(path), "a0000002"), lambda: actions.clone(str(path))):
            with pytest.raises(PermissionError):
                act()
            assert snapshot(folder) == before
        actions.rename(str(path), "named")  # the file itself is writable: appending needs no folder write
        assert Session.load(str(path)).name == "named" and sorted(os.listdir(folder)) == ["s.jsonl"]
    finally:
        folder.chmod(0o755)


@NOT_AS_ROOT
@pytest.mark.parametrize(
    "command",
    [["label", "a0000001", "x"], ["rename", "x"], ["branch", "a0000001"], ["branch", "a0000001", "--summary", "s"]],
)
def test_the_command_line_on_a_read_only_file(tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]):
    path = linear(tmp_path / "s.jsonl")
    path.chmod(0o444)
    before = snapshot(tmp_path)
    assert cli.main([command[0], str(path), *command[1:]]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"pitui: {path}: Permission denied\n"
    assert snapshot(tmp_path) == before


def refuse_open(path: Path) -> Callable[..., int]:
    """``os.open`` as it is for a file the user may not write (for tests run as root)."""

    def open_(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(name) == os.fspath(path) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(name))
        return os.open(name, flags, *args, **kwargs)

    return open_


@pytest.mark.parametrize(
    "command",
    [["label", "a0000001", "x"], ["rename", "x"], ["branch", "a0000001"], ["branch", "a0000001", "--summary", "s"]],
)
def test_the_command_line_on_a_file_it_may_not_write(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """The same as a read-only file, with the refusal made by hand: it runs as root too."""
    path = linear(tmp_path / "s.jsonl")
    before = snapshot(tmp_path)
    monkeypatch.setattr(writer, "os", FakeOs(open=refuse_open(path)))
    assert cli.main([command[0], str(path), *command[1:]]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"pitui: {path}: Permission denied\n"
    assert snapshot(tmp_path) == before


def test_a_folder_it_may_not_write_refuses_a_fork_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    path = linear(tmp_path / "s.jsonl")
    before = snapshot(tmp_path)

    def open_(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(name))
        return os.open(name, flags, *args, **kwargs)

    monkeypatch.setattr(writer, "os", FakeOs(open=open_))
    assert cli.main(["fork", str(path), "a0000002"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"pitui: {tmp_path}{os.sep}") and err.endswith(": Permission denied\n")
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ files that vanish or change


def sessions_folder(tmp_path: Path, count: int = 3) -> list[Path]:
    folder = tmp_path / "proj"
    folder.mkdir()
    return [
        write(folder / f"s{i}.jsonl", header(id=f"id-{i}"), msg("a", None, text=f"hello {i}")) for i in range(count)
    ]


def listing(folder: Path) -> tuple[list[str], dict[str, str]]:
    with Catalog(agent_dir=str(folder.parent / "agent"), cache_dir=str(folder.parent / "cache"), workers=0) as cat:
        infos = cat.list_dir(str(folder))
        for info in infos:  # every listed session is real: the file is there and says so
            assert Session.load(info.path).session_id == info.id
        return [i.id for i in infos], {os.path.basename(p.path): p.reason for p in cat.problems}


@pytest.mark.parametrize("when", ["stat", "open"])
def test_a_file_that_vanishes_while_listing_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str):
    files = sessions_folder(tmp_path)
    victim = str(files[1])

    def vanishing(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(name: Any, *args: Any, **kwargs: Any) -> Any:
            if os.fspath(name) == victim and os.path.exists(victim):
                os.unlink(victim)
            return real(name, *args, **kwargs)

        return call

    monkeypatch.setattr(catalog if when == "stat" else scan, "os", FakeOs(**{when: vanishing(getattr(os, when))}))
    ids, problems = listing(files[0].parent)
    assert sorted(ids) == ["id-0", "id-2"]
    assert problems == {"s1.jsonl": "the file vanished while listing"}


@pytest.mark.parametrize("replacement", [b"my notes\n", lines(header(id="other"), msg("b", None, text="new"))])
def test_a_file_replaced_while_listing_is_listed_as_it_now_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replacement: bytes
):
    files = sessions_folder(tmp_path)
    victim = str(files[1])
    done = []

    def open_(name: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(name) == victim and not done:
            done.append(True)
            new = victim + ".new"
            Path(new).write_bytes(replacement)
            os.replace(new, victim)
        return os.open(name, *args, **kwargs)

    monkeypatch.setattr(scan, "os", FakeOs(open=open_))
    ids, problems = listing(files[0].parent)
    if replacement.startswith(b"my notes"):
        assert sorted(ids) == ["id-0", "id-2"] and list(problems) == ["s1.jsonl"]
        assert problems["s1.jsonl"].startswith("not a session file")
    else:
        assert sorted(ids) == ["id-0", "id-2", "other"] and problems == {}


def test_a_file_that_vanishes_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = linear(tmp_path / "s.jsonl")

    def open_(name: Any, *args: Any, **kwargs: Any) -> int:
        if os.path.exists(name):
            os.unlink(name)
        return os.open(name, *args, **kwargs)

    monkeypatch.setattr(session, "os", FakeOs(open=open_))
    with pytest.raises(FileNotFoundError) as caught:
        Session.load(str(path))
    assert caught.value.filename == str(path)


def test_a_file_replaced_while_it_is_read_is_read_whole_as_it_was_then_refresh_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = linear(tmp_path / "s.jsonl")
    original = path.read_bytes()

    def fstat(fd: int) -> os.stat_result:
        new = tmp_path / "new.jsonl"
        new.write_bytes(lines(header(id="other"), msg("zzzzzzzz", None, text="replaced")))
        os.replace(new, path)  # after the open, before the read
        return os.fstat(fd)

    monkeypatch.setattr(session, "os", FakeOs(fstat=fstat))
    loaded = Session.load(str(path))
    monkeypatch.undo()
    assert [e.id for e in loaded.entries] == [f"a{i:07d}" for i in range(4)]
    assert loaded.entry("a0000002").message["content"] == "text 2"  # bodies from the file it read
    assert loaded.disk is not None and loaded.disk.size == len(original)
    with pytest.raises(FileChangedError, match="replaced"):
        loaded.refresh()
    os.unlink(path)
    with pytest.raises(FileNotFoundError):  # the view says the file is gone
        loaded.refresh()


def test_a_file_cut_short_while_followed_must_be_read_again(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    loaded = Session.load(str(path))
    with open(path, "r+b") as handle:
        handle.truncate(len(path.read_bytes()) - 10)
    with pytest.raises(FileChangedError, match="cut short"):
        loaded.refresh()


@pytest.mark.parametrize("replace", [False, True], ids=["vanishes", "is replaced"])
def test_a_preview_of_a_file_that_vanishes_or_is_replaced_between_stat_and_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: bool
):
    path = linear(tmp_path / "s.jsonl")

    def open_(name: Any, *args: Any, **kwargs: Any) -> int:
        os.unlink(name)
        if replace:
            write(Path(name), header(id="other"), msg("b", None, text="new"))
        return os.open(name, *args, **kwargs)

    monkeypatch.setattr(preview, "os", FakeOs(open=open_))
    if replace:
        result = session_preview(str(path), use_cache=True)
        assert result.session_id == "other" and result.entries == 1
        monkeypatch.undo()
        assert session_preview(str(path)) == result  # cached under the file it read
    else:
        with pytest.raises(PreviewError, match=r"^The session file no longer exists\.$"):
            session_preview(str(path), use_cache=True)


# ------------------------------------------------------------------ symlink loops


def test_a_session_folder_that_is_a_symlink_loop_is_reported(tmp_path: Path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as cat:
        assert cat.list_dir(str(loop)) == []
        assert [(p.path, p.reason) for p in cat.problems] == [
            (str(loop), "the folder cannot be read: Too many levels of symbolic links")
        ]


def test_a_session_file_that_is_a_symlink_loop_is_reported_and_the_rest_listed(tmp_path: Path):
    files = sessions_folder(tmp_path, 2)
    folder = files[0].parent
    (folder / "a.jsonl").symlink_to(folder / "b.jsonl")
    (folder / "b.jsonl").symlink_to(folder / "a.jsonl")
    ids, problems = listing(folder)
    assert sorted(ids) == ["id-0", "id-1"]
    assert problems == {
        "a.jsonl": "the file cannot be read: Too many levels of symbolic links",
        "b.jsonl": "the file cannot be read: Too many levels of symbolic links",
    }
    with pytest.raises(OSError) as caught:
        Session.load(str(folder / "a.jsonl"))
    assert caught.value.errno == errno.ELOOP
    with pytest.raises(PreviewError, match="Too many levels of symbolic links"):
        session_preview(str(folder / "a.jsonl"))


def test_a_sessions_root_holding_a_symlink_loop_lists_the_rest(tmp_path: Path):
    agent = tmp_path / "agent"
    root = agent / "sessions"
    project = root / "--home-me-proj--"
    project.mkdir(parents=True)
    write(project / "s.jsonl", header(id="real"), msg("a", None))
    (root / "--loop--").symlink_to(root / "--loop--")
    (root / "--a--").symlink_to(root / "--b--")
    (root / "--b--").symlink_to(root / "--a--")
    with Catalog(agent_dir=str(agent), cache_dir=str(tmp_path / "cache")) as cat:
        infos = cat.list_all()
        # pi 1.6 takes symbolic links too, and lists nothing where readdir of one fails: the
        # loops are skipped without a word, as in pi.
        assert [i.id for i in infos] == ["real"] and cat.problems == []


def test_the_command_line_on_a_symlink_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    assert cli.main(["rename", str(loop), "x"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pitui: ") and "Traceback" not in err
    assert os.path.islink(loop) and sorted(os.listdir(tmp_path)) == ["loop.jsonl"]


# ------------------------------------------------------------------ huge lines, huge files

FIFTY_MB = 50 << 20


@pytest.mark.parametrize("kind", ["garbage", "message"])
def test_a_50_mb_line_is_read_or_skipped_and_the_rest_is_intact(tmp_path: Path, kind: str):
    if kind == "garbage":
        huge = b'{"type":"message","id":"huge0001","message":{"content":"' + b"x" * FIFTY_MB
    else:
        huge = orjson.dumps(msg("huge0001", "a0000001", "user", "x" * FIFTY_MB, n=5))
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        lines(header(), msg("a0000000", None, n=0), msg("a0000001", "a0000000", "assistant", n=1))
        + huge
        + b"\n"
        + lines(msg("a0000002", "a0000001", n=2), msg("a0000003", "a0000002", n=3))
    )
    loaded = Session.load(str(path))
    found = session_preview(str(path), use_cache=False)
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as cat:
        (info,) = cat.list_dir(str(tmp_path))
    assert loaded.leaf_id == "a0000003" and found.leaf_id == "a0000003"
    if kind == "garbage":
        assert [e.id for e in loaded.entries] == ["a0000000", "a0000001", "a0000002", "a0000003"]
        assert [(p.line, p.reason[:28]) for p in loaded.problems] == [(4, "skipped: not valid JSON (Unt")]
        assert found.skipped_lines == 1 and found.problems[0].line == 4
        assert info.message_count == 4
    else:
        assert [e.id for e in loaded.entries] == ["a0000000", "a0000001", "huge0001", "a0000002", "a0000003"]
        assert loaded.problems == [] and len(loaded.entry("huge0001").message["content"]) == FIFTY_MB
        assert found.skipped_lines == 0 and found.entries == 5
        assert info.message_count == 5
    assert [m.get("role") for m in loaded.context().messages][-2:] == ["user", "user"]


def sparse_session(path: Path, size: int) -> None:
    """A session whose file is ``size`` bytes, nearly all a hole (NUL bytes when read)."""
    write(path, header(), msg("a0000000", None, n=0), msg("a0000001", "a0000000", "assistant", n=1))
    with open(path, "r+b") as handle:
        handle.truncate(size)


def check_huge_sparse_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "big.jsonl"
    sparse_session(path, size)
    assert path.stat().st_size == size
    loaded = Session.load(str(path))
    assert [e.id for e in loaded.entries] == ["a0000000", "a0000001"]
    assert [(p.line, p.reason) for p in loaded.problems] == [
        (4, "skipped: an incomplete last line (still being written?)")
    ]
    del loaded
    found = session_preview(str(path), use_cache=False)
    assert (found.entries, found.skipped_lines, found.leaf_id) == (2, 1, "a0000001")
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as cat:
        (info,) = cat.list_dir(str(tmp_path))
    assert (info.id, info.message_count, info.size) == (header()["id"], 2, size)


def test_a_file_ending_in_64_mb_of_nul_bytes(tmp_path: Path):
    check_huge_sparse_file(tmp_path, 64 << 20)


# How much memory one reader takes for a file, in a process of its own: the growth of its
# resident set (peak minus what it held before reading), in bytes.
MEMORY_PROBE = textwrap.dedent("""
    import os, sys
    from pitui.store.catalog import Catalog
    from pitui.store.stats import session_preview
    from pitui.store.reader import Session

    def resident(key):
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith(key + ":"))
        return int(line.split()[1]) * 1024

    path, what, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    before = resident("VmRSS")
    if what == "load":
        Session.load(path)
    elif what == "preview":
        session_preview(path, use_cache=False)
    else:
        with Catalog(agent_dir=scratch, cache_dir=scratch, workers=0) as catalog:
            catalog.list_dir(os.path.dirname(path))
    print(resident("VmHWM") - before)
""")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads its memory use from /proc")
@pytest.mark.parametrize("reader", ["load", "preview", "list"])
def test_a_huge_line_of_nul_bytes_costs_no_more_than_twice_its_size(tmp_path: Path, reader: str):
    """A crash can leave a hole of NUL bytes at the end of a file, as big as the file was meant to
    be. A reader holds the file (or the line) and one copy of the line at most: it does not decode
    it as text, nor copy it again, to find out that it is not JSON."""
    folder = tmp_path / "proj"
    folder.mkdir()
    size = 64 << 20
    sparse_session(folder / "big.jsonl", size)
    probe = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(folder / "big.jsonl"), reader, str(tmp_path / "scratch")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    assert int(probe.stdout) < 2.5 * size


@pytest.mark.skipif(os.environ.get("PITUI_BIG_FILES") != "1", reason="reads 1 GB three times: PITUI_BIG_FILES=1")
def test_a_1_gb_file(tmp_path: Path):
    check_huge_sparse_file(tmp_path, 1 << 30)
