"""The entries as integers (pitui.store.slots): a walk by numbers is the walk by ids, whatever the
ids and parents, and appends are taken in or make the numbers again exactly when they must."""

from __future__ import annotations

import orjson
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (pip install -e .[test])")

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from devkit.builder import header  # noqa: E402
from pitui.store.js import MISSING, Opaque  # noqa: E402
from pitui.store.model import Entry  # noqa: E402
from pitui.store.reader import Session  # noqa: E402
from pitui.store.stats import count_branches, count_numbered_branches  # noqa: E402
from pitui.store.tree.structure import TreeStructure  # noqa: E402

# A field left out of the line (the entry's id or parentId is then missing).
ABSENT = object()
# Few ids, so that duplicates, cycles, self-parents and missing parents all come up; null, "",
# 0, false and no id at all are ids a walk by ids stops at (``if parent``); a list is an id
# that equals only itself.
_PLAIN_IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "zz"])
_ODD_IDS = st.sampled_from(["", 0, False, None, ABSENT, [1]])
_IDS = st.one_of(_PLAIN_IDS, _PLAIN_IDS, _ODD_IDS)
_PARENTS = st.one_of(st.none(), _IDS, st.just("missing"), st.just(ABSENT))
_ENTRIES = st.lists(st.tuples(_IDS, _PARENTS), min_size=1, max_size=14)
# The same without the odd ids: the walk by numbers is used for every entry of these.
_PLAIN_ENTRIES = st.lists(
    st.tuples(_PLAIN_IDS, st.one_of(st.none(), _PLAIN_IDS, st.just("missing"))), min_size=1, max_size=14
)


def _line(i: object, p: object) -> dict[str, object]:
    line: dict[str, object] = {"type": "custom", "timestamp": "2026-01-01T00:00:00.000Z"}
    if i is not ABSENT:
        line["id"] = i
    if p is not ABSENT:
        line["parentId"] = p
    return line


def _session(pairs: list[tuple[object, object]]) -> Session:
    lines = [header()] + [_line(i, p) for i, p in pairs]
    return Session.from_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def _as_written(value: object) -> object:
    """An id as a line holds it (a list id is read as a key that is only itself)."""
    return ABSENT if value is MISSING else value.value if isinstance(value, Opaque) else value


def _keys(index: dict[object, int]) -> list[tuple[str, int]]:
    """An id map to compare across sessions (a list id's key is a new object in each)."""
    return sorted((repr(key), number) for key, number in index.items())


def _by_ids(session: Session, entry: Entry) -> list[Entry]:
    kept, session._slots = session._slots, None
    try:
        return session._walk_up_uncached(entry)
    finally:
        session._slots = kept


@settings(max_examples=300, deadline=None)
@given(st.one_of(_ENTRIES, _PLAIN_ENTRIES))
@example([(ABSENT, None), ("b", ABSENT)])  # no id, and no parentId: a walk by ids stops at "b"
@example([("", None), ("b", "")])
def test_a_walk_by_numbers_is_the_walk_by_ids(pairs):
    session = _session(pairs)
    session.slot_map()
    for entry in session.entries:
        assert session._walk_up_uncached(entry) == _by_ids(session, entry)


@settings(max_examples=300, deadline=None)
@given(_ENTRIES, st.lists(_IDS, min_size=1, max_size=5))
def test_the_tree_grown_under_the_leaf_is_the_tree_built_again(first, chain):
    session = _session(first)
    tree = TreeStructure(session)
    for i in chain:  # pi writing on: each new entry under the one before, the first under the leaf
        session.add(_session([(i, _as_written(session.entries[-1].id))]).entries[0])
    session.path_to(session.leaf_id)  # (the session's numbers may take the chain in first)
    if tree.grow_below_leaf():
        fresh = TreeStructure(session)
        assert (tree.slot, tree.parent, tree.category) == (fresh.slot, fresh.parent, fresh.category)
        assert (tree.leaf_slot, tree.leaf_node, bytes(tree.active)) == (
            fresh.leaf_slot,
            fresh.leaf_node,
            bytes(fresh.active),
        )


@settings(max_examples=300, deadline=None)
@given(_ENTRIES, _ENTRIES)
def test_appends_are_taken_in_or_numbered_again(first, more):
    session = _session(first)
    made = session.slot_map()
    for entry in _session(more).entries:
        session.add(entry)
    slots = session.slot_map()
    fresh = _session(first + more)
    assert slots.up == fresh.slot_map().up
    assert _keys(slots.index) == _keys(fresh.slot_map().index)
    for entry in session.entries:
        assert session._walk_up_uncached(entry) == _by_ids(session, entry)
    if slots is made:  # taken in: no new id was one an earlier entry had or named
        old_ids = {e.id for e in session.entries[: len(first)]} | {e.parent_id for e in session.entries[: len(first)]}
        assert not old_ids & {e.id for e in session.entries[len(first) :]}


def test_a_chain_appended_is_taken_in_without_numbering_again():
    session = _session([("a", None), ("b", "a")])
    slots = session.slot_map()
    for entry in _session([("c", "b"), ("d", "c")]).entries:
        session.add(entry)
    assert session.slot_map() is slots
    assert slots.up == [None, 0, 1, 2]
    assert [e.id for e in session.path_to("d")] == ["a", "b", "c", "d"]


def test_an_appended_entry_that_an_orphan_named_becomes_its_parent():
    session = _session([("a", None), ("b", "late")])
    slots = session.slot_map()
    assert [e.id for e in session.path_to("b")] == ["b"]
    for entry in _session([("late", "a")]).entries:
        session.add(entry)
    assert session.slot_map() is not slots  # numbered again: "b" has a parent now
    assert [e.id for e in session.path_to("b")] == ["a", "late", "b"]


def test_the_tree_shows_no_entry_it_has_not_taken_in():
    session = _session([("a", None), ("b", "a")])
    tree = TreeStructure(session)
    for entry in _session([("c", "b")]).entries:
        session.add(entry)
    session.path_to("c")  # the session's numbers, which the tree shares, take "c" in
    assert session.slot_map().index is tree.index and "c" in tree.index
    assert tree.slot_of_id("c") is None and tree.node_of("c") == -1
    assert tree.grow_below_leaf()
    assert tree.slot_of_id("c") == 2 and tree.node_of("c") == 2


def test_an_orphan_whose_parent_is_appended_moves_under_it_in_the_tree():
    # "x" names a parent the file does not have yet; pi appends it under the leaf.
    session = _session([("a", None), ("x", "late"), ("b", "a")])
    tree = TreeStructure(session)
    assert tree.parent[tree.node_of("x")] == -1  # a root for now
    for entry in _session([("late", "b")]).entries:
        session.add(entry)
    assert not tree.grow_below_leaf()  # not a plain chain under the leaf any more
    tree.build()
    assert tree.parent[tree.node_of("x")] == tree.node_of("late")


def test_a_chain_under_the_leaf_grows_the_tree_in_place():
    session = _session([("a", None), ("b", "a")])
    tree = TreeStructure(session)
    session.path_to("b")
    for entry in _session([("c", "b"), ("d", "c")]).entries:
        session.add(entry)
    assert session.path_to("d")[-1].id == "d"  # the session's numbers take the chain in first
    assert tree.grow_below_leaf()
    assert [tree.entries[s].id for s in tree.slot] == ["a", "b", "c", "d"]
    assert tree.node_of("d") == 3 and tree.parent[3] == 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_PARENTS), min_size=1, max_size=14))
def test_branches_counted_from_numbers_are_the_branches_counted_by_ids(parents):
    # Every id taken once (the numbered count's condition); parents among them, missing or own.
    pool = ["a", "b", "c", "d", "e", "f", "g", "", 0, ABSENT, "y1", "y2", "y3", "y4"]
    session = _session([(pool[k], parent) for k, (parent,) in enumerate(parents)])
    by_ids = count_branches([e.id for e in session.entries], [e.parent_id for e in session.entries], session.by_id)
    assert count_numbered_branches(session.slot_map().up) == by_ids
