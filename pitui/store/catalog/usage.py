"""Where the tokens went: each listed session's usage by local day and by source, cached.

What is counted is :func:`pitui.store.totals.entry_usage` (pi's ``/session`` totals, the shown
sums) over every line of the file, so the figures of a session, added up over its days and
sources, are its ``/session`` totals. Each usage is put on

* the **day** of its time in the local time zone: the message's ``timestamp`` (ms) for a
  message, else (and for the other entries) the entry's ``timestamp``; ``unknown`` when neither
  is a valid time;
* its **source**, pi's ``getUsageCostBreakdown`` key (:func:`pitui.store.totals.usage_source`).

The sums are kept in the ``usage`` table of the catalog's cache, one row per file with the stamp
(size, mtime, inode) they were computed from. An unchanged file is not read again; a file that
grew (same inode, same bytes before the end of its last whole line) is read from there on, as
the sums only add up; anything else is read whole. A row also records the time zone its days
were taken in: in another zone it is computed again.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec
from msgspec import Struct

from pitui.store.catalog.codec import db_text, dump_blob, from_utf8, load_blob
from pitui.store.catalog.db import SQL_PARAMS, CatalogDB, write_transaction
from pitui.store.catalog.model import ProgressFn
from pitui.store.catalog.scan import _blocks, check_digest
from pitui.store.catalog.workers import MAX_WORKERS, POOL_ERRORS, pool_context
from pitui.store.js import JS_SPACE_LEADS, is_js_blank, js_date_parse
from pitui.store.jsonl import BadLine, parse_line
from pitui.store.totals import entry_usage

__all__ = [
    "UNKNOWN_DAY",
    "Bucket",
    "Figures",
    "SessionUsage",
    "scan_usage",
    "sessions_usage",
    "time_zone",
]

UNKNOWN_DAY = "unknown"
# (day "YYYY-MM-DD" or "unknown", source) -> input, output, cacheRead, cacheWrite, cost, usages
Bucket = tuple[str, str]
Figures = tuple[int | float, int | float, int | float, int | float, int | float, int]

# (the table: db.py's schema, ``usage``)

# Files read by worker processes when there is this much to read in all (and enough files).
POOL_MIN_BYTES = 64 << 20
POOL_MIN_FILES = 16
STORE_BATCH = 256


def time_zone() -> str:
    """What the local days depend on: the zone's names and offsets (``TZ`` changes them)."""
    return f"{time.tzname[0]}/{time.tzname[1]}/{time.timezone}/{time.altzone}"


class SessionUsage(Struct):
    """One session's usage: its figures per (day, source)."""

    path: str
    buckets: dict[Bucket, Figures]


# -- reading a file -------------------------------------------------------------------------
#
# msgspec makes Python objects of just the fields below (a message's content is checked and
# skipped); a line whose fields are of other types, or that msgspec refuses, takes
# pitui.store.jsonl's exact rules. Either way the entry goes to totals.entry_usage.


class _Message(msgspec.Struct):
    role: Any = msgspec.UNSET
    provider: Any = msgspec.UNSET
    model: Any = msgspec.UNSET
    responseModel: Any = msgspec.UNSET
    usage: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET


class _Line(msgspec.Struct):
    type: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    provider: Any = msgspec.UNSET
    model: Any = msgspec.UNSET
    usage: Any = msgspec.UNSET
    message: _Message | msgspec.UnsetType | None = msgspec.UNSET


_decode = msgspec.json.Decoder(_Line).decode
_CARRIERS = frozenset({"message", "usage", "compaction", "branch_summary"})


def _fields(struct: Any) -> dict[str, Any]:
    return {name: value for name in struct.__struct_fields__ if (value := getattr(struct, name)) is not msgspec.UNSET}


def _entry(seg: bytes | memoryview) -> Any:
    """The line as an entry (only the fields usage needs, when msgspec could take it), or None
    when it carries no usage for sure."""
    if seg[:1] == b"{":
        try:
            line = _decode(seg)
        except msgspec.DecodeError:
            pass
        else:
            kind, message = line.type, line.message  # (any JSON values: a list is not hashable)
            if type(kind) is not str or kind not in _CARRIERS:
                return None
            if kind == "message" and (type(message) is not _Message or message.role not in ("assistant", "toolResult")):
                return None
            entry = _fields(line)
            if type(message) is _Message:
                entry["message"] = _fields(message)
            return entry
    try:
        return parse_line(bytes(seg))
    except BadLine:
        return None


def _day(entry: dict[str, Any]) -> str:
    """The local day of the entry's usage (see the module's docstring)."""
    ms: float | None = None
    message = entry.get("message") if entry.get("type") == "message" else None
    if type(message) is dict:
        stamp = message.get("timestamp")
        if type(stamp) is int or type(stamp) is float:
            ms = stamp
    if ms is None:
        stamp = entry.get("timestamp")
        ms = js_date_parse(stamp) if type(stamp) is str else None
    if ms is None or not math.isfinite(ms):
        return UNKNOWN_DAY
    try:
        return time.strftime("%Y-%m-%d", time.localtime(ms / 1000))
    except (OverflowError, OSError, ValueError):
        return UNKNOWN_DAY


def _add(sums: dict[Bucket, list[Any]], entry: Any) -> None:
    carried = entry_usage(entry)
    if carried is None:
        return
    source, figures = carried
    key = (_day(entry), source)
    total = sums.get(key)
    if total is None:
        sums[key] = [*figures, 1]
        return
    for i in range(5):
        total[i] += figures[i]
    total[5] += 1


class UsageScan(Struct):
    """What reading (the rest of) a file gave: the sums of its whole lines (up to ``offset``)
    and of the unterminated last line, and the file's stamp."""

    done: dict[Bucket, list[Any]]
    tail: dict[Bucket, list[Any]]
    offset: int
    size: int
    mtime_ns: int
    ino: int
    check: bytes


def scan_usage(path: str, offset: int = 0, done: dict[Bucket, list[Any]] | None = None) -> UsageScan:
    """Add up the usage of ``path``'s lines from ``offset`` on to ``done`` (the sums of the lines
    before it). Raises OSError when the file cannot be read."""
    sums: dict[Bucket, list[Any]] = {key: list(value) for key, value in (done or {}).items()}
    tail: dict[Bucket, list[Any]] = {}
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        committed = offset
        for base, data, end in _blocks(fd, offset, st.st_size):
            last = end < 0
            stop = len(data) if last else end
            target = tail if last else sums
            i = 0
            find = data.find
            while i < stop:
                j = find(b"\n", i, stop)
                if j < 0:
                    j = stop
                if j > i and not (data[i] in JS_SPACE_LEADS and is_js_blank(data[i:j])):
                    entry = _entry(memoryview(data)[i:j])
                    if entry is not None:
                        _add(target, entry)
                i = j + 1
            if not last:
                committed = base + end
        return UsageScan(sums, tail, committed, st.st_size, st.st_mtime_ns, st.st_ino, check_digest(fd, committed))
    finally:
        os.close(fd)


# -- the cache ------------------------------------------------------------------------------


def _pack(sums: dict[Bucket, list[Any]]) -> bytes:
    return dump_blob([[day, source, *figures] for (day, source), figures in sums.items()])


def _unpack(blob: bytes) -> dict[Bucket, list[Any]]:
    return {(row[0], row[1]): row[2:] for row in load_blob(blob)}


def _merged(done: dict[Bucket, list[Any]], tail: dict[Bucket, list[Any]]) -> dict[Bucket, Figures]:
    out = {key: tuple(value) for key, value in done.items()}
    for key, value in tail.items():
        old = out.get(key)
        out[key] = tuple(value) if old is None else tuple(a + b for a, b in zip(old, value, strict=True))
    return out


# A job: (path, offset to read from, blob of the sums before it, digest of the bytes before it)
_Job = tuple[str, int, bytes | None, bytes | None]


def _run_job(job: _Job) -> tuple[str, UsageScan | None]:
    path, offset, blob, chk = job
    done = None
    try:
        if blob is not None and chk is not None:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            try:
                same = os.fstat(fd).st_size >= offset and check_digest(fd, offset) == chk
            finally:
                os.close(fd)
            done = _unpack(blob) if same else None
        return path, scan_usage(path, offset if done is not None else 0, done)
    except OSError:
        return path, None


def _run_batch(jobs: list[_Job]) -> list[tuple[str, UsageScan | None]]:
    return [_run_job(job) for job in jobs]


def _run_all(jobs: list[_Job], job_bytes: int, workers: int | None) -> Iterator[tuple[str, UsageScan | None]]:
    if workers is None:
        many = job_bytes >= POOL_MIN_BYTES and len(jobs) >= POOL_MIN_FILES
        workers = min(os.cpu_count() or 1, MAX_WORKERS) if many else 0
    if workers <= 1:
        for job in jobs:
            yield _run_job(job)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    done: set[str] = set()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=pool_context()) as pool:
            size = max(1, min(64, len(jobs) // (workers * 4) or 1))
            futures = [pool.submit(_run_batch, jobs[i : i + size]) for i in range(0, len(jobs), size)]
            for future in as_completed(futures):
                for path, scan in future.result():
                    done.add(path)
                    yield path, scan
    except POOL_ERRORS:  # pragma: no cover (no worker processes here: the rest in this one)
        yield from _run_all([job for job in jobs if job[0] not in done], 0, 0)


def _cached(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    rows: dict[str, tuple[Any, ...]] = {}
    for i in range(0, len(paths), SQL_PARAMS):
        chunk = [db_text(path) for path in paths[i : i + SQL_PARAMS]]
        marks = ",".join("?" * len(chunk))
        query = f"SELECT path, size, mtime_ns, ino, zone, offset, chk, done, tail FROM usage WHERE path IN ({marks})"
        for row in conn.execute(query, chunk):
            rows[from_utf8(row[0])] = row
    return rows


def _store(conn: sqlite3.Connection, zone: str, scans: list[tuple[str, UsageScan]]) -> None:
    with write_transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO usage(path, size, mtime_ns, ino, zone, offset, chk, done, tail)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (db_text(path), s.size, s.mtime_ns, s.ino, zone, s.offset, s.check, _pack(s.done), _pack(s.tail))
                for path, s in scans
            ],
        )


def sessions_usage(
    db: CatalogDB,
    paths: Sequence[str],
    on_progress: ProgressFn | None = None,
    workers: int | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, SessionUsage]:
    """The usage of each file of ``paths`` that can be read, from the cache where it is still
    that of the file, else read (and cached). ``on_progress(done, total)`` is told of the files
    that had to be read; ``cancelled()``, asked between them, stops early (what was read so far
    is kept)."""
    zone = time_zone()

    def work() -> dict[str, SessionUsage]:
        conn = db.conn()
        cached = _cached(conn, paths)
        out: dict[str, SessionUsage] = {}
        jobs: list[_Job] = []
        job_bytes = 0
        for path in paths:
            try:
                st = os.stat(path)
            except OSError:
                continue
            row = cached.get(path)
            if row is not None and row[4] == zone and row[3] == st.st_ino:
                if row[1] == st.st_size and row[2] == st.st_mtime_ns:
                    out[path] = SessionUsage(path, _merged(_unpack(row[7]), _unpack(row[8])))
                    continue
                if st.st_size > row[1]:
                    jobs.append((path, row[5], row[7], row[6]))
                    job_bytes += st.st_size - row[5]
                    continue
            jobs.append((path, 0, None, None))
            job_bytes += st.st_size
        pending: list[tuple[str, UsageScan]] = []
        for n, (path, scan) in enumerate(_run_all(jobs, job_bytes, workers), 1):
            if scan is not None:
                out[path] = SessionUsage(path, _merged(scan.done, scan.tail))
                pending.append((path, scan))
            if len(pending) >= STORE_BATCH:
                _store(conn, zone, pending)
                pending = []
            if on_progress is not None:
                on_progress(n, len(jobs))
            if cancelled is not None and cancelled():
                break
        if pending:
            _store(conn, zone, pending)
        return out

    return db.retrying(work)
