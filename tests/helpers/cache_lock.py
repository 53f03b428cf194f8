"""The catalog's cache lock wanted by another thread at a chosen moment: what a quitting app
does when it closes its catalog while a listing or a usage count runs."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from pitui.store.catalog import Catalog


def ui_thread_asks_for_the_lock(catalog: Catalog, loop: asyncio.AbstractEventLoop, took: list[bool]) -> None:
    """From a worker thread: make the UI thread (the one running ``loop``) wait for the cache's
    lock, as the app's quit would, for 10 s at most; ``took`` gets whether it had it. Returns
    once the UI thread is waiting."""
    lock = catalog._db.lock  # the lock every use of the cache takes

    def take() -> None:
        taken = lock.acquire(timeout=10)
        took.append(taken)
        if taken:
            lock.release()

    loop.call_soon_threadsafe(take)
    time.sleep(0.2)  # the UI thread is waiting for the lock by now


class CloseOnFirstProgress:
    """A progress callback that closes ``catalog`` from another thread at the first progress
    told, and returns once the close has asked the work under way to stop. ``told``: every
    progress told."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.told: list[int] = []
        self.closer = threading.Thread(target=catalog.close)

    def __call__(self, done: int, total: int) -> Any:
        self.told.append(done)
        if len(self.told) == 1:
            self.closer.start()
            for _ in range(1000):
                if self.catalog._closing.is_set():
                    break
                time.sleep(0.01)

    def closed(self) -> bool:
        """Whether the close has returned (waiting for it 10 s at most)."""
        self.closer.join(10)
        return not self.closer.is_alive()
