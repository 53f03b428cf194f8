"""The session model: entries, where their lines are, the tree, the context, and the errors.

An :class:`Entry` keeps the fields every view needs and where its line is in the file; its whole
value is decoded again from the file (:meth:`Entry.read_data`) when it was not kept.
"""

from __future__ import annotations

import math
import os
from typing import Any

from msgspec import Struct, field, structs

from pitui.store.js import JS_WHITESPACE, MISSING, Opaque, as_key, js_date_value, js_trim, js_truthy
from pitui.store.jsonl import BadLine, parse_line


class NotASessionError(ValueError):
    """The file is not a pi session (its first readable line is not a session header)."""


class ReadCancelled(Exception):
    """A read given up between two of its blocks because its ``cancelled`` callback said so
    (the program no longer wants the session: it is quitting, or reading it again)."""


class LineProblem(Struct, frozen=True):
    """A line that was skipped, or something odd about the file, with where and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


class Entry(Struct, eq=False, gc=False):
    """One tree entry: the fields every view needs, and where its full line is.

    A msgspec Struct: a session makes one per line, and a Struct is made in one call in C
    (the readers' fast paths give every field, in order) where a slotted class had its fields
    set one by one. Made from a decoded line by :meth:`from_data`. Entries compare and hash by
    identity (``eq=False``), as the walks and the caches of paths rely on. They are not tracked
    by the cyclic collector (``gc=False``): an entry refers only to its line's decoded value,
    its source and tuples of fields, none of which can refer back to it, so it is never part
    of a cycle."""

    type: Any = MISSING
    id: Any = MISSING
    parent_id: Any = MISSING
    timestamp: Any = MISSING
    line: int = 0
    offset: int = -1
    length: int = 0
    role: Any = MISSING
    provider_model: tuple[Any, Any] | None = None
    # An assistant message with no text that ended normally (only thinking and tool calls):
    # pi's /tree hides these, and deciding it later would mean decoding every body again.
    textless: bool = False
    # What pi's /session totals read of an assistant or tool result message, kept so that
    # the totals need not decode every body again (None: read the line when they are made).
    usage_figures: tuple[Any, ...] | None = None
    _source: LineSource | None = None
    _data: dict[str, Any] | None = None  # the whole value, when kept

    @classmethod
    def from_data(
        cls,
        data: dict[str, Any],
        line: int = 0,
        offset: int = -1,
        length: int = 0,
        source: LineSource | None = None,
        keep: bool = True,
    ) -> Entry:
        """The entry of a decoded line ``data``, the line ``line`` at ``offset`` of ``length``
        bytes in ``source``; its value kept unless ``keep`` is false (and there is a source)."""
        get = data.get
        kind = get("type", MISSING)
        id_ = get("id", MISSING)
        parent_id = get("parentId", MISSING)
        if type(id_) in _CONTAINERS or type(parent_id) in _CONTAINERS:
            id_, parent_id = as_key(id_), as_key(parent_id)
        role: Any = MISSING
        provider_model = None
        textless = False
        usage = None
        if kind == "message":
            message = get("message")
            if type(message) is dict:
                role = message.get("role", MISSING)
                if role == "assistant":
                    provider_model = (message.get("provider", MISSING), message.get("model", MISSING))
                    textless = textless_message(message)
                    usage = usage_figures(message, True)
                elif role == "toolResult":
                    usage = usage_figures(message, False)
        kept = data if keep or source is None else None
        return cls(
            kind,
            id_,
            parent_id,
            get("timestamp", MISSING),
            line,
            offset,
            length,
            role,
            provider_model,
            textless,
            usage,
            source,
            kept,
        )

    def read_data(self) -> dict[str, Any]:
        """The whole entry as it is in the file: the value kept when it was read, else its line
        read again from the file (a ``pread`` on the descriptor the session was loaded from).

        So this may read the disk, and raises :class:`FileChangedError` when the line no longer
        holds this entry (or the file was closed)."""
        if self._data is not None:
            return self._data
        assert self._source is not None
        return self._source.entry_at(self)

    @property
    def data(self) -> dict[str, Any]:
        """The whole entry as it is in the file; see :meth:`read_data`, which this calls when the
        value was not kept: it may read the file."""
        data = self._data
        if data is not None:
            return data
        return self.read_data()

    def get(self, key: str, default: Any = MISSING) -> Any:
        return self.data.get(key, default)

    def kept(self) -> Entry:
        """A copy of this entry that holds its data (read now if it was not kept), for work that
        reads the same bodies several times; the entry itself stays as light as it was."""
        return structs.replace(self, _data=self.data)

    @property
    def message(self) -> Any:
        return self.data.get("message", MISSING)

    def __repr__(self) -> str:
        return f"Entry({self.type!r}, id={self.id!r}, parent={self.parent_id!r}, line={self.line})"


_JS_SPACE = frozenset(JS_WHITESPACE)
_USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite")


# The integers a double holds exactly (JavaScript's safe integers). A usage figure beyond them,
# or a double that is not finite, is left to the totals' exact rules, which read it as
# JavaScript does (the line index's fast path refuses the same figures).
SAFE_INTEGER = 2**53


def plain_number(value: Any) -> bool:
    """Whether a usage figure is one the totals add as it is (see :data:`SAFE_INTEGER`)."""
    if type(value) is int:
        return -SAFE_INTEGER < value < SAFE_INTEGER
    return type(value) is float and math.isfinite(value)


def usage_figures(message: dict[str, Any], assistant: bool) -> tuple[Any, ...] | None:
    """``(input, output, cacheRead, cacheWrite, cost.total, tool calls)`` of a message whose
    usage is made of plain numbers (finite doubles, safe integers) and whose content blocks are
    objects, ``()`` for a tool result with no usage (pi adds none), else None: anything odder is
    left to the totals' exact JavaScript rules, on the whole line."""
    usage = message.get("usage", MISSING)
    if not assistant and not js_truthy(usage):
        return ()
    if type(usage) is not dict:
        return None
    figures = [usage.get(key) for key in _USAGE_KEYS]
    cost = usage.get("cost")
    figures.append(cost.get("total") if type(cost) is dict else None)
    if not all(plain_number(f) for f in figures):
        return None
    calls = 0
    if assistant:
        content = message.get("content")
        if type(content) is list:
            for block in content:
                if type(block) is not dict:
                    return None
                if block.get("type") == "toolCall":
                    calls += 1
    figures.append(calls)
    return tuple(figures)


def textless_message(message: dict[str, Any]) -> bool:
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


class DiskState(Struct, frozen=True):
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


class Tree(Struct):
    """pi's ``getTree()``: roots in file order, children sorted by timestamp (stable)."""

    roots: list[Entry]
    children: dict[Any, list[Entry]] = field(default_factory=dict)

    def children_of(self, entry: Entry) -> list[Entry]:
        return self.children.get(entry.id, [])


def date_ms(value: Any) -> float:
    """``new Date(value).getTime()``, NaN when invalid."""
    ms = js_date_value(value)
    return math.nan if ms is None else ms


def _sort_children(nodes: list[Entry]) -> list[Entry]:
    """Sort by ``new Date(timestamp)`` as V8 does, NaN comparisons counting as equal."""
    keys = [date_ms(n.timestamp) for n in nodes]
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


class SessionContext(Struct):
    messages: list[dict[str, Any]]
    thinking_level: Any
    model: dict[str, Any] | None
    entries: list[Entry] = field(default_factory=list)
    projection: list[Any] = field(default_factory=list)  # context.ProjectedEntry, one per entry
