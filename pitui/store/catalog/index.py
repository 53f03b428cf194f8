"""The catalog's full-text index (``texts_fts``): a trigram index of each session's lower-cased
message text, which lets a phrase search skip the sessions that cannot contain it.

Listing leaves it out to stay fast, and searching is exact without it: sessions not in the index
yet are searched by reading their text. :func:`build_index` fills it, a batch at a time.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable

from pitui.store.catalog.db import texts, write_transaction
from pitui.store.catalog.model import SessionInfo

__all__ = [
    "INDEX_BATCH",
    "MAX_TRIGRAMS",
    "STEP_BYTES",
    "BackgroundIndex",
    "build_index",
    "fts_lower",
    "index_add",
    "index_remove",
    "pending_index",
    "prefilter",
    "session_head",
]

# Sessions added to the index per transaction: another writer of the cache waits for one batch.
INDEX_BATCH = 64
# What the background indexer adds per transaction, at most: a search that comes meanwhile waits
# for one such step (about 10-20 ms for 256 KB of text; a single bigger session is one step).
STEP_BYTES = 256 << 10
# The pause between its steps, so that a thread waiting for the catalog takes it first.
STEP_PAUSE_S = 0.002
# Trigrams looked up per phrase piece, at most (spread evenly, plus the last one), to bound the
# size of the index query a long phrase makes.
MAX_TRIGRAMS = 12

_SURROGATE = re.compile("[\ud800-\udfff]")


def fts_lower(text: str) -> str:
    """The form of message text the trigram index holds (``toLowerCase``; a lone surrogate,
    which SQLite cannot take, becomes U+FFFD on both sides of a lookup)."""
    low = text.lower()
    if not low.isascii():
        try:
            low.encode()
        except UnicodeEncodeError:
            low = _SURROGATE.sub("\ufffd", low)
    return low


def index_add(conn: sqlite3.Connection, sid: int, text: str) -> None:
    """Add a session's message text to the index."""
    conn.execute("INSERT INTO texts_fts(rowid, text) VALUES (?,?)", (sid, fts_lower(text)))


def index_remove(conn: sqlite3.Connection, sid: int, text: str) -> None:
    """Take a session's message text, as it was added, out of the index."""
    conn.execute("INSERT INTO texts_fts(texts_fts, rowid, text) VALUES ('delete', ?, ?)", (sid, fts_lower(text)))


def pending_index(conn: sqlite3.Connection) -> int:
    """How many cached sessions are not in the index yet."""
    count: int = conn.execute("SELECT count(*) FROM sessions WHERE indexed = 0").fetchone()[0]
    return count


def build_index(
    conn: sqlite3.Connection, deadline: float | None = None, batch: int = INDEX_BATCH, max_bytes: int | None = None
) -> bool:
    """Add the sessions not in the index yet, ``batch`` per transaction (fewer when their texts
    pass ``max_bytes``, but at least one), until ``deadline`` (``time.monotonic()``; None: until
    done). True when nothing is left to do."""
    while True:
        rows = conn.execute(
            "SELECT s.sid, length(t.text) FROM sessions s LEFT JOIN texts t USING (sid) WHERE s.indexed = 0 LIMIT ?",
            (batch,),
        ).fetchall()
        if not rows:
            return True
        sids: list[int] = []
        size = 0
        for sid, length in rows:
            if sids and max_bytes is not None and size + (length or 0) > max_bytes:
                break
            sids.append(sid)
            size += length or 0
        with write_transaction(conn):
            for sid, text in texts(conn, set(sids)).items():
                if text:
                    index_add(conn, sid, text)
            marks = ",".join("?" * len(sids))
            conn.execute(f"UPDATE sessions SET indexed = 1 WHERE sid IN ({marks})", sids)
        if deadline is not None and time.monotonic() > deadline:
            return False


def prefilter(
    conn: sqlite3.Connection,
    chunks: list[str],
    infos: list[SessionInfo],
    sids: dict[str, int],
    elsewhere: dict[str, Callable[[SessionInfo], bool]] | None = None,
    head_of: Callable[[SessionInfo], str] | None = None,
) -> set[str]:
    """The sessions that can contain every chunk: those whose indexed messages, id, name or
    cwd hold it, and every session the index does not cover yet. ``elsewhere[chunk](info)``
    says whether a session whose messages lack the chunk matches it anyway (a fuzzy token's
    letters scattered over the name or cwd). ``head_of(info)`` gives :func:`session_head`
    (from a cache that outlives one search)."""
    rescue = elsewhere or {}
    unindexed = {r[0] for r in conn.execute("SELECT sid FROM sessions WHERE indexed = 0")}
    remaining = list(infos)
    heads: dict[str, str] = {}  # path -> its id, name and cwd, lower-cased
    for chunk in chunks:
        lookup = _SURROGATE.sub("\ufffd", chunk)  # as fts_lower stores it
        grams = [lookup[i : i + 3] for i in range(len(lookup) - 2)]
        if len(grams) > MAX_TRIGRAMS:
            step = len(grams) / MAX_TRIGRAMS
            grams = [grams[int(i * step)] for i in range(MAX_TRIGRAMS)] + [grams[-1]]
        fts_query = " AND ".join('"' + g.replace('"', '""') + '"' for g in dict.fromkeys(grams))
        hit_sids = {
            rowid for (rowid,) in conn.execute("SELECT rowid FROM texts_fts WHERE texts_fts MATCH ?", (fts_query,))
        }
        keep = []
        other = rescue.get(chunk)
        for info in remaining:
            sid = sids.get(info.path)
            if sid is None or sid in hit_sids or sid in unindexed:
                keep.append(info)
                continue
            if head_of is not None:
                head = head_of(info)
            elif (known := heads.get(info.path)) is not None:
                head = known
            else:
                head = heads[info.path] = session_head(info)
            if chunk in head or (other is not None and other(info)):
                keep.append(info)
        remaining = keep
    return {info.path for info in remaining}


def session_head(info: SessionInfo) -> str:
    """A session's id, name and cwd, lower-cased: what :func:`prefilter` looks in besides the
    messages the index holds."""
    return f"{info.id_text} {info.name or ''} {info.cwd}".lower()


class BackgroundIndex:
    """Fills the full-text index in a daemon thread, one small step at a time.

    ``step()`` adds one batch under the catalog's lock and says whether nothing is left. Between
    steps the lock is let go, so a listing or a search waits for one step at most. :meth:`start`
    after every listing (it only marks more work when the thread is running); :meth:`cancel`
    stops it after the current step. An error stops it quietly: the index only speeds searches
    up, which are exact without it.
    """

    def __init__(self, step: Callable[[], bool], pause_s: float = STEP_PAUSE_S) -> None:
        self._step = step
        self._pause_s = pause_s
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self._cancelled = threading.Event()
        self.error: BaseException | None = None  # what stopped it, if anything did

    def start(self) -> None:
        """Index what the listings so far added (no-op once cancelled)."""
        with self._lock:
            if self._cancelled.is_set():
                return
            self._again = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pitui-fts-index", daemon=True)
                self._thread.start()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None

    def cancel(self, timeout: float | None = None) -> None:
        """Stop after the current step, waiting for that (up to ``timeout`` seconds)."""
        self._cancelled.set()
        with self._lock:
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the thread has nothing left to do; True if it finished in time."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _run(self) -> None:
        cancelled = self._cancelled
        while True:
            with self._lock:
                if not self._again or cancelled.is_set():
                    self._thread = None
                    return
                self._again = False
            try:
                while not cancelled.is_set() and not self._step():
                    time.sleep(self._pause_s)
            except Exception as error:
                with self._lock:
                    self.error = error
                    self._thread = None
                return
