"""Starting a file watch in a test without a fixed sleep: poke until the watch reports it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def armed(events: AsyncIterator[T], poke: Callable[[], Any], *, every: float = 0.2, timeout: float = 10.0) -> T:
    """Call ``poke()`` (a harmless change the watch reports: touch a file, write the same bytes
    again) every ``every`` seconds until ``events`` yields; that first event. The watch is armed
    from then on, however long it took to start on a loaded machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    task = asyncio.ensure_future(anext(events))
    while True:
        poke()
        done, _ = await asyncio.wait({task}, timeout=every)
        if done:
            return task.result()
        if loop.time() > deadline:
            task.cancel()
            raise AssertionError(f"the watch reported nothing in {timeout:.0f}s")
