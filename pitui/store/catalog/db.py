"""The catalog's SQLite cache: its schema, opening (and rebuilding an old or corrupt file),
retrying after damage, and the reads every part of the catalog shares."""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from pitui.store.catalog.codec import db_text, from_json, from_utf8, load_blob, unpack_rows
from pitui.store.catalog.model import Row, SessionInfo
from pitui.store.js import MISSING
from pitui.store.paths import cache_dir_default

__all__ = [
    "APP_ID",
    "DB_NAME",
    "ROW_COLS",
    "SCHEMA_VERSION",
    "SQL_PARAMS",
    "CatalogDB",
    "cache_dir_default",
    "info_from_row",
    "path_range",
    "rows_below",
    "rows_for",
    "rows_of",
    "scan_state",
    "stored_text",
    "texts",
    "write_transaction",
]

T = TypeVar("T")

# 3: ScanState blobs name their fields as ScanState does (an older cache is rebuilt).
# 4: each stored text row holds its message's time too (entry search orders hits by it),
# and the usage table (catalog/usage.py).
SCHEMA_VERSION = 4
APP_ID = 0x70697475  # "pitu"
DB_NAME = "catalog.sqlite3"

# Paths bound in one ``IN (...)`` query: below SQLite's limit on bound parameters (999 before 3.32).
SQL_PARAMS = 500
# More sessions than this: one pass over the texts table beats a lookup for each.
READ_ALL_TEXTS_ABOVE = 64

# sessions: one row per file seen. texts: one row per session with message text (pack_rows), a
# single row because one insert per message made storing cost as much as scanning. texts_fts: a
# trigram index of each session's lower-cased text, rowid = sid (filled by build_index). usage:
# one row per file whose usage was asked for (catalog/usage.py): the stamp it was computed from,
# the local time zone of its days, and its sums per (day, source) before and after ``offset``.
_SCHEMA = """
CREATE TABLE sessions(
  sid INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ino INTEGER NOT NULL,
  dev INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  reason TEXT,
  id BLOB,
  cwd TEXT NOT NULL,
  name TEXT,
  parent BLOB,
  created REAL,
  modified REAL,
  count INTEGER NOT NULL,
  first TEXT NOT NULL,
  state BLOB NOT NULL,
  chk BLOB NOT NULL,
  indexed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE texts(sid INTEGER PRIMARY KEY, meta BLOB NOT NULL, text BLOB NOT NULL);
CREATE VIRTUAL TABLE texts_fts USING fts5(
  text, content='', detail=none, tokenize='trigram case_sensitive 1'
);
CREATE TABLE usage(
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ino INTEGER NOT NULL,
  zone TEXT NOT NULL,
  offset INTEGER NOT NULL,
  chk BLOB NOT NULL,
  done BLOB NOT NULL,
  tail BLOB NOT NULL
);
"""

ROW_COLS = "sid, path, size, mtime_ns, ino, dev, ok, reason, id, cwd, name, parent, created, modified, count, first"


class CatalogDB:
    """The cache file in ``cache_dir``, opened on first use. A missing, old or corrupt file is
    rebuilt; a cache that cannot be written at all is replaced by one in memory.

    ``on_reset`` is called when the cache turned out corrupt and was thrown away, for whatever
    was remembered from it to be forgotten too.
    """

    def __init__(self, cache_dir: str, on_reset: Callable[[], None] | None = None) -> None:
        self.cache_dir = cache_dir
        self.on_reset = on_reset
        self.lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._sid_cache: dict[str, int] = {}
        self._sid_stamp: tuple[int, int, int] | None = None

    @property
    def path(self) -> str:
        return os.path.join(self.cache_dir, DB_NAME)

    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def close(self) -> None:
        with self.lock:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None

    def retrying(self, fn: Callable[[], T]) -> T:
        """``fn()``, under the lock; once more on a new cache if the database turned out damaged."""
        with self.lock:
            try:
                return fn()
            except sqlite3.DatabaseError:
                self.reset()
                return fn()

    def reset(self) -> None:
        """Throw the cache away (it turned out corrupt) and start a new one."""
        self.close()
        self._sid_cache = {}
        self._sid_stamp = None
        if self.on_reset is not None:
            self.on_reset()
        with contextlib.suppress(OSError):
            self._remove_files()
        self._conn = None

    def sids(self, conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int]:
        """The sid of each listed session among ``paths``. Answers are remembered while the
        database is unchanged (by this connection or any other), so that every keystroke of a
        search does not ask again."""
        stamp = (id(conn), conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])
        if stamp != self._sid_stamp:
            self._sid_cache = {}
            self._sid_stamp = stamp
        known = self._sid_cache
        got = list(map(known.get, paths))
        if None not in got:  # (every keystroke of a search over rows listed already)
            return dict(zip(paths, got, strict=True))  # type: ignore[arg-type]
        out = {path: sid for path, sid in zip(paths, got, strict=True) if sid is not None}
        need = [path for path, sid in zip(paths, got, strict=True) if sid is None]
        for i in range(0, len(need), SQL_PARAMS):
            chunk = [db_text(path) for path in need[i : i + SQL_PARAMS]]
            marks = ",".join("?" * len(chunk))
            for sid, path in conn.execute(f"SELECT sid, path FROM sessions WHERE ok = 1 AND path IN ({marks})", chunk):
                out[from_utf8(path)] = known[from_utf8(path)] = sid
        return out

    # -- opening ----------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        try:
            os.makedirs(self.cache_dir, exist_ok=True)
            try:
                return self._open_file()
            except sqlite3.DatabaseError:
                self._remove_files()
                return self._open_file()
        except (OSError, sqlite3.Error):
            return _init(sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False))

    def _open_file(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
        try:
            # Bigger pages (taken only by a new file) store the session texts in fewer pieces.
            conn.execute("PRAGMA page_size=16384")
            conn.execute("PRAGMA journal_mode=WAL")
            # No fsync: this is a cache. A crash of the program loses nothing (WAL); a power
            # loss may lose recent rows (the files are scanned again) or damage the file, which
            # is then rebuilt. Syncing made writing the cache cost more than twice as much.
            conn.execute("PRAGMA synchronous=OFF")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            if version == SCHEMA_VERSION and app == APP_ID:
                conn.execute("SELECT sid, path, state, chk, indexed FROM sessions LIMIT 1").fetchall()
                conn.execute("SELECT sid, meta, text FROM texts LIMIT 1").fetchall()
                conn.execute("SELECT rowid FROM texts_fts WHERE texts_fts MATCH '\"abc\"' LIMIT 1").fetchall()
                conn.execute("SELECT path, zone, done, tail FROM usage LIMIT 1").fetchall()
                return conn
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise sqlite3.DatabaseError("stale cache schema")
            return _init(conn)
        except sqlite3.Error:
            conn.close()
            raise

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.remove(self.path + suffix)


def _init(conn: sqlite3.Connection) -> sqlite3.Connection:
    with contextlib.suppress(sqlite3.Error):
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN")
    for stmt in _SCHEMA.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    conn.execute(f"PRAGMA application_id={APP_ID}")
    conn.execute("COMMIT")
    return conn


# --------------------------------------------------------------------------------------------
# Reads


def info_from_row(row: tuple[Any, ...]) -> SessionInfo:
    """The listing row of a ``sessions`` row (its first ``ROW_COLS`` columns)."""
    (_, path, size, mtime_ns, _, _, _, _, id_blob, cwd, name, parent, created, modified, count, first) = row
    parent_value = from_json(parent)
    return SessionInfo(
        path=from_utf8(path),
        id=from_json(id_blob),
        cwd=from_utf8(cwd),
        name=None if name is None else from_utf8(name),
        parent_session_path=None if parent_value is MISSING else parent_value,
        created=created,
        modified=math.nan if modified is None else modified,
        message_count=count,
        first_message=from_utf8(first),
        size=size,
        mtime_ns=mtime_ns,
    )


def rows_for(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """The cached ``sessions`` rows of ``paths`` (``ROW_COLS``, then indexed; the scan state of
    a row is read only for a file that grew: :func:`scan_state`)."""
    rows: dict[str, tuple[Any, ...]] = {}
    for i in range(0, len(paths), SQL_PARAMS):
        chunk = [db_text(path) for path in paths[i : i + SQL_PARAMS]]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT {ROW_COLS}, indexed FROM sessions WHERE path IN ({marks})", chunk):
            path = row[1]
            rows[path if type(path) is str else from_utf8(path)] = row
    return rows


def path_range(folder: str) -> tuple[str, str]:
    """Bounds for the paths below ``folder``: every path that starts with ``folder/`` sorts
    between ``folder/`` and ``folder0`` ("0" follows "/")."""
    prefix = os.path.join(folder, "")
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def rows_below(conn: sqlite3.Connection, prefix: str, upper: str, paths: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """:func:`rows_for` of ``paths``, all below one folder (``prefix`` .. ``upper``): one scan of
    the path index instead of a lookup per path. Every row of that range is in the result, the
    paths' and the others' (the rows a listing no longer found: see ``Catalog._forget_missing``).
    A path stored as bytes (not UTF-8) sorts outside any text range: looked up one by one."""
    rows: dict[str, tuple[Any, ...]] = {}
    for row in conn.execute(f"SELECT {ROW_COLS}, indexed FROM sessions WHERE path >= ? AND path < ?", (prefix, upper)):
        path = row[1]
        rows[path if type(path) is str else from_utf8(path)] = row
    odd = [path for path in paths if path not in rows and type(db_text(path)) is not str]
    if odd:
        rows.update(rows_for(conn, odd))
    return rows


def scan_state(conn: sqlite3.Connection, sid: int) -> tuple[bytes, bytes]:
    """The stored ScanState blob of a session and the digest of the bytes it covers."""
    state, chk = conn.execute("SELECT state, chk FROM sessions WHERE sid = ?", (sid,)).fetchone()
    return state, chk


def rows_of(conn: sqlite3.Connection, sid: int) -> list[Row]:
    """A session's stored text rows."""
    row = conn.execute("SELECT meta, text FROM texts WHERE sid = ?", (sid,)).fetchone()
    return [] if row is None else unpack_rows(*row)


def stored_text(conn: sqlite3.Connection, sid: int) -> tuple[list[Any], str]:
    """A session's stored rows without making them: the ``(offset, entry id, assistant,
    length, time)`` of each and ``allMessagesText``, the texts joined by spaces."""
    row = conn.execute("SELECT meta, text FROM texts WHERE sid = ?", (sid,)).fetchone()
    return ([], "") if row is None else (load_blob(row[0]), from_utf8(row[1]))


def texts(conn: sqlite3.Connection, sids: set[int]) -> dict[int, str]:
    """``allMessagesText`` of every session in ``sids``, read from the cache."""
    out: dict[int, str] = dict.fromkeys(sids, "")
    if len(sids) > READ_ALL_TEXTS_ABOVE:
        for sid, text in conn.execute("SELECT sid, text FROM texts"):
            if sid in out:
                out[sid] = from_utf8(text)
    else:
        for sid in sids:
            row = conn.execute("SELECT text FROM texts WHERE sid = ?", (sid,)).fetchone()
            if row is not None:
                out[sid] = from_utf8(row[0])
    return out


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on the cache (``BEGIN IMMEDIATE``): committed at the end of the
    block, rolled back when it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
