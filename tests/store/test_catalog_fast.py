"""The catalog's cached-rows-only listing, which the picker shows before the real listing ends."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from devkit.builder import header, msg, write
from pitui.store.catalog import Catalog
from pitui.store.paths import default_session_dir, sessions_root

CWD = "/home/me/proj"
OTHER = "/srv/other"


def session(folder: Path, name: str, cwd: str = CWD, text: str = "hello", n: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / name, header(cwd=cwd, id=f"id-{name}"), msg("u1", None, "user", text, n=n))


@pytest.fixture
def agent(tmp_path) -> Path:
    agent = tmp_path / "agent"
    here = Path(default_session_dir(CWD, str(agent)))
    there = Path(default_session_dir(OTHER, str(agent)))
    session(here, "a.jsonl", n=1)
    session(here, "b.jsonl", n=3)
    session(there, "c.jsonl", cwd=OTHER, n=2)
    (here / "not-a-session.jsonl").write_text("garbage\n")
    (Path(sessions_root(str(agent))) / "loose.jsonl").write_bytes((here / "a.jsonl").read_bytes())
    return agent


@pytest.fixture
def cat(tmp_path, agent):
    c = Catalog(agent_dir=str(agent), cache_dir=str(tmp_path / "cache"))
    yield c
    c.close()


def rows(infos) -> list[dict]:
    return [info.to_json() for info in infos]


def test_nothing_cached_before_a_listing(cat):
    assert cat.cached_list(CWD) == []
    assert cat.cached_all() == []


def test_cached_rows_equal_the_listing(cat):
    current = cat.list(CWD)
    everything = cat.list_all()
    assert [os.path.basename(i.path) for i in current] == ["b.jsonl", "a.jsonl"]
    assert rows(cat.cached_list(CWD)) == rows(current)
    assert rows(cat.cached_all()) == rows(everything)  # not the loose file beside the folders
    assert rows(cat.cached_dir(default_session_dir(OTHER, cat.agent_dir))) == rows(cat.list(OTHER))


def test_cached_rows_never_look_at_the_files(cat, agent, tmp_path):
    listed = rows(cat.list(CWD))
    shutil.move(agent / "sessions", tmp_path / "moved-away")
    assert rows(cat.cached_list(CWD)) == listed  # the folder is gone: only the cache answered
    assert cat.list(CWD) == []
    assert cat.cached_list(CWD) == []  # the cached rows are those of the last listing


def test_an_unreadable_folder_keeps_its_cached_rows(cat, agent, monkeypatch):
    listed = rows(cat.list(CWD))
    real_listdir = os.listdir

    def denied(path):
        if os.fspath(path) == default_session_dir(CWD, str(agent)):
            raise PermissionError(13, "Permission denied", path)
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", denied)
    assert cat.list(CWD) == []
    assert [p.reason for p in cat.problems] == ["the folder cannot be read: permission denied"]
    assert rows(cat.cached_list(CWD)) == listed
    cat.list_all()
    assert rows(cat.cached_list(CWD)) == listed


def test_a_rescan_updates_the_cached_rows(cat, agent):
    cat.list(CWD)
    here = Path(default_session_dir(CWD, str(agent)))
    (here / "a.jsonl").unlink()
    session(here, "d.jsonl", n=5)
    cat.list(CWD)
    assert [os.path.basename(i.path) for i in cat.cached_list(CWD)] == ["d.jsonl", "b.jsonl"]
    assert [os.path.basename(i.path) for i in cat.cached_all()] == ["d.jsonl", "b.jsonl"]  # c: never listed
    cat.list_all()
    assert [os.path.basename(i.path) for i in cat.cached_all()] == ["d.jsonl", "b.jsonl", "c.jsonl"]


def test_a_sibling_folder_with_the_same_prefix_is_not_included(cat, agent):
    here = Path(default_session_dir(CWD, str(agent)))
    session(Path(str(here) + "extra"), "x.jsonl")
    cat.list_all()
    assert all(os.path.dirname(i.path) == str(here) for i in cat.cached_dir(str(here)))


def test_custom_session_folder_keeps_only_this_projects_sessions(tmp_path, cat):
    custom = tmp_path / "custom"
    session(custom, "mine.jsonl")
    session(custom, "theirs.jsonl", cwd=OTHER)
    cat.list(CWD, str(custom))
    assert [os.path.basename(i.path) for i in cat.cached_list(CWD, str(custom))] == ["mine.jsonl"]


def test_worker_processes_start_under_a_full_screen_apps_stderr(tmp_path, monkeypatch) -> None:
    """A full-screen app replaces sys.stderr with an object whose fileno() is -1, and runs
    threads (so the scan's processes come from a fork server): listing must still work, with
    multiprocessing's helpers started before the app took sys.stderr, as `pitui` does."""
    import io
    import sys
    import threading

    from pitui.store import tuning
    from pitui.store.catalog import Catalog

    tuning.start_process_helpers()

    class CapturedStderr(io.StringIO):
        def fileno(self) -> int:
            return -1

    folder = tmp_path / "agent" / "sessions" / "--p--"
    folder.mkdir(parents=True)
    for n in range(6):
        (folder / f"s{n}.jsonl").write_text(
            f'{{"type":"session","version":3,"id":"s{n}","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}}\n'
        )
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    monkeypatch.setattr(sys, "stderr", CapturedStderr())
    try:
        catalog = Catalog(str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), workers=2)
        infos = catalog.list_all()
    finally:
        stop.set()
        thread.join()
    assert sorted(info.id for info in infos) == [f"s{n}" for n in range(6)]
    assert catalog.workers == 2  # the processes ran: no fallback to scanning in this one
