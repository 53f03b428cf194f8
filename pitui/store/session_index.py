"""A persistent index of a session read before, so that reopening it reads only what was appended.

Reading a 100,000-entry session parses every line; reopening it from its index decodes a few
compact columns instead (offsets, ids, parents, timestamps, the message fields the tree and the
totals use) and parses only the lines the index does not hold the fields of (entries whose whole
value is kept, odd messages: read again from the file through the exact path) and the lines
appended since. The result is the session :meth:`Session.load` makes of the file, field for
field; anything the index cannot vouch for is read whole.

Checks before an index is used (else the file is read whole, and the index written again):

- the file is the one indexed: same device, inode and resolved path;
- unchanged: the same size and modification time, and the same bytes at the start, at the end
  and at sampled places in between (a file rewritten to the same size is caught there);
- or grown: bigger, with those bytes of the indexed part unchanged, and an indexed part that
  ended in a whole line (so the appended lines are read exactly as a whole read would split them);
- the index's own format number, and every column's length; a truncated or garbled index file
  fails to decode, which is a miss, never an error.

Indexed only: sessions of :data:`MIN_BYTES` or more, of the current format (a v1/v2 file is
migrated in memory, and read whole), whose header pi reads where it starts (no byte order mark
or other whitespace pi 1.6.0 cannot parse), read with bodies not kept.

The index files live in the cache folder only (``<cache>/session-index/``), one per session
file, named by a hash of its resolved path; written atomically (a temporary file renamed over),
so two processes writing the same index leave one whole file. The folder is kept under
:data:`CAP_BYTES` by removing the least recently written indexes. Failing to read or write an
index is silent: the session is then read whole, as without an index.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from pitui.store.js import MISSING, strip_js_whitespace
from pitui.store.jsonl import parse_fast
from pitui.store.migrate import CURRENT_VERSION, version_number
from pitui.store.model import DiskState, Entry, LineProblem, LineSource
from pitui.store.paths import cache_dir_default
from pitui.store.reader import _UNTRIMMED
from pitui.store.totals import RunningTotals, TotalsCounter

if TYPE_CHECKING:
    from pitui.store.reader import Session

FORMAT = 4  # bump when the layout or the meaning of a column changes: older indexes are misses
MAGIC = b"pitui session index\n"
MIN_BYTES = 1 << 20  # a smaller session reads whole about as fast as its index loads
CAP_BYTES = 512 << 20  # the folder's total; the indexes written longest ago go first
HEAD_BYTES = TAIL_BYTES = 4096
SAMPLES, SAMPLE_BYTES = 16, 512

_INT64 = 1 << 63
_Number = int | float


class _Index(msgspec.Struct, array_like=True):
    """One session's index, as stored (msgpack)."""

    format: int
    path: str  # the resolved path of the file indexed
    dev: int
    ino: int
    size: int
    mtime_ns: int
    probe: bytes  # a hash of the bytes sampled from the file (:func:`_probe`)
    read_upto: int
    next_line: int
    torn_line: int
    header_offset: int
    header_length: int
    count: int  # entries
    problems: list[tuple[int, str]]  # the reading loop's, before duplicate ids were counted
    unparsed: list[tuple[int, int]]
    # The messages whose fields the index holds, in file order, a column per field (a row per
    # message made a million tuples beside the entries at 1,000,000 entries, 120 MB): id,
    # parentId, timestamp, line number, offset, length, 2 * its shape + textless, usage figures.
    # A parentId that is the id of the message before it in these columns is stored as 0 (most
    # are: pi appends a turn under the last), so that it is neither stored nor decoded again.
    ids: list[str]
    parents: list[str | int | None]
    stamps: list[str]
    numbers: list[int]
    offsets: list[int]
    lengths: list[int]
    kinds: list[int]
    usages: list[tuple[_Number, ...] | None]
    shapes: list[tuple[str, str | None, str | None]]  # (role, provider, model); None: no provider_model
    # Any other entry, read from its line again: (its place among the entries, line number,
    # offset, length), in file order.
    others: list[tuple[int, int, int, int]]
    # pi's /session totals of these entries (TotalsCounter.state), so that a reopened session
    # counts only what was appended; None where a sum is too big to store (counted again).
    totals: tuple[list[int], list[Any], list[Any], str | None, bool] | None = None


_DIGEST = 16


def _digest(body: bytes | memoryview) -> bytes:
    """The checksum stored before the index's body: a damaged index file is a miss."""
    return hashlib.blake2b(body, digest_size=_DIGEST).digest()


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Index)


def _probe(source: LineSource, size: int) -> bytes:
    """A hash of the file's first and last bytes before ``size`` and of samples in between."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(size.to_bytes(8, "little"))
    digest.update(source.raw(0, min(HEAD_BYTES, size)))
    for k in range(1, SAMPLES + 1):
        at = size * k // (SAMPLES + 1)
        digest.update(source.raw(at, min(SAMPLE_BYTES, size - at)))
    start = max(0, size - TAIL_BYTES)
    digest.update(source.raw(start, size - start))
    return digest.digest()


class IndexCache:
    """The folder of session indexes. ``deferred``: :meth:`remember` only notes what to write,
    and :meth:`write_pending` writes it (the app, once the first screen is drawn; the command
    line, in a child process); else the index is written at the end of the load that missed it."""

    def __init__(
        self, directory: str, *, deferred: bool = False, cap_bytes: int = CAP_BYTES, min_bytes: int = MIN_BYTES
    ) -> None:
        self.directory = directory
        self.deferred = deferred
        self.cap_bytes = cap_bytes
        self.min_bytes = min_bytes
        # How the last load went: "hit" (from the index), "grown" (the index and the lines
        # appended since), "miss" (read whole), "" (not asked yet).
        self.last = ""
        self._pending: dict[str, tuple[Any, ...]] = {}
        self._lock = threading.Lock()

    @classmethod
    def default(cls, *, deferred: bool = False) -> IndexCache:
        return cls(os.path.join(cache_dir_default(), "session-index"), deferred=deferred)

    def file_for(self, path: str) -> str:
        name = hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:32]
        return os.path.join(self.directory, name + ".idx")

    # ------------------------------------------------------------------ reading

    def reopen(self, cls: type[Session], path: str, source: LineSource, st: os.stat_result) -> Session | None:
        """The session from its index and the lines appended since, or None (read it whole)."""
        self.last = "miss"
        if st.st_size < self.min_bytes:
            return None
        try:
            with open(self.file_for(path), "rb") as handle:
                blob = handle.read()
            body = memoryview(blob)[len(MAGIC) + _DIGEST :]
            if blob[: len(MAGIC)] != MAGIC or blob[len(MAGIC) : len(MAGIC) + _DIGEST] != _digest(body):
                return None  # another program's file, or one cut short or damaged
            index = _decoder.decode(body)
            if index.format != FORMAT or not self._still_valid(index, path, source, st):
                return None
            session = _restore(cls, index, path, source)
        except Exception:  # a garbled index, a file that changed under us: read it whole
            return None
        if session is None:
            return None
        session.disk = DiskState(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if st.st_size != index.size:
            try:
                session = _grow(cls, session, source, st.st_size)
            except Exception:  # the file changed again while read: read it whole
                return None
            session._build_index()
            self.last = "grown"
            self.remember(session)
        else:
            session._build_index()
            self.last = "hit"
        return session

    @staticmethod
    def _still_valid(index: _Index, path: str, source: LineSource, st: os.stat_result) -> bool:
        if (index.dev, index.ino) != (st.st_dev, st.st_ino) or index.path != os.path.realpath(path):
            return False
        if st.st_size == index.size:
            if st.st_mtime_ns != index.mtime_ns:
                return False
        elif st.st_size < index.size or not (index.torn_line or _ends_whole(source, index.size)):
            return False
        return _probe(source, index.size) == index.probe

    # ------------------------------------------------------------------ writing

    def remember(self, session: Session) -> None:
        """Note a session just read, to be indexed (now, unless ``deferred``)."""
        snapshot = _snapshot(session, self.min_bytes)
        if snapshot is None:
            return
        if not self.deferred:
            self._write(snapshot)
            return
        with self._lock:
            self._pending[snapshot[0]] = snapshot

    @property
    def pending(self) -> bool:
        """Whether :meth:`remember` noted an index that is not written yet."""
        return bool(self._pending)

    def discard_pending(self) -> None:
        """Forget what :meth:`remember` noted (another process writes it)."""
        with self._lock:
            self._pending = {}

    def write_pending(self) -> None:
        """Write the indexes :meth:`remember` noted (silently skipping any that fail)."""
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
        for snapshot in pending:
            self._write(snapshot)

    def _write(self, snapshot: tuple[Any, ...]) -> None:
        path = snapshot[0]
        try:
            blob = _encode(*snapshot)
            if blob is None:
                return
            os.makedirs(self.directory, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".idx")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(MAGIC)
                    handle.write(_digest(blob))
                    handle.write(blob)
                os.replace(temp, self.file_for(path))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
            self._trim()
        except Exception:  # an index is only a shortcut: no index, no harm
            pass

    def _trim(self) -> None:
        """Keep the folder under ``cap_bytes``: the indexes written longest ago go first."""
        files = []
        total = 0
        with os.scandir(self.directory) as scan:
            for item in scan:
                with contextlib.suppress(OSError):
                    st = item.stat()
                    files.append((st.st_mtime_ns, st.st_size, item.path))
                    total += st.st_size
        if total <= self.cap_bytes:
            return
        files.sort()
        for _, size, name in files[:-1]:  # the newest (just written) stays
            with contextlib.suppress(OSError):
                os.unlink(name)
                total -= size
            if total <= self.cap_bytes:
                break


def _ends_whole(source: LineSource, size: int) -> bool:
    """Whether the first ``size`` bytes end in a newline with no whitespace between it and the
    last line's text (which a whole read trims from the end of the file): so the lines appended
    after it are split and offset as a whole read of the grown file splits them."""
    tail = source.raw(max(0, size - 64), min(64, size))
    run = strip_js_whitespace(tail, start=False)
    return tail.endswith(b"\n") and run < len(tail) and tail[len(tail) - run] == 0x0A


# ---------------------------------------------------------------------- restoring


def _restore(cls: type[Session], index: _Index, path: str, source: LineSource) -> Session | None:
    header_line = source.raw(index.header_offset, index.header_length)
    header = parse_fast(header_line)
    if type(header) is not dict or header.get("type") != "session" or type(header.get("id")) is not str:
        return None
    version = header.get("version", MISSING)
    if version_number(version) < CURRENT_VERSION:
        return None
    session = cls(path)
    session.header = header
    session.original_version = version
    session.header_offset = index.header_offset
    session.source = source
    session.problems = [LineProblem(path, line, reason) for line, reason in index.problems]
    session.unparsed = [(offset, length) for offset, length in index.unparsed]
    session.read_upto, session.next_line, session.torn_line = index.read_upto, index.next_line, index.torn_line
    session.entries = _entries(index, source)
    if index.totals is not None:
        session.totals = RunningTotals(session.entries, TotalsCounter.from_state(index.totals))
    return session


def _entries(index: _Index, source: LineSource) -> list[Entry]:
    shapes = [(role, None if provider is None else (provider, model)) for role, provider, model in index.shapes]
    held: list[Entry] = []
    append = held.append
    columns = (index.ids, index.parents, index.stamps, index.numbers, index.offsets, index.lengths, index.kinds)
    before = None
    for id_, parent, stamp, number, offset, length, kind, usage in zip(*columns, index.usages, strict=True):
        role, provider_model = shapes[kind >> 1]
        # (positional, in Entry's field order.) A parent of 0: the id before it, held once (as
        # the reader holds it).
        append(
            Entry(
                "message",
                id_,
                before if type(parent) is int else parent,
                stamp,
                number,
                offset,
                length,
                role,
                provider_model,
                kind & 1 == 1,
                usage,
                source,
                None,
            )
        )
        before = id_
    if len(held) + len(index.others) != index.count:
        raise ValueError("the index lost entries")
    if not index.others:
        return held
    entries: list[Entry] = []
    taken = 0
    raw = source.raw
    for place, number, offset, length in index.others:
        if place < len(entries):
            raise ValueError("entries out of order")
        step = place - len(entries)
        entries += held[taken : taken + step]
        taken += step
        value = parse_fast(raw(offset, length))
        if type(value) is not dict:
            value = {}  # as the reader keeps a JSON value that is not an object
        entries.append(Entry.from_data(value, number, offset, length, source, value.get("type") != "message"))
    entries += held[taken:]
    return entries


def _grow(cls: type[Session], session: Session, source: LineSource, size: int) -> Session:
    """The indexed session with the lines appended since read on, as one whole read of the
    file would have them (the torn last line read again, duplicates counted after all)."""
    start = session.read_upto
    data = source.raw(start, size - start)
    assert session.header is not None
    more = cls._from_bytes(data, session.path, False, source, session.header, start, session.next_line)
    if session.torn_line:
        session.problems = [p for p in session.problems if p.line != session.torn_line]
        session.unparsed = [u for u in session.unparsed if u[0] < start]
    session.problems += more.problems
    session.unparsed += more.unparsed
    session.entries += more.entries
    session.read_upto, session.next_line, session.torn_line = more.read_upto, more.next_line, more.torn_line
    assert session.disk is not None
    session.disk = DiskState(session.disk.dev, session.disk.ino, start + len(data), session.disk.mtime_ns)
    return session


# ---------------------------------------------------------------------- writing


def _snapshot(session: Session, min_bytes: int) -> tuple[Any, ...] | None:
    """What an index of ``session`` (just read) is made of, or None when it is not indexed.
    Cheap: the lists are copied, the columns are made by :func:`_encode` later."""
    disk, source, path = session.disk, session.source, session.path
    if path is None or disk is None or source is None or session.header is None or session.migrated:
        return None
    if disk.size < min_bytes or any(p.reason == _UNTRIMMED for p in session.problems):
        return None
    # The entries whose id an earlier one has: their problems are the last ones, made again
    # when the index is read. The session's id map (read whole: every id in it) counts them.
    by_id = session.by_id if session.by_id or not session.entries else {e.id: e for e in session.entries}
    duplicates = len(session.entries) - len(by_id)
    problems = session.problems[: len(session.problems) - duplicates]
    return (
        path,
        disk,
        source,
        session.header_offset,
        session.read_upto,
        session.next_line,
        session.torn_line,
        [(p.line, p.reason) for p in problems],
        list(session.unparsed),
        list(session.entries),
        # Its totals, if counted by the time the index is written (of these entries: not once
        # the session has grown and been counted again); else the writer counts them.
        functools.partial(session.totals.counter_for, session.entries, len(session.entries)),
    )


def _encode(
    path: str,
    disk: DiskState,
    source: LineSource,
    header_offset: int,
    read_upto: int,
    next_line: int,
    torn_line: int,
    problems: list[tuple[int, str]],
    unparsed: list[tuple[int, int]],
    entries: list[Entry],
    counted: Callable[[], TotalsCounter | None] = lambda: None,
) -> bytes | None:
    st = os.stat(path)
    if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != (disk.dev, disk.ino, disk.size, disk.mtime_ns):
        return None  # changed since it was read: the next read indexes it
    head = source.raw(header_offset, min(disk.size - header_offset, 1 << 20))
    header_length = head.find(b"\n")
    if header_length < 0:
        return None
    shapes: dict[tuple[str, str | None, str | None], int] = {}
    others: list[tuple[int, int, int, int]] = []
    ids: list[str] = []
    parents: list[str | int | None] = []
    stamps: list[str] = []
    numbers: list[int] = []
    offsets: list[int] = []
    lengths: list[int] = []
    kinds: list[int] = []
    usages: list[tuple[_Number, ...] | None] = []
    add_id, add_parent, add_stamp, add_number = ids.append, parents.append, stamps.append, numbers.append
    add_offset, add_length, add_kind, add_usage = offsets.append, lengths.append, kinds.append, usages.append
    before: str | None = None  # the id of the message before, in the columns
    for place, entry in enumerate(entries):
        shape = _shape(entry)
        if shape is None:
            others.append((place, entry.line, entry.offset, entry.length))
            continue
        kind = shapes.get(shape)
        if kind is None:
            kind = shapes[shape] = len(shapes)
        add_id(entry.id)
        add_parent(0 if entry.parent_id == before and before is not None else entry.parent_id)
        before = entry.id
        add_stamp(entry.timestamp)
        add_number(entry.line)
        add_offset(entry.offset)
        add_length(entry.length)
        add_kind(2 * kind + (1 if entry.textless else 0))
        add_usage(entry.usage_figures)
    index = _Index(
        FORMAT,
        os.path.realpath(path),
        disk.dev,
        disk.ino,
        disk.size,
        disk.mtime_ns,
        _probe(source, disk.size),
        read_upto,
        next_line,
        torn_line,
        header_offset,
        header_length,
        len(entries),
        problems,
        unparsed,
        ids,
        parents,
        stamps,
        numbers,
        offsets,
        lengths,
        kinds,
        usages,
        list(shapes),
        others,
        None if (counter := counted() or _count(entries)) is None else counter.state(),
    )
    return _encoder.encode(index)


def _count(entries: list[Entry]) -> TotalsCounter | None:
    """The totals of ``entries``, for an index written before they were counted (a command's
    writer, on another core), or None when a line they need cannot be read back."""
    counter = TotalsCounter()
    try:
        counter.add_entries(entries)
    except OSError:  # (FileChangedError too)
        return None
    return counter


def _shape(entry: Entry) -> tuple[str, str | None, str | None] | None:
    """The (role, provider, model) of a message whose fields the columns hold exactly, or None:
    its line is read again (a kept value, a field of an odd type, a missing one)."""
    if entry._data is not None or entry.type != "message" or entry._source is None:
        return None
    if type(entry.id) is not str or type(entry.timestamp) is not str or type(entry.role) is not str:
        return None
    parent = entry.parent_id
    if parent is not None and type(parent) is not str:
        return None
    figures = entry.usage_figures
    if figures and not _plain_figures(figures):
        return None
    pm = entry.provider_model
    if pm is None:
        return (entry.role, None, None)
    provider, model = pm
    if type(provider) is not str or type(model) is not str:
        return None
    return (entry.role, provider, model)


_FIGURE_TYPES = frozenset({int, float})


def _plain_figures(figures: tuple[Any, ...]) -> bool:
    """Whether every figure is a double or an integer of 64 bits (what the index stores as it
    is), in a few calls into C rather than one per figure: the columns are made for every
    message of a session. Where a figure is a NaN, ``min`` or ``max`` may be that NaN and the
    answer False: the line is then read again, which is always exact."""
    kinds = set(map(type, figures))
    if not kinds <= _FIGURE_TYPES:
        return False
    return int not in kinds or (min(figures) >= -_INT64 and max(figures) < _INT64)


def index_files(directory: str) -> Iterator[str]:
    """The index files in ``directory`` (for tests and a cache report)."""
    with contextlib.suppress(FileNotFoundError), os.scandir(directory) as scan:
        for item in scan:
            if item.name.endswith(".idx") and not item.name.startswith("."):
                yield item.path
