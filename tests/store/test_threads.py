"""The picker's threaded order (pi 1.6.0 ``buildSessionTree``), on listed rows."""

from __future__ import annotations

import math

from pitui.store.catalog import SessionInfo
from pitui.store.threads import threaded_rows


def info(path: str, modified: float, parent: str | None = None) -> SessionInfo:
    return SessionInfo(path, path, "/p", None, parent, 0.0, modified, 1, "x")


def shown(infos: list[SessionInfo], canonical=lambda p: p) -> list[str]:
    return [row.prefix + row.path for row in threaded_rows(infos, canonical)]


def test_roots_and_siblings_by_latest_activity_in_their_subtree():
    # the listing's order: modified newest first
    infos = [
        info("b", 50),
        info("a1", 40, "a"),
        info("a", 10),
        info("c2", 30, "c"),
        info("c", 20),
        info("c1", 5, "c"),
        info("c1x", 60, "c1"),
    ]
    # c's subtree has 60 (c1x), a's 40 (a1), b alone 50; under c, c1 (60 below it) before c2
    assert shown(infos) == ["c", "   ├─ c1", "   │  └─ c1x", "   └─ c2", "b", "a", "   └─ a1"]


def test_ties_keep_the_listing_order():
    infos = [info("x", 10), info("y", 10), info("z", 10)]
    assert shown(infos) == ["x", "y", "z"]


def test_parents_are_found_by_canonical_path():
    infos = [info("/real/kid", 20, "/link/parent"), info("/real/parent", 10)]
    canonical = {"/link/parent": "/real/parent"}.get
    assert shown(infos, lambda p: canonical(p, p)) == ["/real/parent", "   └─ /real/kid"]


def test_sessions_in_a_parent_loop_stay_visible():
    # pi 1.6 drops these from the threaded view (pi-1.6.md B8)
    infos = [info("a", 30, "b"), info("b", 20, "a"), info("self", 10, "self"), info("root", 5)]
    rows = shown(infos)
    assert sorted(r.split(" ")[-1] for r in rows) == ["a", "b", "root", "self"]
    assert rows[0] == "root"  # then the loops, as roots of their own


def test_a_time_that_is_not_a_number_counts_as_oldest():
    infos = [info("n", math.nan), info("m", 1)]
    assert shown(infos) == ["m", "n"]
