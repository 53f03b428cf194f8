"""Scanning many files in worker processes: when it is worth it, how the processes are started,
and the batches they get."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pitui.store import tuning
from pitui.store.catalog.codec import pack_rows
from pitui.store.catalog.scan import ScanState, check_digest, os_reason, scan_file

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

# (multiprocessing and concurrent.futures are imported when a pool is made: a listing from the
# cache, or of a few files, does without them and their 30 ms of imports)

__all__ = [
    "MAX_WORKERS",
    "POOL_ERRORS",
    "POOL_MIN_BYTES",
    "POOL_MIN_FILES",
    "Job",
    "batches",
    "pool_context",
    "scan_in_pool",
    "scan_job",
    "worker_count",
]

# A scan job: (path, the ScanState blob to resume from, the digest of the bytes before its
# offset) or (path, None, None) to scan the file from the start.
Job = tuple[str, bytes | None, bytes | None]
# ("ok", (ScanResult, resumed)) or ("error", why the file is not listed)
Outcome = tuple[str, Any]

# Worker processes only pay for their start-up on a big job: this many bytes to read ...
POOL_MIN_BYTES = 96 << 20
# ... in at least this many files (one huge file is read by one process anyway).
POOL_MIN_FILES = 16
# Processes at most, however many CPUs there are.
MAX_WORKERS = 4
# A batch sent to a worker: about this many bytes of reading, or this many files, whichever
# comes first (each batch is one round trip; small ones let the workers finish together).
BATCH_BYTES = 8 << 20
BATCH_FILES = 64

# What makes worker processes unusable here (the rest is then scanned in this process);
# concurrent.futures' BrokenProcessPool is a RuntimeError.
POOL_ERRORS = (OSError, RuntimeError, ValueError, ImportError)


def scan_job(path: str, blob: bytes | None, check: bytes | None) -> Outcome:
    """Scan one file (in this process or a worker): ("ok", (result, resumed)) or ("error", why)."""
    state = None
    if blob is not None and check is not None:
        state = ScanState.from_blob(blob)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            try:
                same = os.fstat(fd).st_size >= state.offset and check_digest(fd, state.offset) == check
            finally:
                os.close(fd)
        except OSError as error:
            return "error", os_reason(error)
        if not same:
            state = None
    try:
        result = scan_file(path, state)
    except OSError as error:
        return "error", os_reason(error)
    if result.rows:
        result.packed = pack_rows(result.rows)
        result.rows = []
    return "ok", (result, state is not None)


def _scan_batch(jobs: list[Job]) -> list[Outcome]:
    return [scan_job(*job) for job in jobs]


def worker_count(job_bytes: int, files: int) -> int:
    """How many processes to scan ``files`` files of ``job_bytes`` bytes in all with (0: none)."""
    if job_bytes > POOL_MIN_BYTES and files >= POOL_MIN_FILES:
        return min(os.cpu_count() or 1, MAX_WORKERS)
    return 0


def pool_context() -> BaseContext:
    """The multiprocessing context to start workers with, its helper processes running.

    fork is immediate but only safe while this process runs a single thread (the command line);
    with threads around (the app), start clean interpreters from a fork server instead. Inside a
    full-screen app the helpers must already run (:func:`pitui.store.tuning.start_process_helpers`);
    if they cannot start, making the pool fails with one of ``POOL_ERRORS`` and the caller scans
    in this process.
    """
    import multiprocessing

    method = "fork" if tuning.can_fork() else "forkserver"
    if method not in multiprocessing.get_all_start_methods():
        method = "spawn"
    return multiprocessing.get_context(method)


def batches(jobs: list[Job]) -> list[list[Job]]:
    """Jobs in batches of about ``BATCH_BYTES`` of reading, biggest files first, so that the
    workers finish together."""
    sizes = {}
    for job in jobs:
        try:
            sizes[job[0]] = os.stat(job[0]).st_size
        except OSError:
            sizes[job[0]] = 0
    out: list[list[Job]] = []
    current: list[Job] = []
    current_size = 0
    for job in sorted(jobs, key=lambda job: -sizes[job[0]]):
        current.append(job)
        current_size += sizes[job[0]]
        if current_size >= BATCH_BYTES or len(current) >= BATCH_FILES:
            out.append(current)
            current, current_size = [], 0
    if current:
        out.append(current)
    return out


def scan_in_pool(jobs: list[Job], workers: int) -> Iterator[tuple[Job, Outcome]]:
    """Each job and its outcome, scanned by ``workers`` processes, in the order they finish.
    Raises one of ``POOL_ERRORS`` when the processes cannot be started or die."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=workers, mp_context=pool_context()) as pool:
        futures = {pool.submit(_scan_batch, batch): batch for batch in batches(jobs)}
        try:
            for future in as_completed(futures):
                batch = futures[future]
                yield from zip(batch, future.result(), strict=True)
        finally:  # (given up: the batches not started are dropped, only those running finish)
            pool.shutdown(wait=False, cancel_futures=True)
