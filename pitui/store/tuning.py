"""Every process-wide performance knob of the store, in one place.

The library itself never switches the garbage collector, never swaps ``sys.stderr``, and forks
only from a process with no other thread. A program opts in: the CLI's non-interactive commands
run with :func:`gc_paused` around the whole command, the app around its reading workers (a
session read whole); the app starts multiprocessing's helpers before it takes over the terminal
(:func:`start_process_helpers`).
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
    """Pause the cyclic garbage collector for the block, and turn it back on when the last
    block that paused it ends, if it was on before the first. Safe from several threads at once.

    Reading a big session builds 100,000 small objects, which would set off many full
    collections, each walking everything built so far; the reader makes no reference cycles.
    In the app a 100,000-entry read took a third longer with the collector on (0.9 against
    0.65 s). Something else that switches the collector meanwhile (Textual pauses it while a
    scroll animates) is not undone: at worst the read runs with it on.
    """
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


_pause_lock = threading.Lock()
_pauses = 0  # blocks inside gc_paused now
_was_enabled = False  # whether the collector was on when the first of them began


def freeze_heap(*, collect: bool = False) -> None:
    """Keep every object alive now out of the cyclic collector's walks (``gc.freeze``), until
    :func:`thaw_heap`; with ``collect``, after a full collection (what is garbage now is not
    kept).

    For a session just read with the collector paused: its 100,000 entries are otherwise all
    walked by the next collection, about 45 ms (and again by each of the older generations'),
    on whichever thread allocates next: the UI's, as it draws the first screen. Frozen objects
    are still freed when their last reference goes; only reference cycles among them wait for
    the thaw, which the program calls when what it froze is let go (the session view closes, or
    reads the file again).

    For the picker's listing (its rows, and the lower-cased texts each keystroke searches):
    typing makes new rows at every key, and every few keys their survivors set off a full
    collection that walks the whole listing again (45 ms at 2,000 sessions, on the UI thread
    between a key and its rows). The picker freezes what its listing left, once its texts are
    made, collecting first, and thaws at its next listing.
    """
    if collect:
        gc.collect()
    gc.freeze()


def thaw_heap() -> None:
    """Give the objects :func:`freeze_heap` kept out back to the collector (``gc.unfreeze``):
    the next full collection frees what of them has become garbage."""
    gc.unfreeze()


def can_fork() -> bool:
    """Whether forking is safe here: ``os.fork`` exists and this process runs one thread (a
    child of a threaded process may inherit a lock another thread held, and Python 3.12+ warns)."""
    return hasattr(os, "fork") and threading.active_count() == 1


# What the worker processes of a listing run (pitui.store.catalog.workers and the decoder its
# scan imports), imported by the fork server once (a module that fails to import is skipped).
FORK_SERVER_PRELOAD = ("pitui.store.catalog.workers", "pitui.store.catalog.scan_fields")


def start_process_helpers() -> None:
    """Start multiprocessing's helper processes (the resource tracker; the fork server where
    there is one) now, while ``sys.stderr`` is still the process's own.

    A helper is started with ``sys.stderr.fileno()`` among the descriptors it keeps, and a
    full-screen app replaces ``sys.stderr`` with a stream whose ``fileno()`` is -1, which
    starting a process refuses ("bad value(s) in fds_to_keep"): a process pool first wanted
    inside the app could not start. About 40 ms, once; the helpers stay for the process's life.

    Helpers that cannot start (the fork server's socket path too long for a deep ``$TMPDIR``,
    no processes left) are not an error: a pool that finds none scans in this process instead.

    The fork server imports the listing's scanning modules as it starts (beside this process,
    on the other core), so that each worker forked from it has them: otherwise every worker
    of the first cold listing imported them itself before its first file (about 100 ms).
    """
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    try:
        resource_tracker.ensure_running()
        if "forkserver" in multiprocessing.get_all_start_methods():
            forkserver.set_forkserver_preload(list(FORK_SERVER_PRELOAD))
            forkserver.ensure_running()
    except (OSError, ValueError):
        pass


def yield_gil() -> None:
    """Let another thread (the UI's) take the GIL now, from a loop in a worker thread."""
    time.sleep(0)


# ---------------------------------------------------------------------- reading in blocks

# Files at least this big are read in blocks of READ_BLOCK_BYTES (pitui.store.blocks), so that
# the whole file is never in memory beside its entries (a 100 MB session read whole peaks at
# its size more).
BLOCKS_MIN_BYTES = 32 << 20
READ_BLOCK_BYTES = 8 << 20


def read_in_blocks(size: int) -> bool:
    """Whether a file of ``size`` bytes is read in blocks rather than whole."""
    return size >= BLOCKS_MIN_BYTES
