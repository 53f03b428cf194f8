"""One row of pi's ``/tree`` as text: gutters, connectors, fold and path markers, labels, label
times and the entry's one line (pi's ``getEntryDisplayText``).

:class:`TreeRows` makes a row's text only when it is asked for and caches it per node; message
bodies are decoded only for the rows that are shown. The text is pi's, unfiltered: callers that
write it to a terminal must make it safe (:func:`pitui.safe_text.safe_line`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

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
from pitui.store.model import FileChangedError
from pitui.store.reader import Session
from pitui.store.tree.structure import Layout, TreeStructure

__all__ = ["RowText", "TreeRows", "describe_entry"]

_ANCESTOR_ASSISTANTS = 4  # assistant messages looked through for a tool result's call
CACHE_ROWS = 4096

Segments = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class RowText:
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

    Both are the model's and change under this object; :meth:`reset` empties the caches after
    the tree is built again, :meth:`forget` drops one node's row after a fold.
    """

    def __init__(self, session: Session, tree: TreeStructure, layout: Layout, *, home: str,
                 now: Callable[[], datetime], tz: tzinfo | None) -> None:
        self.session = session
        self.tree = tree
        self.layout = layout
        self.home = home
        self.label_times = False
        self._now = now
        self._tz = tz
        self._calls: dict[int, dict[Any, tuple[Any, Any]]] = {}
        self._content_cache: dict[int, Segments] = {}
        self.reset()

    def reset(self) -> None:
        """Forget every row: the tree was built again."""
        self._tool_call_map: dict[Any, tuple[Any, Any]] | None = None
        self._prefix_cache: dict[int, RowText] = {}
        self._gutter_cache: dict[tuple[int, int], tuple[Any, str, bool]] = {}
        self._content_cache.clear()

    def relaid(self) -> None:
        """Forget the rows' heads: the layout changed (the entries' own text did not)."""
        self._prefix_cache.clear()

    def forget(self, node: int) -> None:
        """Forget one node's row (its fold glyph changed)."""
        self._prefix_cache.pop(node, None)

    # ------------------------------------------------------------------ a row

    def row(self, node: int) -> RowText:
        """The text of the row showing ``node``, as pi draws it without the cursor column."""
        cached = self._prefix_cache.get(node)
        if cached is not None:
            return cached
        if len(self._prefix_cache) >= CACHE_ROWS:
            self._prefix_cache.clear()
        head = self._head(node)
        content = self.content(node)
        text = RowText((*head, *content), len(head))
        self._prefix_cache[node] = text
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
            cells = "".join("   " if (shown := gutter_at.get(at)) is None else "│  " if shown else "   "
                            for at in range(levels))
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

    def content(self, node: int) -> Segments:
        """The entry's own text on its row, cached per entry."""
        slot = self.tree.slot[node]
        cached = self._content_cache.get(slot)
        if cached is None:
            if len(self._content_cache) >= CACHE_ROWS:
                self._content_cache.clear()
            try:
                cached = self._describe(node)
            except FileChangedError:
                cached = (("(the file changed on disk: reopen it)", "error"),)
            self._content_cache[slot] = cached
        return cached

    def _describe(self, node: int) -> Segments:
        """pi's ``getEntryDisplayText``."""
        entry = self.tree.entries[self.tree.slot[node]]
        if entry.type != "message":
            return describe_entry(entry.type, entry.data)
        message = entry.message
        if type(message) is not dict:
            return ((f"[{js_string(MISSING)}]", "dim"),)
        role = message.get("role", MISSING)
        if role == "user":
            return (("user: ", "accent"), (_normalize(extract_content(message.get("content"))), ""))
        if role == "assistant":
            return (("assistant: ", "success"), _assistant_text(message))
        if role == "toolResult":
            return (self._tool_result_text(node, message),)
        if role == "bashExecution":
            command = message.get("command")
            return ((f"[bash]: {_normalize('' if command is None else js_string(command))}", "dim"),)
        return ((f"[{js_string(role)}]", "dim"),)

    def _tool_result_text(self, node: int, message: dict[str, Any]) -> tuple[str, str]:
        """A tool result shows the call it answers (pi's ``formatToolCall``), else its tool's name."""
        call_id = message.get("toolCallId", MISSING)
        call = self._find_call(node, call_id) if js_truthy(call_id) else None
        if call is not None:
            return (format_tool_call(call[0], call[1], self.home), "muted")
        name = message.get("toolName")
        return (f"[{'tool' if name is None else js_string(name)}]", "muted")

    def _find_call(self, node: int, call_id: Any) -> tuple[Any, Any] | None:
        """The tool call a tool result answers. It is nearly always in the assistant message just
        above, so that is where it is looked for first; else in pi's map over the whole tree,
        built once. (pi looks in that map only: where two calls share an id, pi shows the later
        one in tree order, this the nearer one.)"""
        if type(call_id) in (list, dict):
            return None  # JavaScript's Map compares such keys by identity: never found
        tree = self.tree
        entries, slots, parent = tree.entries, tree.slot, tree.parent
        up = parent[node]
        looked = 0
        while up >= 0 and looked < _ANCESTOR_ASSISTANTS:
            entry = entries[slots[up]]
            if entry.type == "message":
                if entry.role == "assistant":
                    calls = self._calls.get(slots[up])
                    if calls is None:
                        if len(self._calls) >= CACHE_ROWS:
                            self._calls.clear()
                        calls = self._calls[slots[up]] = tool_call_map_entries(entry.message)
                    if call_id in calls:
                        return calls[call_id]
                    looked += 1
                elif entry.role == "user":
                    break
            up = parent[up]
        return self._all_calls().get(call_id)

    def _all_calls(self) -> dict[Any, tuple[Any, Any]]:
        if self._tool_call_map is None:
            whole: dict[Any, tuple[Any, Any]] = {}
            entries = self.tree.entries
            for slot in self.tree.slot:
                entry = entries[slot]
                if entry.role == "assistant" and entry.type == "message":
                    with contextlib.suppress(FileChangedError):
                        whole.update(tool_call_map_entries(entry.message))
            self._tool_call_map = whole
        return self._tool_call_map


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
                [b.get("text", MISSING) for b in blocks if type(b) is dict and b.get("type") == "text"], "")
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
    """getEntryDisplayText for the entries pi draws dim: model, thinking level, custom, label."""
    if kind == "model_change":
        return ((f"[model: {js_string(data.get('modelId', MISSING))}]", "dim"),)
    if kind == "thinking_level_change":
        return ((f"[thinking: {js_string(data.get('thinkingLevel', MISSING))}]", "dim"),)
    if kind == "custom":
        return ((f"[custom: {js_string(data.get('customType', MISSING))}]", "dim"),)
    if kind == "label":
        label = data.get("label", MISSING)
        return ((f"[label: {'(cleared)' if label is None or label is MISSING else js_string(label)}]", "dim"),)
    return ()
