"""Every process-wide performance knob of the store, in one place.

The library itself never switches the garbage collector, never swaps ``sys.stderr``, and forks
only from a process with no other thread. A program that knows it is a one-shot batch (the
CLI's non-interactive commands) opts in with :func:`gc_paused`; the threaded app does not, and
starts multiprocessing's helpers before it takes over the terminal
(:func:`start_process_helpers`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import time
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, if it is on, and turn it back on after.

    Reading a big session builds 100,000 small objects, which would set off many full
    collections, each walking everything built so far; the reader makes no reference cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def can_fork() -> bool:
    """Whether forking is safe here: ``os.fork`` exists and this process runs one thread (a
    child of a threaded process may inherit a lock another thread held, and Python 3.12+ warns)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def start_process_helpers() -> None:
    """Start multiprocessing's helper processes (the resource tracker; the fork server where
    there is one) now, while ``sys.stderr`` is still the process's own.

    A helper is started with ``sys.stderr.fileno()`` among the descriptors it keeps, and a
    full-screen app replaces ``sys.stderr`` with a stream whose ``fileno()`` is -1, which
    starting a process refuses ("bad value(s) in fds_to_keep"): a process pool first wanted
    inside the app could not start. About 40 ms, once; the helpers stay for the process's life.

    Helpers that cannot start (the fork server's socket path too long for a deep ``$TMPDIR``,
    no processes left) are not an error: a pool that finds none scans in this process instead.
    """
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    try:
        resource_tracker.ensure_running()
        if "forkserver" in multiprocessing.get_all_start_methods():
            forkserver.ensure_running()
    except (OSError, ValueError):
        pass


def yield_gil() -> None:
    """Let another thread (the UI's) take the GIL now, from a loop in a worker thread."""
    time.sleep(0)


# ---------------------------------------------------------------------- parallel reading

# Files at least this big are parsed on several cores (Linux, where fork is cheap and safe for
# a child that only parses): the main process reads the first part of the lines while forked
# children parse the rest into compact records, merged back in file order.
PARALLEL_MIN_BYTES = 16 << 20
# The share of the lines the main process parses itself: it also merges what the children send.
MAIN_SHARE = 0.45
# At most this many children.
MAX_WORKERS = 3

# Set by tests: fork this many children whatever the machine's load (None: decide by the load).
PARALLEL_WORKERS: int | None = None


def parallel_workers() -> int:
    """How many children to fork: one per idle core besides the main one (at most
    ``MAX_WORKERS``), none when :func:`can_fork` says no. A busy machine gets none: with no idle
    core a child only takes turns with the main process, and the copying and merging make the
    whole slower (measured on two cores at load 4: 1.45 s in one process, 1.76 s with a child)."""
    if sys.platform != "linux" or not can_fork():
        return 0
    if PARALLEL_WORKERS is not None:
        return PARALLEL_WORKERS
    try:
        cores = len(os.sched_getaffinity(0))
        idle = cores - os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0
    return max(0, min(cores - 1, int(idle), MAX_WORKERS))


# ---------------------------------------------------------------------- reading in blocks

# Files at least this big are read in blocks of READ_BLOCK_BYTES (pitui.store.blocks), so that
# the whole file is never in memory beside its entries (a 100 MB session read whole peaks at
# its size more), unless idle cores read it in parallel (which needs it whole): up to
# BLOCKS_ALWAYS_BYTES, where the memory matters more than the cores.
BLOCKS_MIN_BYTES = 32 << 20
BLOCKS_ALWAYS_BYTES = 256 << 20
# Smaller than PARALLEL_MIN_BYTES: a block is never read in parallel.
READ_BLOCK_BYTES = 8 << 20


def read_in_blocks(size: int) -> bool:
    """Whether a file of ``size`` bytes is read in blocks rather than whole."""
    if size < BLOCKS_MIN_BYTES:
        return False
    return size >= BLOCKS_ALWAYS_BYTES or parallel_workers() < 1
