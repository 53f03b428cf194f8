"""Following a session file: appends, replacement and removal are reported."""

from __future__ import annotations

import asyncio
import os

from helpers.watching import armed

from pitui.store.watch import FileEvent, follow_file


async def _next_event(events, timeout: float = 10.0) -> FileEvent:
    return await asyncio.wait_for(anext(events), timeout)


async def test_append_then_remove_is_reported(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"session"}\n')
    other = tmp_path / "other.jsonl"
    stop = asyncio.Event()
    events = follow_file(str(path), stop, debounce_ms=20, step_ms=10)
    assert await armed(events, lambda: os.utime(path)) is FileEvent.CHANGED  # the watch is on
    task = asyncio.ensure_future(_next_event(events))
    other.write_text("x\n")  # another file in the folder: not reported
    await asyncio.sleep(0.2)
    with open(path, "a") as file:
        file.write('{"type":"message"}\n')
    assert await task is FileEvent.CHANGED
    os.remove(path)
    assert await _next_event(events) is FileEvent.REMOVED
    stop.set()
    await events.aclose()


async def test_replaced_file_is_a_change(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("a\n")
    stop = asyncio.Event()
    events = follow_file(str(path), stop, debounce_ms=20, step_ms=10)
    assert await armed(events, lambda: os.utime(path)) is FileEvent.CHANGED  # the watch is on
    task = asyncio.ensure_future(_next_event(events))
    replacement = tmp_path / "s.jsonl.tmp"
    replacement.write_text("b\n")
    os.replace(replacement, path)
    assert await task is FileEvent.CHANGED
    stop.set()
    await events.aclose()
