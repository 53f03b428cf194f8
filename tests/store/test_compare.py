"""Comparing two branches (pitui.store.compare): the common entry, each side's entries, and what
they hold, against what the files hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.compare_sessions import branched
from helpers.tree_build import chain

from pitui.store.compare import CompareError, compare
from pitui.store.jsonl import dumps
from pitui.store.reader import Session
from pitui.store.totals import entries_stats


def texts(items: Any) -> list[str]:
    return [item.text for item in items]


def test_two_branches_from_their_common_entry(tmp_path: Path) -> None:
    session = Session.load(str(branched(tmp_path)))
    c = compare(session, "a4", "a7")
    assert c.ancestor is not None and c.ancestor.id == "a2" and c.relation == "apart"
    assert [e.id for e in c.a.entries] == ["u2", "a3", "r2", "a4"]
    assert [e.id for e in c.b.entries] == ["b1", "u3", "a5", "r3", "a6", "k1", "a7"]
    assert texts(c.a.prompts) == ["Now add a changelog entry"]
    assert texts(c.b.prompts) == ["Run the linter instead"]
    assert texts(c.a.answer) == ["Done."] and texts(c.b.answer) == ["The linter found one long line."]
    # The files as a branch summary's digest has them: B's summary lists A's changelog too.
    assert texts(c.a.files_read) == ["README.md"] and texts(c.a.files_changed) == ["CHANGELOG.md"]
    assert texts(c.b.files_read) == ["README.md", "docs/x.md", "pyproject.toml"]
    assert [(i.text, i.only_here) for i in c.b.files_changed] == [("CHANGELOG.md", False)]
    assert [(i.text, i.only_here) for i in c.b.files_read] == [
        ("README.md", False),
        ("docs/x.md", True),
        ("pyproject.toml", True),
    ]
    assert [(i.text, i.failed, i.entry_id) for i in c.b.commands] == [("ruff check .", True, "r3")]
    assert [(i.text, i.entry_id) for i in c.b.failures] == [("ruff check .", "r3")]
    assert texts(c.b.errors) == ["bash ruff check .: E501 line too long", "model error: overloaded"]
    assert c.a.commands == () and c.a.errors == ()
    assert c.b.by_type == {
        "branch_summary": 1,
        "compaction": 1,
        "message:assistant": 3,
        "message:toolResult": 1,
        "message:user": 1,
    }
    assert len(c.b.entries) == 7 and c.b.entries_lines()[0] == "7 entries"


def test_totals_are_pi_s_counting_over_the_side_s_lines(tmp_path: Path) -> None:
    path = branched(tmp_path)
    session = Session.load(str(path))
    c = compare(session, "a4", "a7")
    raw = {o["id"]: o for o in map(orjson.loads, path.read_bytes().splitlines()[1:])}
    expected = entries_stats([raw[e.id] for e in c.b.entries])
    assert c.b.stats == expected
    assert c.b.stats.cost == 0.75 and c.b.stats.input == 30 and c.b.stats.assistant_messages == 3
    assert c.to_json()["b"]["totals"]["tokens"]["total"] == 3 * 116


def test_one_above_the_other_the_same_twice_and_missing_ids(tmp_path: Path) -> None:
    session = Session.load(str(branched(tmp_path)))
    c = compare(session, "a2", "a7")
    assert c.relation == "a-above-b" and c.ancestor is not None and c.ancestor.id == "a2"
    assert c.a.entries == () and c.a.prompts == () and len(c.b.entries) == 7
    assert all(item.only_here for item in c.b.prompts)
    same = compare(session, "a7", "a7")
    assert same.relation == "same" and same.a.entries == same.b.entries == ()
    assert same.a.stats.total_tokens == 0
    with pytest.raises(CompareError, match="no entry 'nope'"):
        compare(session, "a7", "nope")


def test_json_holds_every_section(tmp_path: Path) -> None:
    session = Session.load(str(branched(tmp_path)))
    value = orjson.loads(dumps(compare(session, "a4", "a7").to_json()))
    assert value["relation"] == "apart" and value["ancestor"]["id"] == "a2"
    assert value["ancestor"]["text"] == "The retry loop was off by one."
    b = value["b"]
    assert b["entry"] == "a7" and b["entries"] == 7
    assert b["prompts"] == [{"id": "u3", "text": "Run the linter instead", "onlyHere": True}]
    assert b["answer"]["id"] == "a7"
    assert b["failures"] == [{"id": "r3", "text": "ruff check .", "onlyHere": True, "failed": True, "resultId": "r3"}]
    assert set(b) >= {"filesRead", "filesChanged", "commands", "errors", "totals", "byType"}


def test_a_50000_deep_chain_compares_without_recursion() -> None:
    build = chain(50_000)
    build.user("side", "n10", "a question on the side")  # a branch near the root
    session = build.session()
    c = compare(session, "n49999", "side")
    assert c.ancestor is not None and c.ancestor.id == "n10"
    assert len(c.a.entries) == 49_989 and [e.id for e in c.b.entries] == ["side"]
    assert len(c.a.prompts) == 24_994 and c.a.answer[0].text == "answer 49999"
    deep = compare(session, "n49999", "n0")
    assert deep.relation == "b-above-a" and len(deep.a.entries) == 49_999
