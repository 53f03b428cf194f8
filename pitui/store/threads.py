"""pi's threading of the session picker's rows: forks under the session they were forked from.

Rows of the listing (:class:`ListRow`) in pi's ``threaded`` sort mode, a forest by the header's
``parentSession`` (pi 0.73.1's session selector, ``threaded`` without a query:
pi-ui-behaviour.md §1.4). Pure Python: the picker builds the rows, the list widget draws them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pitui.store.catalog import SearchHit, SessionInfo

__all__ = ["ListRow", "threaded_rows"]


@dataclass(frozen=True, slots=True)
class ListRow:
    """One session in the list: its row, its tree prefix (threaded order) and, while
    searching, where the query matched."""

    info: SessionInfo
    prefix: str = ""
    hit: SearchHit | None = None

    @property
    def path(self) -> str:
        return self.info.path


def threaded_rows(infos: Sequence[SessionInfo], canonical: Callable[[str], str]) -> list[ListRow]:
    """pi's threaded order: sessions under the session they were forked from (header
    ``parentSession``, compared as real paths), roots and siblings newest first, depth first,
    with ``├─``/``└─`` prefixes.

    Unlike pi, a session whose parent chain loops back on itself is shown (as a root) instead of
    vanishing, and deep chains cannot overflow the stack.
    """
    key_of = [canonical(info.path) for info in infos]
    index = {key: i for i, key in enumerate(key_of)}  # a later duplicate wins, as in pi's Map
    # One stable sort, newest first, then children are appended already in pi's order.
    order = sorted(range(len(infos)), key=lambda i: _newest_key(infos[i]))
    children: list[list[int]] = [[] for _ in infos]
    roots: list[int] = []
    for i in order:
        parent = infos[i].parent_session_path
        p = index.get(canonical(parent)) if isinstance(parent, str) and parent else None
        if p is None:
            roots.append(i)
        else:
            children[p].append(i)

    rows: list[ListRow] = []
    seen = bytearray(len(infos))

    def walk(start: int, last: bool) -> None:
        # (node, depth, continuation flags of its ancestors, is last child)
        stack: list[tuple[int, int, tuple[bool, ...], bool]] = [(start, 0, (), last)]
        while stack:
            node, depth, continues, is_last = stack.pop()
            if seen[node]:
                continue
            seen[node] = 1
            prefix = ""
            if depth:
                prefix = "".join("│  " if c else "   " for c in continues) + ("└─ " if is_last else "├─ ")
            rows.append(ListRow(infos[node], prefix))
            kids = children[node]
            if kids:
                flags = (*continues, depth > 0 and not is_last)
                last_kid = len(kids) - 1
                stack.extend((kids[n], depth + 1, flags, n == last_kid) for n in range(last_kid, -1, -1))

    for n, root in enumerate(roots):
        walk(root, n == len(roots) - 1)
    # Sessions only reachable through a loop of parents: roots of their own.
    for i in order:
        if not seen[i]:
            walk(i, True)
    return rows


def _newest_key(info: SessionInfo) -> float:
    m = info.modified
    return math.inf if math.isnan(m) else -m
