"""The catalog's full-text index (``texts_fts``): a trigram index of each session's lower-cased
message text, which lets a phrase search skip the sessions that cannot contain it.

Listing leaves it out to stay fast, and searching is exact without it: sessions not in the index
yet are searched by reading their text. :func:`build_index` fills it, a batch at a time.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time

from pitui.store.catalog.db import texts
from pitui.store.catalog.model import SessionInfo

__all__ = [
    "INDEX_BATCH",
    "MAX_TRIGRAMS",
    "build_index",
    "fts_lower",
    "index_add",
    "index_remove",
    "pending_index",
    "prefilter",
]

# Sessions added to the index per transaction: another writer of the cache waits for one batch.
INDEX_BATCH = 64
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


def build_index(conn: sqlite3.Connection, deadline: float | None = None, batch: int = INDEX_BATCH) -> bool:
    """Add the sessions not in the index yet, ``batch`` per transaction, until ``deadline``
    (``time.monotonic()``; None: until done). True when nothing is left to do."""
    while True:
        sids = [r[0] for r in conn.execute("SELECT sid FROM sessions WHERE indexed = 0 LIMIT ?", (batch,))]
        if not sids:
            return True
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sid, text in texts(conn, set(sids)).items():
                if text:
                    index_add(conn, sid, text)
            marks = ",".join("?" * len(sids))
            conn.execute(f"UPDATE sessions SET indexed = 1 WHERE sid IN ({marks})", sids)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        if deadline is not None and time.monotonic() > deadline:
            return False


def prefilter(conn: sqlite3.Connection, chunks: list[str], infos: list[SessionInfo], sids: dict[str, int]) -> set[str]:
    """The sessions that can contain every chunk: those whose indexed messages, id, name or
    cwd hold it, and every session the index does not cover yet."""
    unindexed = {r[0] for r in conn.execute("SELECT sid FROM sessions WHERE indexed = 0")}
    candidates = {info.path for info in infos}
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
        keep = set()
        for info in infos:
            if info.path not in candidates:
                continue
            sid = sids.get(info.path)
            if sid is None or sid in hit_sids or sid in unindexed:
                keep.add(info.path)
                continue
            head = f"{info.id_text} {info.name or ''} {info.cwd}"
            if chunk in head.lower():
                keep.add(info.path)
        candidates = keep
    return candidates
