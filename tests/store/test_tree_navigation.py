"""The tree model (pitui.store.tree.model) as the user moves in it: label times, filters and the
selection, search, folding and jumps, big and deep trees, and a session that grows."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import pytest
from helpers.tree_build import (
    FIXTURES,
    approaches,
    branching,
    chain,
    golden,
    ids,
    model,
    render,
    ts,
)

from pitui.store.reader import Session
from pitui.store.tree import FILTERS

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------------------------------
# label times


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2025-01-01T09:05:00.000Z", "09:05"),
        ("2025-03-04T23:59:00.000Z", "3/4 23:59"),
        ("2024-12-31T07:08:00.000Z", "24/12/31 07:08"),
        ("not a date", "aN/NaN/NaN NaN:NaN"),
    ],
)
def test_label_time_formats(stamp: str, expected: str) -> None:
    assert model(chain(2).session()).format_label_time(stamp) == expected


def test_label_time_is_local_time() -> None:
    east = timezone(timedelta(hours=14))
    m = model(chain(2).session(), tz=east)
    # 10:00 UTC on Jan 1 is already Jan 2 there; noon UTC is Jan 2 02:00 there: same day.
    assert m.format_label_time("2025-01-01T10:00:00.000Z") == "00:00"
    assert m.format_label_time("2025-01-01T09:00:00.000Z") == "1/1 23:00"


# ---------------------------------------------------------------------------------------------
# filters and selection


def test_filters_set_toggle_and_cycle() -> None:
    m = model(approaches().session(leaf="a6"))
    m.toggle_filter("no-tools")
    assert m.filter_mode == "no-tools" and "tr1" not in ids(m) and "be" in ids(m)
    m.toggle_filter("no-tools")
    assert m.filter_mode == "default"
    m.toggle_filter("user-only")
    m.toggle_filter("all")
    assert m.filter_mode == "all"
    m.set_filter("default")
    seen = []
    for _ in FILTERS:
        m.cycle_filter()
        seen.append(m.filter_mode)
    assert seen == ["no-tools", "user-only", "labeled-only", "all", "default"]
    m.cycle_filter(-1)
    assert m.filter_mode == "all"
    with pytest.raises(ValueError):
        m.set_filter("nope")


def test_selection_goes_to_nearest_visible_ancestor_and_stays_there() -> None:
    m = model(approaches().session(leaf="a6"))
    m.select("tr2")
    m.set_filter("user-only")
    assert m.selected_id == "u2"  # tr2's nearest user message above it, not the next one
    m.set_filter("default")
    assert m.selected_id == "u2"  # pi does not go back: the selection moved


def test_selection_falls_back_to_the_last_row_and_survives_an_empty_result() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="labeled-only")
    assert m.selected_id == "u2"
    m.set_query("zzz")
    assert len(m) == 0 and m.selected_id is None and m.status_text == "(0/0) [labeled]"
    assert render(m) == ["  No entries found", "  (0/0) [labeled]"]
    m.set_query("")
    assert m.selected_id == "u2"  # remembered while nothing was shown
    m.select("u3b")
    m.set_filter("user-only")
    m.select("u1")
    m.set_filter("labeled-only")  # u1 and its ancestors are not labelled: the last row
    assert m.selected_id == "u3b"


def test_initial_selection_of_a_hidden_leaf_is_its_visible_parent() -> None:
    b = approaches()
    m = model(b.session())  # the file's leaf is u4
    assert m.selected_id == "u4"
    m = model(b.session(leaf="l2"))
    assert m.selected_id == "a6"
    m = model(b.session(), selected_id="tl")
    assert m.selected_id == "a1"


# ---------------------------------------------------------------------------------------------
# search


def test_search_every_word_anywhere_any_case() -> None:
    m = model(approaches().session(leaf="a6"))
    m.type_text("APPROACH")
    assert ids(m) == ["u2", "a3", "u3b", "a7"]
    m.type_text(" b")
    assert ids(m) == ["u3b", "a7"]
    m.backspace()
    m.backspace()
    assert m.query == "APPROACH"
    m.set_query("checkpoint")  # labels are searched
    assert ids(m) == ["u2"]
    m.set_query("line 11")  # a tool result by its output, not by the call shown
    assert ids(m) == ["tr1"]
    m.set_query("read")
    assert "tr1" not in ids(m)
    m.set_filter("all")
    m.set_query("label alt")
    assert ids(m) == ["l2"]
    assert m.clear_query() and m.query == "" and not m.clear_query()


def test_search_lays_out_matches_as_a_tree() -> None:
    m = model(approaches().session(leaf="a6"))
    m.set_query("user:")  # matches nothing: "user" and the text are joined by a space
    assert len(m) == 0
    m.set_query("user")
    assert render(m) == golden("""
  • user: Hello, can you help me with this?
  ├⊟ • [checkpoint-1] user: Let's try approach A
› │     • user: That worked
  └⊟ [alt] user: Actually, approach B
        user: third branch from a6
  (3/5)
""")


def test_query_and_filter_changes_clear_folds() -> None:
    m = model(approaches().session(leaf="a6"))
    m.select("u3b")
    assert m.fold()
    m.type_text("a")
    assert not any(m.is_folded(i) for i in range(len(m)))
    m.select("u3b")
    m.fold()
    m.set_filter("no-tools")
    assert not any(m.is_folded(i) for i in range(len(m)))


# ---------------------------------------------------------------------------------------------
# folding and jumps


def test_fold_or_up_and_unfold_or_down_as_pi() -> None:
    m = model(approaches().session(leaf="a6"))
    assert m.selected_id == "a6"
    m.fold_or_up()  # not foldable: up to the start of its branch segment
    assert m.selected_id == "tr1"
    m.fold_or_up()  # a segment start: fold it
    assert m.is_folded(m.cursor) and len(m) == 9
    assert m.row(m.cursor).plain == "│  ├⊞ • [read: ~/x/file.ts:10-29]"
    m.fold_or_up()  # folded: up again
    assert m.selected_id == "u2"
    m.unfold_or_down()  # not folded: down to the first child of the next branch point
    assert m.selected_id == "tr1"
    m.unfold_or_down()  # folded: unfold
    assert len(m) == 17 and m.selected_id == "tr1"
    m.unfold_or_down()  # down the chain to its end
    assert m.selected_id == "a6"
    m.first()
    m.unfold_or_down()
    assert m.selected_id == "u2"


def test_fold_keeps_inner_folds_and_unfold_restores_rows() -> None:
    m = model(approaches().session(leaf="a6"))
    before = render(m)
    m.select("tr1")
    m.fold()
    m.select("u2")
    m.fold()
    assert ids(m) == ["u1", "a1", "u2", "u3b", "a7", "cp", "u4"]
    assert m.hidden_counts(2) == (10, 1)  # the rows the fold hides; a2, hidden by the filter
    m.unfold()
    assert ids(m)[:5] == ["u1", "a1", "u2", "tr1", "bs"]  # tr1 still folded
    m.select("tr1")
    m.unfold()
    m.select("a6")
    assert render(m) == before


def test_fold_swallowing_the_cursor_moves_it_to_the_fold() -> None:
    m = model(approaches().session(leaf="a6"))
    assert m.fold(m.row_of_id("u2"))
    assert m.selected_id == "u2"
    assert not m.fold(m.row_of_id("a3"))  # not a segment start (and not shown)
    assert not m.fold(m.row_of_id("u4"))  # no children


def test_hidden_counts_for_filters() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="user-only")
    m.select("u3")
    # a4, si, cu, cm, be, a5, tr3, a6, l1, l2 have u3 as their nearest shown ancestor
    assert m.hidden_counts(m.cursor) == (0, 10)


def test_jumps_beyond_pi() -> None:
    m = model(approaches().session(leaf="a6"))
    m.first()
    assert m.jump_to_leaf() and m.selected_id == "a6"
    assert m.jump_to_parent() and m.selected_id == "tr3"
    m.select("a3")
    assert m.next_sibling() and m.selected_id == "bs"  # the branch beside the one a3 is in
    assert m.next_sibling() and m.selected_id == "u3b"  # bs is the last there: one level up
    assert not m.next_sibling() and m.selected_id == "u3b"
    m.select("bs")
    assert m.next_sibling(-1) and m.selected_id == "tr1"
    assert not m.next_sibling(-1) and m.selected_id == "tr1"
    m.select("u4")
    assert m.next_sibling(-1) and m.selected_id == "cp"
    assert m.next_sibling(-1) and m.selected_id == "u2"  # no earlier sibling: one level up
    m.select("u2")
    assert m.jump_to_parent() and m.selected_id == "a1"
    m.first()
    assert m.next_label() and m.selected_id == "u2"
    assert m.next_label() and m.selected_id == "u3b"
    assert m.next_label() and m.selected_id == "u2"  # wraps
    assert m.next_label(-1) and m.selected_id == "u3b"


def test_cursor_moves_wrap_and_pages_clamp() -> None:
    m = model(approaches().session(leaf="a6"))
    m.first()
    m.up()
    assert m.cursor == len(m) - 1
    m.down()
    assert m.cursor == 0
    m.page_down(5)
    assert m.cursor == 5
    m.page_down(100)
    assert m.cursor == len(m) - 1
    m.page_up(3)
    assert m.cursor == len(m) - 4
    m.page_up(100)
    assert m.cursor == 0
    m.last()
    assert m.cursor == len(m) - 1


# ---------------------------------------------------------------------------------------------
# big and deep


def test_a_50000_deep_chain() -> None:
    m = model(chain(50_000).session())
    assert len(m) == 50_000 and m.cursor == 49_999
    assert m.row(49_999).plain == "• assistant: answer 49999"
    m.fold_or_up()  # no branch above: the root
    assert m.cursor == 0
    m.fold_or_up()
    assert len(m) == 1 and m.hidden_counts(0) == (49_999, 0)
    m.unfold_or_down()
    assert len(m) == 50_000
    m.unfold_or_down()
    assert m.cursor == 49_999
    m.set_filter("user-only")
    assert len(m) == 25_000 and m.selected_id == "n49998"
    m.set_query("question 4999")
    assert ids(m) == ["n49990", "n49992", "n49994", "n49996", "n49998"]
    assert m.row(1).plain == "• user: question 49992"  # five roots now, at column 0
    m.set_query("")
    assert m.jump_to_leaf() and m.selected_id == "n49998"


@pytest.mark.parametrize(
    "name",
    [
        "cycle-2",
        "cycle-3",
        "cycle-self-leaf",
        "null-line",
        "message-null",
        "duplicate-header",
        "non-object-lines",
        "invalid-timestamps",
    ],
)
def test_files_pi_cannot_show_still_show(name: str) -> None:
    """Cycles (pi never returns), lines pi throws on, duplicated entries: every row renders and
    every key works."""
    session = Session.load(str(FIXTURES / f"{name}.jsonl"))
    for mode in FILTERS:
        m = model(session, filter_mode=mode)
        assert all(isinstance(m.row(i).plain, str) for i in range(len(m)))
        for step in (
            m.fold_or_up,
            m.unfold_or_down,
            m.jump_to_leaf,
            m.jump_to_parent,
            m.next_sibling,
            m.next_label,
            m.up,
            m.fold_or_up,
            m.unfold_or_down,
        ):
            step()
        m.set_query("e")
        m.toggle_label_times()
        assert all(isinstance(m.row(i).plain, str) for i in range(len(m)))


def test_cycle_entries_are_not_shown() -> None:
    m = model(Session.load(str(FIXTURES / "cycle-2.jsonl")), filter_mode="all")
    assert "e0000004" not in ids(m) and "e0000005" not in ids(m)


# ---------------------------------------------------------------------------------------------
# a growing session


def test_update_follows_the_leaf_and_keeps_the_view(tmp_path: Path) -> None:
    b = approaches()
    path = b.write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session)
    assert m.selected_id == "u4"
    m.select("u3b")
    m.toggle_label_times()
    m.select("u4")
    with path.open("ab") as f:
        f.write(
            orjson.dumps(
                {
                    "type": "message",
                    "id": "a8",
                    "parentId": "u4",
                    "timestamp": ts(90),
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "more"}],
                        "stopReason": "stop",
                    },
                }
            )
            + b"\n"
        )
    assert session.refresh() == 1
    assert m.update() and m.followed_leaf and m.selected_id == "a8"
    assert m.show_label_times
    # Elsewhere, the selection stays; folds and filter stay.
    m.select("tr1")
    m.fold()
    m.set_filter("no-tools")
    m.select("u2")
    m.fold()
    with path.open("ab") as f:
        f.write(
            orjson.dumps(
                {
                    "type": "message",
                    "id": "u9",
                    "parentId": "a8",
                    "timestamp": ts(91),
                    "message": {"role": "user", "content": "again"},
                }
            )
            + b"\n"
        )
    session.refresh()
    assert not m.update() and not m.followed_leaf
    assert m.selected_id == "u2" and m.is_folded(m.cursor) and m.filter_mode == "no-tools"
    assert ids(m)[-4:] == ["a8", "u9", "cp", "u2"]  # the active branch (through u3b) comes first now


def test_update_moves_the_active_branch_first(tmp_path: Path) -> None:
    b = branching()
    path = b.write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session)
    assert ids(m)[4] == "u3b"
    with path.open("ab") as f:
        f.write(
            orjson.dumps(
                {
                    "type": "message",
                    "id": "u5a",
                    "parentId": "a4a",
                    "timestamp": ts(99),
                    "message": {"role": "user", "content": "back on A"},
                }
            )
            + b"\n"
        )
    session.refresh()
    m.update()
    assert ids(m)[4] == "u3a" and ids(m)[8] == "u5a"
