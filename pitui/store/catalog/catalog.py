"""The catalog of sessions: pi's ``/resume`` listing, cached, with a full-text index.

pi builds each row of its session picker (``buildSessionInfo``) by reading the whole file and
parsing every line. This module computes the same row with the same rules, but keeps it in a
SQLite cache keyed by path, size and mtime, so that an unchanged file is never read again and a
file that only grew is read from where the last scan stopped.

Rules reproduced from pi 0.73.1 (``session-manager.js``):

- the content is ``trim()``-ed and split on ``\\n``; blank lines and lines ``JSON.parse`` rejects
  are skipped; the first parsed value must have ``type: "session"`` or the file is not listed;
- anything that makes pi's loop throw (a ``null`` line, a message entry without a message, a
  message whose content is neither a string nor an array, a ``null`` content block, a
  ``session_info`` name that is not a string) drops the file from the listing, as pi's
  ``try``/``catch`` does;
- ``messageCount`` counts every ``message`` entry; the first user message with text is
  ``firstMessage``; the latest ``session_info`` names the session (an empty name clears it);
- ``modified`` is the latest user/assistant activity, else the header time, else the file's mtime.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import math
import os
import re
import sqlite3
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import orjson

from pitui.store.js import (
    JS_SPACE_LEADS,
    JS_WHITESPACE,
    MISSING,
    iso_ms,
    js_date_parse,
    js_date_value,
    js_string,
    js_trim,
    time_clip,
)
from pitui.store.jsonl import UNPARSED, BadLine, parse_line
from pitui.store.paths import agent_dir as default_agent_dir
from pitui.store.paths import default_session_dir, session_dir_for, sessions_root

__all__ = [
    "Catalog",
    "Problem",
    "ScanState",
    "SearchCancelled",
    "SearchHit",
    "SessionInfo",
    "cache_dir_default",
    "scan_file",
]

NO_MESSAGES = "(no messages)"

ProgressFn = Callable[[int, int], Any]


# --------------------------------------------------------------------------------------------
# Session rows


@dataclass(slots=True)
class SessionInfo:
    """One row of pi's session list (``SessionInfo`` in pi), plus the file's size and mtime."""

    path: str
    id: Any  # header.id: a string in every file pi writes, kept as found otherwise
    cwd: str
    name: str | None
    parent_session_path: Any  # header.parentSession (a path string) or None
    created: float | None  # ms since 1970, None when new Date(header.timestamp) is invalid
    modified: float  # ms since 1970 (NaN only when a message timestamp is out of Date's range)
    message_count: int
    first_message: str
    size: int = 0
    mtime_ns: int = 0
    all_messages_text: str | None = None  # filled only on demand (Catalog.load_text)

    @property
    def mtime(self) -> float:
        """The file's mtime in seconds."""
        return self.mtime_ns / 1e9

    @property
    def id_text(self) -> str:
        """The id as pi's search sees it (``${id}``)."""
        return js_string(self.id)

    def to_json(self) -> dict[str, Any]:
        """pi's field names and values, as the oracle's ``list`` prints them."""
        out: dict[str, Any] = {"path": self.path}
        if self.id is not MISSING:
            out["id"] = self.id
        out["cwd"] = self.cwd
        out["name"] = self.name
        out["parentSessionPath"] = None if self.parent_session_path is MISSING else self.parent_session_path
        out["created"] = iso_ms(self.created)
        out["modified"] = iso_ms(self.modified)
        out["messageCount"] = self.message_count
        out["firstMessage"] = self.first_message
        return out


@dataclass(slots=True)
class Problem:
    """A file the listing skipped, and why."""

    path: str
    reason: str


@dataclass(slots=True)
class SearchHit:
    """A session that matches a query: its row, pi's score (lower is better) and where it matched.

    ``snippet`` is one line of text around the first match (newlines and control characters
    replaced by spaces), ``spans`` the ``(start, end)`` offsets in ``snippet`` to highlight.
    ``field`` says which part of pi's search text matched: ``"message"`` (then ``entry_id`` and
    ``role`` point to the message), ``"id"``, ``"name"`` or ``"cwd"``.
    """

    info: SessionInfo
    score: float
    snippet: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    field: str = ""
    entry_id: str | None = None
    role: str | None = None


# Where a part of a session's search text is: (start, end, field, entry id, role).
Segment = tuple[int, int, str, str | None, str | None]


class SearchCancelled(Exception):
    """A search given up because its ``cancelled`` callback said so (a newer one is on its way)."""


# --------------------------------------------------------------------------------------------
# Scanning one file


_ASCII_WS = b" \t\n\r\x0b\x0c"
_MB_WS = tuple(sorted({c.encode() for c in JS_WHITESPACE if ord(c) > 127}, key=len, reverse=True))


def _lstrip_js(data: bytes) -> bytes:
    while True:
        data = data.lstrip(_ASCII_WS)
        for ws in _MB_WS:
            if data.startswith(ws):
                data = data[len(ws) :]
                break
        else:
            return data


def _rstrip_js(data: bytes) -> bytes:
    while True:
        data = data.rstrip(_ASCII_WS)
        for ws in _MB_WS:
            if data.endswith(ws):
                data = data[: -len(ws)]
                break
        else:
            return data


def _is_blank(seg: bytes) -> bool:
    """``!line.trim()`` for a line's bytes."""
    s = seg.strip(_ASCII_WS)
    if not s:
        return True
    if s[0] < 0x80:
        return False
    return js_trim(s.decode("utf-8", errors="replace")) == ""


class ScanState:
    """The running state of pi's ``buildSessionInfo`` loop over a file's lines.

    ``offset`` is where the next scan starts: the start of the last non-blank line, which is
    always read again (it may be torn, or end in whitespace that ``trim()`` removes only while it
    is the last line). Everything before it is final: appending to the file cannot change it.
    """

    __slots__ = (
        "count",
        "created",
        "cwd",
        "dead",
        "first",
        "header",
        "header_ts",
        "id",
        "last",
        "name",
        "offset",
        "parent",
        "seen",
    )

    def __init__(self) -> None:
        self.offset = 0
        self.seen = False  # a non-blank line lies before offset (so no leading trim)
        self.header = 0  # 0: no parsed line yet, 1: header ok
        self.dead: str | None = None  # why pi would not list the file
        self.id: Any = MISSING
        self.cwd = ""
        self.parent: Any = MISSING
        self.created: float | None = None
        self.header_ts: float | None = None
        self.count = 0
        self.first = ""
        self.name: str | None = None
        self.last: float | None = None

    def copy(self) -> ScanState:
        other = ScanState.__new__(ScanState)
        for slot in ScanState.__slots__:
            setattr(other, slot, getattr(self, slot))
        return other

    def to_blob(self) -> bytes:
        d: dict[str, Any] = {slot: getattr(self, slot) for slot in ScanState.__slots__}
        for key in ("id", "parent"):
            if d[key] is MISSING:
                del d[key]
        return _dump(d)

    @classmethod
    def from_blob(cls, blob: bytes) -> ScanState:
        d = _load(blob)
        state = cls()
        for slot in ScanState.__slots__:
            if slot in d:
                setattr(state, slot, d[slot])
        return state

    def info(self, path: str, size: int, mtime_ns: int) -> SessionInfo | None:
        """The SessionInfo pi would build from the lines seen so far."""
        if self.dead or self.header != 1:
            return None
        last = self.last
        if last is not None and last > 0:
            modified = time_clip(last)
            if modified is None:
                modified = math.nan
        elif self.header_ts is not None:
            modified = self.header_ts
        else:
            modified = float(mtime_ns // 1_000_000)
        return SessionInfo(
            path=path,
            id=self.id,
            cwd=self.cwd,
            name=self.name,
            parent_session_path=None if self.parent is MISSING else self.parent,
            created=self.created,
            modified=modified,
            message_count=self.count,
            first_message=self.first or NO_MESSAGES,
            size=size,
            mtime_ns=mtime_ns,
        )

    def reason(self) -> str | None:
        if self.dead:
            return self.dead
        if self.header != 1:
            return "not a session file: no line parses as JSON"
        return None

    # -- the loop body of buildSessionInfo, for one line ------------------------------------

    def feed(self, seg: bytes | memoryview, offset: int, rows: list[tuple[int, str | None, int, str]] | None) -> None:
        """Process one non-blank line (already trimmed where pi's ``trim()`` would trim it)."""
        entry = UNPARSED
        if seg[:1] == b"{":  # anything else takes the slower rules, which copy no huge junk
            try:
                entry = orjson.loads(seg)
            except orjson.JSONDecodeError:
                entry = UNPARSED
        if entry is UNPARSED:
            try:
                entry = parse_line(bytes(seg), orjson_refused=True)
            except BadLine:
                return
        if self.header != 1:
            # The first parsed value is the header; buildSessionInfo rejects anything else.
            if isinstance(entry, dict) and entry.get("type") == "session":
                self.header = 1
                self.id = entry.get("id", MISSING)
                cwd = entry.get("cwd")
                self.cwd = cwd if isinstance(cwd, str) else ""
                self.parent = entry.get("parentSession", MISSING)
                ts = entry.get("timestamp", MISSING)
                self.created = js_date_value(ts)
                self.header_ts = js_date_parse(ts) if isinstance(ts, str) else None
            else:
                self.dead = "not a session file: the first line is not a session header"
            return
        if type(entry) is not dict:
            if entry is None:
                self.dead = f"pi cannot list it: a null line at byte {offset}"
            return
        kind = entry.get("type")
        if kind == "message":
            self.count += 1
            message = entry.get("message")
            if type(message) is not dict:
                if message is None:
                    self.dead = f"pi cannot list it: a message entry without a message at byte {offset}"
                return
            role = message.get("role")
            if role != "user" and role != "assistant":
                return
            content = message.get("content", MISSING)
            if content is MISSING:
                return
            # getLastActivityTime (the latest non-negative time; bool is not a number here)
            ts = message.get("timestamp")
            ts_type = type(ts)
            if ts_type is not int and ts_type is not float:
                ts = entry.get("timestamp")
                ts = js_date_parse(ts) if type(ts) is str else None
            if ts is not None:
                last = self.last
                if last is None or ts > last:
                    self.last = ts if ts >= 0 else 0
            # extractTextContent
            if type(content) is str:
                text = content
            elif type(content) is list:
                parts = []
                for block in content:
                    if type(block) is dict:
                        if block.get("type") == "text":
                            value = block.get("text")
                            if type(value) is str:
                                parts.append(value)
                            elif value is None:
                                parts.append("")
                            else:
                                parts.append(js_string(value))
                    elif block is None:
                        self.dead = f"pi cannot list it: a null content block at byte {offset}"
                        return
                text = " ".join(parts)
            else:
                self.dead = f"pi cannot list it: message content is not text or a list at byte {offset}"
                return
            if not text:
                return
            if rows is not None:
                entry_id = entry.get("id")
                rows.append((offset, entry_id if isinstance(entry_id, str) else None, role == "assistant", text))
            if not self.first and role == "user":
                self.first = text
        elif kind == "session_info":
            name = entry.get("name")
            if name is None:
                self.name = None
            elif type(name) is str:
                self.name = js_trim(name) or None
            else:
                self.dead = f"pi cannot list it: a session name that is not text at byte {offset}"


CHUNK = 32 << 20


def _blocks(fd: int, start: int, size: int) -> Iterator[tuple[int, bytes, int]]:
    """The file from ``start`` on, in blocks that end after a ``\n``: ``(offset, data, end)``
    where ``data[:end]`` holds whole lines. The last block is the unterminated rest (maybe
    empty), with ``end == len(data)``.

    A line longer than a block is gathered in pieces and joined once, when it ends: growing it
    block by block would copy it again for every block read (a gigabyte line, thirty times).
    """
    pos = start  # where the pending bytes start in the file
    pending: list[bytes] = []  # the start of a line that did not end in the blocks read so far
    pending_len = 0
    while True:
        at = pos + pending_len
        chunk = os.pread(fd, min(CHUNK, max(size - at, 0) + 65536), at)
        if not chunk:
            break
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            pending.append(chunk)
            pending_len += len(chunk)
            continue
        if pending:
            pending.append(chunk)
            data = b"".join(pending)
            pending.clear()
            cut += pending_len
        else:
            data = chunk
        yield pos, data, cut
        pos += cut
        rest = data[cut:]
        del data  # the block is done with: it need not stay while the next one is read
        pending = [rest] if rest else []
        pending_len = len(rest)
    data = pending[0] if len(pending) == 1 else b"".join(pending)
    pending.clear()
    yield pos, data, -1


Row = tuple[int, str | None, int, str]  # (byte offset of the line, entry id, 1 if assistant, text)


@dataclass(slots=True)
class ScanResult:
    """What scanning (part of) a file produced."""

    state: ScanState  # committed: resume from state.offset next time
    final: ScanState  # including the last line: the listing row
    rows: list[Row]  # text rows of the lines scanned (from the start offset on)
    size: int
    mtime_ns: int
    ino: int
    dev: int
    check: bytes  # digest of the bytes before state.offset, to tell a grown file from a new one
    packed: tuple[bytes, bytes] | None = None  # the rows as _pack_rows stores them (rows emptied)


def _check_digest(fd: int, offset: int) -> bytes:
    """A digest of the first and last 4 KiB before ``offset``."""
    head = os.pread(fd, min(offset, 4096), 0)
    tail_start = max(4096, offset - 4096)
    tail = os.pread(fd, offset - tail_start, tail_start) if offset > tail_start else b""
    return hashlib.blake2b(head + b"|" + tail, digest_size=12).digest()


def scan_file(path: str, state: ScanState | None = None, with_rows: bool = True) -> ScanResult:
    """Scan ``path`` from ``state.offset`` (a fresh state scans the whole file).

    Raises OSError when the file cannot be opened or read.
    """
    state = state.copy() if state is not None else ScanState()
    rows: list[Row] | None = [] if with_rows else None
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        held: bytes | memoryview | None = None
        held_at = state.offset
        rest_at = state.offset
        feed = state.feed
        find = bytes.find
        for base, data, end in _blocks(fd, state.offset, st.st_size):
            rest_at = base
            view = memoryview(data)
            i = 0
            last_block = end < 0
            if last_block:
                end = len(data)
            while i < end:
                j = find(data, b"\n", i, end)
                if j < 0:
                    j = end
                if j > i and data[i] in JS_SPACE_LEADS and _is_blank(data[i:j]):
                    i = j + 1
                    continue
                if j > i:
                    if held is not None:
                        if not state.seen:
                            held = _lstrip_js(bytes(held))
                            state.seen = True
                        if state.dead is None:
                            feed(held, held_at, rows)
                    held, held_at = view[i:j], base + i
                i = j + 1
            if not last_block:
                # Let this block go before the next is read: the line held back is copied out.
                if type(held) is memoryview:
                    held = bytes(held)
                del view, data
        committed = state
        if held is None:
            # Nothing but blank lines: resume at the start of the unterminated rest.
            committed.offset = rest_at
            final = committed
        else:
            committed.offset = held_at
            final = committed.copy()
            last = _rstrip_js(bytes(held))
            if not final.seen:
                last = _lstrip_js(last)
                final.seen = True
            if last and final.dead is None:
                final.feed(last, held_at, rows)
        check = _check_digest(fd, committed.offset)
        return ScanResult(committed, final, rows or [], st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, check)
    finally:
        os.close(fd)


def build_session_info(path: str) -> SessionInfo | None:
    """pi's ``buildSessionInfo`` for one file, without any cache (None when pi would skip it)."""
    try:
        result = scan_file(path, with_rows=False)
    except OSError:
        return None
    return result.final.info(path, result.size, result.mtime_ns)


def _scan_job(path: str, blob: bytes | None, check: bytes | None) -> tuple[str, Any]:
    """Scan one file (in this process or a worker): ("ok", (result, resumed)) or ("error", why)."""
    state = None
    if blob is not None and check is not None:
        state = ScanState.from_blob(blob)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            try:
                same = os.fstat(fd).st_size >= state.offset and _check_digest(fd, state.offset) == check
            finally:
                os.close(fd)
        except OSError as error:
            return "error", _os_reason(error)
        if not same:
            state = None
    try:
        result = scan_file(path, state)
    except OSError as error:
        return "error", _os_reason(error)
    if result.rows:
        result.packed = _pack_rows(result.rows)
        result.rows = []
    return "ok", (result, state is not None)


def _pack_rows(rows: Sequence[Row]) -> tuple[bytes, bytes]:
    """A session's text rows as the cache stores them: ``(meta, text)`` where ``text`` is the
    UTF-8 of the texts joined by spaces (pi's ``allMessagesText``) and ``meta`` lists
    ``(offset, entry id, role, length)`` per row. Done where the file was scanned, so that only
    two byte strings travel back from a worker."""
    meta = [(off, eid, role, len(text)) for off, eid, role, text in rows]
    return _dump(meta), _utf8(" ".join([row[3] for row in rows]))


def _unpack_rows(meta_blob: bytes, text_blob: bytes) -> list[Row]:
    text = _from_utf8(text_blob)
    out: list[Row] = []
    pos = 0
    for off, eid, role, n in _load(meta_blob):
        out.append((off, eid, role, text[pos : pos + n]))
        pos += n + 1
    return out


def _dump(value: Any) -> bytes:
    """JSON; for what orjson cannot write (a string with a lone surrogate, an integer beyond 64
    bits: both come from lines JSON.parse takes), ``M`` and marshal's bytes."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return b"M" + marshal.dumps(value)


def _load(blob: bytes) -> Any:
    if blob[:1] == b"M":
        return marshal.loads(blob[1:])
    return orjson.loads(blob)


def _utf8(text: str) -> bytes:
    """UTF-8, keeping lone surrogates (which JSON.parse accepts from ``\\ud800``)."""
    return text.encode("utf-8", "surrogatepass")


def _from_utf8(blob: bytes | str) -> str:
    return blob if isinstance(blob, str) else blob.decode("utf-8", "surrogatepass")


def _db_text(text: str | None) -> str | bytes | None:
    """A string for a TEXT column: as it is, or its bytes when it holds a lone surrogate (which
    SQLite cannot take as text: from a ``\\ud800`` in a line, or a file name that is not UTF-8);
    :func:`_from_utf8` reads both back."""
    if text is None or text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return _utf8(text)
    return text


def _scan_batch(jobs: list[tuple[str, bytes | None, bytes | None]]) -> list[tuple[str, Any]]:
    return [_scan_job(*job) for job in jobs]


def _os_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "the file vanished while listing"
    if isinstance(error, PermissionError):
        return "the file cannot be read: permission denied"
    if isinstance(error, IsADirectoryError):
        return "not a file"
    return f"the file cannot be read: {error.strerror or error}"


# --------------------------------------------------------------------------------------------
# The cache


SCHEMA_VERSION = 2
APP_ID = 0x70697475  # "pitu"
DB_NAME = "catalog.sqlite3"

# sessions: one row per file seen. texts: one row per session with message text (_pack_rows), a
# single row because one insert per message made storing cost as much as scanning. texts_fts: a
# trigram index of each session's lower-cased text, rowid = sid (filled by build_index).
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
"""

_ROW_COLS = "sid, path, size, mtime_ns, ino, dev, ok, reason, id, cwd, name, parent, created, modified, count, first"


def cache_dir_default() -> str:
    """``$XDG_CACHE_HOME/pitui``, else ``~/.cache/pitui``."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pitui")


def _json_or_null(value: Any) -> bytes | None:
    return None if value is MISSING else _dump(value)


def _from_json(blob: bytes | None) -> Any:
    return MISSING if blob is None else _load(blob)


def _info_from_row(row: tuple[Any, ...]) -> SessionInfo:
    (_, path, size, mtime_ns, _, _, _, _, id_blob, cwd, name, parent, created, modified, count, first) = row
    parent_value = _from_json(parent)
    return SessionInfo(
        path=_from_utf8(path),
        id=_from_json(id_blob),
        cwd=_from_utf8(cwd),
        name=None if name is None else _from_utf8(name),
        parent_session_path=None if parent_value is MISSING else parent_value,
        created=created,
        modified=math.nan if modified is None else modified,
        message_count=count,
        first_message=_from_utf8(first),
        size=size,
        mtime_ns=mtime_ns,
    )


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


_SURROGATE = re.compile("[\ud800-\udfff]")


class Catalog:
    """pi's session listing (``list``, ``listAll``) and ``/resume`` search, over a SQLite cache.

    The cache lives in ``cache_dir`` (default ``$XDG_CACHE_HOME/pitui``). Nothing is ever written
    anywhere else: not the session folders (pi creates the default one on ``list``; this does
    not), not the files. A missing, old or corrupt cache is rebuilt; a cache that cannot be
    written at all is replaced by one in memory.

    ``problems`` lists the files the last listing skipped (vanished, unreadable, not a session).
    ``workers``: processes used to scan many uncached files (None: decide from the work).
    """

    def __init__(
        self, agent_dir: str | None = None, cache_dir: str | None = None, workers: int | None = None
    ) -> None:
        self.agent_dir = agent_dir or default_agent_dir()
        self.cache_dir = cache_dir or cache_dir_default()
        self.workers = workers
        self.problems: list[Problem] = []
        self.stats = {"hits": 0, "resumed": 0, "scanned": 0}
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self.text_cache_chars = 256 << 20
        # sid -> (size, mtime_ns, id, name, cwd, lower-cased search text)
        self._lower_cache: dict[int, tuple[int, int, Any, str | None, str, str]] = {}
        self._lower_cache_chars = 0
        # The outcomes of the last few token queries, for the next keystroke to start from: per
        # path, the outcome (None: no match) and the lower-cased text it was found on.
        self._outcomes: OrderedDict[Any, tuple[dict[str, Any], dict[str, str]]] = OrderedDict()
        self._sid_cache: dict[str, int] = {}
        self._sid_stamp: tuple[int, int, int] | None = None
        self._snippet_sources: OrderedDict[int, tuple[Any, str, list[Any]]] = OrderedDict()

    # -- database ---------------------------------------------------------------------------

    @property
    def db_path(self) -> str:
        return os.path.join(self.cache_dir, DB_NAME)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        try:
            os.makedirs(self.cache_dir, exist_ok=True)
            try:
                return self._open_file()
            except sqlite3.DatabaseError:
                self._remove_db_files()
                return self._open_file()
        except (OSError, sqlite3.Error):
            return self._init(sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False))

    def _open_file(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db_path, timeout=10, isolation_level=None, check_same_thread=False)
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
                return conn
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise sqlite3.DatabaseError("stale cache schema")
            return self._init(conn)
        except sqlite3.Error:
            conn.close()
            raise

    def _init(self, conn: sqlite3.Connection) -> sqlite3.Connection:
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

    def _remove_db_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.remove(self.db_path + suffix)

    def _reset(self) -> None:
        """Throw the cache away (it turned out corrupt) and start a new one."""
        self.close()
        self._lower_cache.clear()
        self._lower_cache_chars = 0
        self._outcomes.clear()
        self._sid_cache = {}
        self._sid_stamp = None
        self._snippet_sources.clear()
        with contextlib.suppress(OSError):
            self._remove_db_files()
        self._db = None

    def _retrying(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            try:
                return fn()
            except sqlite3.DatabaseError:
                self._reset()
                return fn()

    # -- listing ----------------------------------------------------------------------------

    def list(
        self, cwd: str, session_dir: str | None = None, on_progress: ProgressFn | None = None
    ) -> list[SessionInfo]:
        """pi's ``SessionManager.list``: the sessions of the folder pi uses for ``cwd``.

        A custom folder (``session_dir``, ``$PI_CODING_AGENT_SESSION_DIR``) holds sessions of any
        project, so, as newer pi does, only those whose header ``cwd`` resolves to ``cwd`` are
        kept. The folder is never created.
        """
        folder, custom = session_dir_for(cwd, session_dir)
        default = default_session_dir(cwd, self.agent_dir)
        if not custom:
            folder = default
        infos = self.list_dir(folder, on_progress)
        if custom and os.path.normpath(os.path.abspath(folder)) != os.path.normpath(default):
            target = _resolve(cwd)
            infos = [info for info in infos if info.cwd and _resolve(info.cwd) == target]
        return infos

    def list_dir(self, folder: str, on_progress: ProgressFn | None = None) -> list[SessionInfo]:
        """Every session in one folder (pi 0.73.1's ``list(cwd, dir)``), ``modified`` first."""
        self.problems = []
        files = self._folder_files(folder)
        infos = self._list_paths(files, on_progress)
        if not any(problem.path == folder for problem in self.problems):
            self._forget_missing(folder, 1, files)
        return infos

    def list_all(self, on_progress: ProgressFn | None = None) -> list[SessionInfo]:
        """pi's ``SessionManager.listAll``: the sessions in every folder directly under
        ``<agent>/sessions`` (not files directly in it, not custom folders)."""
        self.problems = []
        root = sessions_root(self.agent_dir)
        try:
            with os.scandir(root) as it:
                dirs = sorted(e.path for e in it if e.is_dir(follow_symlinks=False))
        except OSError:
            return []
        files: list[str] = []
        for folder in dirs:
            files.extend(self._folder_files(folder))
        infos = self._list_paths(files, on_progress)
        unreadable = {problem.path for problem in self.problems}
        self._forget_missing(root, 2, files, unreadable)
        return infos

    # -- the cached rows alone ---------------------------------------------------------------

    def cached_list(self, cwd: str, session_dir: str | None = None) -> list[SessionInfo]:
        """The rows :meth:`list` gave last time, from the cache alone: no folder or file is
        looked at, so this is instant whatever the number of sessions. Files changed, added or
        removed since are not seen; :meth:`list` is the truth. For showing a list at once."""
        folder, custom = session_dir_for(cwd, session_dir)
        default = default_session_dir(cwd, self.agent_dir)
        if not custom:
            folder = default
        infos = self._cached_under(folder, depth=1)
        if custom and os.path.normpath(os.path.abspath(folder)) != os.path.normpath(default):
            target = _resolve(cwd)
            infos = [info for info in infos if info.cwd and _resolve(info.cwd) == target]
        return infos

    def cached_dir(self, folder: str) -> list[SessionInfo]:
        """:meth:`list_dir` as last cached (see :meth:`cached_list`)."""
        return self._cached_under(folder, depth=1)

    def cached_all(self) -> list[SessionInfo]:
        """:meth:`list_all` as last cached (see :meth:`cached_list`)."""
        return self._cached_under(sessions_root(self.agent_dir), depth=2)

    def _cached_under(self, folder: str, depth: int) -> list[SessionInfo]:
        """Cached session rows of files ``depth`` levels below ``folder`` (1: its files, 2: the
        files of its subfolders), ``modified`` first, as the listing orders them."""
        prefix, upper = _path_range(folder)

        def work() -> list[SessionInfo]:
            rows = self._conn().execute(
                f"SELECT {_ROW_COLS} FROM sessions WHERE ok = 1 AND path >= ? AND path < ? ORDER BY path",
                (prefix, upper),
            )
            return [info for row in rows if _at_depth((info := _info_from_row(row)).path, prefix, depth)]

        infos = self._retrying(work)
        infos.sort(key=_modified_key)
        return infos

    def _forget_missing(self, folder: str, depth: int, present: Sequence[str], keep: Iterable[str] = ()) -> None:
        """Drop the cached rows of files below ``folder`` that a listing no longer found (except
        in the folders of ``keep``, which could not be read), so that the cached rows are always
        those of the last listing."""
        prefix, upper = _path_range(folder)
        found = set(present)
        kept = set(keep)

        def work() -> None:
            conn = self._conn()
            stale = []
            for sid, raw, indexed in conn.execute(
                "SELECT sid, path, indexed FROM sessions WHERE path >= ? AND path < ?", (prefix, upper)
            ):
                path = _from_utf8(raw)
                if _at_depth(path, prefix, depth) and path not in found and os.path.dirname(path) not in kept:
                    stale.append((sid, indexed))
            if not stale:
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                for sid, indexed in stale:
                    self._drop_session(conn, sid, indexed)
                    lowered = self._lower_cache.pop(sid, None)
                    if lowered is not None:
                        self._lower_cache_chars -= len(lowered[-1])
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

        self._retrying(work)

    def _folder_files(self, folder: str) -> list[str]:
        try:
            names = sorted(name for name in os.listdir(folder) if name.endswith(".jsonl"))
        except FileNotFoundError:
            return []
        except OSError as error:
            self.problems.append(Problem(folder, _os_reason(error).replace("file", "folder")))
            return []
        return [os.path.join(folder, name) for name in names]

    def _list_paths(self, paths: Sequence[str], on_progress: ProgressFn | None) -> list[SessionInfo]:
        return self._retrying(lambda: self._list_paths_once(paths, on_progress))

    def _list_paths_once(self, paths: Sequence[str], on_progress: ProgressFn | None) -> list[SessionInfo]:
        conn = self._conn()
        total = len(paths)
        loaded = 0
        cached = self._rows_for(conn, paths)
        results: dict[str, SessionInfo | None] = {}
        problems: dict[str, str] = {}
        jobs: list[tuple[str, bytes | None, bytes | None]] = []
        job_bytes = 0
        old_sids: dict[str, tuple[int, int, int]] = {}  # path -> (sid, keep texts below, indexed)
        for path in paths:
            try:
                st = os.stat(path)
            except OSError as error:
                problems[path] = _os_reason(error)
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            if not _is_regular(st.st_mode):
                problems[path] = "not a file"
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            row = cached.get(path)
            if row is not None and row[2] == st.st_size and row[3] == st.st_mtime_ns and row[4] == st.st_ino:
                self.stats["hits"] += 1
                if row[6]:
                    results[path] = _info_from_row(row[:16])
                else:
                    problems[path] = row[7] or "not a session file"
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            if (
                row is not None
                and st.st_size > row[2]
                and row[4] == st.st_ino
                and row[5] == st.st_dev
            ):
                blob, chk = row[16], row[17]
                state = ScanState.from_blob(blob)
                jobs.append((path, blob, chk))
                job_bytes += st.st_size - state.offset
                old_sids[path] = (row[0], state.offset, row[18])
            else:
                jobs.append((path, None, None))
                job_bytes += st.st_size
                if row is not None:
                    old_sids[path] = (row[0], 0, row[18])

        done: list[tuple[str, tuple[str, Any]]] = []
        for path, outcome in self._run_jobs(jobs, job_bytes):
            loaded += 1
            if on_progress:
                on_progress(loaded, total)
            done.append((path, outcome))
            if len(done) >= 256:
                self._store(conn, done, old_sids, results, problems)
                done = []
        if done:
            self._store(conn, done, old_sids, results, problems)

        infos = [info for path in paths if (info := results.get(path)) is not None]
        self.problems.extend(Problem(path, why) for path, why in problems.items())
        infos.sort(key=_modified_key)
        return infos

    def _run_jobs(
        self, jobs: list[tuple[str, bytes | None, bytes | None]], job_bytes: int
    ) -> Iterator[tuple[str, tuple[str, Any]]]:
        workers = self.workers
        if workers is None:
            workers = min(os.cpu_count() or 1, 4) if job_bytes > 96 << 20 and len(jobs) >= 16 else 0
        if workers <= 1:
            for job in jobs:
                self.stats["resumed" if job[1] is not None else "scanned"] += 1
                yield job[0], _scan_job(*job)
            return
        done: set[str] = set()
        try:
            import multiprocessing
            from concurrent.futures import as_completed

            # fork is immediate but only safe while this process runs a single thread (the
            # command line); with threads around (the app), start clean interpreters instead.
            method = "fork" if threading.active_count() == 1 and os.name == "posix" else "forkserver"
            if method not in multiprocessing.get_all_start_methods():
                method = "spawn"
            ctx = multiprocessing.get_context(method)
            if method != "fork":
                _start_process_helpers(method)
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                futures = {pool.submit(_scan_batch, batch): batch for batch in _batches(jobs, workers)}
                for future in as_completed(futures):
                    batch = futures[future]
                    for job, outcome in zip(batch, future.result(), strict=True):
                        self.stats["resumed" if job[1] is not None else "scanned"] += 1
                        done.add(job[0])
                        yield job[0], outcome
        except (OSError, RuntimeError, ValueError, ImportError, BrokenProcessPool):  # pragma: no cover
            # No worker processes here: scan what is left in this one.
            self.workers = 0
            yield from self._run_jobs([job for job in jobs if job[0] not in done], 0)

    def _rows_for(self, conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        rows: dict[str, tuple[Any, ...]] = {}
        for i in range(0, len(paths), 500):
            chunk = [_db_text(path) for path in paths[i : i + 500]]
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(
                f"SELECT {_ROW_COLS}, state, chk, indexed FROM sessions WHERE path IN ({marks})", chunk
            ):
                rows[_from_utf8(row[1])] = row
        return rows

    def _store(
        self,
        conn: sqlite3.Connection,
        done: list[tuple[str, tuple[str, Any]]],
        old_sids: dict[str, tuple[int, int, int]],
        results: dict[str, SessionInfo | None],
        problems: dict[str, str],
    ) -> None:
        """Write one batch of scan results in one transaction."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            for path, (kind, value) in done:
                if kind != "ok":
                    problems[path] = value
                    if path in old_sids:
                        self._drop_session(conn, old_sids[path][0], old_sids[path][2])
                    continue
                result, resumed = value
                info = result.final.info(path, result.size, result.mtime_ns)
                results[path] = info
                if info is None:
                    problems[path] = result.final.reason() or "not a session file"
                old = old_sids.get(path)
                sid = old[0] if old else None
                indexed = bool(old and old[2])
                final = result.final
                values = (
                    _db_text(path), result.size, result.mtime_ns, result.ino, result.dev,
                    1 if info is not None else 0,
                    None if info is not None else problems.get(path),
                    _json_or_null(final.id) if final.header == 1 else None,
                    _db_text(final.cwd), _db_text(final.name),
                    _json_or_null(final.parent) if final.header == 1 else None,
                    info.created if info else None,
                    None if info is None or math.isnan(info.modified) else info.modified,
                    final.count, _db_text(final.first or NO_MESSAGES),
                    result.state.to_blob(), result.check,
                )
                packed = result.packed or (_pack_rows(result.rows) if result.rows else None)
                if sid is None:
                    sid = conn.execute(
                        "INSERT INTO sessions(path, size, mtime_ns, ino, dev, ok, reason, id, cwd, name, parent,"
                        " created, modified, count, first, state, chk) VALUES"
                        " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        values,
                    ).lastrowid
                    if packed is not None:
                        conn.execute("INSERT INTO texts(sid, meta, text) VALUES (?,?,?)", (sid, *packed))
                else:
                    conn.execute(
                        "UPDATE sessions SET path=?, size=?, mtime_ns=?, ino=?, dev=?, ok=?, reason=?, id=?,"
                        " cwd=?, name=?, parent=?, created=?, modified=?, count=?, first=?, state=?, chk=?"
                        " WHERE sid=?",
                        (*values, sid),
                    )
                    self._replace_texts(conn, sid, old[1] if resumed else 0, indexed, packed)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _replace_texts(
        self, conn: sqlite3.Connection, sid: int, keep_below: int, indexed: bool, packed: tuple[bytes, bytes] | None
    ) -> None:
        """Keep a session's stored rows of lines before ``keep_below`` and add the new ones (an
        indexed session's index document is replaced too: new sessions wait for build_index)."""
        row = conn.execute("SELECT meta, text FROM texts WHERE sid = ?", (sid,)).fetchone()
        old_text = None
        if row is not None:
            if keep_below:
                kept = [r for r in _unpack_rows(*row) if r[0] < keep_below]
                if kept:
                    new_rows = _unpack_rows(*packed) if packed is not None else []
                    packed = _pack_rows(kept + new_rows)
            if indexed:
                old_text = _from_utf8(row[1])
        if indexed and old_text is not None:
            conn.execute(
                "INSERT INTO texts_fts(texts_fts, rowid, text) VALUES ('delete', ?, ?)", (sid, fts_lower(old_text))
            )
        if packed is None:
            if row is not None:
                conn.execute("DELETE FROM texts WHERE sid = ?", (sid,))
            return
        conn.execute("INSERT OR REPLACE INTO texts(sid, meta, text) VALUES (?,?,?)", (sid, *packed))
        if indexed:
            conn.execute(
                "INSERT INTO texts_fts(rowid, text) VALUES (?,?)", (sid, fts_lower(_from_utf8(packed[1])))
            )

    def _drop_session(self, conn: sqlite3.Connection, sid: int, indexed: bool) -> None:
        self._replace_texts(conn, sid, 0, indexed, None)
        conn.execute("DELETE FROM sessions WHERE sid = ?", (sid,))

    # -- text and search ---------------------------------------------------------------------

    def _sids(self, conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int]:
        """The sid of each listed session among ``paths``. Answers are remembered while the
        database is unchanged (by this connection or any other), so that every keystroke of a
        search does not ask again."""
        stamp = (id(conn), conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])
        if stamp != self._sid_stamp:
            self._sid_cache = {}
            self._sid_stamp = stamp
        known = self._sid_cache
        out: dict[str, int] = {}
        need: list[str] = []
        for path in paths:
            sid = known.get(path)
            if sid is None:
                need.append(path)
            else:
                out[path] = sid
        for i in range(0, len(need), 500):
            chunk = [_db_text(path) for path in need[i : i + 500]]
            marks = ",".join("?" * len(chunk))
            for sid, path in conn.execute(
                f"SELECT sid, path FROM sessions WHERE ok = 1 AND path IN ({marks})", chunk
            ):
                out[_from_utf8(path)] = known[_from_utf8(path)] = sid
        return out

    def _rows_of(self, conn: sqlite3.Connection, sid: int) -> list[Row]:
        row = conn.execute("SELECT meta, text FROM texts WHERE sid = ?", (sid,)).fetchone()
        return [] if row is None else _unpack_rows(*row)

    def messages(self, info: SessionInfo | str) -> list[tuple[str | None, str, str]]:
        """The texts pi searches in, one per user/assistant message with text, in file order:
        ``(entry id, role, text)``. Empty for a file that was never listed."""
        path = info if isinstance(info, str) else info.path

        def work() -> list[tuple[str | None, str, str]]:
            conn = self._conn()
            sid = self._sids(conn, [path]).get(path)
            if sid is None:
                return []
            return [(eid, "assistant" if role else "user", text) for _, eid, role, text in self._rows_of(conn, sid)]

        return self._retrying(work)

    def load_text(self, info: SessionInfo) -> str:
        """pi's ``allMessagesText`` of a listed session (also stored on ``info``)."""
        text = " ".join(text for _, _, text in self.messages(info))
        info.all_messages_text = text
        return text

    def search(
        self,
        query: str,
        scope: Iterable[SessionInfo | str] | None = None,
        mode: str = "relevance",
        name_filter: str = "all",
        snippets: int | None = 50,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[SearchHit]:
        """pi's ``/resume`` search over ``scope`` (listed sessions, or paths; None: ``list_all``).

        Matches, scores and order are pi's (``filterAndSortSessions``): ``mode`` is
        ``"threaded"``/``"relevance"`` (by score) or ``"recent"`` (the scope's order). An empty
        query returns the scope as it is. Raises :class:`~pitui.store.query.QueryError` for a
        bad ``re:`` pattern. The first ``snippets`` hits (all when None) get their snippet; fill
        in others with :meth:`snippet`. ``cancelled()`` is asked now and then: when it says
        yes, :class:`SearchCancelled` is raised.

        A query typed further than an earlier one (``foo`` after ``fo``, ``foo b`` after ``foo``)
        is answered from the earlier outcomes: only the sessions it matched are looked at, from
        where each token's matching stopped.
        """
        from pitui.store.query import has_session_name, order_indexes, parse_search_query

        parsed = parse_search_query(query)
        if scope is None:
            infos = self.list_all()
        else:
            items = list(scope)
            want = [item for item in items if isinstance(item, str)]
            found = {info.path: info for info in self._list_paths(want, None)} if want else {}
            infos = [found.get(item) if isinstance(item, str) else item for item in items]
            infos = [info for info in infos if info is not None]
        if name_filter == "named":
            infos = [info for info in infos if has_session_name(info)]
        if parsed.empty:
            return [SearchHit(info, 0) for info in infos]
        found, scores, sids = self._retrying(lambda: self._match(infos, parsed, cancelled))
        hits = []
        for n, i in enumerate(order_indexes(scores, found, mode)):  # type: ignore[arg-type]
            sid = sids[i]
            hit = SearchHit(found[i], scores[i])
            if sid is not None and (snippets is None or n < snippets):
                if cancelled is not None and cancelled():
                    raise SearchCancelled
                self._retrying(lambda hit=hit, sid=sid: self._snippet(hit, sid, parsed))
            hits.append(hit)
        return hits

    def snippet(self, hit: SearchHit, query: str) -> SearchHit:
        """Fill in ``hit``'s snippet for ``query`` (for hits past the ``snippets`` limit)."""
        from pitui.store.query import parse_search_query

        parsed = parse_search_query(query)

        def work() -> None:
            sid = self._sids(self._conn(), [hit.info.path]).get(hit.info.path)
            if sid is not None:
                self._snippet(hit, sid, parsed)

        self._retrying(work)
        return hit

    def prepare_search(self, infos: Iterable[SessionInfo], cancelled: Callable[[], bool] | None = None) -> bool:
        """Make ready, ahead of the first search over ``infos``, what every search needs: the
        sessions' lower-cased texts in memory. A batch of sessions at a time, so a search that
        comes meanwhile waits for one batch at most. True when done (not cancelled, and the
        memory allowance was not used up)."""
        infos = list(infos)
        for i in range(0, len(infos), 32):
            if cancelled is not None and cancelled():
                return False
            if self._lower_cache_chars >= self.text_cache_chars:
                return False
            batch = infos[i : i + 32]

            def work(batch: list[SessionInfo] = batch) -> None:
                conn = self._conn()
                sids = self._sids(conn, [info.path for info in batch])
                self._lowered(conn, {sids[info.path]: info for info in batch if info.path in sids})

            self._retrying(work)
        return True

    def _match(
        self, infos: list[SessionInfo], parsed: Any, cancelled: Callable[[], bool] | None = None
    ) -> tuple[list[SessionInfo], list[float], list[int | None]]:
        """The sessions of ``infos`` that match, in their order, with their scores and sids."""
        from pitui.store.query import TokenMatcher, match_text, phrase_chunks

        conn = self._conn()
        sids = self._sids(conn, [info.path for info in infos])
        missing = [info.path for info in infos if info.path not in sids]
        if missing:
            self._list_paths(missing, None)
            sids.update(self._sids(conn, missing))
        candidates: set[str] | None = None
        chunks = phrase_chunks(parsed)
        if chunks:
            candidates = self._prefilter(conn, chunks, infos, sids)
        wanted = {
            sids[info.path]: info
            for info in infos
            if (candidates is None or info.path in candidates) and info.path in sids
        }
        found: list[SessionInfo] = []
        scores: list[float] = []
        found_sids: list[int | None] = []
        if parsed.mode == "regex":
            texts = self._texts(conn, set(wanted))
            for n, info in enumerate(infos):
                if cancelled is not None and not n & 31 and cancelled():
                    raise SearchCancelled
                if candidates is not None and info.path not in candidates:
                    continue
                sid = sids.get(info.path)
                text = texts.get(sid, "") if sid is not None else ""
                result = match_text(f"{info.id_text} {info.name or ''} {text} {info.cwd}", parsed)
                if result.matches:
                    found.append(info)
                    scores.append(result.score)
                    found_sids.append(sid)
            return found, scores, found_sids

        lowered = self._lowered(conn, wanted)
        matcher = TokenMatcher(parsed)
        # The outcomes of the longest remembered query this one extends: (outcome or None, per
        # path; the text each was found on, per path).
        base: tuple[dict[str, Any], dict[str, str]] | None = None
        best = -1
        for old, kept in self._outcomes.items():
            reach = sum(len(token.value) for token in old.tokens)
            if reach > best and matcher.plan(old) is not None:
                best, base = reach, kept
                matcher.start_from(old)
        base_outcomes, base_texts = base if base is not None else ({}, {})
        cache = self._lower_cache
        outcomes: dict[str, Any] = {}
        on_texts: dict[str, str] = {}
        for n, info in enumerate(infos):
            if cancelled is not None and not n & 127 and cancelled():
                raise SearchCancelled
            path = info.path
            if candidates is not None and path not in candidates:
                continue
            sid = sids.get(path)
            tl = lowered.get(sid) if sid is not None else None
            if tl is None:
                tl = _lowered_search_text(info, "")
            if base_texts.get(path) is tl:
                before = base_outcomes[path]
                # The shorter query did not match: neither does this one.
                outcome = None if before is None else matcher.match(tl, before)
            else:
                outcome = matcher.match(tl)
            # (Texts not kept in memory are not kept here either.)
            if sid is not None and (entry := cache.get(sid)) is not None and entry[-1] is tl:
                outcomes[path] = outcome
                on_texts[path] = tl
            if outcome is not None:
                found.append(info)
                scores.append(outcome[0])
                found_sids.append(sid)
        self._outcomes[parsed] = (outcomes, on_texts)
        self._outcomes.move_to_end(parsed)
        while len(self._outcomes) > 8:
            self._outcomes.popitem(last=False)
        return found, scores, found_sids

    def _lowered(self, conn: sqlite3.Connection, wanted: dict[int, SessionInfo]) -> dict[int, str]:
        """The lower-cased UTF-16 form of each wanted session's search text (``id name
        allMessagesText cwd``, what fuzzy and phrase tokens look in), kept in memory after the
        first search (up to ``text_cache_chars`` characters in all)."""
        cache = self._lower_cache
        out: dict[int, str] = {}
        need: set[int] = set()
        for sid, info in wanted.items():
            entry = cache.get(sid)
            if (
                entry is not None
                and entry[0] == info.size
                and entry[1] == info.mtime_ns
                and entry[3] == info.name
                and entry[4] == info.cwd
                and entry[2] == info.id
            ):
                out[sid] = entry[5]
            else:
                need.add(sid)
        if need:
            for sid, text in self._texts(conn, need).items():
                info = wanted[sid]
                low = _lowered_search_text(info, text)
                out[sid] = low
                old = cache.pop(sid, None)
                if old is not None:
                    self._lower_cache_chars -= len(old[-1])
                if self._lower_cache_chars + len(low) <= self.text_cache_chars:
                    cache[sid] = (info.size, info.mtime_ns, info.id, info.name, info.cwd, low)
                    self._lower_cache_chars += len(low)
        return out

    def _texts(self, conn: sqlite3.Connection, sids: set[int]) -> dict[int, str]:
        """``allMessagesText`` of every session in ``sids``, read from the cache."""
        out: dict[int, str] = dict.fromkeys(sids, "")
        if len(sids) > 64:
            for sid, text in conn.execute("SELECT sid, text FROM texts"):
                if sid in out:
                    out[sid] = _from_utf8(text)
        else:
            for sid in sids:
                row = conn.execute("SELECT text FROM texts WHERE sid = ?", (sid,)).fetchone()
                if row is not None:
                    out[sid] = _from_utf8(row[0])
        return out

    def _prefilter(
        self, conn: sqlite3.Connection, chunks: list[str], infos: list[SessionInfo], sids: dict[str, int]
    ) -> set[str]:
        """The sessions that can contain every chunk: those whose indexed messages, id, name or
        cwd hold it, and every session the index does not cover yet."""
        unindexed = {r[0] for r in conn.execute("SELECT sid FROM sessions WHERE indexed = 0")}
        candidates = {info.path for info in infos}
        for chunk in chunks:
            lookup = _SURROGATE.sub("\ufffd", chunk)  # as fts_lower stores it
            grams = [lookup[i : i + 3] for i in range(len(lookup) - 2)]
            if len(grams) > 12:
                step = len(grams) / 12
                grams = [grams[int(i * step)] for i in range(12)] + [grams[-1]]
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

    def _snippet(self, hit: SearchHit, sid: int, parsed: Any) -> None:
        from pitui.store.query import match_spans

        info = hit.info
        search_text, segments = self._snippet_source(sid, info)
        spans = match_spans(search_text, parsed)
        if not spans:
            return
        anchor = spans[0][0]
        seg = next((s for s in segments if s[0] <= anchor < s[1]), None)
        if seg is None:
            seg = next((s for s in segments if s[0] <= anchor <= s[1]), segments[0])
        seg_start, seg_end, kind, eid, role = seg
        start = max(seg_start, anchor - 30)
        end = min(seg_end, max(start + 120, spans[0][1]))
        snippet = _clean(search_text[start:end])
        shift = 0
        if start > seg_start:
            snippet = "…" + snippet
            shift = 1
        if end < seg_end:
            snippet += "…"
        hit.snippet = snippet
        hit.spans = [
            (max(a, start) - start + shift, min(b, end) - start + shift) for a, b in spans if a < end and b > start
        ]
        hit.field = kind
        hit.entry_id = eid
        hit.role = role

    def _snippet_source(self, sid: int, info: SessionInfo) -> tuple[str, list[Segment]]:
        """A session's search text and where each part of it starts and ends: ``(start, end,
        field, entry id, role)``. The last few are kept: the next keystroke's snippets are
        mostly of the same sessions."""
        key = (info.size, info.mtime_ns, info.id, info.name, info.cwd)
        kept = self._snippet_sources.get(sid)
        if kept is not None and kept[0] == key:
            self._snippet_sources.move_to_end(sid)
            return kept[1], kept[2]
        rows = self._rows_of(self._conn(), sid)
        id_text = info.id_text
        name = info.name or ""
        segments: list[Segment] = []
        pos = 0
        segments.append((pos, pos + len(id_text), "id", None, None))
        pos += len(id_text) + 1
        segments.append((pos, pos + len(name), "name", None, None))
        pos += len(name) + 1
        texts = []
        for i, (_, eid, role, text) in enumerate(rows):
            if i:
                pos += 1
            segments.append((pos, pos + len(text), "message", eid, "assistant" if role else "user"))
            texts.append(text)
            pos += len(text)
        pos += 1
        segments.append((pos, pos + len(info.cwd), "cwd", None, None))
        search_text = f"{id_text} {name} {' '.join(texts)} {info.cwd}"
        self._snippet_sources[sid] = (key, search_text, segments)
        while len(self._snippet_sources) > 64:
            self._snippet_sources.popitem(last=False)
        return search_text, segments

    # -- full-text index --------------------------------------------------------------------

    def pending_index(self) -> int:
        """How many cached sessions are not in the full-text index yet."""
        return self._retrying(
            lambda: self._conn().execute("SELECT count(*) FROM sessions WHERE indexed = 0").fetchone()[0]
        )

    def build_index(self, budget_s: float | None = None, batch: int = 64) -> bool:
        """Add the sessions listed so far to the full-text index, a batch per transaction.

        Listing leaves this out to stay fast; searching is exact without it (sessions not yet in
        the index are searched by reading their text). Run it in a background thread after a
        listing; ``budget_s`` stops after that many seconds. True when nothing is left to do.
        """
        deadline = None if budget_s is None else time.monotonic() + budget_s

        def work() -> bool:
            conn = self._conn()
            while True:
                sids = [
                    r[0]
                    for r in conn.execute("SELECT sid FROM sessions WHERE indexed = 0 LIMIT ?", (batch,))
                ]
                if not sids:
                    return True
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for sid, text in self._texts(conn, set(sids)).items():
                        if text:
                            conn.execute("INSERT INTO texts_fts(rowid, text) VALUES (?,?)", (sid, fts_lower(text)))
                    marks = ",".join("?" * len(sids))
                    conn.execute(f"UPDATE sessions SET indexed = 1 WHERE sid IN ({marks})", sids)
                    conn.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise
                if deadline is not None and time.monotonic() > deadline:
                    return False

        return self._retrying(work)


def _start_process_helpers(method: str) -> None:
    """Start multiprocessing's helper processes (resource tracker, fork server) with a real
    stderr to hand them. A full-screen app replaces ``sys.stderr`` with an object whose
    ``fileno()`` is -1, which those helpers cannot be started with."""
    import sys
    from multiprocessing import forkserver, resource_tracker

    stream = sys.stderr
    try:
        usable = stream is not None and stream.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if not usable and sys.__stderr__ is not None:
        sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
        if method == "forkserver":
            forkserver.ensure_running()
    finally:
        sys.stderr = stream


def _batches(jobs: list[Any], workers: int) -> list[list[Any]]:
    """Jobs in batches of about 8 MiB of reading, biggest files first, so that the workers
    finish together."""
    sizes = {}
    for job in jobs:
        try:
            sizes[job[0]] = os.stat(job[0]).st_size
        except OSError:
            sizes[job[0]] = 0
    batches: list[list[Any]] = []
    current: list[Any] = []
    current_size = 0
    for job in sorted(jobs, key=lambda job: -sizes[job[0]]):
        current.append(job)
        current_size += sizes[job[0]]
        if current_size >= 8 << 20 or len(current) >= 64:
            batches.append(current)
            current, current_size = [], 0
    if current:
        batches.append(current)
    return batches


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _clean(text: str) -> str:
    """One line of plain text: line breaks, tabs and control characters become spaces."""
    return _CONTROL.sub(" ", text)


def _lowered_search_text(info: SessionInfo, text: str) -> str:
    """``lowered_utf16`` of pi's search text for ``info`` with ``text`` as its messages' text."""
    from pitui.store.query import lowered_utf16

    name = info.name or ""
    return f"{lowered_utf16(info.id_text)} {lowered_utf16(name)} {lowered_utf16(text)} {lowered_utf16(info.cwd)}"


def _path_range(folder: str) -> tuple[str, str]:
    """Bounds for the paths below ``folder``: every path that starts with ``folder/`` sorts
    between ``folder/`` and ``folder0`` ("0" follows "/")."""
    prefix = os.path.join(folder, "")
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _at_depth(path: str, prefix: str, depth: int) -> bool:
    """Whether ``path`` is a .jsonl file ``depth`` levels below the folder ``prefix`` names."""
    rest = path[len(prefix) :]
    return rest.endswith(".jsonl") and rest.count(os.sep) == depth - 1


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def _resolve(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))


def _modified_key(info: SessionInfo) -> float:
    m = info.modified
    return math.inf if math.isnan(m) else -m
