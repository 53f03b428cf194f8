"""Watching sessions on disk, as async streams: the folders the picker lists (which session files
appeared, grew or went) and the one file the session view follows.

The callers read what changed (the catalog re-reads only the files that changed, the view
``Session.refresh``); this module only says where to look. watchfiles is imported on first use.
Both streams end when ``stop`` is set: a ``threading.Event`` or an ``asyncio.Event`` (anything
with ``is_set``), which watchfiles polls every ``step_ms``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterable
from enum import Enum
from typing import Protocol

__all__ = ["FileEvent", "StopEvent", "follow_file", "session_changes", "watch_roots", "watch_sessions"]


class StopEvent(Protocol):
    """What ends a watch: ``threading.Event`` and ``asyncio.Event`` both are one."""

    def is_set(self) -> bool: ...


def watch_roots(folders: Iterable[str]) -> list[str]:
    """What to watch so that changes in ``folders`` are seen: each folder that exists, else its
    parent when that exists (so a folder pi creates later is seen being made). Folders inside
    another one already watched (recursively) are left out."""
    roots: list[str] = []
    for folder in folders:
        folder = os.path.normpath(os.path.abspath(folder))
        target = folder if os.path.isdir(folder) else os.path.dirname(folder)
        if os.path.isdir(target) and target not in roots:
            roots.append(target)
    roots.sort(key=len)
    kept: list[str] = []
    for root in roots:
        if not any(root == k or root.startswith(os.path.join(k, "")) for k in kept):
            kept.append(root)
    return kept


def session_changes(paths: Iterable[str]) -> set[str]:
    """The changed paths that matter for a session list: session files (``.jsonl``), and any
    path that is not a file now (a folder removed or moved away takes its sessions with it)."""
    out = set()
    for path in paths:
        if path.endswith(".jsonl") or not os.path.isfile(path):
            out.add(os.path.normpath(path))
    return out


async def watch_sessions(
    folders: Iterable[str],
    stop: StopEvent | None = None,
    *,
    debounce_ms: int = 400,
    step_ms: int = 50,
    rust_timeout_ms: int = 1000,
    started: Callable[[], object] | None = None,
) -> AsyncIterator[set[str]]:
    """Yield the set of changed paths under ``folders`` (recursively), a burst of writes within
    ``debounce_ms`` as one set, until ``stop`` is set. Folders that do not exist are watched
    through their parent. Returns at once when there is nothing to watch. ``started`` is called
    on the event loop once the folders are watched (every change from then on is reported).

    ``stop`` is best a threading.Event here: the watcher waits for changes in a thread, and
    setting it ends that thread within ``step_ms`` (cancelling the task alone would wait for
    ``rust_timeout_ms``).
    """
    from watchfiles import awatch

    roots = watch_roots(folders)
    if not roots:
        return
    if started is not None:
        import asyncio

        # awatch sets its watches up before its first wait: this runs after that wait began.
        asyncio.get_running_loop().call_soon(started)
    async for changes in awatch(
        *roots,
        watch_filter=None,
        debounce=debounce_ms,
        step=step_ms,
        stop_event=stop,
        rust_timeout=rust_timeout_ms,
        recursive=True,
        ignore_permission_denied=True,
    ):
        paths = session_changes(path for _, path in changes)
        if paths:
            yield paths


# ---------------------------------------------------------------------- one session file


class FileEvent(Enum):
    CHANGED = "changed"  # written to, or replaced by another file of the same name
    REMOVED = "removed"  # gone (trashed, moved away, deleted)


async def follow_file(
    path: str, stop: StopEvent | None = None, *, debounce_ms: int = 100, step_ms: int = 30
) -> AsyncIterator[FileEvent]:
    """Yield an event each time ``path`` changes on disk, until ``stop`` is set.

    The parent folder is watched, not the file: pi appends in place, but a file can also be
    replaced (an old-format file rewritten) or moved to the trash, and a watch on the file itself
    would go blind after either. Bursts of writes within ``debounce_ms`` come as one event. A
    file that disappears and comes back (replaced by a rename) is CHANGED; one that stays away
    is REMOVED.
    """
    from watchfiles import awatch

    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    async for changes in awatch(
        folder, stop_event=stop, debounce=debounce_ms, step=step_ms, recursive=False, ignore_permission_denied=True
    ):
        if not any(os.path.realpath(changed) == target for _, changed in changes):
            continue
        yield FileEvent.CHANGED if os.path.exists(target) else FileEvent.REMOVED
