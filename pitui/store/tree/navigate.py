"""Where the cursor of pi's ``/tree`` goes: moves, segment jumps, sibling branches and labels.

Each function takes the layout and the cursor row and gives the row to go to (-1: nowhere);
:class:`~pitui.store.tree.model.TreeModel` moves its cursor there. pi has the moves and the
segment jumps (Ctrl+←/→); the sibling and label jumps are pitui's.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from pitui.store.tree.structure import Layout, TreeStructure

__all__ = ["label_row", "moved", "parent_row", "segment_start_down", "segment_start_up", "sibling_row"]


def moved(cursor: int, count: int, delta: int, wrap: bool) -> int:
    """``delta`` rows from ``cursor`` among ``count``: wrapping round (pi's ↑/↓), or stopping at
    the ends (paging)."""
    target = cursor + delta
    return target % count if wrap else max(0, min(count - 1, target))


def segment_start_up(layout: Layout, cursor: int) -> int:
    """pi's Ctrl+← when nothing folds: the start of the branch segment above the cursor."""
    vparent, kids = layout.vparent, layout.kids
    node = layout.rows[cursor]
    while True:
        up = vparent[node]
        if up < 0:
            return layout.row_of(node)
        if kids[up] > 1:
            row = layout.row_of(node)
            if row < cursor:
                return row
        node = up


def segment_start_down(layout: Layout, cursor: int) -> int:
    """pi's Ctrl+→ when nothing unfolds: the next segment start, or the end of the branch."""
    rows, kids, folded = layout.rows, layout.kids, layout.folded
    row = cursor
    while True:
        node = rows[row]
        count = 0 if node in folded else kids[node]
        if count == 0:
            return row
        if count > 1:
            return row + 1  # the first child follows its parent
        row += 1


def parent_row(layout: Layout, cursor: int) -> int:
    """The row of the nearest shown ancestor of the cursor's entry, or -1."""
    up = layout.vparent[layout.rows[cursor]]
    return -1 if up < 0 else layout.row_of(up)


def sibling_row(layout: Layout, tree: TreeStructure, cursor: int, step: int) -> int:
    """The start of the next (``step`` 1) or previous (-1) branch beside the one the cursor is
    in: the nearest branch point above it (or the roots, when there are several) decides; if
    there is no such branch there, the next branch point further up is tried. -1: none."""
    vparent, kids = layout.vparent, layout.kids
    node = layout.rows[cursor]
    while node >= 0:
        up = vparent[node]
        if (up < 0 and len(layout.roots) > 1) or (up >= 0 and kids[up] > 1):
            row = _next_shown_sibling(layout, tree, node, up) if step > 0 else _previous_shown_sibling(layout, node, up)
            if row >= 0:
                return row
        node = up
    return -1


def _next_shown_sibling(layout: Layout, tree: TreeStructure, node: int, up: int) -> int:
    # The first row after a node's subtree is its next sibling, if it has the same parent.
    rows = layout.rows
    row = bisect_left(rows, tree.end[node])
    return row if row < len(rows) and layout.vparent[rows[row]] == up else -1


def _previous_shown_sibling(layout: Layout, node: int, up: int) -> int:
    # The row above a node is its parent (no previous sibling) or in the previous
    # sibling's subtree: climb to the child of `up`.
    row = layout.row_of(node) - 1
    if row < 0:
        return -1
    other = layout.rows[row]
    vparent = layout.vparent
    while other != up and vparent[other] != up:
        other = vparent[other]
    return -1 if other == up else layout.row_of(other)


def label_row(layout: Layout, labelled: list[int], cursor: int, step: int) -> int:
    """The row of the next (``step`` 1) or previous (-1) shown node among ``labelled`` (sorted),
    wrapping round; -1 when there is none but the cursor's."""
    here = layout.rows[cursor]
    start = bisect_right(labelled, here) if step > 0 else bisect_left(labelled, here) - 1
    count = len(labelled)
    for k in range(count):
        node = labelled[(start + k * step) % count]
        row = layout.row_of(node)
        if row >= 0 and node != here:
            return row
    return -1
