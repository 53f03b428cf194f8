"""The session tree as pi's ``/tree`` navigator shows it, as plain data for a widget.

:class:`TreeModel` is the exact equivalent of pi 0.73.1's ``TreeSelectorComponent`` logic
(reference: pi-ui-behaviour.md §2, pi-session-format.md §8): the active branch sorted first,
indentation only at branch points, ``├─ └─ │`` connectors and gutters, fold glyphs, the active
path marker, labels and label times, one line of text per entry, the hidden tool-call-only
assistant messages, the five filter modes, type-to-search, folding and the segment jumps, and
where the selection goes when rows come and go. Beyond pi: jumps to the leaf, the parent, the
next or previous sibling branch and labelled entry; counts of the entries a fold or a filter
hides; and following a session that grows.

Built for sessions of 100,000 entries and chains 50,000 deep: nothing recurses, the layout lives
in flat lists indexed by node, rows are the sorted list of visible nodes (so a node's row is a
bisection away), a fold deletes one slice of rows and an unfold inserts one, and a row's text is
made only when it is asked for. Message bodies are decoded only for rows that are shown, and for
every entry on the first search.

Nodes are numbered in pi's display order (depth first, active branch first). An entry is
normally one node; pi lists an entry whose id is duplicated in the file once per duplicate, and
so does this model.

The text is pi's, unfiltered: callers that write it to a terminal must make it safe
(:func:`pitui.safe_text.safe_line`).
"""

from __future__ import annotations

import contextlib
import math
import os
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from pitui.store.js import (
    MISSING,
    js_date_value,
    js_join_value,
    js_number_string,
    js_string,
    js_string_to_number,
    js_trim,
    js_truthy,
)
from pitui.store.jsonl import dumps
from pitui.store.model import Entry, FileChangedError, _sort_children
from pitui.store.reader import Session

__all__ = ["FILTERS", "FILTER_TAGS", "RowText", "TreeModel"]

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
"""pi's filter modes, in the order Ctrl+O cycles through them."""

FILTER_TAGS = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]",
               "labeled-only": " [labeled]", "all": " [all]"}
"""What pi's status line adds for each mode."""

# Node categories, for the filters.
_USER, _ASSISTANT, _TEXTLESS, _TOOL, _OTHER, _BOOKKEEPING = range(6)
_BOOKKEEPING_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
_ROLE_CATEGORY = {"user": _USER, "assistant": _ASSISTANT, "toolResult": _TOOL}
_SHOWN_BY = {  # category -> shown, per mode (labeled-only is decided by the labels)
    "default": (True, True, False, True, True, False),
    "no-tools": (True, True, False, False, True, False),
    "user-only": (True, False, False, False, False, False),
    "all": (True, True, False, True, True, True),
}

_TEXT_CAP = 200  # pi cuts message text at 200 UTF-16 units, for display and search alike
_ANCESTOR_ASSISTANTS = 4  # assistant messages looked through for a tool result's call
_CACHE_ROWS = 4096


@dataclass(frozen=True, slots=True)
class RowText:
    """One row of the tree: ``(text, role)`` segments, and where the entry's own text starts
    (pi shows that part bold on the selected row).

    Roles: ``dim`` (gutters, connectors and bookkeeping entries), ``accent`` (markers, ``user:``),
    ``success`` (``assistant:``), ``muted``, ``error``, ``warning`` (labels, branch summaries),
    ``custom`` (custom messages), ``border_accent`` (compactions), ``dim_italic``, and ``""``
    for plain text.
    """

    segments: tuple[tuple[str, str], ...]
    content_start: int

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.segments)


def _js_len(text: str) -> int:
    """``text.length`` in JavaScript (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _js_head(text: str, count: int) -> str:
    """``text.slice(0, count)`` in JavaScript: counted in UTF-16 units, so a cut may split a
    surrogate pair, as in pi."""
    if len(text) <= count // 2 or text.isascii():
        return text[:count]
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * count]
    return units.decode("utf-16-le", "surrogatepass")


def _extract(content: Any) -> str:
    """pi's ``extractContent``: a string, or the ``text`` blocks run together (a block without
    text adds ``"undefined"``, as JavaScript's ``+=`` does), cut to 200 UTF-16 units."""
    if type(content) is str:
        return _js_head(content, _TEXT_CAP)
    if type(content) is not list:
        return ""
    result = ""
    for block in content:
        if type(block) is dict and block.get("type") == "text":
            result += js_string(block.get("text", MISSING))
            if len(result) >= _TEXT_CAP or (len(result) * 2 >= _TEXT_CAP and _js_len(result) >= _TEXT_CAP):
                return _js_head(result, _TEXT_CAP)
    return result


def _normalize(text: str) -> str:
    return js_trim(text.replace("\n", " ").replace("\t", " "))


def _js_number(value: Any) -> float:
    """JavaScript's ``Number(value)`` for a JSON value."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return js_string_to_number(value)
    if isinstance(value, list):
        return js_string_to_number(js_string(value))
    return math.nan


def _js_round(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    return float(math.floor(value + 0.5))


def _js_or(*values: Any) -> Any:
    """``a || b || ...``: the first truthy value, else the last."""
    for value in values:
        if js_truthy(value):
            return value
    return values[-1]


def _js_plus(left: Any, right: Any) -> Any:
    """JavaScript's ``+`` on two JSON values: string concatenation if either side is a string
    (or converts to one), else numeric addition."""
    if isinstance(left, str | list | dict) or isinstance(right, str | list | dict):
        return js_string(left) + js_string(right)
    return _js_number(left) + _js_number(right)


def _js_minus(left: Any, right: Any) -> float:
    return _js_number(left) - _js_number(right)


def _js_value_string(value: Any) -> str:
    return js_number_string(value) if isinstance(value, float) else js_string(value)


def _format_tool_call(name: Any, args: Any, home: str) -> str:
    """pi's ``formatToolCall``: the one-line description of a tool call."""
    if type(args) is not dict:
        args = {}

    def shorten(path: str) -> str:
        return "~" + path[len(home):] if home and path.startswith(home) else path

    get = args.get
    if name == "read":
        display = shorten(js_string(_js_or(get("path", MISSING), get("file_path", MISSING), "")))
        offset, limit = get("offset", MISSING), get("limit", MISSING)
        if offset is not MISSING or limit is not MISSING:
            start = 1 if offset is None or offset is MISSING else offset
            end: Any = _js_minus(_js_plus(start, limit), 1) if limit is not MISSING else ""
            display += f":{_js_value_string(start)}" + (f"-{_js_value_string(end)}" if js_truthy(end) else "")
        return f"[read: {display}]"
    if name in ("write", "edit"):
        path = shorten(js_string(_js_or(get("path", MISSING), get("file_path", MISSING), "")))
        return f"[{name}: {path}]"
    if name == "bash":
        raw = js_string(_js_or(get("command", MISSING), ""))
        command = _js_head(js_trim(raw.replace("\n", " ").replace("\t", " ")), 50)
        return f"[bash: {command}{'...' if _js_len(raw) > 50 else ''}]"
    if name == "grep":
        pattern = js_string(_js_or(get("pattern", MISSING), ""))
        return f"[grep: /{pattern}/ in {shorten(js_string(_js_or(get('path', MISSING), '.')))}]"
    if name == "find":
        pattern = js_string(_js_or(get("pattern", MISSING), ""))
        return f"[find: {pattern} in {shorten(js_string(_js_or(get('path', MISSING), '.')))}]"
    if name == "ls":
        return f"[ls: {shorten(js_string(_js_or(get('path', MISSING), '.')))}]"
    text = dumps(args).decode()
    return f"[{js_string(name)}: {_js_head(text, 40)}{'...' if _js_len(text) > 40 else ''}]"


def _tool_calls(message: Any) -> dict[Any, tuple[Any, Any]]:
    """The tool calls of an assistant message: ``{id: (name, arguments)}``, later ones winning."""
    calls: dict[Any, tuple[Any, Any]] = {}
    content = message.get("content") if type(message) is dict else None
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "toolCall":
                key = block.get("id", MISSING)
                if type(key) not in (list, dict):  # JavaScript compares those by identity
                    calls[key] = (block.get("name", MISSING), block.get("arguments", MISSING))
    return calls


def _search_text(entry: Entry) -> str:
    """pi's ``getSearchableText`` without the label, lower-cased."""
    kind = entry.type
    data = entry.data
    parts: list[Any]
    if kind == "message":
        message = data.get("message")
        if type(message) is not dict:
            return ""
        role = message.get("role", MISSING)
        parts = [role]
        content = message.get("content", MISSING)
        if js_truthy(content):
            parts.append(_extract(content))
        if role == "bashExecution" and js_truthy(message.get("command")):
            parts.append(message.get("command"))
    elif kind == "custom_message":
        content = data.get("content", MISSING)
        parts = [data.get("customType", MISSING), content if type(content) is str else _extract(content)]
    elif kind == "compaction":
        parts = ["compaction"]
    elif kind == "branch_summary":
        parts = ["branch summary", data.get("summary", MISSING)]
    elif kind == "session_info":
        parts = ["title"]
        if js_truthy(data.get("name")):
            parts.append(data.get("name"))
    elif kind == "model_change":
        parts = ["model", data.get("modelId", MISSING)]
    elif kind == "thinking_level_change":
        parts = ["thinking", data.get("thinkingLevel", MISSING)]
    elif kind == "custom":
        parts = ["custom", data.get("customType", MISSING)]
    elif kind == "label":
        label = data.get("label", MISSING)
        parts = ["label", "" if label is None or label is MISSING else label]
    else:
        return ""
    return js_join_value(parts, " ").lower()


def _safe_search_text(entry: Entry) -> str:
    try:
        return _search_text(entry)
    except FileChangedError:  # the file was rewritten under us: nothing to find in this entry
        return ""


def _cut_cycles(roots: list[int], only: list[int], several: dict[int, list[int]]) -> None:
    """Drop the child links that lead back to an entry above: duplicated ids can tie the tree
    into a loop that pi's getTree never leaves. (An entry reached twice another way, which
    duplicated ids also allow, is kept.) Without duplicated ids a loop is never reachable
    from a root, so this only runs for those files."""
    state = bytearray(len(only))  # 0: not seen, 1: on the path being walked, 2: done
    for root in roots:
        if state[root]:
            continue
        state[root] = 1
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            slot, position = stack[-1]
            child = only[slot]
            kids = [child] if child >= 0 else several.get(slot, []) if child == -2 else []
            if position >= len(kids):
                state[slot] = 2
                stack.pop()
                continue
            stack[-1] = (slot, position + 1)
            kid = kids[position]
            if state[kid] == 1:  # back to an entry above: the loop is cut here
                if child >= 0:
                    only[slot] = -1
                else:
                    kids.remove(kid)
                    stack[-1] = (slot, position)
                    if not kids:
                        only[slot] = -1
                        del several[slot]
            elif state[kid] == 0:
                state[kid] = 1
                stack.append((kid, 0))


def _categories(entries: list[Entry]) -> list[int]:
    try:
        # The common cases inline: a call per entry would cost more than the rest.
        role_category = _ROLE_CATEGORY.get
        return [(_TEXTLESS if e.textless else role_category(e.role, _OTHER)) if e.type == "message"
                else _BOOKKEEPING if e.type in _BOOKKEEPING_TYPES else _OTHER for e in entries]
    except TypeError:  # a role or type that is a JSON array or object
        return [_category(e) for e in entries]


def _category(entry: Entry) -> int:
    kind = entry.type
    if kind == "message":
        role = entry.role
        if role == "user":
            return _USER
        if role == "assistant":
            return _TEXTLESS if entry.textless else _ASSISTANT
        return _TOOL if role == "toolResult" else _OTHER
    return _BOOKKEEPING if kind in _BOOKKEEPING_TYPES else _OTHER


class TreeModel:
    """pi's ``/tree`` over one :class:`Session`: visible rows, their text, and the cursor.

    Rows are numbered from 0 (``len(model)`` of them); ``cursor`` is the selected row (0 when
    there are none). Every change keeps the selection on the same entry if it is still shown,
    else on its nearest shown ancestor, else on the last row, as pi does. ``version`` goes up
    whenever rows or their text change, so a view knows when to redraw more than the cursor.

    ``home`` shortens paths in tool calls (default ``$HOME``, as pi); ``now`` and ``tz`` decide
    how label times are written (defaults: the clock and the local time zone).
    """

    def __init__(self, session: Session, *, filter_mode: str = "default", selected_id: Any = None,
                 home: str | None = None, now: Callable[[], datetime] | None = None,
                 tz: tzinfo | None = None) -> None:
        self.session = session
        if home is None:
            home = os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""
        self.home = home
        self._now = now or datetime.now
        self._tz = tz
        self._filter = filter_mode if filter_mode in FILTERS else "default"
        self._query = ""
        self._tokens: list[str] = []
        self._label_times = False
        self.version = 0
        self.followed_leaf = False
        self._base_texts: dict[Entry, str] = {}  # search text per entry, once searched
        self._tool_call_map: dict[Any, tuple[Any, Any]] | None = None
        self._calls: dict[int, dict[Any, tuple[Any, Any]]] = {}
        self._content_cache: dict[int, tuple[tuple[str, str], ...]] = {}
        self._slot_categories: list[int] = []
        self._categorised: list[Entry] | None = None
        self._build()
        target = self._leaf_node if selected_id is None else self._node_of(selected_id)
        self._apply(target)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        """The tree in pi's display order, before any filter: ``_slot`` (node -> entry number)
        and ``_parent`` (node -> parent node, -1 for a root), plus what the filters need per
        node. Nodes are numbered depth first, so a subtree is a range of numbers."""
        session = self.session
        entries = session.entries
        count = len(entries)
        ids = [e.id for e in entries]
        index: dict[Any, int] = dict(zip(ids, range(count), strict=True))
        duplicates = len(index) < count
        # Children as pi's getTree places them: one child in `only`, several in `several`.
        only = [-1] * count  # -1: none, -2: several
        several: dict[int, list[int]] = {}
        roots: list[int] = []
        up_slot: list[Any] = list(map(index.get, [e.parent_id for e in entries]))
        parents: dict[int, list[int]] = {}  # with duplicated ids a node can have two parents
        if duplicates or None in index:
            # The general rules (pi's getTree): a null parent or the entry's own id makes a
            # root, and a duplicated id places the last entry with it once per duplicate.
            for k, entry in enumerate(entries):
                node = index[entry.id]
                parent_id = entry.parent_id
                p = None if parent_id is None or parent_id == entry.id else up_slot[k]
                if p is None:
                    roots.append(node)
                    continue
                parents.setdefault(node, []).append(p)
                first = only[p]
                if first == -1:
                    only[p] = node
                elif first >= 0:
                    several[p] = [first, node]
                    only[p] = -2
                else:
                    several[p].append(node)
        else:
            for k, p in enumerate(up_slot):
                if p is None or p == k:
                    roots.append(k)
                    continue
                first = only[p]
                if first == -1:
                    only[p] = k
                elif first >= 0:
                    several[p] = [first, k]
                    only[p] = -2
                else:
                    several[p].append(k)
        if duplicates:
            _cut_cycles(roots, only, several)
        for p, kids in several.items():
            order = _sort_children([entries[k] for k in kids])
            position = {id(entries[k]): k for k in kids}
            several[p] = [position[id(e)] for e in order]

        # The active path: the leaf and every entry above it (pi's containsActive, which sorts
        # the active branch first, and its path marker).
        leaf_slot = index.get(session.leaf_id, -1) if js_truthy(session.leaf_id) else -1
        active = bytearray(count)
        if leaf_slot >= 0 and parents:
            pending = [leaf_slot]
            while pending:
                slot = pending.pop()
                if not active[slot]:
                    active[slot] = 1
                    pending.extend(parents.get(slot, ()))
        elif leaf_slot >= 0:
            slot = leaf_slot
            while slot is not None and not active[slot]:
                active[slot] = 1
                slot = up_slot[slot]
        if leaf_slot >= 0:
            for p, kids in several.items():
                if active[p]:
                    several[p] = [k for k in kids if active[k]] + [k for k in kids if not active[k]]
            roots = [k for k in roots if active[k]] + [k for k in roots if not active[k]]

        # Depth first, iteratively; single-child chains (nearly everything) without the stack.
        slot_of: list[int] = []
        parent: list[int] = []
        add_slot, add_parent = slot_of.append, parent.append
        stack: list[tuple[int, int]] = [(r, -1) for r in reversed(roots)]
        pop, push = stack.pop, stack.append
        while stack:
            slot, up = pop()
            while True:
                node = len(slot_of)
                add_slot(slot)
                add_parent(up)
                child = only[slot]
                if child >= 0:
                    slot, up = child, node
                elif child == -1:
                    break
                else:
                    kids = several[slot]
                    for k in reversed(kids[1:]):
                        push((k, node))
                    slot, up = kids[0], node
        size = len(slot_of)

        self._entries = entries
        self._index = index
        self._slot = slot_of
        self._parent = parent
        self._ends: list[int] | None = None  # and what else is derived: see _reset_layout
        self._active = active
        self._leaf_slot = leaf_slot
        self._duplicates = duplicates
        self._node_by_slot: list[int] | None = None
        # An entry's category never changes: after an append only the new entries are sorted in.
        known = self._slot_categories if self._categorised is entries else []
        if len(known) < count:
            known = known + _categories(entries[len(known):])
        self._slot_categories, self._categorised = known, entries
        category = list(map(known.__getitem__, slot_of))
        leaf_node = -1
        if leaf_slot >= 0 and leaf_slot in slot_of:
            leaf_node = slot_of.index(leaf_slot)  # in C: faster than a map of every node
            if category[leaf_node] == _TEXTLESS:
                # pi always shows the leaf, whatever its content.
                for node in self._nodes_of_slot(leaf_slot):
                    category[node] = _ASSISTANT
        self._category = category
        self._leaf_node = leaf_node
        self._only, self._built = only, count
        self._reset_layout(size)

    def _reset_layout(self, size: int) -> None:
        """What is derived from the tree's structure, emptied for ``size`` nodes: laid out
        again by the next ``_apply``."""
        self._ends = None
        self._node_by_slot = None
        self._search: list[str] | None = None
        self._labelled: list[int] | None = None
        self._tool_call_map = None
        self._prefix_cache: dict[int, RowText] = {}
        self._gutter_cache: dict[tuple[int, int], tuple[Any, str, bool]] = {}
        self._content_cache.clear()
        # Layout per node, rewritten for the visible nodes by every filter change.
        self._indent = [0] * size
        self._connector = [False] * size  # pi's showConnector (= justBranched)
        self._gutters: list[tuple[tuple[int, bool], ...]] = [()] * size
        self._child_gutters: list[tuple[tuple[int, bool], ...]] = [()] * size
        self._vparent = [-1] * size
        self._nearest = [-1] * size
        self._kids = [0] * size
        self._last_kid = [-1] * size
        self._hidden = [0] * size
        self._all_rows: list[int] = []
        self._rows: list[int] = []
        self._roots: list[int] = []
        self._multiple_roots = False
        self._folded: set[int] = set()
        self._cursor = 0
        self._remembered = -1  # the selection kept while no row is shown

    def _grow_below_leaf(self) -> bool:
        """Take in the common append without building the tree again: new entries in a chain
        under the leaf, which had no children (pi writing on; a label or a name, which hang
        off the leaf). The leaf stays on the active path, so no branch point changes its order:
        the chain's nodes go in right after the leaf's node. False when the append is not that."""
        entries = self._entries
        built = self._built
        leaf_slot, leaf_node = self._leaf_slot, self._leaf_node
        if (self.session.entries is not entries or len(entries) <= built or self._duplicates
                or leaf_slot < 0 or leaf_node < 0 or self._only[leaf_slot] != -1):
            return False
        new = entries[built:]
        index = self._index
        parent_id = entries[leaf_slot].id
        ids: set[Any] = set()
        try:
            for entry in new:
                if entry.parent_id != parent_id or entry.id in index or entry.id in ids \
                        or entry.id is None or entry.id is MISSING:
                    return False
                ids.add(entry.id)
                parent_id = entry.id
        except TypeError:  # an unhashable id: the general rules apply
            return False
        if self.session.leaf_id != parent_id:
            return False
        count = len(new)
        for slot, entry in enumerate(new, built):
            index[entry.id] = slot
        self._only[leaf_slot] = built
        self._only.extend([*range(built + 1, built + count), -1])
        self._slot[leaf_node + 1:leaf_node + 1] = range(built, built + count)
        parent = [up + count if up > leaf_node else up for up in self._parent]
        parent[leaf_node + 1:leaf_node + 1] = range(leaf_node, leaf_node + count)
        self._parent = parent
        self._active.extend(b"\x01" * count)
        known = self._slot_categories = self._slot_categories + _categories(new)
        category = self._category
        category[leaf_node] = known[leaf_slot]  # no longer the leaf: pi's rule for it ends
        category[leaf_node + 1:leaf_node + 1] = known[built:]
        self._leaf_slot, self._leaf_node = built + count - 1, leaf_node + count
        if category[self._leaf_node] == _TEXTLESS:
            category[self._leaf_node] = _ASSISTANT
        self._built = built + count
        self._reset_layout(len(parent))
        return True

    @property
    def _end(self) -> list[int]:
        """Node -> the end of its subtree (exclusive), made when first needed (folds, jumps)."""
        ends = self._ends
        if ends is None:
            parent = self._parent
            ends = list(range(1, len(parent) + 1))
            for node in range(len(parent) - 1, 0, -1):
                up = parent[node]
                if up >= 0 and ends[node] > ends[up]:
                    ends[up] = ends[node]
            self._ends = ends
        return ends

    def _node_of_slot(self, slot: int) -> int:
        """The (first) node showing entry number ``slot``, or -1 (an entry in a parentId cycle
        is reachable from no root)."""
        nodes = self._node_by_slot
        if nodes is None:
            nodes = [-1] * len(self._entries)
            slots = self._slot
            for node in range(len(slots) - 1, -1, -1):
                nodes[slots[node]] = node
            self._node_by_slot = nodes
        return nodes[slot]

    def _nodes_of_slot(self, slot: int) -> list[int]:
        """Every node showing entry number ``slot`` (several only for a duplicated id)."""
        if self._duplicates:
            return [node for node, s in enumerate(self._slot) if s == slot]
        node = self._node_of_slot(slot)
        return [node] if node >= 0 else []

    def _node_of(self, entry_id: Any) -> int:
        slot = self._index.get(entry_id)
        return -1 if slot is None else self._node_of_slot(slot)

    # ------------------------------------------------------------------ filtering and layout

    def _visible(self) -> list[bool]:
        """Which nodes pass the hidden-assistant rule, the filter mode and the query."""
        category = self._category
        if self._filter == "labeled-only":
            labels = self.session.labels
            entries, slots = self._entries, self._slot
            visible = [c != _TEXTLESS and entries[s].id in labels for c, s in zip(category, slots, strict=True)]
        else:
            shown = _SHOWN_BY[self._filter]
            visible = [shown[c] for c in category]
        if self._tokens:
            texts = self._search_texts()
            for token in self._tokens:
                visible = [v and token in t for v, t in zip(visible, texts, strict=True)]
        return visible

    def _layout(self) -> None:
        """pi's ``recalculateVisualStructure`` over the visible nodes, in two linear passes:
        visible parents and child counts, then indents, connectors and gutters."""
        visible = self._visible()
        parent = self._parent
        nearest, vparent, last_kid = self._nearest, self._vparent, self._last_kid
        size = len(parent)
        kids = [0] * size
        hidden = [0] * size
        rows: list[int] = []
        roots: list[int] = []
        add_row = rows.append
        for node, up, shown in zip(range(size), parent, visible, strict=True):
            above = nearest[up] if up >= 0 else -1
            if shown:
                nearest[node] = node
                vparent[node] = above
                add_row(node)
                if above >= 0:
                    kids[above] += 1
                    last_kid[above] = node
                else:
                    roots.append(node)
            else:
                nearest[node] = above
                if above >= 0:
                    hidden[above] += 1
        multiple = len(roots) > 1
        indent, connector = self._indent, self._connector
        gutters, child_gutters = self._gutters, self._child_gutters
        for node in rows:
            up = vparent[node]
            if up < 0:
                # Several roots hang off a virtual root whose connectors are not drawn.
                indent[node] = 1 if multiple else 0
                connector[node] = multiple
                gutters[node] = child_gutters[node] = ()
                continue
            above = indent[up]
            branched = kids[up] > 1
            level = above + 1 if branched or (connector[up] and above > 0) else above
            indent[node] = level
            connector[node] = branched
            inherited = gutters[node] = child_gutters[up]
            if branched:
                shown_level = (level - 1 if level > 0 else 0) if multiple else level
                child_gutters[node] = (*inherited, (shown_level - 1 if shown_level > 0 else 0, last_kid[up] != node))
            else:
                child_gutters[node] = inherited
        self._kids = kids
        self._hidden = hidden
        self._all_rows = rows
        self._rows = self._without_folds(rows) if self._folded else rows.copy()  # folds cut this one
        self._roots = roots
        self._multiple_roots = multiple
        self._prefix_cache.clear()
        self.version += 1

    def _without_folds(self, rows: list[int]) -> list[int]:
        """``rows`` minus the descendants of folded nodes."""
        end = self._end
        kept: list[int] = []
        position = 0
        for node in sorted(self._folded):
            start = bisect_left(rows, node, position)
            if start >= len(rows) or rows[start] != node:
                continue  # not visible, or inside a fold already cut
            kept.extend(rows[position : start + 1])
            position = bisect_left(rows, end[node], start)
        kept.extend(rows[position:])
        return kept

    def _apply(self, target: int) -> None:
        """Lay out again and put the cursor on ``target`` (a node) or where pi would."""
        self._layout()
        self._select_node(target)

    def _row_of(self, node: int) -> int:
        """The row showing ``node``, or -1."""
        rows = self._rows
        row = bisect_left(rows, node)
        return row if row < len(rows) and rows[row] == node else -1

    def _select_node(self, node: int) -> None:
        """The cursor on ``node``, else on its nearest shown ancestor, else on the last row."""
        rows = self._rows
        if not rows:
            if node >= 0:
                self._remembered = node
            self._cursor = 0
            return
        self._remembered = -1
        if self._duplicates and node >= 0:
            self._cursor = self._row_by_id_walk(self._slot[node])
            return
        parent, nearest = self._parent, self._nearest
        while node >= 0:
            row = self._row_of(node)
            if row >= 0:
                self._cursor = row
                return
            up = parent[node]
            node = nearest[up] if up >= 0 else -1
        self._cursor = len(rows) - 1

    def _row_by_id_walk(self, slot: int | None) -> int:
        """pi's walk by id, which matters when ids are duplicated (pi lists such an entry once per
        duplicate): the last row showing the entry, else the same for its parent id, and so on."""
        entries, index = self._entries, self._index
        seen: set[int] = set()
        while slot is not None and slot not in seen:
            seen.add(slot)
            rows = [row for row in map(self._row_of, self._nodes_of_slot(slot)) if row >= 0]
            if rows:
                return rows[-1]
            parent_id = entries[slot].parent_id
            slot = index.get(parent_id) if parent_id is not None else None
        return len(self._rows) - 1

    @property
    def _selected_node(self) -> int:
        rows = self._rows
        if not rows:
            return self._remembered
        return rows[self._cursor]

    # ------------------------------------------------------------------ search texts

    @property
    def search_ready(self) -> bool:
        """Whether a search can start without decoding every entry first."""
        return self._search is not None or len(self._base_texts) >= len(self._entries)

    def prepare_search(self) -> None:
        """Decode every entry's searchable text (slow once on a big session). It only fills a
        cache, so a view may run it in a worker thread and search when it is done."""
        cache = self._base_texts
        for entry in list(self._entries):
            if entry not in cache:
                cache[entry] = _safe_search_text(entry)

    def _search_texts(self) -> list[str]:
        """Each node's searchable text: its label, then the entry's text, lower-cased."""
        if self._search is None:
            cache = self._base_texts
            labels = self.session.labels
            entries = self._entries
            texts: list[str] = []
            for slot in self._slot:
                entry = entries[slot]
                text = cache.get(entry)
                if text is None:
                    text = cache[entry] = _safe_search_text(entry)
                label = labels.get(entry.id)
                texts.append(f"{js_string(label).lower()} {text}" if js_truthy(label) else text)
            self._search = texts
        return self._search

    # ------------------------------------------------------------------ reading rows

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def filter_mode(self) -> str:
        return self._filter

    @property
    def query(self) -> str:
        return self._query

    @property
    def show_label_times(self) -> bool:
        return self._label_times

    @property
    def cursor(self) -> int:
        """The selected row (0 when there are no rows)."""
        return self._cursor

    @property
    def selected_id(self) -> Any:
        """The selected entry's id, or None when no row is shown."""
        return self._entries[self._slot[self._rows[self._cursor]]].id if self._rows else None

    @property
    def selected_entry(self) -> Entry | None:
        return self._entries[self._slot[self._rows[self._cursor]]] if self._rows else None

    @property
    def leaf_id(self) -> Any:
        return self.session.leaf_id

    def entry_at(self, row: int) -> Entry:
        return self._entries[self._slot[self._rows[row]]]

    def entry_id_at(self, row: int) -> Any:
        return self.entry_at(row).id

    def row_of_id(self, entry_id: Any) -> int:
        """The row showing that entry, or -1."""
        node = self._node_of(entry_id)
        return -1 if node < 0 else self._row_of(node)

    def is_folded(self, row: int) -> bool:
        return self._rows[row] in self._folded

    def is_foldable(self, row: int) -> bool:
        """pi's rule: it has shown children, and is a root or the start of a branch."""
        return self._foldable(self._rows[row])

    def _foldable(self, node: int) -> bool:
        if node in self._folded or not self._kids[node]:
            return False
        up = self._vparent[node]
        return up < 0 or self._kids[up] > 1

    def on_active_path(self, row: int) -> bool:
        return bool(self._active[self._slot[self._rows[row]]])

    def hidden_counts(self, row: int) -> tuple[int, int]:
        """``(folded, filtered)``: how many rows the fold at this row hides (0 if not folded), and
        how many entries the filter or query hides whose nearest shown ancestor is this row."""
        node = self._rows[row]
        folded = 0
        if node in self._folded:
            rows = self._all_rows
            start = bisect_right(rows, node)
            folded = bisect_left(rows, self._end[node], start) - start
        return folded, self._hidden[node]

    @property
    def status_text(self) -> str:
        """pi's status line: ``(3/17) [no-tools] [+label time]``."""
        count = len(self._rows)
        selected = self._cursor + 1 if count else 0
        return f"({selected}/{count}){FILTER_TAGS[self._filter]}{' [+label time]' if self._label_times else ''}"

    def row(self, row: int) -> RowText:
        """The text of one row, as pi draws it without the cursor column."""
        node = self._rows[row]
        cached = self._prefix_cache.get(node)
        if cached is not None:
            return cached
        if len(self._prefix_cache) >= _CACHE_ROWS:
            self._prefix_cache.clear()
        head = self._head(node)
        content = self._content(node)
        text = RowText((*head, *content), len(head))
        self._prefix_cache[node] = text
        return text

    def _head(self, node: int) -> list[tuple[str, str]]:
        """Gutters and connector, fold marker, path marker, label and label time."""
        multiple = self._multiple_roots
        level = self._indent[node]
        shown_level = (level - 1 if level > 0 else 0) if multiple else level
        root = self._vparent[node] < 0
        connector = self._connector[node] and not (root and multiple)
        folded = node in self._folded
        segments: list[tuple[str, str]] = []
        if shown_level:
            prefix, gutter_last = self._gutter_cells(self._gutters[node], shown_level)
            if connector and not gutter_last:
                up = self._vparent[node]
                last = (self._roots[-1] == node) if root else (self._last_kid[up] == node)
                glyph = "⊞" if folded else "⊟" if self._foldable(node) else "─"
                prefix = prefix[:-3] + ("└" if last else "├") + glyph + " "
            segments.append((prefix, "dim"))
        if folded and not connector:
            segments.append(("⊞ ", "accent"))
        slot = self._slot[node]
        if self._active[slot]:
            segments.append(("• ", "accent"))
        entry = self._entries[slot]
        label = self.session.labels.get(entry.id)
        if js_truthy(label):
            segments.append((f"[{js_string(label)}] ", "warning"))
            if self._label_times:
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
            if len(self._gutter_cache) >= _CACHE_ROWS:
                self._gutter_cache.clear()
            gutter_at: dict[int, bool] = {}
            for position, show in gutters:
                gutter_at.setdefault(position, show)  # pi takes the first gutter at a level
            cells = "".join("   " if (show := gutter_at.get(at)) is None else "│  " if show else "   "
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

    def entry_text(self, entry_id: Any) -> str:
        """An entry's one-line text as its row shows it (without gutter, label or markers)."""
        node = self._node_of(entry_id)
        return "".join(text for text, _ in self._content(node)) if node >= 0 else ""

    def _content(self, node: int) -> tuple[tuple[str, str], ...]:
        slot = self._slot[node]
        cached = self._content_cache.get(slot)
        if cached is None:
            if len(self._content_cache) >= _CACHE_ROWS:
                self._content_cache.clear()
            try:
                cached = self._describe(node)
            except FileChangedError:
                cached = (("(the file changed on disk: reopen it)", "error"),)
            self._content_cache[slot] = cached
        return cached

    def _describe(self, node: int) -> tuple[tuple[str, str], ...]:
        """pi's ``getEntryDisplayText``."""
        entry = self._entries[self._slot[node]]
        kind = entry.type
        if kind == "message":
            message = entry.message
            if type(message) is not dict:
                return ((f"[{js_string(MISSING)}]", "dim"),)
            role = message.get("role", MISSING)
            if role == "user":
                return (("user: ", "accent"), (_normalize(_extract(message.get("content"))), ""))
            if role == "assistant":
                text = _normalize(_extract(message.get("content")))
                if text:
                    return (("assistant: ", "success"), (text, ""))
                if message.get("stopReason") == "aborted":
                    return (("assistant: ", "success"), ("(aborted)", "muted"))
                error = message.get("errorMessage", MISSING)
                if js_truthy(error):
                    return (("assistant: ", "success"), (_js_head(_normalize(js_string(error)), 80), "error"))
                return (("assistant: ", "success"), ("(no content)", "muted"))
            if role == "toolResult":
                call_id = message.get("toolCallId", MISSING)
                call = self._find_call(node, call_id) if js_truthy(call_id) else None
                if call is not None:
                    return ((_format_tool_call(call[0], call[1], self.home), "muted"),)
                name = message.get("toolName")
                return ((f"[{'tool' if name is None else js_string(name)}]", "muted"),)
            if role == "bashExecution":
                command = message.get("command")
                return ((f"[bash]: {_normalize('' if command is None else js_string(command))}", "dim"),)
            return ((f"[{js_string(role)}]", "dim"),)
        data = entry.data
        if kind == "custom_message":
            content = data.get("content")
            if type(content) is not str:
                blocks = content if type(content) is list else []
                content = js_join_value(
                    [b.get("text", MISSING) for b in blocks if type(b) is dict and b.get("type") == "text"], "")
            return ((f"[{js_string(data.get('customType', MISSING))}]: ", "custom"), (_normalize(content), ""))
        if kind == "compaction":
            tokens = _js_round(_js_number(data.get("tokensBefore", MISSING)) / 1000)
            return ((f"[compaction: {js_number_string(tokens)}k tokens]", "border_accent"),)
        if kind == "branch_summary":
            summary = data.get("summary", MISSING)
            return (("[branch summary]: ", "warning"), (_normalize(js_string(summary)), ""))
        if kind == "model_change":
            return ((f"[model: {js_string(data.get('modelId', MISSING))}]", "dim"),)
        if kind == "thinking_level_change":
            return ((f"[thinking: {js_string(data.get('thinkingLevel', MISSING))}]", "dim"),)
        if kind == "custom":
            return ((f"[custom: {js_string(data.get('customType', MISSING))}]", "dim"),)
        if kind == "label":
            label = data.get("label", MISSING)
            return ((f"[label: {'(cleared)' if label is None or label is MISSING else js_string(label)}]", "dim"),)
        if kind == "session_info":
            name = data.get("name", MISSING)
            if js_truthy(name):
                return (("[title: ", "dim"), (js_string(name), "dim"), ("]", "dim"))
            return (("[title: ", "dim"), ("empty", "dim_italic"), ("]", "dim"))
        return ()

    def _find_call(self, node: int, call_id: Any) -> tuple[Any, Any] | None:
        """The tool call a tool result answers. It is nearly always in the assistant message just
        above, so that is where it is looked for first; else in pi's map over the whole tree,
        built once. (pi looks in that map only: where two calls share an id, pi shows the later
        one in tree order, this the nearer one.)"""
        if type(call_id) in (list, dict):
            return None  # JavaScript's Map compares such keys by identity: never found
        entries, slots, parent = self._entries, self._slot, self._parent
        up = parent[node]
        looked = 0
        while up >= 0 and looked < _ANCESTOR_ASSISTANTS:
            entry = entries[slots[up]]
            if entry.type == "message":
                if entry.role == "assistant":
                    calls = self._calls.get(slots[up])
                    if calls is None:
                        if len(self._calls) >= _CACHE_ROWS:
                            self._calls.clear()
                        calls = self._calls[slots[up]] = _tool_calls(entry.message)
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
            entries = self._entries
            for slot in self._slot:
                entry = entries[slot]
                if entry.role == "assistant" and entry.type == "message":
                    with contextlib.suppress(FileChangedError):
                        whole.update(_tool_calls(entry.message))
            self._tool_call_map = whole
        return self._tool_call_map

    # ------------------------------------------------------------------ filter, query, labels

    def _refilter(self) -> None:
        """pi's ``applyFilter`` after a filter or query change: folds cleared, selection kept."""
        node = self._selected_node
        self._folded.clear()
        self._apply(node)

    def set_filter(self, mode: str) -> None:
        if mode not in FILTERS:
            raise ValueError(f"unknown filter mode {mode!r}")
        self._filter = mode
        self._refilter()

    def toggle_filter(self, mode: str) -> None:
        """pi's Ctrl+T/U/L/A: ``mode``, or back to ``default`` when it is already on."""
        self.set_filter("default" if self._filter == mode else mode)

    def cycle_filter(self, step: int = 1) -> None:
        """pi's Ctrl+O (``step`` 1) and Shift+Ctrl+O (-1)."""
        self.set_filter(FILTERS[(FILTERS.index(self._filter) + step) % len(FILTERS)])

    def set_query(self, query: str) -> None:
        """Search: every whitespace-separated word must occur in the entry's text (any case)."""
        if query == self._query:
            return
        self._query = query
        self._tokens = query.lower().split()
        self._refilter()

    def type_text(self, text: str) -> None:
        self.set_query(self._query + text)

    def backspace(self) -> None:
        if self._query:
            self.set_query(self._query[:-1])

    def clear_query(self) -> bool:
        """Clear the query (and folds); False when there was none (pi then closes the tree)."""
        if not self._query:
            return False
        self.set_query("")
        return True

    def toggle_label_times(self) -> None:
        self._label_times = not self._label_times
        self._prefix_cache.clear()
        self.version += 1

    # ------------------------------------------------------------------ folding

    def fold(self, row: int | None = None) -> bool:
        """Fold the node at ``row`` (default: the cursor) if it is foldable."""
        row = self._cursor if row is None else row
        if not self._rows:
            return False
        node = self._rows[row]
        if not self._foldable(node):
            return False
        selected = self._selected_node
        rows = self._rows
        del rows[row + 1 : bisect_left(rows, self._end[node], row)]
        self._folded.add(node)
        self._changed_rows(node, selected)
        return True

    def unfold(self, row: int | None = None) -> bool:
        """Unfold the folded node at ``row`` (default: the cursor); folds inside it stay."""
        row = self._cursor if row is None else row
        if not self._rows:
            return False
        node = self._rows[row]
        if node not in self._folded:
            return False
        selected = self._selected_node
        self._folded.discard(node)
        everything = self._all_rows
        start = bisect_right(everything, node)
        inside = everything[start : bisect_left(everything, self._end[node], start)]
        if self._folded and inside:
            inside = self._without_folds(inside)
        self._rows[row + 1 : row + 1] = inside
        self._changed_rows(node, selected)
        return True

    def _changed_rows(self, node: int, selected: int) -> None:
        """After a fold or unfold of ``node``: only its own glyph changed, and the cursor follows
        the selected node (or the fold that swallowed it)."""
        self._prefix_cache.pop(node, None)
        self._select_node(selected)
        self.version += 1

    def fold_or_up(self) -> None:
        """pi's Ctrl+←: fold the selected node, or jump to the previous branch-segment start."""
        if not self._rows:
            return
        if not self.fold():
            self._cursor = self._segment_start_up()

    def unfold_or_down(self) -> None:
        """pi's Ctrl+→: unfold the selected node, or jump to the next segment start (or the end of
        the branch)."""
        if not self._rows:
            return
        if not self.unfold():
            self._cursor = self._segment_start_down()

    def _segment_start_up(self) -> int:
        vparent, kids = self._vparent, self._kids
        node = self._rows[self._cursor]
        while True:
            up = vparent[node]
            if up < 0:
                return self._row_of(node)
            if kids[up] > 1:
                row = self._row_of(node)
                if row < self._cursor:
                    return row
            node = up

    def _segment_start_down(self) -> int:
        rows, kids, folded = self._rows, self._kids, self._folded
        row = self._cursor
        while True:
            node = rows[row]
            count = 0 if node in folded else kids[node]
            if count == 0:
                return row
            if count > 1:
                return row + 1  # the first child follows its parent
            row += 1

    # ------------------------------------------------------------------ moving the cursor

    def move(self, delta: int, *, wrap: bool = False) -> None:
        count = len(self._rows)
        if not count:
            return
        target = self._cursor + delta
        self._cursor = target % count if wrap else max(0, min(count - 1, target))

    def up(self) -> None:
        """pi's ↑: previous row, wrapping to the last."""
        self.move(-1, wrap=True)

    def down(self) -> None:
        """pi's ↓: next row, wrapping to the first."""
        self.move(1, wrap=True)

    def page_up(self, lines: int) -> None:
        self.move(-lines)

    def page_down(self, lines: int) -> None:
        self.move(lines)

    def first(self) -> None:
        self._cursor = 0

    def last(self) -> None:
        self._cursor = max(0, len(self._rows) - 1)

    def select_row(self, row: int) -> None:
        if self._rows:
            self._cursor = max(0, min(len(self._rows) - 1, row))

    def select(self, entry_id: Any) -> bool:
        """Select that entry, or its nearest shown ancestor; False if it is not in the tree."""
        node = self._node_of(entry_id)
        if node < 0 or not self._rows:
            return False
        self._select_node(node)
        return True

    def jump_to_leaf(self) -> bool:
        """Select the current leaf (or its nearest shown ancestor)."""
        if self._leaf_node < 0 or not self._rows:
            return False
        self._select_node(self._leaf_node)
        return True

    def jump_to_parent(self) -> bool:
        """Select the nearest shown ancestor of the selected entry."""
        if not self._rows:
            return False
        up = self._vparent[self._rows[self._cursor]]
        if up < 0:
            return False
        self._cursor = self._row_of(up)
        return True

    def next_sibling(self, step: int = 1) -> bool:
        """Select the start of the next (``step`` 1) or previous (-1) branch beside the one the
        cursor is in: the nearest branch point above it (or the roots, when there are several)
        decides; if there is no such branch there, the next branch point further up is tried."""
        rows = self._rows
        if not rows:
            return False
        vparent, kids = self._vparent, self._kids
        node = rows[self._cursor]
        while node >= 0:
            up = vparent[node]
            if (up < 0 and len(self._roots) > 1) or (up >= 0 and kids[up] > 1):
                row = self._next_shown_sibling(node, up) if step > 0 else self._previous_shown_sibling(node, up)
                if row >= 0:
                    self._cursor = row
                    return True
            node = up
        return False

    def _next_shown_sibling(self, node: int, up: int) -> int:
        # The first row after a node's subtree is its next sibling, if it has the same parent.
        row = bisect_left(self._rows, self._end[node])
        return row if row < len(self._rows) and self._vparent[self._rows[row]] == up else -1

    def _previous_shown_sibling(self, node: int, up: int) -> int:
        # The row above a node is its parent (no previous sibling) or in the previous
        # sibling's subtree: climb to the child of `up`.
        row = self._row_of(node) - 1
        if row < 0:
            return -1
        other = self._rows[row]
        vparent = self._vparent
        while other != up and vparent[other] != up:
            other = vparent[other]
        return -1 if other == up else self._row_of(other)

    def next_label(self, step: int = 1) -> bool:
        """Select the next (``step`` 1) or previous (-1) shown entry that has a label, wrapping."""
        rows = self._rows
        if not rows:
            return False
        labelled = self._labelled_nodes()
        if not labelled:
            return False
        here = rows[self._cursor]
        start = bisect_right(labelled, here) if step > 0 else bisect_left(labelled, here) - 1
        count = len(labelled)
        for k in range(count):
            node = labelled[(start + k * step) % count]
            row = self._row_of(node)
            if row >= 0 and node != here:
                self._cursor = row
                return True
        return False

    def _labelled_nodes(self) -> list[int]:
        if self._labelled is None:
            index = self._index
            self._labelled = sorted(node for key in self.session.labels if key in index
                                    for node in self._nodes_of_slot(index[key]))
        return self._labelled

    # ------------------------------------------------------------------ a growing session

    def update(self) -> bool:
        """Take in entries added to the session since (``Session.refresh`` or ``add``): the tree is
        rebuilt with the filter, query, folds and label-time setting kept, and the selection on
        its entry. If the selection was at the leaf and the new leaf is below the old one (the
        conversation went on), the selection follows to the new leaf. Returns (and sets
        ``followed_leaf`` to) whether it did."""
        entries = self._entries
        old_leaf = self._leaf_slot
        selected = self._selected_node
        at_leaf = selected >= 0 and selected == self._shown_ancestor(self._leaf_node)
        selected_entry = entries[self._slot[selected]] if selected >= 0 else None
        folded = [entries[self._slot[node]] for node in self._folded]
        if not self._grow_below_leaf():
            self._build()
        follow = at_leaf and self._leaf_slot != old_leaf and old_leaf >= 0 and bool(self._active[old_leaf])
        if follow:
            target = self._leaf_node
        elif selected_entry is not None:
            target = self._node_of(selected_entry.id)
        else:
            target = -1
        for entry in folded:
            node = self._node_of(entry.id)
            if node >= 0:
                self._folded.add(node)
        self._apply(target)
        self._folded = {node for node in self._folded if self._nearest[node] == node}
        self.followed_leaf = follow
        return follow

    def _shown_ancestor(self, node: int) -> int:
        """``node`` if it is shown, else its nearest shown ancestor, else -1."""
        parent, nearest = self._parent, self._nearest
        while node >= 0:
            if self._row_of(node) >= 0:
                return node
            up = parent[node]
            node = nearest[up] if up >= 0 else -1
        return -1
