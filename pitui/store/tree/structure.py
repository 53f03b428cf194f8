"""The session tree's shape as flat arrays: pi's ``getTree`` order, and the layout a filter leaves.

:class:`TreeStructure` numbers the nodes in pi's display order (depth first, the active branch
first, children by time as ``getTree`` sorts them), cuts the loops duplicated ids can make, and
gives each node its category for the filters. :class:`Layout` is pi's
``recalculateVisualStructure`` over the nodes a filter shows: visible parents, indents,
connectors and gutters.

Nothing recurses and the loops are written flat on purpose: a call per entry would cost more
than the rest (``bench/tree_bench.py``: ``build`` and ``filter`` on 100,000 entries and a
50,000-deep chain).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from pitui.store.js import MISSING, js_truthy
from pitui.store.model import Entry, _sort_children
from pitui.store.reader import Session

__all__ = ["ASSISTANT", "BOOKKEEPING", "NEVER", "OTHER", "TEXTLESS", "TOOL", "USER", "Layout", "TreeStructure"]

# Node categories, for the filters. NEVER: pi 1.6 hides it in every mode, even as the leaf or
# labelled (a ``usage`` entry: the first test of its applyFilter).
USER, ASSISTANT, TEXTLESS, TOOL, OTHER, BOOKKEEPING, NEVER = range(7)
_BOOKKEEPING_TYPES = frozenset(
    {"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"}
)
_NEVER_TYPE = "usage"
_ROLE_CATEGORY = {"user": USER, "assistant": ASSISTANT, "toolResult": TOOL}


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
        return [
            (TEXTLESS if e.textless else role_category(e.role, OTHER))
            if e.type == "message"
            else BOOKKEEPING
            if e.type in _BOOKKEEPING_TYPES
            else NEVER
            if e.type == _NEVER_TYPE
            else OTHER
            for e in entries
        ]
    except TypeError:  # a role or type that is a JSON array or object
        return [_category(e) for e in entries]


def _category(entry: Entry) -> int:
    kind = entry.type
    if kind == "message":
        role = entry.role
        if role == "user":
            return USER
        if role == "assistant":
            return TEXTLESS if entry.textless else ASSISTANT
        return TOOL if role == "toolResult" else OTHER
    if kind == _NEVER_TYPE:
        return NEVER
    return BOOKKEEPING if type(kind) is str and kind in _BOOKKEEPING_TYPES else OTHER


class TreeStructure:
    """The tree of one session in pi's display order, before any filter.

    ``slot`` (node -> entry number) and ``parent`` (node -> parent node, -1 for a root), plus
    what the filters need per node (``category``) and the active path (``active``, per entry).
    Nodes are numbered depth first, so a subtree is a range of numbers. ``only`` holds each
    entry's child as getTree placed it: -1 none, -2 several (kept to take in appends).
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self._slot_categories: list[int] = []
        self._categorised: list[Entry] | None = None
        self.build()

    def build(self) -> None:
        """Number the nodes again from the session's entries as they are now."""
        session = self.session
        entries = session.entries
        count = len(entries)
        # The session's numbers (made once: at 1,000,000 entries each pass over an id map costs
        # half a second, and a copy of the map 40 MB). The map takes in what is appended before
        # the tree does: an id numbered `built` or above is not in the tree yet (`slot_of_id`).
        slots = session.slot_map()
        index = slots.index
        duplicates = len(index) < count
        # Children as pi's getTree places them: one child in `only`, several in `several`.
        only = [-1] * count  # -1: none, -2: several
        several: dict[int, list[int]] = {}
        roots: list[int] = []
        up_slot: list[Any] = slots.up
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

        # Depth first, iteratively. A single-child chain (nearly everything) is walked in one
        # tight loop, and its nodes' parents are a range: at 1,000,000 entries the loop's cost
        # per node is most of the build.
        slot_of: list[int] = []
        parent: list[int] = []
        add_slot = slot_of.append
        stack: list[tuple[int, int]] = [(r, -1) for r in reversed(roots)]
        pop, push = stack.pop, stack.append
        while stack:
            slot, up = pop()
            start = len(slot_of)
            add_slot(slot)
            child = only[slot]
            while child >= 0:
                add_slot(child)
                slot = child
                child = only[child]
            end = len(slot_of)
            parent.append(up)
            parent.extend(range(start, end - 1))
            if child == -2:  # several children: the first is walked next
                for k in reversed(several[slot]):
                    push((k, end - 1))

        self.entries = entries
        self.index = index
        self.slot = slot_of
        self.parent = parent
        self.active = active
        self.leaf_slot = leaf_slot
        self.duplicates = duplicates
        self._ends: list[int] | None = None
        self._node_by_slot: list[int] | None = None
        # An entry's category never changes: after an append only the new entries are sorted in.
        known = self._slot_categories if self._categorised is entries else []
        if len(known) < count:
            known = known + _categories(entries[len(known) :])
        self._slot_categories, self._categorised = known, entries
        category = list(map(known.__getitem__, slot_of))
        leaf_node = -1
        if leaf_slot >= 0 and leaf_slot in slot_of:
            leaf_node = slot_of.index(leaf_slot)  # in C: faster than a map of every node
            if category[leaf_node] == TEXTLESS:
                # pi always shows the leaf, whatever its content.
                for node in self.nodes_of_slot(leaf_slot):
                    category[node] = ASSISTANT
        self.category = category
        self.leaf_node = leaf_node
        self.only, self.built = only, count

    def grow_below_leaf(self) -> bool:
        """Take in the common append without building the tree again: new entries in a chain
        under the leaf, which had no children (pi writing on; a label or a name, which hang
        off the leaf). The leaf stays on the active path, so no branch point changes its order:
        the chain's nodes go in right after the leaf's node. False when the append is not that."""
        entries = self.entries
        built = self.built
        leaf_slot, leaf_node = self.leaf_slot, self.leaf_node
        if (
            self.session.entries is not entries
            or len(entries) <= built
            or self.duplicates
            or leaf_slot < 0
            or leaf_node < 0
            or self.only[leaf_slot] != -1
        ):
            return False
        new = entries[built:]
        parent_id = entries[leaf_slot].id
        for entry in new:
            if entry.parent_id != parent_id or entry.id is None or entry.id is MISSING:
                return False
            parent_id = entry.id
        if self.session.leaf_id != parent_id or not js_truthy(parent_id):
            return False  # (a falsy leaf id: a rebuild marks no active path)
        if self.session.slot_map().index is not self.index:
            # Numbered again, not taken in: a new id was taken before, or an earlier entry named
            # it as its missing parent (that entry moves under it: the tree is built again).
            return False
        count = len(new)
        self.only[leaf_slot] = built
        self.only.extend([*range(built + 1, built + count), -1])
        self.slot[leaf_node + 1 : leaf_node + 1] = range(built, built + count)
        parent = [up + count if up > leaf_node else up for up in self.parent]
        parent[leaf_node + 1 : leaf_node + 1] = range(leaf_node, leaf_node + count)
        self.parent = parent
        self.active.extend(b"\x01" * count)
        known = self._slot_categories = self._slot_categories + _categories(new)
        category = self.category
        category[leaf_node] = known[leaf_slot]  # no longer the leaf: pi's rule for it ends
        category[leaf_node + 1 : leaf_node + 1] = known[built:]
        self.leaf_slot, self.leaf_node = built + count - 1, leaf_node + count
        if category[self.leaf_node] == TEXTLESS:
            category[self.leaf_node] = ASSISTANT
        self.built = built + count
        self._ends = None
        self._node_by_slot = None
        return True

    @property
    def end(self) -> list[int]:
        """Node -> the end of its subtree (exclusive), made when first needed (folds, jumps)."""
        ends = self._ends
        if ends is None:
            parent = self.parent
            ends = list(range(1, len(parent) + 1))
            for node in range(len(parent) - 1, 0, -1):
                up = parent[node]
                if up >= 0 and ends[node] > ends[up]:
                    ends[up] = ends[node]
            self._ends = ends
        return ends

    def node_of_slot(self, slot: int) -> int:
        """The (first) node showing entry number ``slot``, or -1 (an entry in a parentId cycle
        is reachable from no root)."""
        nodes = self._node_by_slot
        if nodes is None:
            nodes = [-1] * len(self.entries)
            slots = self.slot
            for node in range(len(slots) - 1, -1, -1):
                nodes[slots[node]] = node
            self._node_by_slot = nodes
        return nodes[slot]

    def nodes_of_slot(self, slot: int) -> list[int]:
        """Every node showing entry number ``slot`` (several only for a duplicated id)."""
        if self.duplicates:
            return [node for node, s in enumerate(self.slot) if s == slot]
        node = self.node_of_slot(slot)
        return [node] if node >= 0 else []

    def slot_of_id(self, entry_id: Any) -> int | None:
        """The number of the entry ``entry_id`` names, if the tree has taken it in."""
        slot = self.index.get(entry_id)
        return slot if slot is not None and slot < self.built else None

    def node_of(self, entry_id: Any) -> int:
        slot = self.slot_of_id(entry_id)
        return -1 if slot is None else self.node_of_slot(slot)


class Layout:
    """pi's ``recalculateVisualStructure`` per node, for the nodes a filter shows, and the folds.

    ``rows`` are the shown nodes in order, less what folds hide (``all_rows`` with them), so a
    node's row is a bisection away. ``vparent`` is the nearest shown ancestor (-1: a root),
    ``nearest`` a node itself if shown else that ancestor, ``kids`` the shown children and
    ``last_kid`` the last of them, ``hidden`` how many hidden nodes have it as nearest shown
    ancestor. ``connector`` is pi's showConnector (= justBranched); ``gutters`` are the ``│``
    columns a row draws, ``child_gutters`` those its children inherit.
    """

    __slots__ = (
        "all_rows",
        "child_gutters",
        "connector",
        "folded",
        "gutters",
        "hidden",
        "indent",
        "kids",
        "last_kid",
        "multiple_roots",
        "nearest",
        "roots",
        "rows",
        "vparent",
    )

    def __init__(self, size: int = 0) -> None:
        self.reset(size)

    def reset(self, size: int) -> None:
        """Emptied for ``size`` nodes, folds cleared: laid out again by the next :meth:`fill`."""
        self.indent = [0] * size
        self.connector = [False] * size
        self.gutters: list[tuple[tuple[int, bool], ...]] = [()] * size
        self.child_gutters: list[tuple[tuple[int, bool], ...]] = [()] * size
        self.vparent = [-1] * size
        self.nearest = [-1] * size
        self.kids = [0] * size
        self.last_kid = [-1] * size
        self.hidden = [0] * size
        self.all_rows: list[int] = []
        self.rows: list[int] = []
        self.roots: list[int] = []
        self.multiple_roots = False
        self.folded: set[int] = set()

    def fill(self, tree: TreeStructure, visible: list[bool]) -> None:
        """Lay out the ``visible`` nodes of ``tree`` in two linear passes: visible parents and
        child counts, then indents, connectors and gutters. Folds stay."""
        parent = tree.parent
        nearest, vparent, last_kid = self.nearest, self.vparent, self.last_kid
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
        indent, connector = self.indent, self.connector
        gutters, child_gutters = self.gutters, self.child_gutters
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
        self.kids = kids
        self.hidden = hidden
        self.all_rows = rows
        self.rows = self.without_folds(rows, tree.end) if self.folded else rows.copy()  # folds cut this one
        self.roots = roots
        self.multiple_roots = multiple

    def without_folds(self, rows: list[int], end: list[int]) -> list[int]:
        """``rows`` minus the descendants of folded nodes (``end``: the tree's subtree ends)."""
        kept: list[int] = []
        position = 0
        for node in sorted(self.folded):
            start = bisect_left(rows, node, position)
            if start >= len(rows) or rows[start] != node:
                continue  # not visible, or inside a fold already cut
            kept.extend(rows[position : start + 1])
            position = bisect_left(rows, end[node], start)
        kept.extend(rows[position:])
        return kept

    def row_of(self, node: int) -> int:
        """The row showing ``node``, or -1."""
        rows = self.rows
        row = bisect_left(rows, node)
        return row if row < len(rows) and rows[row] == node else -1

    def foldable(self, node: int) -> bool:
        """pi's rule: not folded, it has shown children, and is a root or the start of a branch."""
        if node in self.folded or not self.kids[node]:
            return False
        up = self.vparent[node]
        return up < 0 or self.kids[up] > 1
