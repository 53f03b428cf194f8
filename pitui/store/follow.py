"""Following one session file while pi writes it: an async stream of "it changed" events.

The parent folder is watched, not the file: pi appends in place, but a file can also be
replaced (an old-format file rewritten) or moved to the trash, and a watch on the file itself
would go blind after either. Reading what changed is the caller's job (``Session.refresh``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from enum import Enum

__all__ = ["FileEvent", "follow_file"]


class FileEvent(Enum):
    CHANGED = "changed"  # written to, or replaced by another file of the same name
    REMOVED = "removed"  # gone (trashed, moved away, deleted)


async def follow_file(
    path: str, stop: asyncio.Event | None = None, *, debounce_ms: int = 100, step_ms: int = 30
) -> AsyncIterator[FileEvent]:
    """Yield an event each time ``path`` changes on disk, until ``stop`` is set.

    Bursts of writes within ``debounce_ms`` come as one event. A file that disappears and comes
    back (replaced by a rename) is CHANGED; one that stays away is REMOVED.
    """
    from watchfiles import awatch

    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    async for changes in awatch(folder, stop_event=stop, debounce=debounce_ms, step=step_ms,
                                recursive=False, ignore_permission_denied=True):
        if not any(os.path.realpath(changed) == target for _, changed in changes):
            continue
        yield FileEvent.CHANGED if os.path.exists(target) else FileEvent.REMOVED
