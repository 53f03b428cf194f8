"""Every process-wide performance knob in one place: the cyclic GC, forking, handing over the GIL.

Each one changes the whole process, not only the caller: the command line turns them on for its
batch commands; a library user or the interactive app decides for itself.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block, then on again; left off if it was off.

    Reading sessions builds large object graphs without reference cycles: the collector would
    only walk them again and again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def can_fork() -> bool:
    """Whether forking is safe here: ``os.fork`` exists and this process runs one thread only
    (a fork copies a lock another thread holds, locked, into a child that never unlocks it)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def yield_gil() -> None:
    """Hand the GIL to another thread now (``time.sleep(0)``): from a cancel callback of a busy
    worker, so the UI thread gets to run before the worker takes the GIL back."""
    time.sleep(0)
