"""pi's ``buildSessionInfo`` over a file's bytes: the running state of its loop, resumable
where the last scan stopped.

Rules reproduced from pi 1.6.0 (``session-manager.js``, ``buildSessionInfo``):

- lines end at ``\\n`` only, as pitui's (and pi's) opening splits them: pi 1.6's listing also
  ends lines at a lone ``\\r`` (readline), which makes it count and date a file other than
  opening it does (pi-1.6.md B2); pitui lists what opening shows;
- blank lines, lines ``JSON.parse`` rejects and falsy JSON values (``null``, ``false``, ``0``,
  ``""``) are skipped; the first value left must have ``type: "session"`` or the file is not
  listed;
- the content is ``trim()``-ed first, as pitui's reader still does (pi 0.73.1's rule): a file
  that starts with a UTF-8 BOM is listed and opens. pi 1.6 neither lists nor opens it (B1);
- anything that makes pi's loop throw (a message entry without a message, a
  message whose content is neither a string nor an array, a ``null`` content block, a
  ``session_info`` name that is not a string) drops the file from the listing, as pi's
  ``try``/``catch`` does;
- ``messageCount`` counts every ``message`` entry; the first user message with text is
  ``firstMessage``; the latest ``session_info`` names the session (an empty name clears it);
- ``modified`` is the latest user/assistant activity, else the header time, else the file's mtime.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from pitui.store.catalog.codec import dump_blob, load_blob
from pitui.store.catalog.model import NO_MESSAGES, SessionInfo
from pitui.store.js import (
    JS_SPACE_LEADS,
    MISSING,
    is_js_blank,
    js_date_parse,
    js_date_value,
    js_lstrip_bytes,
    js_rstrip_bytes,
    js_string,
    js_trim,
    js_truthy,
    time_clip,
)
from pitui.store.jsonl import UNPARSED, BadLine, parse_line

__all__ = [
    "CHUNK",
    "ScanResult",
    "ScanRow",
    "ScanState",
    "build_session_info",
    "check_digest",
    "os_reason",
    "scan_file",
]

# A Row's fields (offset, entry id, assistant, text, time) as the scanner makes them: a plain tuple.
ScanRow = tuple[int, str | None, bool, str, float | None]

CHUNK = 32 << 20  # bytes read at a time
# Read this much past the size fstat gave: a file being written may have grown meanwhile.
READ_PAST_SIZE = 64 << 10
# The bytes at each end of the part already scanned that tell a grown file from a new one.
CHECK_BYTES = 4096


# The decoder of the fields a listing reads (pitui.store.catalog.scan_fields), imported by the
# first scan: a listing from the cache does without msgspec.
_fields: Any = None
# orjson's integers: beyond these it refuses the line, and the exact rules read the number as
# JSON.parse does (a double)
_INT_MIN, _INT_END = -(1 << 63), 1 << 64


class ScanState:
    """The running state of pi's ``buildSessionInfo`` loop over a file's lines.

    ``offset`` is where the next scan starts: the start of the last non-blank line, which is
    always read again (it may be torn, or end in whitespace that ``trim()`` removes only while it
    is the last line). Everything before it is final: appending to the file cannot change it.
    """

    __slots__ = (
        "created",
        "cwd",
        "first_message",
        "has_header",
        "header_time",
        "id",
        "last_activity",
        "message_count",
        "name",
        "offset",
        "parent_session",
        "start_trimmed",
        "unlisted_reason",
    )

    def __init__(self) -> None:
        self.offset = 0
        self.start_trimmed = False  # a non-blank line lies before offset (so no leading trim)
        self.has_header = False  # the first parsed line was a session header
        self.unlisted_reason: str | None = None  # why pi would not list the file
        self.id: Any = MISSING  # header.id
        self.cwd = ""  # header.cwd when it is a string
        self.parent_session: Any = MISSING  # header.parentSession
        self.created: float | None = None  # new Date(header.timestamp).getTime()
        self.header_time: float | None = None  # Date.parse(header.timestamp): modified's fallback
        self.message_count = 0  # message entries
        self.first_message = ""  # the text of the first user message with text
        self.name: str | None = None  # the latest session_info name
        self.last_activity: float | None = None  # getLastActivityTime so far (ms)

    def copy(self) -> ScanState:
        other = ScanState.__new__(ScanState)
        for slot in ScanState.__slots__:
            setattr(other, slot, getattr(self, slot))
        return other

    def to_blob(self) -> bytes:
        d: dict[str, Any] = {slot: getattr(self, slot) for slot in ScanState.__slots__}
        for key in ("id", "parent_session"):
            if d[key] is MISSING:
                del d[key]
        return dump_blob(d)

    @classmethod
    def from_blob(cls, blob: bytes) -> ScanState:
        d = load_blob(blob)
        state = cls()
        for slot in ScanState.__slots__:
            if slot in d:
                setattr(state, slot, d[slot])
        return state

    def info(self, path: str, size: int, mtime_ns: int) -> SessionInfo | None:
        """The SessionInfo pi would build from the lines seen so far."""
        if self.unlisted_reason or not self.has_header:
            return None
        last = self.last_activity
        if last is not None and last > 0:
            modified = time_clip(last)
            if modified is None:
                modified = math.nan
        elif self.header_time is not None:
            modified = self.header_time
        else:
            modified = float(mtime_ns // 1_000_000)
        return SessionInfo(
            path=path,
            id=self.id,
            cwd=self.cwd,
            name=self.name,
            parent_session_path=None if self.parent_session is MISSING else self.parent_session,
            created=self.created,
            modified=modified,
            message_count=self.message_count,
            first_message=self.first_message or NO_MESSAGES,
            size=size,
            mtime_ns=mtime_ns,
        )

    def reason(self) -> str | None:
        if self.unlisted_reason:
            return self.unlisted_reason
        if not self.has_header:
            return "not a session file: no line parses as JSON"
        return None

    # -- the loop body of buildSessionInfo, for one line ------------------------------------

    def _feed_fields(self, seg: bytes | memoryview, offset: int, rows: list[ScanRow] | None) -> bool:
        """:meth:`feed`'s rules for an entry after the header, on its fields as ``_Entry``
        decodes them (so of the types declared there). False, having changed nothing, for a
        line the exact rules must read: one msgspec refuses, or a message time beyond orjson's
        integers."""
        try:
            entry = _fields.decode_entry(seg)  # (imported by scan_file)
        except _fields.DecodeError:  # (a ValidationError too: the exact rules decide)
            return False
        return self._feed_entry(entry, offset, rows)

    def _feed_entry(self, entry: Any, offset: int, rows: list[ScanRow] | None) -> bool:
        """:meth:`_feed_fields` on a line already decoded: one call per entry, the common case
        first (this is most of a cold listing)."""
        kind = entry.type
        if kind == "message":
            message = entry.message
            if message is None:
                self.message_count += 1
                self.unlisted_reason = f"pi cannot list it: a message entry without a message at byte {offset}"
                return True
            if not isinstance(message, _fields.Said) or message.content is _fields.UNSET:
                self.message_count += 1
                return True
            ts = message.timestamp
            ts_type = type(ts)
            if ts_type is int:
                if not _INT_MIN <= ts < _INT_END:
                    return False
            elif ts_type is not float:
                ts = entry.timestamp
                ts = js_date_parse(ts) if type(ts) is str else None
            self.message_count += 1
            if ts is not None:
                last = self.last_activity
                if last is None or ts > last:
                    self.last_activity = ts if ts >= 0 else 0
            content = message.content
            if type(content) is str:
                text = content
            elif len(content) == 1:  # (most messages: one block, no list to join)
                block = content[0]
                text = (block.text or "") if block.type == "text" else ""
            else:
                text = " ".join([block.text or "" for block in content if block.type == "text"])
            if not text:
                return True
            user = type(message) is _fields.User
            if rows is not None:
                entry_id = entry.id
                rows.append((offset, entry_id if type(entry_id) is str else None, not user, text, ts))
            if not self.first_message and user:
                self.first_message = text
        elif kind == "session_info":
            self._named(entry.name, offset)
        return True

    def _named(self, name: Any, offset: int) -> None:
        """A ``session_info`` entry's name: the latest wins, cleared by null (pi's rule)."""
        if name is None:
            self.name = None
        elif type(name) is str:
            self.name = js_trim(name) or None
        else:
            self.unlisted_reason = f"pi cannot list it: a session name that is not text at byte {offset}"

    def feed(self, seg: bytes | memoryview, offset: int, rows: list[ScanRow] | None) -> None:
        """Process one non-blank line (already trimmed where pi's ``trim()`` would trim it)."""
        # "{": anything else takes the slower rules, which copy no huge junk
        if seg and seg[0] == 123 and self.has_header and self._feed_fields(seg, offset, rows):
            return
        self._feed_exact(seg, offset, rows)

    def feed_lines(self, data: bytes, start: int, stop: int, base: int, rows: list[ScanRow] | None) -> bool:
        """:meth:`feed` on every line of ``data[start:stop]`` (whole lines, after the header),
        with one call into msgspec for all of them. False, having changed nothing, unless each
        line is one JSON object alone (no blank line, no space around it, nothing else on it):
        then the caller feeds them a line at a time.

        ``decode_lines`` reads values apart by any whitespace, newlines or not, so it is held to
        the lines: it gave as many values as there are lines, and each line starts with ``{``
        and ends with ``}`` (checked as the values are fed, and all undone if one does not). A
        value cannot go on past the end of a line that ends in ``}``: a string cannot hold a
        raw newline, and inside an object or array the next line's ``{`` would be refused. So
        every line starts a value, and with no more values than lines, none starts within one:
        each line is exactly one value, as JSON.parse reads it.
        """
        try:
            entries = _fields.decode_lines(memoryview(data)[start:stop])
        except _fields.DecodeError:
            return False
        saved = self.copy()
        kept = len(rows) if rows is not None else 0
        find = data.find
        feed_entry = self._feed_entry
        i = start
        for entry in entries:
            j = find(b"\n", i, stop)
            if j < 0 or data[i] != 123 or data[j - 1] != 125:  # "{", "}"
                break
            if self.unlisted_reason is None and not feed_entry(entry, base + i, rows):
                self._feed_exact(data[i:j], base + i, rows)
            i = j + 1
        else:
            if i == stop:  # as many values as lines
                return True
        # Not one object per line: undone, for the caller to read a line at a time.
        for slot in ScanState.__slots__:
            setattr(self, slot, getattr(saved, slot))
        if rows is not None:
            del rows[kept:]
        return False

    def _feed_exact(self, seg: bytes | memoryview, offset: int, rows: list[ScanRow] | None) -> None:
        """:meth:`feed` by the exact rules: orjson's dict of the whole line, or JSON.parse's
        own reading where orjson refuses it."""
        entry = UNPARSED
        if seg and seg[0] == 123:
            try:
                entry = orjson.loads(seg)
            except orjson.JSONDecodeError:
                entry = UNPARSED
        if entry is UNPARSED:
            try:
                entry = parse_line(bytes(seg), orjson_refused=True)
            except BadLine:
                return
        if type(entry) is not dict and not js_truthy(entry):
            return  # null, false, 0, "": skipped (pi 1.6's ``if (!entry) continue``)
        if not self.has_header:
            # The first parsed value is the header; buildSessionInfo rejects anything else.
            if isinstance(entry, dict) and entry.get("type") == "session":
                self.has_header = True
                self.id = entry.get("id", MISSING)
                cwd = entry.get("cwd")
                self.cwd = cwd if isinstance(cwd, str) else ""
                self.parent_session = entry.get("parentSession", MISSING)
                ts = entry.get("timestamp", MISSING)
                self.created = js_date_value(ts)
                self.header_time = js_date_parse(ts) if isinstance(ts, str) else None
            else:
                self.unlisted_reason = "not a session file: the first line is not a session header"
            return
        if type(entry) is not dict:
            return
        kind = entry.get("type")
        if kind == "message":
            self.message_count += 1
            message = entry.get("message")
            if type(message) is not dict:
                if message is None:
                    self.unlisted_reason = f"pi cannot list it: a message entry without a message at byte {offset}"
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
                last = self.last_activity
                if last is None or ts > last:
                    self.last_activity = ts if ts >= 0 else 0
            # pi's extractTextContent (pitui.store.content.extract_text_content), inline: this loop
            # also finds the content pi's listing throws on
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
                        self.unlisted_reason = f"pi cannot list it: a null content block at byte {offset}"
                        return
                text = " ".join(parts)
            else:
                self.unlisted_reason = f"pi cannot list it: message content is not text or a list at byte {offset}"
                return
            if not text:
                return
            if rows is not None:
                entry_id = entry.get("id")
                # A Row's fields in a plain tuple, which costs an eighth of a Row (see Row).
                rows.append((offset, entry_id if isinstance(entry_id, str) else None, role == "assistant", text, ts))
            if not self.first_message and role == "user":
                self.first_message = text
        elif kind == "session_info":
            self._named(entry.get("name"), offset)


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
        chunk = os.pread(fd, min(CHUNK, max(size - at, 0) + READ_PAST_SIZE), at)
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


@dataclass(slots=True)
class ScanResult:
    """What scanning (part of) a file produced."""

    state: ScanState  # committed: resume from state.offset next time
    final: ScanState  # including the last line: the listing row
    rows: list[ScanRow]  # text rows of the lines scanned (from the start offset on)
    size: int
    mtime_ns: int
    ino: int
    dev: int
    check: bytes  # digest of the bytes before state.offset, to tell a grown file from a new one
    packed: tuple[bytes, bytes] | None = None  # the rows as pack_rows stores them (rows emptied)


def check_digest(fd: int, offset: int) -> bytes:
    """A digest of the first and last ``CHECK_BYTES`` before ``offset``."""
    import hashlib  # (not needed by a listing from the cache)

    head = os.pread(fd, min(offset, CHECK_BYTES), 0)
    tail_start = max(CHECK_BYTES, offset - CHECK_BYTES)
    tail = os.pread(fd, offset - tail_start, tail_start) if offset > tail_start else b""
    return hashlib.blake2b(head + b"|" + tail, digest_size=12).digest()


def scan_file(path: str, state: ScanState | None = None, with_rows: bool = True) -> ScanResult:
    """Scan ``path`` from ``state.offset`` (a fresh state scans the whole file).

    Raises OSError when the file cannot be opened or read.
    """
    global _fields
    if _fields is None:
        from pitui.store.catalog import scan_fields

        _fields = scan_fields
    state = state.copy() if state is not None else ScanState()
    rows: list[ScanRow] | None = [] if with_rows else None
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
            batched = False
            while i < end:
                if not batched and held is not None and state.start_trimmed and state.has_header:
                    # Past the header: the block's lines but its last non-blank one in one go.
                    batched = True
                    line_end = end - 1 if data[end - 1] == 10 else end  # (of the block's last line)
                    at = data.rfind(b"\n", i, line_end) + 1
                    if i < at < line_end and state.unlisted_reason is None and not is_js_blank(data[at:line_end]):
                        feed(held, held_at, rows)
                        held = None
                        if state.unlisted_reason is not None or state.feed_lines(data, i, at, base, rows):
                            held, held_at = view[at:line_end], base + at
                            i = line_end + 1
                            continue
                j = find(data, b"\n", i, end)
                if j < 0:
                    j = end
                if j > i and data[i] in JS_SPACE_LEADS and is_js_blank(data[i:j]):
                    i = j + 1
                    continue
                if j > i:
                    if held is not None:
                        if not state.start_trimmed:
                            held = js_lstrip_bytes(bytes(held))
                            state.start_trimmed = True
                        if state.unlisted_reason is None:
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
            last = js_rstrip_bytes(bytes(held))
            if not final.start_trimmed:
                last = js_lstrip_bytes(last)
                final.start_trimmed = True
            if last and final.unlisted_reason is None:
                final.feed(last, held_at, rows)
        check = check_digest(fd, committed.offset)
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


def os_reason(error: OSError) -> str:
    """Why a file that raised ``error`` is not listed."""
    if isinstance(error, FileNotFoundError):
        return "the file vanished while listing"
    if isinstance(error, PermissionError):
        return "the file cannot be read: permission denied"
    if isinstance(error, IsADirectoryError):
        return "not a file"
    return f"the file cannot be read: {error.strerror or error}"
