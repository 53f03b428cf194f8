"""A session's entries as integers: each id's entry number and each entry's parent's number.

The tree is built over these numbers (:class:`pitui.store.tree.structure.TreeStructure`), and a
walk from an entry up to the root follows them instead of looking each parent up by its id: at
1,000,000 entries a lookup in a dict of that size costs about half a microsecond on a small
machine, so a walk of the active branch took 0.65 s where following the numbers takes a tenth
of that.

The numbers follow the id map's rules (:attr:`Session.by_id <pitui.store.reader.Session>`): an
id names the last entry with it, and a parentId no entry has gives no parent. A map is made
for one list of entries and follows it as it grows (pi appending); it is made again when an
append could change an earlier entry's parent (a new entry takes an id an earlier one has, or
one an earlier entry named as its missing parent).
"""

from __future__ import annotations

import operator
import threading
from itertools import compress, islice, repeat
from typing import Any

from pitui.store.js import MISSING
from pitui.store.model import Entry

__all__ = ["SlotMap"]

_ID = operator.attrgetter("id")
_PARENT = operator.attrgetter("parent_id")


class SlotMap:
    """``index``: id -> entry number; ``up``: entry number -> its parent's number, or None."""

    __slots__ = ("_dangling", "_growing", "entries", "falsy_ids", "index", "up")

    def __init__(self, entries: list[Entry]) -> None:
        # Made and grown from worker threads as well (the tree, the pane's walks, the facts)
        # while pi's appends come in on the UI thread: numbered from a copy of the list as it is,
        # and grown by one thread at a time.
        self.entries = entries
        self._growing = threading.Lock()
        listed = list(entries)
        count = len(listed)
        ids = list(map(_ID, listed))
        self.index: dict[Any, int] = dict(zip(ids, range(count), strict=True))
        parents = list(map(_PARENT, listed))
        self.up: list[int | None] = _parent_numbers(ids, parents, self.index)
        # The parentIds no entry has (None among them: a root's): an entry appended with one of
        # these ids would become an earlier entry's parent.
        self._dangling = set(compress(parents, map(operator.is_, self.up, repeat(None))))
        self.falsy_ids = _falsy_ids(self.index)

    def current(self, entries: list[Entry]) -> bool:
        """Whether the map holds for ``entries`` as they are now, taking in what was appended
        since it was made when that changes no earlier entry's parent."""
        if entries is not self.entries:
            return False
        if len(self.up) == len(entries):
            return True
        with self._growing:
            return self._grow(entries)

    def _grow(self, entries: list[Entry]) -> bool:
        made = len(self.up)
        if made >= len(entries):
            return made == len(entries)
        new = entries[made:]
        ids = list(map(_ID, new))
        index, dangling = self.index, self._dangling
        try:
            if len(set(ids)) != len(ids) or any(i in index or i in dangling for i in ids):
                return False
        except TypeError:  # an unhashable id: read the whole map again
            return False
        index.update(zip(ids, range(made, made + len(new)), strict=True))
        parents = list(map(_PARENT, new))
        ups = list(map(index.get, parents))
        dangling.update(compress(parents, map(operator.is_, ups, repeat(None))))
        self.falsy_ids = self.falsy_ids or _falsy_ids(dict.fromkeys(ids))
        self.up += ups  # last: a walk takes the map as current from here on
        return True

    def walk(self, slot: int) -> tuple[list[int], bool]:
        """The entry numbers from ``slot`` up to its root (``slot`` first), and whether the walk
        ran into a parentId cycle (then it stops after as many steps as there are ids)."""
        up = self.up
        path: list[int] = []
        add = path.append
        current: int | None = slot
        for _ in range(len(self.index) + 1):
            add(current)  # type: ignore[arg-type]
            current = up[current]  # type: ignore[index]
            if current is None:
                return path, False
        return path, True


def _parent_numbers(ids: list[Any], parents: list[Any], index: dict[Any, int]) -> list[int | None]:
    """Each entry's parent's number. Most entries follow the one before them (pi appends a
    turn under the last): where every id is taken once, comparing each parentId with the id
    before it, in C, finds those without a lookup, and only the others are looked up."""
    count = len(ids)
    if len(index) != count or count < 2:  # an id taken twice names its last entry: look all up
        return list(map(index.get, parents))
    # Each entry's number before it: the map's own numbers (0, 1, ... in order, every id being
    # new), not a million new ints.
    up: list[int | None] = [index.get(parents[0])]
    up += islice(index.values(), count - 1)
    get = index.get
    for k in compress(range(1, count), map(operator.ne, parents[1:], ids[:-1])):
        up[k] = get(parents[k])
    return up


def _falsy_ids(index: dict[Any, Any]) -> bool:
    """Whether an id is one a walk by ids stops at (``if parent``: null, "", 0, false, and no
    id at all). Lists and objects are wrapped as keys that are never falsy (``as_key``)."""
    return None in index or "" in index or 0 in index or MISSING in index
