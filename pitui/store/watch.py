"""Watching session folders: an async stream of the session files that appeared, grew or went.

The picker re-lists through the catalog when told, which re-reads only the files that changed;
this module only says which paths to look at. Nothing here imports textual.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Iterable

__all__ = ["session_changes", "watch_roots", "watch_sessions"]


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
    stop: threading.Event | None = None,
    *,
    debounce_ms: int = 400,
    step_ms: int = 50,
    rust_timeout_ms: int = 1000,
) -> AsyncIterator[set[str]]:
    """Yield the set of changed paths under ``folders`` (recursively), a burst of writes within
    ``debounce_ms`` as one set, until ``stop`` is set. Folders that do not exist are watched
    through their parent. Returns at once when there is nothing to watch.

    ``stop`` is a threading.Event because the watcher waits for changes in a thread; setting it
    ends that thread within ``step_ms`` (cancelling the task alone would wait for
    ``rust_timeout_ms``).
    """
    from watchfiles import awatch

    roots = watch_roots(folders)
    if not roots:
        return
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
