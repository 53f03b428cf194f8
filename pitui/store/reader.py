"""The session model: one file's entries, tree, active path, labels, name and context.

A :class:`Session` is read once from a file (or built in memory) and follows pi's rules for
loading (reference §3), the tree and the context (§4). Message bodies are not kept: each entry
remembers where its line is, and the body is decoded again only when asked for.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import marshal
import math
import os
import signal
import stat
import sys
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from pitui.store.js import js_date_value, js_string, js_string_to_number
from pitui.store.jsonl import (
    JS_WHITESPACE,
    MISSING,
    UNPARSED,
    BadLine,
    Opaque,
    _is_js_blank,
    _strip_js_whitespace,
    as_key,
    js_trim,
    js_truthy,
    parse_line,
    split_lines,
)

CURRENT_VERSION = 3


class NotASessionError(ValueError):
    """The file is not a pi session (its first readable line is not a session header)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A line that was skipped, or something odd about the file, with where and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


class Entry:
    """One tree entry: the fields every view needs, and where its full line is."""

    __slots__ = ("_data", "_source", "id", "length", "line", "offset", "parent_id", "provider_model",
                 "role", "textless", "timestamp", "type")

    def __init__(self, data: dict[str, Any], line: int = 0, offset: int = -1, length: int = 0,
                 source: LineSource | None = None, keep: bool = True) -> None:
        get = data.get
        self.type: Any = get("type", MISSING)
        self.id: Any = get("id", MISSING)
        self.parent_id: Any = get("parentId", MISSING)
        if type(self.id) in _CONTAINERS or type(self.parent_id) in _CONTAINERS:
            self.id, self.parent_id = as_key(self.id), as_key(self.parent_id)
        self.timestamp: Any = get("timestamp", MISSING)
        self.line = line
        self.offset = offset
        self.length = length
        self.role: Any = MISSING
        self.provider_model: tuple[Any, Any] | None = None
        # An assistant message with no text that ended normally (only thinking and tool calls):
        # pi's /tree hides these, and deciding it later would mean decoding every body again.
        self.textless = False
        if self.type == "message":
            message = get("message")
            if type(message) is dict:
                self.role = role = message.get("role", MISSING)
                if role == "assistant":
                    self.provider_model = (message.get("provider", MISSING), message.get("model", MISSING))
                    self.textless = _textless(message)
        self._source = source
        self._data: dict[str, Any] | None = data if keep or source is None else None

    @property
    def data(self) -> dict[str, Any]:
        """The whole entry as it is in the file (decoded again from the file if not kept)."""
        if self._data is not None:
            return self._data
        assert self._source is not None
        return self._source.entry_at(self)

    def get(self, key: str, default: Any = MISSING) -> Any:
        return self.data.get(key, default)

    @property
    def message(self) -> Any:
        return self.data.get("message", MISSING)

    def __repr__(self) -> str:
        return f"Entry({self.type!r}, id={self.id!r}, parent={self.parent_id!r}, line={self.line})"


_JS_SPACE = frozenset(JS_WHITESPACE)


def _textless(message: dict[str, Any]) -> bool:
    """pi's tree-selector rule: no text block with non-blank text, and a ``stopReason`` that is
    missing, ``stop`` or ``toolUse`` (an error, abort or length stop is worth showing)."""
    stop = message.get("stopReason")
    if stop is not None and stop != "stop" and stop != "toolUse" and js_truthy(stop):
        return False
    content = message.get("content")
    if type(content) is str:
        return not content or (content[0] in _JS_SPACE and js_trim(content) == "")
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "text":
                text = block.get("text")
                # pi calls text.trim(): a text that is not a string is no text (pi would throw).
                if type(text) is str and text and (text[0] not in _JS_SPACE or js_trim(text) != ""):
                    return False
    return True


_CONTAINERS = (list, dict)


class LineSource:
    """Reads single lines of a session file back, to decode bodies that were not kept.

    It reads through the descriptor the file was loaded from, so a file replaced on disk
    (renamed over) is still the one read; a file changed in place is noticed when a line no
    longer holds the entry it held.
    """

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def entry_at(self, entry: Entry) -> dict[str, Any]:
        if self._fd is None:
            raise FileChangedError(f"{self.path}: closed")
        raw = os.pread(self._fd, entry.length, entry.offset)
        try:
            data = parse_line(raw)
        except BadLine:
            data = None
        expected = entry.id.value if isinstance(entry.id, Opaque) else entry.id  # an id that is a list, say
        if not isinstance(data, dict) or data.get("id", MISSING) != expected:
            raise FileChangedError(f"{self.path} changed on disk: line {entry.line} no longer holds entry {entry.id}")
        return data

    def raw(self, offset: int, length: int) -> bytes:
        """A line's bytes as they are in the file."""
        if self._fd is None:
            raise FileChangedError(f"{self.path}: closed")
        return os.pread(self._fd, length, offset)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class DiskState:
    """What a file was on disk when it was read: a write checks that it still is."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> DiskState:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class FileChangedError(OSError):
    """A session file changed on disk since it was read (rewritten, or pi appended to it)."""


@dataclass(slots=True)
class Tree:
    """pi's ``getTree()``: roots in file order, children sorted by timestamp (stable)."""

    roots: list[Entry]
    children: dict[Any, list[Entry]] = field(default_factory=dict)

    def children_of(self, entry: Entry) -> list[Entry]:
        return self.children.get(entry.id, [])


def _date_ms(value: Any) -> float:
    """``new Date(value).getTime()``, NaN when invalid."""
    ms = js_date_value(value)
    return math.nan if ms is None else ms


def _sort_children(nodes: list[Entry]) -> list[Entry]:
    """Sort by ``new Date(timestamp)`` as V8 does, NaN comparisons counting as equal."""
    keys = [_date_ms(n.timestamp) for n in nodes]
    if not any(math.isnan(k) for k in keys):
        order = sorted(range(len(nodes)), key=keys.__getitem__)
        return [nodes[i] for i in order]
    return _v8_sort(nodes, keys)


def _v8_sort(nodes: list[Entry], keys: list[float]) -> list[Entry]:
    """V8's TimSort on short arrays (run detection, then binary insertion), for NaN keys,
    where a consistent sort order does not exist and only V8's exact steps give pi's order."""
    items = list(zip(keys, range(len(nodes)), strict=True))
    n = len(items)

    def less(x: tuple[float, int], y: tuple[float, int]) -> bool:
        diff = x[0] - y[0]
        return diff < 0  # NaN < 0 is False, as in V8

    if n < 2:
        return list(nodes)
    # CountAndMakeRun: a strictly descending run is reversed, an ascending one kept.
    run = 2
    descending = less(items[1], items[0])
    previous = items[1]
    while run < n:
        current = items[run]
        if descending:
            if not less(current, previous):
                break
        elif less(current, previous):
            break
        previous = current
        run += 1
    if descending:
        items[:run] = items[:run][::-1]
    # BinaryInsertionSort of the rest into the sorted prefix (stable: ties go after).
    for start in range(run, n):
        pivot = items[start]
        left, right = 0, start
        while left < right:
            mid = (left + right) >> 1
            if less(pivot, items[mid]):
                right = mid
            else:
                left = mid + 1
        items[left + 1 : start + 1] = items[left:start]
        items[left] = pivot
    return [nodes[i] for _, i in items]


class Session:
    """A session file's header and entries, with pi's rules for tree, path, labels and context."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.entries: list[Entry] = []
        self.by_id: dict[Any, Entry] = {}
        self.labels: dict[Any, Any] = {}
        self.label_times: dict[Any, Any] = {}
        self.leaf_id: Any = None
        self.problems: list[Problem] = []
        self.original_version: Any = CURRENT_VERSION
        self.disk: DiskState | None = None  # the file as it was read, for writes to check
        self.source: LineSource | None = None
        self.header_offset = 0
        self.unparsed: list[tuple[int, int]] = []  # (offset, length) of lines that are not entries
        self.read_upto = 0  # the end of the last whole line read: where the file is read on from
        self.next_line = 1
        self.torn_line = 0  # the number of an incomplete last line (0: none)
        self._tree: Tree | None = None
        self._path_cache: tuple[Entry, list[Entry]] | None = None

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, path: str, *, keep_bodies: bool = False) -> Session:
        """Read a session file, tolerating bad lines. Never writes.

        Raises :class:`NotASessionError` for a non-empty file that is not a pi session (or not
        a regular file), and ``OSError`` when the file cannot be read.
        """
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
        # The descriptor stays open for the bodies read later (see LineSource).
        source: LineSource | None = None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise NotASessionError(f"{path}: not a regular file")
            with open(os.dup(fd), "rb", buffering=0) as raw:
                data = raw.readall()  # one buffer of the file's size, not chunks joined into a copy
            source = None if keep_bodies else LineSource(path, fd)
            session = cls.from_bytes(data, path=path, keep_bodies=keep_bodies, source=source)
        except BaseException:
            if source is not None:
                source.close()
            else:
                os.close(fd)
            raise
        if source is None:
            os.close(fd)
        session.disk = DiskState(st.st_dev, st.st_ino, len(data), st.st_mtime_ns)  # size as read
        return session

    @classmethod
    def from_bytes(cls, data: bytes, *, path: str | None = None, keep_bodies: bool = False,
                   source: LineSource | None = None) -> Session:
        """Read a session from its bytes; bodies are read back later through ``source`` (or
        kept, when there is none)."""
        # Building 100,000 small objects would set off many full garbage collections, each
        # walking everything built so far; nothing here makes reference cycles.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return cls._from_bytes(data, path, keep_bodies, source, None, 0, 1)
        finally:
            if gc_was_enabled:
                gc.enable()

    @classmethod
    def _from_bytes(cls, data: bytes, path: str | None, keep_bodies: bool, source: LineSource | None,
                    header: dict[str, Any] | None, base_offset: int, first_number: int) -> Session:
        """The one reading loop. With ``header`` given, ``data`` continues a v3 file from
        ``base_offset`` (line ``first_number``): the lines pi appended since it was read."""
        session = cls(path)
        where = path or "<memory>"
        if keep_bodies:
            source = None
        torn_tail = bool(data) and not data.endswith(b"\n")
        continuing = header is not None
        keep = not continuing or source is None
        needs_migration = False
        entries: list[Entry] = []
        parsed_order: list[dict[str, Any]] = []  # every parsed value, for a v1 file's migration
        unparsed = session.unparsed
        last_number = 0

        def consume(lines: Iterable[tuple[int, int, bytes]]) -> None:
            nonlocal header, keep, needs_migration, last_number
            loads, decode_error = orjson.loads, orjson.JSONDecodeError
            problems, append = session.problems, entries.append
            for number, offset, line in lines:
                last_number = number
                value = UNPARSED
                if line[:1] == b"{":  # anything else takes the slower rules, which copy no huge junk
                    try:
                        value = loads(line)
                    except decode_error:
                        value = UNPARSED
                if value is UNPARSED:
                    try:
                        value = parse_line(line, orjson_refused=True)  # the slower rules for what orjson refuses
                    except BadLine as error:
                        problems.append(Problem(where, number, _describe_bad_line(line, error)))
                        unparsed.append((offset, len(line)))
                        continue
                if header is None:
                    # pi checks only the first line that parses.
                    if not isinstance(value, dict) or value.get("type") != "session" \
                            or not isinstance(value.get("id"), str):
                        raise NotASessionError(f"{where}: the first line is not a pi session header")
                    header = value
                    session.header_offset = offset
                    session.original_version = value.get("version", MISSING)
                    needs_migration = _version_number(session.original_version) < CURRENT_VERSION
                    keep = keep_bodies or needs_migration or source is None
                    parsed_order.append(value)
                    continue
                if not isinstance(value, dict):
                    if value is None:  # pi itself fails on such a file (null.type)
                        problems.append(Problem(where, number, "skipped: a null line"))
                        unparsed.append((offset, len(line)))
                        continue
                    # pi keeps any other JSON value as an entry with no type, id or parent.
                    problems.append(Problem(where, number, "not a JSON object: kept as an entry without id"))
                    value = {}
                kind = value.get("type")
                if needs_migration:
                    parsed_order.append(value)
                if kind == "session":
                    problems.append(Problem(where, number, "skipped: a second session header"))
                    unparsed.append((offset, len(line)))
                    continue
                append(Entry(value, number, offset, len(line), source, keep or kind != "message"))

        chunks = None
        if not continuing and source is not None and len(data) >= PARALLEL_MIN_BYTES:
            chunks = _start_parallel(data, first_number)
        if chunks is None:
            consume(split_lines(data, base_offset, first_number, trim_start=header is None))
        else:
            workers, (start, end, number) = chunks
            try:
                consume(_lines_between(data, start, end, number))
                for chunk in workers:
                    records = None if needs_migration else chunk.result()
                    if records is None:  # the worker failed: its lines are read here
                        consume(chunk.lines(data))
                        continue
                    last_number = _merge(records, data, entries, source, consume) or last_number
            finally:
                for chunk in workers:
                    chunk.close()
        torn = torn_tail and bool(session.problems) and session.problems[-1].line == last_number
        if torn:
            last = session.problems[-1]
            session.problems[-1] = Problem(last.path, last.line,
                                           "skipped: an incomplete last line (still being written?)")
        if header is None:
            if session.problems:
                raise NotASessionError(f"{where}: no readable line: not a pi session")
            return session  # empty: a session with no header yet
        session.header = header
        session.source = source
        # Where reading goes on when the file grows: a torn last line is read again once whole.
        complete = data.rfind(b"\n") + 1 if torn else len(data)
        session.read_upto = base_offset + complete
        session.next_line = first_number + data.count(b"\n", 0, complete)
        session.torn_line = last_number if torn else 0
        if needs_migration:
            _migrate(header, entries, parsed_order, session.original_version)
        session.entries = entries
        if not continuing:
            session._build_index()
        return session

    def _build_index(self) -> None:
        self.by_id = {}
        self.labels = {}
        self.label_times = {}
        self.leaf_id = None
        by_id = self.by_id
        for entry in self.entries:
            if entry.id in by_id and self.path:
                self.problems.append(Problem(self.path, entry.line, f"duplicate id {entry.id!r}: the later entry wins"))
            self._index_entry(entry)
        self._tree = None
        self._path_cache = None

    def _index_entry(self, entry: Entry) -> None:
        self.by_id[entry.id] = entry
        self.leaf_id = entry.id
        if entry.type == "label":
            target = as_key(entry.get("targetId"))
            label = entry.get("label")
            if js_truthy(label):
                self.labels[target] = label
                self.label_times[target] = entry.timestamp
            else:
                self.labels.pop(target, None)
                self.label_times.pop(target, None)

    def refresh(self) -> int:
        """Read what was appended to the file since it was read (pi writing to it now), and
        return how many entries came in. A torn last line is left for the next call.

        Raises :class:`FileChangedError` when the file was replaced, shrank or needs migrating:
        then it must be read again whole.
        """
        if self.path is None or self.disk is None or self.source is None or self.header is None:
            raise FileChangedError(f"{self.path}: not read from a file that can be followed")
        if self.migrated:
            raise FileChangedError(f"{self.path}: an old-format file changed: read it again")
        st = os.stat(self.path)
        if (st.st_dev, st.st_ino) != (self.disk.dev, self.disk.ino) or st.st_size < self.disk.size:
            raise FileChangedError(f"{self.path} was replaced or cut short: read it again")
        if st.st_size == self.disk.size:
            return 0
        data = self.source.raw(self.read_upto, st.st_size - self.read_upto)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            more = Session._from_bytes(data, self.path, False, self.source, self.header, self.read_upto,
                                       self.next_line)
        finally:
            if gc_was_enabled:
                gc.enable()
        if self.torn_line:  # the torn line, whole or still torn, is read and reported afresh
            self.problems = [p for p in self.problems if p.line != self.torn_line]
            self.unparsed = [u for u in self.unparsed if u[0] < self.read_upto]
        self.problems += more.problems
        self.unparsed += more.unparsed
        for entry in more.entries:
            if entry.id in self.by_id:
                self.problems.append(Problem(self.path, entry.line, f"duplicate id {entry.id!r}: the later entry wins"))
            self.add(entry)
        self.read_upto, self.next_line, self.torn_line = more.read_upto, more.next_line, more.torn_line
        self.disk = DiskState.of(st)
        return len(more.entries)

    def note_own_append(self, entry: Entry, disk: DiskState) -> None:
        """Account for a line this process appended (``entry``, about to be added), so that
        following the file does not read it back as pi's."""
        if self.torn_line:  # the append ended the torn line first: it is a bad line now
            self.next_line = self.torn_line + 1
            self.torn_line = 0
        entry.line = self.next_line
        self.next_line += 1
        self.read_upto = disk.size
        self.disk = disk

    def add(self, entry: Entry) -> None:
        """Add an entry at the end (after it was appended to the file, or in memory)."""
        self.entries.append(entry)
        self._index_entry(entry)
        self._tree = None
        self._path_cache = None

    # ------------------------------------------------------------------ queries

    @property
    def session_id(self) -> str | None:
        return self.header.get("id") if self.header else None

    @property
    def cwd(self) -> str:
        cwd = self.header.get("cwd") if self.header else None
        return cwd if isinstance(cwd, str) else ""

    @property
    def name(self) -> str | None:
        """The latest ``session_info`` entry's name; an empty name clears it (newer pi)."""
        for entry in reversed(self.entries):
            if entry.type == "session_info":
                name = entry.get("name")
                return (js_trim(name) or None) if isinstance(name, str) else None
        return None

    @property
    def migrated(self) -> bool:
        return _version_number(self.original_version) < CURRENT_VERSION

    def entry(self, entry_id: Any) -> Entry | None:
        return self.by_id.get(entry_id)

    def leaf(self) -> Entry | None:
        return self.by_id.get(self.leaf_id) if js_truthy(self.leaf_id) else None

    def children(self, parent_id: Any) -> list[Entry]:
        """``getChildren``: entries whose parentId is ``parent_id``, in index order (unsorted)."""
        return [e for e in self.by_id.values() if e.parent_id == parent_id]

    def label(self, entry_id: Any) -> Any:
        return self.labels.get(entry_id)

    def branch(self, from_id: Any = MISSING) -> list[Entry]:
        """``getBranch``: root .. entry. A cycle in parentId ends the walk instead of hanging."""
        start = self.leaf_id if from_id is MISSING or from_id is None else from_id
        current = self.by_id.get(start) if js_truthy(start) else None
        return list(self._walk_up(current))

    def _walk_up(self, current: Entry | None) -> list[Entry]:
        """The path root..current (shared: callers must not change it)."""
        if current is None:
            return []
        cached = self._path_cache
        if cached is not None and cached[0] is current:
            return cached[1]
        path = self._walk_up_uncached(current)
        self._path_cache = (current, path)
        return path

    def _walk_up_uncached(self, current: Entry | None) -> list[Entry]:
        path: list[Entry] = []
        by_id = self.by_id
        limit = len(by_id)
        while current is not None:
            path.append(current)
            if len(path) > limit:  # more steps than entries: parentId has a cycle
                return self._cut_cycle(path)
            parent = current.parent_id
            current = by_id.get(parent) if parent else None
        path.reverse()
        return path

    @staticmethod
    def _cut_cycle(path: list[Entry]) -> list[Entry]:
        seen: set[int] = set()
        for index, entry in enumerate(path):
            if id(entry) in seen:
                path = path[:index]
                break
            seen.add(id(entry))
        path.reverse()
        return path

    def structure_problems(self) -> list[Problem]:
        """Entries whose parent is missing (shown as roots) and entries caught in a parentId
        cycle (reachable from no root: pi itself hangs when the leaf is among them)."""
        where = self.path or "<memory>"
        problems = [Problem(where, e.line, f"entry {e.id}: its parent {e.parent_id} is not in the file; "
                                           "shown as a root")
                    for e in self.entries
                    if e.parent_id and e.parent_id != e.id and e.parent_id not in self.by_id]
        tree = self.tree()
        reached: set[int] = set()
        stack = list(tree.roots)
        while stack:
            node = stack.pop()
            if id(node) not in reached:
                reached.add(id(node))
                stack.extend(tree.children.get(node.id, ()))
        problems += [Problem(where, e.line, f"entry {e.id} is in a parentId cycle: reachable from no root")
                     for e in self.by_id.values() if id(e) not in reached]
        return problems

    def in_cycle(self, entry: Entry) -> bool:
        """Whether walking up from ``entry`` runs into a parentId cycle (pi would hang there)."""
        by_id = self.by_id
        limit = len(by_id)
        steps = 0
        current: Entry | None = entry
        while current is not None:
            steps += 1
            if steps > limit:
                return True
            parent = current.parent_id
            current = by_id.get(parent) if parent else None
        return False

    def tree(self) -> Tree:
        """``getTree``, built once and kept until the session changes."""
        if self._tree is None:
            self._tree = self._build_tree()
        return self._tree

    def _build_tree(self) -> Tree:
        roots: list[Entry] = []
        children: dict[Any, list[Entry]] = {}
        by_id = self.by_id
        for entry in self.entries:
            node = by_id[entry.id]  # duplicate ids: pi places the last one, once per duplicate
            parent = entry.parent_id
            if parent is None or parent == entry.id:
                roots.append(node)
            elif parent in by_id:
                children.setdefault(parent, []).append(node)
            else:
                roots.append(node)
        for key, nodes in children.items():
            if len(nodes) > 1:
                children[key] = _sort_children(nodes)
        return Tree(roots, children)

    # ------------------------------------------------------------------ context

    def _context_leaf(self, leaf_id: Any) -> Entry | None:
        if leaf_id is None:
            return None
        leaf = self.by_id.get(leaf_id) if js_truthy(leaf_id) else None
        if leaf is None and self.entries:
            leaf = self.entries[-1]
        return leaf

    def context_entries(self, leaf_id: Any = MISSING) -> list[Entry]:
        """``buildContextEntries``: the path entries the model's context is built from.

        Without a compaction that is the whole path. With one, the last compaction on the path
        comes first; if it carries ``retainedTail`` (an empty list counts) it is a self-contained
        checkpoint, else the path from ``firstKeptEntryId`` up to it is kept; then everything after.
        """
        leaf = self._context_leaf(self.leaf_id if leaf_id is MISSING else leaf_id)
        if leaf is None:
            return []
        path = self._walk_up(leaf)
        last_compaction = None
        for index, entry in enumerate(path):
            if entry.type == "compaction":
                last_compaction = index
        if last_compaction is None:
            return list(path)  # a copy: the path itself is cached
        compaction = path[last_compaction]
        selected = [compaction]
        if not _has_retained_tail(compaction):
            first_kept = compaction.get("firstKeptEntryId")
            keeping = False
            for entry in path[:last_compaction]:
                if entry.id == first_kept:
                    keeping = True
                # pi drops earlier compactions inside the kept range.
                if keeping and entry.type != "compaction":
                    selected.append(entry)
        selected.extend(path[last_compaction + 1 :])
        return selected

    def context_settings(self, leaf_id: Any = MISSING) -> tuple[Any, dict[str, Any] | None]:
        """The thinking level and model in force at ``leaf_id``: scanned over the whole path,
        the later entry winning (an assistant message sets the model too)."""
        leaf = self._context_leaf(self.leaf_id if leaf_id is MISSING else leaf_id)
        thinking: Any = "off"
        model: dict[str, Any] | None = None
        for entry in self._walk_up(leaf):
            if entry.type == "thinking_level_change":
                thinking = entry.get("thinkingLevel")
            elif entry.type == "model_change":
                model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
            elif entry.provider_model is not None:
                provider, model_id = entry.provider_model
                model = {"provider": provider, "modelId": model_id}
        return thinking, model

    def context(self, leaf_id: Any = MISSING) -> SessionContext:
        """``buildSessionContext``: the messages the model sees, with model and thinking level."""
        selected = self.context_entries(leaf_id)
        thinking, model = self.context_settings(leaf_id)
        messages: list[dict[str, Any]] = []
        for entry in selected:
            messages.extend(context_messages(entry))
        return SessionContext(messages, thinking, model, selected)


@dataclass(slots=True)
class SessionContext:
    messages: list[dict[str, Any]]
    thinking_level: Any
    model: dict[str, Any] | None
    entries: list[Entry] = field(default_factory=list)


def _has_retained_tail(compaction: Entry) -> bool:
    return js_truthy(compaction.get("retainedTail"))


def context_messages(entry: Entry) -> list[dict[str, Any]]:
    """``sessionEntryToContextMessages``: what one selected entry contributes to the context."""
    kind = entry.type
    if kind == "message":
        return [entry.message]
    if kind == "custom_message":
        # pi copies the fields over: one the entry lacks is undefined, not null, in the message.
        data = entry.data
        message = {"role": "custom", "customType": data.get("customType", MISSING),
                   "content": data.get("content", MISSING), "display": data.get("display", MISSING),
                   "details": data.get("details", MISSING), "timestamp": _date_ms(entry.timestamp)}
        return [{key: value for key, value in message.items() if value is not MISSING}]
    if kind == "branch_summary":
        summary = entry.get("summary")
        if not js_truthy(summary):
            return []
        return [{"role": "branchSummary", "summary": summary, "fromId": entry.get("fromId"),
                 "timestamp": _date_ms(entry.timestamp)}]
    if kind == "compaction":
        tail = entry.get("retainedTail")
        summary = {"role": "compactionSummary", "summary": entry.get("summary"),
                   "tokensBefore": entry.get("tokensBefore"), "timestamp": _date_ms(entry.timestamp)}
        return [summary, *(tail if isinstance(tail, list) and js_truthy(tail) else [])]
    return []


def _version_number(version: Any) -> float:
    """``header.version ?? 1`` compared as JavaScript compares it with a number."""
    if version is MISSING or version is None:
        return 1
    if isinstance(version, bool):
        return float(version)
    if isinstance(version, int | float):
        return float(version)
    if isinstance(version, str):
        return js_string_to_number(version)
    if isinstance(version, list):  # [3] < 3 compares "3" with 3
        return js_string_to_number(js_string(version))
    return math.nan


def _migrate(header: dict[str, Any], entries: list[Entry], parsed_order: list[dict[str, Any]],
             version: Any) -> None:
    """v1 -> v2 -> v3 in memory (reference §3.3); the file is left as it is."""
    number = _version_number(version)
    if math.isnan(number):
        return  # JavaScript: NaN >= 3 and NaN < 2 are both false, so nothing happens.
    if number < 2:
        header["version"] = 2
        ids: set[str] = set()
        previous: str | None = None
        seed = str(header.get("id"))
        for position, entry in enumerate(entries):
            data = entry.data
            new_id = _stable_id(seed, position, ids)
            data["id"] = new_id
            data["parentId"] = previous
            entry.id, entry.parent_id = new_id, previous
            previous = new_id
            if entry.type == "compaction" and "firstKeptEntryIndex" in data:
                _map_first_kept_index(data, parsed_order)
    if number < 3:
        header["version"] = 3
        for entry in entries:
            if entry.type == "message":
                message = entry.data.get("message")
                if isinstance(message, dict) and message.get("role") == "hookMessage":
                    message["role"] = "custom"
                    entry.role = "custom"


def _map_first_kept_index(compaction: dict[str, Any], parsed_order: list[dict[str, Any]]) -> None:
    """A v1 compaction's ``firstKeptEntryIndex`` counts every parsed line, the header at 0 (a
    skipped bad line shifts it, as in pi); its target must already have its new id."""
    index = compaction["firstKeptEntryIndex"]
    if isinstance(index, int | float) and not isinstance(index, bool):
        whole = isinstance(index, int) or index.is_integer()
        target = parsed_order[int(index)] if whole and 0 <= index < len(parsed_order) else None
        if target is not None and target.get("type") != "session":
            if "id" in target:
                compaction["firstKeptEntryId"] = target["id"]
            else:
                compaction.pop("firstKeptEntryId", None)
        del compaction["firstKeptEntryIndex"]


def generate_id(taken: set[str] | dict[Any, Any]) -> str:
    """pi's ``generateId``: 8 hex characters not yet used in the session."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            if isinstance(taken, set):
                taken.add(candidate)
            return candidate
    return str(uuid.uuid4())


def _stable_id(seed: str, index: int, taken: set[str]) -> str:
    """An id for a v1 entry that is the same on every read (pi draws random ones), so an id
    shown to the user still names the entry in the next command, and after the file is
    rewritten as v3."""
    attempt = 0
    while True:
        key = f"{seed}:{index}:{attempt}".encode()
        candidate = hashlib.blake2b(key, digest_size=4).hexdigest()
        if candidate not in taken:
            taken.add(candidate)
            return candidate
        attempt += 1

# ---------------------------------------------------------------------- parallel reading

# Files at least this big are parsed on several cores (Linux, where fork is cheap and safe for
# a child that only parses): the main process reads the first part of the lines while forked
# children parse the rest into compact records, merged back in file order.
PARALLEL_MIN_BYTES = 16 << 20
# The share of the lines the main process parses itself: it also merges what the children send.
_MAIN_SHARE = 0.45


# Set by tests: fork this many children whatever the machine's load (None: decide by the load).
PARALLEL_WORKERS: int | None = None


def _parallel_workers() -> int:
    """How many children to fork: one per idle core besides the main one (at most 3). A busy
    machine gets none: with no idle core a child only takes turns with the main process, and
    the copying and merging make the whole slower (measured on two cores at load 4: 1.45 s in
    one process, 1.76 s with a child)."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return 0
    if PARALLEL_WORKERS is not None:
        return PARALLEL_WORKERS
    try:
        cores = len(os.sched_getaffinity(0))
        idle = cores - os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0
    return max(0, min(cores - 1, int(idle), 3))


def _lines_between(data: bytes, start: int, end: int, number: int) -> Iterator[tuple[int, int, bytes]]:
    """:func:`split_lines` over ``data[start:end]`` without trimming: ``start`` is the start of
    a line (line ``number``), ``end`` the end of the trimmed data or just past a newline."""
    find = data.find
    while start < end:
        stop = find(b"\n", start, end)
        if stop < 0:
            stop = end
        line = data[start:stop]
        if line[:1] == b"{" or not _is_js_blank(line):
            yield number, start, line
        number += 1
        start = stop + 1


class _Chunk:
    """The lines ``data[start:end]``, parsed by a forked child that writes its records to a pipe."""

    def __init__(self, pid: int, fd: int, start: int, end: int, first_number: int) -> None:
        self.pid, self.fd = pid, fd
        self.start, self.end, self.first_number = start, end, first_number

    def lines(self, data: bytes) -> Iterator[tuple[int, int, bytes]]:
        """The chunk's lines, for the main process to read when the child failed."""
        number = self.first_number + data.count(b"\n", 0, self.start)
        return _lines_between(data, self.start, self.end, number)

    def result(self) -> list[tuple[Any, ...]] | None:
        """The child's records, or None if it failed (its lines are then read by the caller)."""
        parts = []
        try:
            while True:
                part = os.read(self.fd, 1 << 20)
                if not part:
                    break
                parts.append(part)
            payload = b"".join(parts)
            if not payload.endswith(_END_MARK):
                return None
            records = marshal.loads(memoryview(payload)[: -len(_END_MARK)])
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return records if type(records) is list else None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            with contextlib.suppress(OSError):  # gone already unless the caller gave up early
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # reaped by someone else
                os.waitpid(self.pid, 0)
            self.pid = 0


_END_MARK = b"\x00pitui-chunk-end"


def _start_parallel(data: bytes, first_number: int) -> tuple[list[_Chunk], tuple[int, int, int]] | None:
    """Fork the children that parse the later lines of ``data``; returns them and the main
    process's own range ``(start, end, first line number)``, or None when the file is better read
    in one pass (too few cores, no fork, or a first line that is not a plain v3 header)."""
    workers = _parallel_workers()
    if workers < 1:
        return None
    head = _strip_js_whitespace(data, start=True)
    tail = len(data) - _strip_js_whitespace(data, start=False)
    # Only a file whose first line is a current header: anything else takes the one-pass path.
    first_end = data.find(b"\n", head, tail)
    try:
        header = orjson.loads(data[head : first_end if first_end >= 0 else tail])
    except orjson.JSONDecodeError:
        return None
    if type(header) is not dict or header.get("type") != "session" or type(header.get("id")) is not str \
            or not _version_number(header.get("version", MISSING)) >= CURRENT_VERSION:
        return None
    size = tail - head
    cuts = [head]
    for k in range(workers):
        share = _MAIN_SHARE + (1 - _MAIN_SHARE) * k / workers
        at = data.find(b"\n", max(head + int(size * share), cuts[-1]), tail)
        if at < 0 or at + 1 >= tail:
            break
        cuts.append(at + 1)
    cuts.append(tail)
    if len(cuts) < 3:
        return None
    chunks: list[_Chunk] = []
    try:
        for start, end in itertools.pairwise(cuts[1:]):
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no fork: the main process reads the rest itself
                os.close(read_fd)
                os.close(write_fd)
                chunks.append(_Chunk(0, -1, start, cuts[-1], first_number))
                break
            if pid == 0:  # the child: pure parsing, then out without running any cleanup
                status = 1
                try:
                    os.close(read_fd)
                    number = first_number + data.count(b"\n", 0, start)
                    payload = marshal.dumps(_parse_chunk(data, start, end, number)) + _END_MARK
                    view = memoryview(payload)
                    while view:
                        view = view[os.write(write_fd, view):]
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_fd)
            chunks.append(_Chunk(pid, read_fd, start, end, first_number))
    except BaseException:
        for chunk in chunks:
            chunk.close()
        raise
    return chunks, (head, cuts[1], first_number + data.count(b"\n", 0, head))


def _parse_chunk(data: bytes, start: int, end: int, first: int) -> list[tuple[Any, ...]]:
    """In a child: each line's record. An ordinary entry becomes ``(line, offset, length, type,
    id, parentId, timestamp, role, provider_model, textless, data or None)`` (its value kept
    only if it is not a message; ``MISSING`` sent as ``...``); any other line (unreadable, not an
    object, a header, an id that is an array or object) becomes ``(line, offset, length)``, to
    be read again by the main process with every rule."""
    records: list[tuple[Any, ...]] = []
    add = records.append
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    for number, offset, line in _lines_between(data, start, end, first):
        if line[:1] != b"{":  # not an object (or junk orjson would copy whole to refuse): the main process's
            add((number, offset, len(line)))
            continue
        try:
            value = loads(line)
        except decode_error:
            add((number, offset, len(line)))
            continue
        if type(value) is not dict:
            add((number, offset, len(line)))
            continue
        kind = value.get("type")
        if kind == "session":
            add((number, offset, len(line)))
            continue
        entry = Entry(value, number, offset, len(line))
        if type(entry.id) is Opaque or type(entry.parent_id) is Opaque:
            add((number, offset, len(line)))
            continue
        model = entry.provider_model
        if model is not None:
            model = (... if model[0] is MISSING else model[0], ... if model[1] is MISSING else model[1])
        add((number, offset, entry.length, ... if entry.type is MISSING else entry.type,
             ... if entry.id is MISSING else entry.id, ... if entry.parent_id is MISSING else entry.parent_id,
             ... if entry.timestamp is MISSING else entry.timestamp, ... if entry.role is MISSING else entry.role,
             model, entry.textless, None if kind == "message" else value))
    return records


def _merge(records: list[tuple[Any, ...]], data: bytes, entries: list[Entry], source: LineSource | None,
           consume: Any) -> int:
    """A child's records into ``entries``, in file order; the lines it left are read by
    ``consume`` (the main reading loop). Returns the last line number."""
    new, append = Entry.__new__, entries.append
    number = 0
    for record in records:
        number = record[0]
        if len(record) == 3:
            offset, length = record[1], record[2]
            consume(((number, offset, data[offset : offset + length]),))
            continue
        _, offset, length, kind, entry_id, parent_id, timestamp, role, model, textless, value = record
        entry = new(Entry)
        entry.type = MISSING if kind is ... else kind
        entry.id = MISSING if entry_id is ... else entry_id
        entry.parent_id = MISSING if parent_id is ... else parent_id
        entry.timestamp = MISSING if timestamp is ... else timestamp
        entry.line, entry.offset, entry.length = number, offset, length
        entry.role = MISSING if role is ... else role
        if model is not None and (model[0] is ... or model[1] is ...):
            model = (MISSING if model[0] is ... else model[0], MISSING if model[1] is ... else model[1])
        entry.provider_model = model
        entry.textless = textless
        entry._source = source
        entry._data = value
        append(entry)
    return number


def _describe_bad_line(data: bytes, error: BadLine) -> str:
    if data.strip(b"\x00") == b"":
        return "skipped: a line of NUL bytes (a crash while writing?)"
    return f"skipped: {error}"
