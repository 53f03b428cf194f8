"""One row of pi's ``/tree`` as text: gutters, connectors, fold and path markers, labels, label
times and the entry's one line (pi's ``getEntryDisplayText``).

:class:`TreeRows` makes a row's text only when it is asked for and caches it per node; message
bodies are decoded only for the rows that are shown. A message body that was not kept is read
from the file: a view's UI thread asks only for what is ready (:meth:`TreeRows.cached_row`) and
has a worker thread read the rest (:meth:`TreeRows.fill`). The text is pi's, unfiltered: callers
that write it to a terminal must make it safe (:func:`pitui.safe_text.safe_line`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, tzinfo
from typing import Any

from msgspec import Struct

from pitui.store.content import extract_content, format_tool_call, tool_call_map_entries
from pitui.store.js import (
    MISSING,
    js_date_value,
    js_head,
    js_join_value,
    js_number,
    js_number_string,
    js_round,
    js_string,
    js_trim,
    js_truthy,
)
from pitui.store.model import Entry, FileChangedError
from pitui.store.reader import Session
from pitui.store.tree.structure import Layout, TreeStructure

__all__ = ["RowText", "TreeRows", "describe_entry"]

_ANCESTOR_ASSISTANTS = 4  # assistant messages looked through for a tool result's call
CACHE_ROWS = 4096

Segments = tuple[tuple[str, str], ...]
_CHANGED: Segments = (("(the file changed on disk: reopen it)", "error"),)


class _NotReady(Exception):
    """A body is only on disk, and this caller may not read it (the UI thread)."""


class _NeedsMap(Exception):
    """A tool result's call is not near it: the map of every call must be built first."""


class RowText(Struct, frozen=True):
    """One row of the tree: ``(text, role)`` segments, and where the entry's own text starts
    (pi shows that part bold on the selected row).

    Roles: ``dim`` (gutters, connectors and bookkeeping entries), ``accent`` (markers, ``user:``),
    ``success`` (``assistant:``), ``muted``, ``error``, ``warning`` (labels, branch summaries),
    ``custom`` (custom messages), ``border_accent`` (compactions), ``dim_italic``, and ``""``
    for plain text.
    """

    segments: Segments
    content_start: int

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.segments)


def _normalize(text: str) -> str:
    """getEntryDisplayText's ``normalize``: tabs and newlines to spaces, then trimmed."""
    return js_trim(text.replace("\n", " ").replace("\t", " "))


class TreeRows:
    """The text of the rows of one tree: ``tree`` (its structure) laid out as ``layout`` says.

    Both are the model's and change under this object; :meth:`reset` empties the caches,
    :meth:`tree_changed` keeps what an append left valid, :meth:`forget` drops one node's row
    after a fold.

    Threads: the model and its layout belong to one thread (a view's UI thread); only
    :meth:`fill` and :meth:`prefill` may run in another, one at a time. They read the tree's
    structure and store what they made under ``lock``, which the owner holds while it changes
    the tree (:meth:`pitui.store.tree.model.TreeModel.update`).
    """

    def __init__(
        self,
        session: Session,
        tree: TreeStructure,
        layout: Layout,
        *,
        home: str,
        now: Callable[[], datetime],
        tz: tzinfo | None,
    ) -> None:
        self.session = session
        self.tree = tree
        self.layout = layout
        self.home = home
        self.label_times = False
        self.lock = threading.Lock()
        self.generation = 0  # goes up when the tree changes: a call map made before is stale
        self.dropped = 0  # goes up whenever entries' texts are forgotten (see rows_ready)
        self._now = now
        self._tz = tz
        self._calls: dict[Entry, dict[Any, tuple[Any, Any]]] = {}
        self._content_cache: dict[int, Segments] = {}
        self._volatile: set[int] = set()  # entries whose text came from the map of every call
        self.reset()

    def reset(self) -> None:
        """Forget every row: the tree was built again."""
        with self.lock:
            self.generation += 1
            self._tool_call_map: dict[Any, tuple[Any, Any]] | None = None
            self._prefix_cache: dict[int, RowText] = {}
            self._gutter_cache: dict[tuple[int, int], tuple[Any, str, bool]] = {}
            self._content_cache.clear()
            self._volatile.clear()
            self.dropped += 1

    def tree_changed(self, *, rebuilt: bool, before: int) -> None:
        """The tree took in appended entries (``before``: how many it had). An entry's own text
        stays what it was, but for a tool result's, which comes from the calls above it: those
        made from the map of every call are forgotten, and after a rebuild (``rebuilt``, not
        a chain grown under the leaf) all of the older entries' ones. Call it holding ``lock``."""
        self.generation += 1
        self._tool_call_map = None
        self._prefix_cache = {}
        self._gutter_cache = {}
        cache, drop = self._content_cache, set(self._volatile)
        if rebuilt:
            entries = self.tree.entries
            drop.update(slot for slot in cache if slot < before and entries[slot].role == "toolResult")
        for slot in drop:
            cache.pop(slot, None)
        self._volatile.clear()
        self.dropped += 1

    def relaid(self) -> None:
        """Forget the rows' heads: the layout changed (the entries' own text did not)."""
        self._prefix_cache.clear()

    def forget(self, node: int) -> None:
        """Forget one node's row (its fold glyph changed)."""
        self._prefix_cache.pop(node, None)

    # ------------------------------------------------------------------ a row

    def row(self, node: int) -> RowText:
        """The text of the row showing ``node``, as pi draws it without the cursor column
        (reading the entry's body from the file if it was not kept)."""
        cached = self._prefix_cache.get(node)
        if cached is not None:
            return cached
        content = self.content(node)
        assert content is not None
        return self._made_row(node, content)

    def cached_row(self, node: int) -> RowText | None:
        """The row's text if it can be made without reading the file, else None (until
        :meth:`fill` made it)."""
        cached = self._prefix_cache.get(node)
        if cached is not None:
            return cached
        content = self.content(node, read=False)
        return None if content is None else self._made_row(node, content)

    def head_row(self, node: int) -> RowText:
        """The row without the entry's own text: gutters, connector, markers and label."""
        head = self._head(node)
        return RowText(tuple(head), len(head))

    def _made_row(self, node: int, content: Segments) -> RowText:
        if len(self._prefix_cache) >= CACHE_ROWS:
            self._prefix_cache.clear()
        head = self._head(node)
        text = self._prefix_cache[node] = RowText((*head, *content), len(head))
        return text

    def _head(self, node: int) -> list[tuple[str, str]]:
        """Gutters and connector, fold marker, path marker, label and label time."""
        layout = self.layout
        multiple = layout.multiple_roots
        level = layout.indent[node]
        shown_level = (level - 1 if level > 0 else 0) if multiple else level
        root = layout.vparent[node] < 0
        connector = layout.connector[node] and not (root and multiple)
        folded = node in layout.folded
        segments: list[tuple[str, str]] = []
        if shown_level:
            prefix, gutter_last = self._gutter_cells(layout.gutters[node], shown_level)
            if connector and not gutter_last:
                up = layout.vparent[node]
                last = (layout.roots[-1] == node) if root else (layout.last_kid[up] == node)
                glyph = "⊞" if folded else "⊟" if layout.foldable(node) else "─"
                prefix = prefix[:-3] + ("└" if last else "├") + glyph + " "
            segments.append((prefix, "dim"))
        if folded and not connector:
            segments.append(("⊞ ", "accent"))
        slot = self.tree.slot[node]
        if self.tree.active[slot]:
            segments.append(("• ", "accent"))
        entry = self.tree.entries[slot]
        label = self.session.labels.get(entry.id)
        if js_truthy(label):
            segments.append((f"[{js_string(label)}] ", "warning"))
            if self.label_times:
                stamp = self.session.label_times.get(entry.id)
                if js_truthy(stamp):
                    segments.append((f"{self.format_label_time(stamp)} ", "muted"))
        return segments

    def _gutter_cells(self, gutters: tuple[tuple[int, bool], ...], levels: int) -> tuple[str, bool]:
        """The ``│`` gutters of ``levels`` levels (3 columns each), and whether the last level
        has one. Every row of a branch segment shares its gutters, so this is cached: a session
        with hundreds of branches nests hundreds of levels deep."""
        key = (id(gutters), levels)
        cached = self._gutter_cache.get(key)
        if cached is None or cached[0] is not gutters:
            if len(self._gutter_cache) >= CACHE_ROWS:
                self._gutter_cache.clear()
            gutter_at: dict[int, bool] = {}
            for position, show in gutters:
                gutter_at.setdefault(position, show)  # pi takes the first gutter at a level
            cells = "".join(
                "   " if (shown := gutter_at.get(at)) is None else "│  " if shown else "   " for at in range(levels)
            )
            cached = self._gutter_cache[key] = (gutters, cells, levels - 1 in gutter_at)
        return cached[1], cached[2]

    def format_label_time(self, stamp: Any) -> str:
        """pi's label time: ``HH:MM`` today, ``M/D HH:MM`` this year, else ``YY/M/D HH:MM``, in
        the local time zone (``tz``)."""
        ms = js_date_value(stamp)
        try:
            if ms is None:
                raise ValueError
            when = datetime.fromtimestamp(ms / 1000, self._tz)
        except (ValueError, OverflowError, OSError):
            return "aN/NaN/NaN NaN:NaN"  # what JavaScript makes of an invalid date
        now = self._now().astimezone(self._tz)
        clock = f"{when.hour:02d}:{when.minute:02d}"
        if (when.year, when.month, when.day) == (now.year, now.month, now.day):
            return clock
        if when.year == now.year:
            return f"{when.month}/{when.day} {clock}"
        return f"{str(when.year)[-2:]}/{when.month}/{when.day} {clock}"

    # ------------------------------------------------------------------ the entry's own text

    def content(self, node: int, *, read: bool = True) -> Segments | None:
        """The entry's own text on its row, cached per entry. Without ``read``, None when that
        needs a body that is only on disk."""
        slot = self.tree.slot[node]
        cached = self._content_cache.get(slot)
        if cached is not None:
            return cached
        while True:
            try:
                made, volatile = self._describe(self.tree.entries[slot], self._node_ancestors(node), read)
            except _NotReady:
                return None
            except _NeedsMap:
                self._build_call_map()
                if self._tool_call_map is None:  # the tree changed meanwhile: made again here
                    self._tool_call_map = self._calls_of(self.tree.entries, list(self.tree.slot))
                continue
            except FileChangedError:
                made, volatile = _CHANGED, False
            self._store(slot, made, volatile)
            return made

    def fill(self, nodes: list[int]) -> None:
        """Make the text of these nodes' rows, reading bodies from the file: for a worker thread
        (see the class). A node that no longer exists is skipped."""
        for node in nodes:
            for _ in range(3):  # the map of every call may have to be built first (once, but
                with self.lock:  # the tree can change meanwhile)
                    tree = self.tree
                    if node >= len(tree.slot):
                        break
                    slot = tree.slot[node]
                    if slot in self._content_cache:
                        break
                    try:
                        made, volatile = self._describe(tree.entries[slot], self._node_ancestors(node), True)
                    except _NeedsMap:
                        pass
                    except OSError:  # the file changed on disk (or cannot be read any more)
                        self._store(slot, _CHANGED, False)
                        break
                    else:
                        self._store(slot, made, volatile)
                        break
                self._build_call_map()

    def prefill(self, start: int) -> None:
        """Make the text of the session's entries from number ``start`` on, appended to the
        session but not yet taken into the tree (:meth:`Session.refresh` in a worker thread,
        before the UI thread updates the model), so that they show at once. Only where it is
        certain to be the text the tree will show: no duplicated ids, and a tool result's call
        found in the messages just above it."""
        session = self.session
        entries = session.entries
        if self.tree.duplicates or len(session.by_id) < len(entries):
            return
        for slot in range(start, len(entries)):
            entry = entries[slot]
            with self.lock:
                if slot in self._content_cache:
                    continue
                try:
                    made, _ = self._describe(entry, self._entry_ancestors(entry), True, whole_map=False)
                except _NeedsMap:
                    continue
                except OSError:
                    made = _CHANGED
                self._store(slot, made, False)

    def _store(self, slot: int, made: Segments, volatile: bool) -> None:
        cache = self._content_cache
        if len(cache) >= CACHE_ROWS:
            cache.clear()
            self._volatile.clear()
            self.dropped += 1
        cache[slot] = made
        if volatile:
            self._volatile.add(slot)

    def _node_ancestors(self, node: int) -> Iterator[Entry]:
        """The entries above ``node`` in the tree, nearest first."""
        tree = self.tree
        entries, slots, parent = tree.entries, tree.slot, tree.parent
        up = parent[node]
        while up >= 0:
            yield entries[slots[up]]
            up = parent[up]

    def _entry_ancestors(self, entry: Entry) -> Iterator[Entry]:
        """The entries above ``entry`` by ``parentId``, nearest first: what the tree's parents
        are when no id is duplicated (a loop ends the walk)."""
        by_id = self.session.by_id
        seen = {id(entry)}
        parent_id = entry.parent_id
        while parent_id is not None:
            up = by_id.get(parent_id)
            if up is None or id(up) in seen:
                return
            seen.add(id(up))
            yield up
            parent_id = up.parent_id

    def _describe(
        self, entry: Entry, ancestors: Iterator[Entry], read: bool, whole_map: bool = True
    ) -> tuple[Segments, bool]:
        """pi's ``getEntryDisplayText``, and whether it came from the map of every call."""
        if entry.type != "message":
            return describe_entry(entry.type, _data(entry, read)), False
        message = _data(entry, read).get("message", MISSING)
        if type(message) is not dict:
            return ((f"[{js_string(MISSING)}]", "dim"),), False
        role = message.get("role", MISSING)
        if role == "user":
            return (("user: ", "accent"), (_normalize(extract_content(message.get("content"))), "")), False
        if role == "assistant":
            return (("assistant: ", "success"), _assistant_text(message)), False
        if role == "toolResult":
            text, volatile = self._tool_result_text(ancestors, message, read, whole_map)
            return (text,), volatile
        if role == "bashExecution":
            command = message.get("command")
            return ((f"[bash]: {_normalize('' if command is None else js_string(command))}", "dim"),), False
        return ((f"[{js_string(role)}]", "dim"),), False

    def _tool_result_text(
        self, ancestors: Iterator[Entry], message: dict[str, Any], read: bool, whole_map: bool
    ) -> tuple[tuple[str, str], bool]:
        """A tool result shows the call it answers (pi's ``formatToolCall``), else its tool's name."""
        call_id = message.get("toolCallId", MISSING)
        call, volatile = self._find_call(ancestors, call_id, read, whole_map) if js_truthy(call_id) else (None, False)
        if call is not None:
            return (format_tool_call(call[0], call[1], self.home), "muted"), volatile
        name = message.get("toolName")
        return (f"[{'tool' if name is None else js_string(name)}]", "muted"), volatile

    def _find_call(
        self, ancestors: Iterator[Entry], call_id: Any, read: bool, whole_map: bool
    ) -> tuple[tuple[Any, Any] | None, bool]:
        """The tool call a tool result answers, and whether the map of every call said so. It is
        nearly always in the assistant message just above, so that is where it is looked for
        first; else in pi's map over the whole tree, built once. (pi looks in that map only:
        where two calls share an id, pi shows the later one in tree order, this the nearer one.)"""
        if type(call_id) in (list, dict):
            return None, False  # JavaScript's Map compares such keys by identity: never found
        looked = 0
        for entry in ancestors:
            if looked >= _ANCESTOR_ASSISTANTS:
                break
            if entry.type == "message":
                if entry.role == "assistant":
                    calls = self._calls.get(entry)
                    if calls is None:
                        if len(self._calls) >= CACHE_ROWS:
                            self._calls.clear()
                        calls = self._calls[entry] = tool_call_map_entries(_data(entry, read).get("message", MISSING))
                    if call_id in calls:
                        return calls[call_id], False
                    looked += 1
                elif entry.role == "user":
                    break
        if not whole_map:
            raise _NeedsMap
        return self._all_calls(read).get(call_id), True

    def _all_calls(self, read: bool) -> dict[Any, tuple[Any, Any]]:
        """pi's map of every call in the tree. Building it reads every assistant message: a
        reader that may not read gets it only when every body is kept, and one that may is told
        to build it (:meth:`_build_call_map`, which does not hold ``lock`` meanwhile)."""
        whole = self._tool_call_map
        if whole is not None:
            return whole
        if read:
            raise _NeedsMap
        if self.session.source is not None:  # bodies on disk
            raise _NotReady
        whole = self._tool_call_map = self._calls_of(self.tree.entries, list(self.tree.slot))
        return whole

    def _build_call_map(self) -> None:
        with self.lock:
            if self._tool_call_map is not None:
                return
            generation, entries, slots = self.generation, self.tree.entries, list(self.tree.slot)
        whole = self._calls_of(entries, slots)
        with self.lock:
            if self.generation == generation and self._tool_call_map is None:
                self._tool_call_map = whole

    @staticmethod
    def _calls_of(entries: list[Entry], slots: list[int]) -> dict[Any, tuple[Any, Any]]:
        whole: dict[Any, tuple[Any, Any]] = {}
        for slot in slots:
            entry = entries[slot]
            if entry.role == "assistant" and entry.type == "message":
                with contextlib.suppress(FileChangedError):
                    whole.update(tool_call_map_entries(entry.message))
        return whole


def _data(entry: Entry, read: bool) -> dict[str, Any]:
    """The entry's whole value; without ``read``, only when it was kept (else :class:`_NotReady`)."""
    data = entry._data
    if data is not None:
        return data
    if not read:
        raise _NotReady
    return entry.read_data()


def _assistant_text(message: dict[str, Any]) -> tuple[str, str]:
    """What getEntryDisplayText shows after ``assistant:``: the text, else why there is none."""
    text = _normalize(extract_content(message.get("content")))
    if text:
        return (text, "")
    if message.get("stopReason") == "aborted":
        return ("(aborted)", "muted")
    error = message.get("errorMessage", MISSING)
    if js_truthy(error):
        return (js_head(_normalize(js_string(error)), 80), "error")
    return ("(no content)", "muted")


def describe_entry(kind: Any, data: dict[str, Any]) -> Segments:
    """getEntryDisplayText for an entry that is not a message."""
    if kind == "custom_message":
        content = data.get("content")
        if type(content) is not str:
            blocks = content if type(content) is list else []
            content = js_join_value(
                [b.get("text", MISSING) for b in blocks if type(b) is dict and b.get("type") == "text"], ""
            )
        return ((f"[{js_string(data.get('customType', MISSING))}]: ", "custom"), (_normalize(content), ""))
    if kind == "compaction":
        tokens = js_round(js_number(data.get("tokensBefore", MISSING)) / 1000)
        return ((f"[compaction: {js_number_string(tokens)}k tokens]", "border_accent"),)
    if kind == "branch_summary":
        summary = data.get("summary", MISSING)
        return (("[branch summary]: ", "warning"), (_normalize(js_string(summary)), ""))
    if kind == "session_info":
        name = data.get("name", MISSING)
        if js_truthy(name):
            return (("[title: ", "dim"), (js_string(name), "dim"), ("]", "dim"))
        return (("[title: ", "dim"), ("empty", "dim_italic"), ("]", "dim"))
    return _bookkeeping_text(kind, data)


def _bookkeeping_text(kind: Any, data: dict[str, Any]) -> Segments:
    """getEntryDisplayText for the entries pi draws dim: model, thinking level, custom, context
    edit, label."""
    if kind == "model_change":
        return ((f"[model: {js_string(data.get('modelId', MISSING))}]", "dim"),)
    if kind == "thinking_level_change":
        return ((f"[thinking: {js_string(data.get('thinkingLevel', MISSING))}]", "dim"),)
    if kind == "custom":
        return ((f"[custom: {js_string(data.get('customType', MISSING))}]", "dim"),)
    if kind == "context_edit":  # a missing replacement is no null: pi says "replace"
        what = "omit" if data.get("replacement", MISSING) is None else "replace"
        return ((f"[context {what}: {js_string(data.get('targetId', MISSING))}]", "dim"),)
    if kind == "label":
        label = data.get("label", MISSING)
        return ((f"[label: {'(cleared)' if label is None or label is MISSING else js_string(label)}]", "dim"),)
    return ()
