"""Watching session folders for the picker (pitui.store.watch), without the app."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from helpers.watching import armed

from pitui.store.watch import session_changes, watch_roots, watch_sessions


def test_roots_are_the_folders_that_exist_or_their_parents(tmp_path):
    sessions = tmp_path / "agent" / "sessions"
    project = sessions / "--home-me-proj--"
    project.mkdir(parents=True)
    assert watch_roots([str(project), str(sessions)]) == [str(sessions)]  # inside a watched folder
    missing = sessions / "--not-yet--"
    assert watch_roots([str(missing)]) == [str(sessions)]  # seen being created
    assert watch_roots([str(tmp_path / "no" / "such" / "place")]) == []
    other = tmp_path / "custom"
    other.mkdir()
    assert watch_roots([str(other), str(project)]) == [str(other), str(project)]


def test_changes_that_matter(tmp_path):
    session = tmp_path / "a.jsonl"
    session.write_text("{}\n")
    note = tmp_path / "notes.txt"
    note.write_text("x")
    folder = tmp_path / "--proj--"
    folder.mkdir()
    gone = tmp_path / "gone-folder"
    assert session_changes([str(session), str(note), str(folder), str(gone)]) == {str(session), str(folder), str(gone)}


async def next_change(stream, timeout: float = 10.0) -> set[str]:
    return await asyncio.wait_for(anext(stream), timeout)


async def test_appearing_growing_and_vanishing_files_are_reported(tmp_path: Path):
    folder = tmp_path / "sessions" / "--proj--"
    folder.mkdir(parents=True)
    stop = threading.Event()
    stream = watch_sessions([str(folder)], stop, debounce_ms=30, step_ms=10)
    path = folder / "new.jsonl"
    try:
        # Written again (the same bytes) until the watch, which starts with the first wait, reports it.
        assert str(path) in await armed(stream, lambda: path.write_text('{"type":"session"}\n'))
        with path.open("a") as handle:
            handle.write('{"type":"message"}\n')
        assert str(path) in await next_change(stream)
        os.remove(path)
        assert str(path) in await next_change(stream)
        (folder / "ignored.tmp").write_text("x")
        (folder / "b.jsonl").write_text("{}\n")
        assert await next_change(stream) == {str(folder / "b.jsonl")}
    finally:
        stop.set()
        await stream.aclose()


async def test_nothing_to_watch_ends_at_once(tmp_path):
    stream = watch_sessions([str(tmp_path / "missing" / "folder")])
    assert [change async for change in stream] == []
