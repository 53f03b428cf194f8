"""The commands' session indexes are written behind them: by a detached child process when this
one can fork safely, else by the command itself; either way the index is the one a reopen uses."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from devkit.builder import linear
from pitui.cli.resolve import write_behind
from pitui.store.reader import Session
from pitui.store.session_index import IndexCache, index_files


def _read(tmp_path: Path) -> tuple[Path, IndexCache]:
    path = linear(tmp_path / "s.jsonl", count=300)
    cache = IndexCache(str(tmp_path / "index"), deferred=True, min_bytes=0)
    Session.load(str(path), index=cache)
    assert cache.pending and not list(index_files(cache.directory))
    return path, cache


def _reopened_from_index(path: Path, cache: IndexCache) -> bool:
    deadline = time.monotonic() + 60  # a wait for the writer, not a timed assertion
    while not list(index_files(cache.directory)) and time.monotonic() < deadline:
        time.sleep(0.02)
    Session.load(str(path), index=cache)
    return cache.last == "hit"


def test_the_index_is_written_and_this_process_forgets_it(tmp_path: Path) -> None:
    path, cache = _read(tmp_path)
    write_behind(cache)
    assert not cache.pending  # handed over (or written): a second write_behind writes nothing again
    assert _reopened_from_index(path, cache)


def test_with_threads_running_the_command_writes_the_index_itself(tmp_path: Path) -> None:
    path, cache = _read(tmp_path)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        write_behind(cache)  # no fork with another thread running: written before it returns
        assert len(list(index_files(cache.directory))) == 1
    finally:
        release.set()
        other.join()
    assert not cache.pending
    assert _reopened_from_index(path, cache)
