"""The session tree as pi's ``/tree`` navigator shows it, as plain data for a widget.

:class:`TreeModel` is the exact equivalent of pi 1.6.0's ``TreeSelectorComponent`` logic
(reference: pi-ui-behaviour.md §2, pi-session-format.md §8, and pi-1.6.md §5 U-T for what pi 1.6
changed: ``usage`` entries never shown, ``context_edit`` as bookkeeping, Ctrl+X's copy text):
the active branch sorted first,
indentation only at branch points, ``├─ └─ │`` connectors and gutters, fold glyphs, the active
path marker, labels and label times, one line of text per entry, the hidden tool-call-only
assistant messages, the five filter modes, type-to-search, folding and the segment jumps, and
where the selection goes when rows come and go. Beyond pi: jumps to the leaf, the parent, the
next or previous sibling branch and labelled entry; counts of the entries a fold or a filter
hides; following a session that grows; and Enter on the row above a hidden leaf counting as
"at the leaf" (:meth:`TreeModel.at_leaf`, pi's bug B10 fixed).

Built for sessions of 100,000 entries and chains 50,000 deep: nothing recurses, the layout lives
in flat lists indexed by node (:mod:`pitui.store.tree.structure`), rows are the sorted list of
visible nodes (so a node's row is a bisection away), a fold deletes one slice of rows and an
unfold inserts one, and a row's text is made only when it is asked for
(:mod:`pitui.store.tree.rows`). Message bodies are decoded only for rows that are shown, and for
every entry on the first search. Cursor jumps are in :mod:`pitui.store.tree.navigate`.

Threads: the model belongs to the thread that drives it (a view's UI thread). A body that was not
kept is read from the file, which a UI thread should not wait for: it draws what
:meth:`TreeModel.cached_row` has ready and has a worker thread make the rest
(:meth:`TreeModel.fill_rows`, one worker at a time), and after ``Session.refresh`` in a worker
:meth:`TreeModel.prefill_appended` reads what came in before :meth:`TreeModel.update` takes it.

Nodes are numbered in pi's display order (depth first, active branch first). An entry is
normally one node; pi lists an entry whose id is duplicated in the file once per duplicate, and
so does this model.

The text is pi's, unfiltered: callers that write it to a terminal must make it safe
(:func:`pitui.safe_text.safe_line`).
"""

from __future__ import annotations

import os
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any

from pitui.store.content import get_entry_copy_text, get_searchable_text
from pitui.store.js import js_string, js_truthy
from pitui.store.model import Entry, FileChangedError
from pitui.store.reader import Session
from pitui.store.tree import navigate
from pitui.store.tree.rows import RowText, TreeRows
from pitui.store.tree.structure import BOOKKEEPING, NEVER, TEXTLESS, Layout, TreeStructure

__all__ = ["FILTERS", "FILTER_TAGS", "TreeModel", "copy_text_of"]

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
"""pi's filter modes, in the order Ctrl+O cycles through them."""

FILTER_TAGS = {
    "default": "",
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}
"""What pi's status line adds for each mode."""

_SHOWN_BY = {  # category -> shown, per mode (labeled-only is decided by the labels)
    # USER, ASSISTANT, TEXTLESS, TOOL, OTHER, BOOKKEEPING, NEVER
    "default": (True, True, False, True, True, False, False),
    "no-tools": (True, True, False, False, True, False, False),
    "user-only": (True, False, False, False, False, False, False),
    "all": (True, True, False, True, True, True, False),
}
_HIDDEN_LABELLED = frozenset({TEXTLESS, NEVER})  # not shown in labeled-only, labelled or not
_BOOKKEEPING_OR_NEVER = frozenset({BOOKKEEPING, NEVER})  # entries that are no part of the conversation


def copy_text_of(entry: Entry) -> str | None:
    """pi's Ctrl+X text of one entry (None: none). It may read the file: a view calls it from a
    worker thread. A file changed on disk has none to give."""
    try:
        return get_entry_copy_text(entry.data)
    except FileChangedError:
        return None


def _safe_search_text(entry: Entry) -> str:
    try:
        return get_searchable_text(entry)
    except FileChangedError:  # the file was rewritten under us: nothing to find in this entry
        return ""


class TreeModel:
    """pi's ``/tree`` over one :class:`Session`: visible rows, their text, and the cursor.

    Rows are numbered from 0 (``len(model)`` of them); ``cursor`` is the selected row (0 when
    there are none). Every change keeps the selection on the same entry if it is still shown,
    else on its nearest shown ancestor, else on the last row, as pi does. ``version`` goes up
    whenever rows or their text change, so a view knows when to redraw more than the cursor.

    ``home`` shortens paths in tool calls (default ``$HOME``, as pi); ``now`` and ``tz`` decide
    how label times are written (defaults: the clock and the local time zone).
    """

    def __init__(
        self,
        session: Session,
        *,
        filter_mode: str = "default",
        selected_id: Any = None,
        home: str | None = None,
        now: Callable[[], datetime] | None = None,
        tz: tzinfo | None = None,
    ) -> None:
        self.session = session
        if home is None:
            home = os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""
        self._filter = filter_mode if filter_mode in FILTERS else "default"
        self._query = ""
        self._tokens: list[str] = []
        self.version = 0
        self.followed_leaf = False
        self._base_texts: dict[Entry, str] = {}  # search text per entry, once searched
        self._tree = TreeStructure(session)
        self._layout = Layout()
        self._text = TreeRows(session, self._tree, self._layout, home=home, now=now or datetime.now, tz=tz)
        self._reset_layout()
        target = self._tree.leaf_node if selected_id is None else self._tree.node_of(selected_id)
        self._apply(target)

    @property
    def home(self) -> str:
        """Where paths in tool calls are shortened to ``~``."""
        return self._text.home

    def _reset_layout(self, *, text: bool = True) -> None:
        """What is derived from the tree's structure, emptied: laid out again by the next
        ``_apply`` (the rows' text too, with ``text``)."""
        self._search: list[str] | None = None
        self._labelled: list[int] | None = None
        if text:
            self._text.reset()
        self._layout.reset(len(self._tree.parent))
        self._cursor = 0
        self._remembered = -1  # the selection kept while no row is shown

    # ------------------------------------------------------------------ filtering and layout

    def _visible(self) -> list[bool]:
        """Which nodes pass the hidden-assistant rule, the filter mode and the query."""
        category = self._tree.category
        if self._filter == "labeled-only":
            labels = self.session.labels
            entries, slots = self._tree.entries, self._tree.slot
            visible = [
                c not in _HIDDEN_LABELLED and entries[s].id in labels for c, s in zip(category, slots, strict=True)
            ]
        else:
            shown = _SHOWN_BY[self._filter]
            visible = [shown[c] for c in category]
        if self._tokens:
            texts = self._search_texts()
            for token in self._tokens:
                visible = [v and token in t for v, t in zip(visible, texts, strict=True)]
        return visible

    def _lay_out(self) -> None:
        """pi's ``recalculateVisualStructure`` over the visible nodes."""
        self._layout.fill(self._tree, self._visible())
        self._text.relaid()
        self.version += 1

    def _apply(self, target: int) -> None:
        """Lay out again and put the cursor on ``target`` (a node) or where pi would."""
        self._lay_out()
        self._select_node(target)

    def _select_node(self, node: int) -> None:
        """The cursor on ``node``, else on its nearest shown ancestor, else on the last row."""
        layout = self._layout
        rows = layout.rows
        if not rows:
            if node >= 0:
                self._remembered = node
            self._cursor = 0
            return
        self._remembered = -1
        if self._tree.duplicates and node >= 0:
            self._cursor = self._row_by_id_walk(self._tree.slot[node])
            return
        parent, nearest, row_of = self._tree.parent, layout.nearest, layout.row_of
        while node >= 0:
            row = row_of(node)
            if row >= 0:
                self._cursor = row
                return
            up = parent[node]
            node = nearest[up] if up >= 0 else -1
        self._cursor = len(rows) - 1

    def _row_by_id_walk(self, slot: int | None) -> int:
        """pi's walk by id, which matters when ids are duplicated (pi lists such an entry once per
        duplicate): the last row showing the entry, else the same for its parent id, and so on."""
        tree = self._tree
        entries = tree.entries
        seen: set[int] = set()
        while slot is not None and slot not in seen:
            seen.add(slot)
            rows = [row for row in map(self._layout.row_of, tree.nodes_of_slot(slot)) if row >= 0]
            if rows:
                return rows[-1]
            parent_id = entries[slot].parent_id
            slot = tree.slot_of_id(parent_id) if parent_id is not None else None
        return len(self._layout.rows) - 1

    @property
    def _selected_node(self) -> int:
        rows = self._layout.rows
        if not rows:
            return self._remembered
        return rows[self._cursor]

    # ------------------------------------------------------------------ search texts

    @property
    def search_ready(self) -> bool:
        """Whether a search can start without decoding every entry first."""
        return self._search is not None or len(self._base_texts) >= len(self._tree.entries)

    def prepare_search(self) -> None:
        """Decode every entry's searchable text (slow once on a big session). It only fills a
        cache, so a view may run it in a worker thread and search when it is done."""
        cache = self._base_texts
        for entry in list(self._tree.entries):
            if entry not in cache:
                cache[entry] = _safe_search_text(entry)

    def _search_texts(self) -> list[str]:
        """Each node's searchable text: its label, then the entry's text, lower-cased."""
        if self._search is None:
            cache = self._base_texts
            labels = self.session.labels
            entries = self._tree.entries
            texts: list[str] = []
            for slot in self._tree.slot:
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
        return len(self._layout.rows)

    @property
    def filter_mode(self) -> str:
        return self._filter

    @property
    def query(self) -> str:
        return self._query

    @property
    def show_label_times(self) -> bool:
        return self._text.label_times

    @property
    def cursor(self) -> int:
        """The selected row (0 when there are no rows)."""
        return self._cursor

    @property
    def selected_id(self) -> Any:
        """The selected entry's id, or None when no row is shown."""
        entry = self.selected_entry
        return None if entry is None else entry.id

    @property
    def selected_entry(self) -> Entry | None:
        rows = self._layout.rows
        return self._tree.entries[self._tree.slot[rows[self._cursor]]] if rows else None

    @property
    def leaf_id(self) -> Any:
        return self.session.leaf_id

    def entry_at(self, row: int) -> Entry:
        return self._tree.entries[self._tree.slot[self._layout.rows[row]]]

    def entry_id_at(self, row: int) -> Any:
        return self.entry_at(row).id

    def row_of_id(self, entry_id: Any) -> int:
        """The row showing that entry, or -1."""
        node = self._tree.node_of(entry_id)
        return -1 if node < 0 else self._layout.row_of(node)

    def is_folded(self, row: int) -> bool:
        return self._layout.rows[row] in self._layout.folded

    def is_foldable(self, row: int) -> bool:
        """pi's rule: it has shown children, and is a root or the start of a branch."""
        return self._layout.foldable(self._layout.rows[row])

    def hidden_counts(self, row: int) -> tuple[int, int]:
        """``(folded, filtered)``: how many rows the fold at this row hides (0 if not folded), and
        how many entries the filter or query hides whose nearest shown ancestor is this row."""
        layout = self._layout
        node = layout.rows[row]
        folded = 0
        if node in layout.folded:
            rows = layout.all_rows
            start = bisect_right(rows, node)
            folded = bisect_left(rows, self._tree.end[node], start) - start
        return folded, layout.hidden[node]

    @property
    def status_text(self) -> str:
        """pi's status line: ``(3/17) [no-tools] [+label time]``."""
        count = len(self._layout.rows)
        selected = self._cursor + 1 if count else 0
        label_time = " [+label time]" if self._text.label_times else ""
        return f"({selected}/{count}){FILTER_TAGS[self._filter]}{label_time}"

    def row(self, row: int) -> RowText:
        """The text of one row, as pi draws it without the cursor column. It may read the file
        (a body that was not kept): a UI thread asks :meth:`cached_row` instead."""
        return self._text.row(self._layout.rows[row])

    def cached_row(self, row: int) -> RowText | None:
        """The text of one row if it is ready: made before, or made now without reading the
        file. None until :meth:`fill_rows` has read what it needs."""
        return self._text.cached_row(self._layout.rows[row])

    def row_head(self, row: int) -> RowText:
        """One row without the entry's own text (gutters, connector, markers, label), which
        never needs the file: what a view draws while the text is read."""
        return self._text.head_row(self._layout.rows[row])

    def rows_ready(self, start: int, end: int) -> bool:
        """Whether every row from ``start`` up to ``end`` has its text ready (see
        :meth:`cached_row`)."""
        content = self._text.content
        return all(content(node, read=False) is not None for node in self._layout.rows[max(0, start) : max(0, end)])

    @property
    def ready_mark(self) -> tuple[int, int]:
        """Changes whenever a row that was ready (:meth:`rows_ready`) may no longer be: the rows
        changed, or texts were forgotten to keep the cache small."""
        return self.version, self._text.dropped

    def fill_rows(self, start: int, end: int) -> None:
        """Read and decode what the rows from ``start`` up to ``end`` need, so that
        :meth:`cached_row` has their text. Safe to call from one worker thread while the model's
        own thread goes on using it (rows that move meanwhile may be missed: ask again)."""
        self._text.fill(self._layout.rows[max(0, start) : max(0, end)])

    def prefill_appended(self, start: int) -> None:
        """After ``Session.refresh`` in a worker thread, before :meth:`update` on the model's own
        thread: decode the entries from number ``start`` on (the ones that came in), so that
        their rows and the search have their text without reading the file."""
        self._text.prefill(start)
        if self._tokens:  # a search is on: update() searches the new entries too
            self.prepare_search()

    def format_label_time(self, stamp: Any) -> str:
        """pi's label time: ``HH:MM`` today, ``M/D HH:MM`` this year, else ``YY/M/D HH:MM``, in
        the local time zone (``tz``)."""
        return self._text.format_label_time(stamp)

    def entry_text(self, entry_id: Any) -> str:
        """An entry's one-line text as its row shows it (without gutter, label or markers)."""
        node = self._tree.node_of(entry_id)
        return "".join(text for text, _ in self._text.content(node) or ()) if node >= 0 else ""

    def copy_text(self) -> str | None:
        """What pi's Ctrl+X copies of the selected entry (:func:`~pitui.store.content.get_entry_copy_text`:
        its whole text), or None when there is none (or no row). It may read the file."""
        entry = self.selected_entry
        return None if entry is None else copy_text_of(entry)

    def at_leaf(self) -> bool:
        """Whether choosing the selected row leaves the conversation where it is: the row is the
        leaf, or the leaf is a bookkeeping entry the filter mode hides (a ``usage`` entry, a
        label, a context edit, a model change...) and this row is the nearest entry shown above
        it, with only such entries in between. pi's B10, fixed: pi moves the leaf up past those
        entries and asks whether to summarise them. A message in between (hidden by the mode, the
        search or a fold) makes choosing the row a move, as in pi."""
        rows = self._layout.rows
        tree = self._tree
        node = tree.leaf_node
        if not rows or node < 0:
            return False
        selected = tree.slot[rows[self._cursor]]
        parent, slots, category = tree.parent, tree.slot, tree.category
        while node >= 0 and slots[node] != selected:
            if category[node] not in _BOOKKEEPING_OR_NEVER or self._mode_shows(node):
                return False
            node = parent[node]
        return node >= 0

    def _mode_shows(self, node: int) -> bool:
        """Whether the filter mode alone (no search, no fold) shows ``node``."""
        category = self._tree.category[node]
        if self._filter == "labeled-only":
            return (
                category not in _HIDDEN_LABELLED and self._tree.entries[self._tree.slot[node]].id in self.session.labels
            )
        return _SHOWN_BY[self._filter][category]

    # ------------------------------------------------------------------ filter, query, labels

    def _refilter(self) -> None:
        """pi's ``applyFilter`` after a filter or query change: folds cleared, selection kept."""
        node = self._selected_node
        self._layout.folded.clear()
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
        self._text.label_times = not self._text.label_times
        self._text.relaid()
        self.version += 1

    # ------------------------------------------------------------------ folding

    def fold(self, row: int | None = None) -> bool:
        """Fold the node at ``row`` (default: the cursor) if it is foldable."""
        row = self._cursor if row is None else row
        layout = self._layout
        if not layout.rows:
            return False
        node = layout.rows[row]
        if not layout.foldable(node):
            return False
        selected = self._selected_node
        rows = layout.rows
        del rows[row + 1 : bisect_left(rows, self._tree.end[node], row)]
        layout.folded.add(node)
        self._changed_rows(node, selected)
        return True

    def unfold(self, row: int | None = None) -> bool:
        """Unfold the folded node at ``row`` (default: the cursor); folds inside it stay."""
        row = self._cursor if row is None else row
        layout = self._layout
        if not layout.rows:
            return False
        node = layout.rows[row]
        if node not in layout.folded:
            return False
        selected = self._selected_node
        layout.folded.discard(node)
        everything = layout.all_rows
        end = self._tree.end
        start = bisect_right(everything, node)
        inside = everything[start : bisect_left(everything, end[node], start)]
        if layout.folded and inside:
            inside = layout.without_folds(inside, end)
        layout.rows[row + 1 : row + 1] = inside
        self._changed_rows(node, selected)
        return True

    def _changed_rows(self, node: int, selected: int) -> None:
        """After a fold or unfold of ``node``: only its own glyph changed, and the cursor follows
        the selected node (or the fold that swallowed it)."""
        self._text.forget(node)
        self._select_node(selected)
        self.version += 1

    def fold_or_up(self) -> None:
        """pi's Ctrl+←: fold the selected node, or jump to the previous branch-segment start."""
        if not self._layout.rows:
            return
        if not self.fold():
            self._cursor = navigate.segment_start_up(self._layout, self._cursor)

    def unfold_or_down(self) -> None:
        """pi's Ctrl+→: unfold the selected node, or jump to the next segment start (or the end of
        the branch)."""
        if not self._layout.rows:
            return
        if not self.unfold():
            self._cursor = navigate.segment_start_down(self._layout, self._cursor)

    # ------------------------------------------------------------------ moving the cursor

    def move(self, delta: int, *, wrap: bool = False) -> None:
        count = len(self._layout.rows)
        if count:
            self._cursor = navigate.moved(self._cursor, count, delta, wrap)

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
        self._cursor = max(0, len(self._layout.rows) - 1)

    def select_row(self, row: int) -> None:
        if self._layout.rows:
            self._cursor = max(0, min(len(self._layout.rows) - 1, row))

    def select(self, entry_id: Any) -> bool:
        """Select that entry, or its nearest shown ancestor; False if it is not in the tree."""
        node = self._tree.node_of(entry_id)
        if node < 0 or not self._layout.rows:
            return False
        self._select_node(node)
        return True

    def jump_to_leaf(self) -> bool:
        """Select the current leaf (or its nearest shown ancestor)."""
        if self._tree.leaf_node < 0 or not self._layout.rows:
            return False
        self._select_node(self._tree.leaf_node)
        return True

    def _go(self, row: int) -> bool:
        """The cursor to ``row`` if there is one (``row`` >= 0)."""
        if row < 0:
            return False
        self._cursor = row
        return True

    def jump_to_parent(self) -> bool:
        """Select the nearest shown ancestor of the selected entry."""
        return bool(self._layout.rows) and self._go(navigate.parent_row(self._layout, self._cursor))

    def next_sibling(self, step: int = 1) -> bool:
        """Select the start of the next (``step`` 1) or previous (-1) branch beside the one the
        cursor is in (see :func:`~pitui.store.tree.navigate.sibling_row`)."""
        return bool(self._layout.rows) and self._go(navigate.sibling_row(self._layout, self._tree, self._cursor, step))

    def next_label(self, step: int = 1) -> bool:
        """Select the next (``step`` 1) or previous (-1) shown entry that has a label, wrapping."""
        if not self._layout.rows:
            return False
        labelled = self._labelled_nodes()
        return bool(labelled) and self._go(navigate.label_row(self._layout, labelled, self._cursor, step))

    def _labelled_nodes(self) -> list[int]:
        if self._labelled is None:
            tree = self._tree
            slots = [tree.slot_of_id(key) for key in self.session.labels]
            self._labelled = sorted(node for slot in slots if slot is not None for node in tree.nodes_of_slot(slot))
        return self._labelled

    # ------------------------------------------------------------------ a growing session

    def update(self) -> bool:
        """Take in entries added to the session since (``Session.refresh`` or ``add``): the tree is
        rebuilt with the filter, query, folds and label-time setting kept, and the selection on
        its entry. If the selection was at the leaf and the new leaf is below the old one (the
        conversation went on), the selection follows to the new leaf. Returns (and sets
        ``followed_leaf`` to) whether it did."""
        tree = self._tree
        entries = tree.entries
        old_leaf = tree.leaf_slot
        selected = self._selected_node
        at_leaf = selected >= 0 and selected == self._shown_ancestor(tree.leaf_node)
        selected_entry = entries[tree.slot[selected]] if selected >= 0 else None
        folded = [entries[tree.slot[node]] for node in self._layout.folded]
        with self._text.lock:  # a worker may be making rows' text from the tree
            before = tree.built
            grew = tree.grow_below_leaf()
            if not grew:
                tree.build()
            self._text.tree_changed(rebuilt=not grew, before=before)
        self._reset_layout(text=False)
        follow = at_leaf and tree.leaf_slot != old_leaf and old_leaf >= 0 and bool(tree.active[old_leaf])
        if follow:
            target = tree.leaf_node
        elif selected_entry is not None:
            target = tree.node_of(selected_entry.id)
        else:
            target = -1
        layout = self._layout
        for entry in folded:
            node = tree.node_of(entry.id)
            if node >= 0:
                layout.folded.add(node)
        self._apply(target)
        layout.folded = {node for node in layout.folded if layout.nearest[node] == node}
        self.followed_leaf = follow
        return follow

    def _shown_ancestor(self, node: int) -> int:
        """``node`` if it is shown, else its nearest shown ancestor, else -1."""
        parent, nearest = self._tree.parent, self._layout.nearest
        while node >= 0:
            if self._layout.row_of(node) >= 0:
                return node
            up = parent[node]
            node = nearest[up] if up >= 0 else -1
        return -1
