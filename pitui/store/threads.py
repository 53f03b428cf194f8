"""pi's threading of the session picker's rows: forks under the session they were forked from.

Rows of the listing (:class:`ListRow`) in pi's ``threaded`` sort mode, a forest by the header's
``parentSession`` (pi 1.6.0's session selector, ``threaded`` without a query: pi-1.6.md U-R4).
Pure Python: the picker builds the rows, the list widget draws them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from msgspec import Struct

from pitui.store.catalog import SearchHit, SessionInfo

__all__ = ["ListRow", "threaded_rows"]


class ListRow(Struct, frozen=True):
    """One session in the list: its row, its tree prefix (threaded order) and, while
    searching, where the query matched."""

    info: SessionInfo
    prefix: str = ""
    hit: SearchHit | None = None

    @property
    def path(self) -> str:
        return self.info.path


def threaded_rows(infos: Sequence[SessionInfo], canonical: Callable[[str], str]) -> list[ListRow]:
    """pi 1.6's threaded order (``buildSessionTree``): sessions under the session they were
    forked from (header ``parentSession``, compared by ``canonical``: real paths, case-folded
    on Windows), roots and siblings by the latest ``modified`` in their subtree, newest first
    (ties in the listing's order), depth first, with ``├─``/``└─`` prefixes.

    Unlike pi, a session whose parent chain loops back on itself (or names itself) is shown,
    as a root, instead of vanishing (pi-1.6.md B8), and deep chains cannot overflow the stack.
    """
    key_of = [canonical(info.path) for info in infos]
    index = {key: i for i, key in enumerate(key_of)}  # a later duplicate wins, as in pi's Map
    children: list[list[int]] = [[] for _ in infos]
    roots: list[int] = []
    for i, info in enumerate(infos):
        parent = info.parent_session_path
        p = index.get(canonical(parent)) if isinstance(parent, str) and parent else None
        if p is None:
            roots.append(i)
        else:
            children[p].append(i)
    latest = _latest_in_subtree(infos, children)

    def newest_first(nodes: list[int]) -> None:
        nodes.sort(key=lambda n: -latest[n])

    newest_first(roots)
    for kids in children:
        newest_first(kids)

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
    for i in sorted(range(len(infos)), key=lambda n: -latest[n]):
        if not seen[i]:
            walk(i, True)
    return rows


def _latest_in_subtree(infos: Sequence[SessionInfo], children: list[list[int]]) -> list[float]:
    """Per session, the latest ``modified`` of it and every session below it (a time that is
    not a number counts as the oldest). Iterative, and a loop of parents is followed once."""
    latest = [-math.inf if math.isnan(m := info.modified) else m for info in infos]
    state = bytearray(len(infos))  # 0 not seen, 1 below on the stack, 2 done
    for start in range(len(infos)):
        if state[start]:
            continue
        stack = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                for kid in children[node]:
                    latest[node] = max(latest[node], latest[kid])
                state[node] = 2
                continue
            if state[node]:
                continue
            state[node] = 1
            stack.append((node, True))
            stack.extend((kid, False) for kid in children[node] if not state[kid])
    return latest
