"""Scan results and the catalog's cache: the row a scan lists, and writing it with its texts
(replaced from where a file that only grew was scanned before, dropped when the file is no
longer listed)."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

from pitui.store.catalog.codec import db_text, from_utf8, json_or_null, pack_rows, repack_rows
from pitui.store.catalog.db import write_transaction
from pitui.store.catalog.index import index_add, index_remove
from pitui.store.catalog.model import NO_MESSAGES, SessionInfo
from pitui.store.catalog.workers import Outcome

__all__ = ["OldRow", "drop_session", "listed_row", "outcome_bytes", "store_outcomes"]

# A file's row in the cache before its scan: (sid, its texts kept below this offset, indexed)
OldRow = tuple[int, int, int]


def listed_row(path: str, outcome: Outcome, results: dict[str, SessionInfo | None], problems: dict[str, str]) -> None:
    """What one scan outcome lists: its row in ``results`` (None: not listed) and, for a file
    that is not listed, why, in ``problems``."""
    kind, value = outcome
    if kind != "ok":
        problems[path] = value
        return
    final = value[0].final
    info = results[path] = final.info(path, value[0].size, value[0].mtime_ns)
    if info is None:
        problems[path] = final.reason() or "not a session file"


def outcome_bytes(outcome: Outcome) -> int:
    """The bytes of message text an outcome holds until it is written."""
    if outcome[0] != "ok" or outcome[1][0].packed is None:
        return 0
    meta, text = outcome[1][0].packed
    return len(meta) + len(text)


def store_outcomes(
    conn: sqlite3.Connection,
    outcomes: Sequence[tuple[str, Outcome]],
    old_rows: dict[str, OldRow],
    results: dict[str, SessionInfo | None],
    problems: dict[str, str],
) -> None:
    """Write a batch of scan outcomes, already read by :func:`listed_row`, in one transaction."""
    with write_transaction(conn):
        for path, (kind, value) in outcomes:
            old = old_rows.get(path)
            if kind != "ok":
                if old is not None:
                    drop_session(conn, old[0], bool(old[2]))
                continue
            result, resumed = value
            info = results[path]
            indexed = bool(old and old[2])
            final = result.final
            values = (
                db_text(path),
                result.size,
                result.mtime_ns,
                result.ino,
                result.dev,
                1 if info is not None else 0,
                None if info is not None else problems.get(path),
                json_or_null(final.id) if final.has_header else None,
                db_text(final.cwd),
                db_text(final.name),
                json_or_null(final.parent_session) if final.has_header else None,
                info.created if info else None,
                None if info is None or math.isnan(info.modified) else info.modified,
                final.message_count,
                db_text(final.first_message or NO_MESSAGES),
                result.state.to_blob(),
                result.check,
            )
            packed = result.packed or (pack_rows(result.rows) if result.rows else None)
            if old is None:
                sid = conn.execute(
                    "INSERT INTO sessions(path, size, mtime_ns, ino, dev, ok, reason, id, cwd, name, parent,"
                    " created, modified, count, first, state, chk) VALUES"
                    " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    values,
                ).lastrowid
                if packed is not None:
                    conn.execute("INSERT INTO texts(sid, meta, text) VALUES (?,?,?)", (sid, *packed))
            else:
                sid = old[0]
                conn.execute(
                    "UPDATE sessions SET path=?, size=?, mtime_ns=?, ino=?, dev=?, ok=?, reason=?, id=?,"
                    " cwd=?, name=?, parent=?, created=?, modified=?, count=?, first=?, state=?, chk=?"
                    " WHERE sid=?",
                    (*values, sid),
                )
                _replace_texts(conn, sid, old[1] if resumed else 0, indexed, packed)


def _replace_texts(
    conn: sqlite3.Connection, sid: int, keep_below: int, indexed: bool, packed: tuple[bytes, bytes] | None
) -> None:
    """Keep a session's stored rows of lines before ``keep_below`` and add the new ones (an
    indexed session's index document is replaced too: new sessions wait for build_index)."""
    row = conn.execute("SELECT meta, text FROM texts WHERE sid = ?", (sid,)).fetchone()
    old_text = None
    if row is not None:
        if keep_below:
            packed = repack_rows(row, keep_below, packed)
        if indexed:
            old_text = from_utf8(row[1])
    if indexed and old_text is not None:
        index_remove(conn, sid, old_text)
    if packed is None:
        if row is not None:
            conn.execute("DELETE FROM texts WHERE sid = ?", (sid,))
        return
    conn.execute("INSERT OR REPLACE INTO texts(sid, meta, text) VALUES (?,?,?)", (sid, *packed))
    if indexed:
        index_add(conn, sid, from_utf8(packed[1]))


def drop_session(conn: sqlite3.Connection, sid: int, indexed: bool) -> None:
    """Forget a file's row and texts (inside the caller's transaction)."""
    _replace_texts(conn, sid, 0, indexed, None)
    conn.execute("DELETE FROM sessions WHERE sid = ?", (sid,))
