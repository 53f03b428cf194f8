"""pi 1.6.0's context rules (pitui/store/context.py) on the ctx-* and sys-* fixtures: what the
model is sent, entry by entry (each fixture is also compared with pi in the conformance tests)."""

from __future__ import annotations

from pathlib import Path

from helpers.strategies import session_objects
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from devkit.builder import entry
from pitui.store.context import ProjectedEntry, select_entries
from pitui.store.model import Entry
from pitui.store.reader import Session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _projection(name: str) -> dict[str, ProjectedEntry]:
    session = Session.load(str(FIXTURES / name), keep_bodies=True)
    return {p.entry.id: p for p in session.projection()}


def _roles(name: str) -> list[str]:
    session = Session.load(str(FIXTURES / name), keep_bodies=True)
    return [m.get("role") for m in session.context().messages]


def test_an_omitted_tool_result_stays_on_the_path_but_gives_nothing() -> None:
    by_id = _projection("ctx-edit-omit.jsonl")
    omitted = by_id["e0000005"]
    assert omitted.messages == [] and omitted.omitted
    assert omitted.edit is not None and omitted.edit.id == "e0000007"
    assert [m["role"] for m in omitted.original] == ["toolResult"], "what the edit took out is kept"
    assert _roles("ctx-edit-omit.jsonl") == ["user", "assistant", "assistant", "user", "assistant"]


def test_a_replacement_swaps_the_content_of_editable_roles_only() -> None:
    by_id = _projection("ctx-edit-replace.jsonl")
    assert by_id["e0000004"].messages[0]["content"] == [{"type": "text", "text": "Ran the tests."}]
    assert by_id["e0000004"].messages[0]["stopReason"] == "toolUse", "only the content changes"
    assert by_id["e0000005"].messages[0]["content"] == [{"type": "text", "text": "(output dropped)"}]
    assert by_id["e0000003"].messages[0]["content"] == [{"type": "text", "text": "Run the test suite, please."}]
    assert by_id["e0000007"].messages[0]["content"] == "branch main", "a custom message keeps a string"
    summary = by_id["e0000008"]
    assert summary.edit is not None and summary.messages == summary.original, "a branch summary is not editable"


def test_the_latest_edit_of_a_target_wins() -> None:
    by_id = _projection("ctx-edit-multi.jsonl")
    assert by_id["e0000004"].messages[0]["content"] == [{"type": "text", "text": "Ran them."}]
    assert by_id["e0000004"].edit.id == "e0000009"  # type: ignore[union-attr]
    assert by_id["e0000005"].omitted and by_id["e0000005"].edit.id == "e0000010"  # type: ignore[union-attr]


def test_edits_off_the_branch_or_summarised_away_do_nothing() -> None:
    off = _projection("ctx-edit-off-branch.jsonl")
    assert off["e0000005"].edit is None and [m["role"] for m in off["e0000005"].messages] == ["toolResult"]
    summarised = _projection("ctx-edit-summarised.jsonl")
    assert "e0000004" not in summarised, "the edit was before the kept range"
    assert summarised["e0000005"].edit is None and summarised["e0000005"].messages


def test_a_null_edit_on_a_compaction_takes_checkpoint_and_summary() -> None:
    by_id = _projection("ctx-edit-on-compaction.jsonl")
    assert by_id["e0000007"].messages == []
    assert [m["role"] for m in by_id["e0000007"].original] == ["system", "compactionSummary"]
    assert _roles("ctx-edit-on-compaction.jsonl")[:2] == ["user", "assistant"]


def test_a_compaction_checkpoint_comes_first_and_kept_system_messages_go() -> None:
    session = Session.load(str(FIXTURES / "ctx-compaction-system.jsonl"), keep_bodies=True)
    projection = session.projection()
    ids = [p.entry.id for p in projection]
    assert ids[:3] == ["e0000011", "e0000005", "e0000006"]
    assert "e0000007" not in ids, "the system patch in the kept range is dropped"
    assert [m["role"] for m in projection[0].messages] == ["system", "compactionSummary"]
    older = projection[2]
    assert older.entry.type == "compaction" and older.messages == [], "an older compaction gives nothing"
    texts = [m.get("content") for m in session.context().messages if m.get("role") == "system"]
    assert texts == ["", "Be brief."], "the checkpoint, then the patch after the compaction"


def test_first_kept_on_a_system_message_starts_there_without_it() -> None:
    ids = list(_projection("ctx-first-kept-system.jsonl"))
    assert ids[:3] == ["e0000008", "e0000006", "e0000007"]


def test_retain_none_keeps_nothing_before_the_compaction() -> None:
    assert list(_projection("ctx-compaction-retain-none.jsonl")) == ["e0000007", "e0000008", "e0000009"]
    assert _roles("ctx-compaction-retain-none.jsonl") == ["system", "compactionSummary", "user", "assistant"]


def test_null_contents_are_normalised_by_role() -> None:
    contents = [
        (p.entry.id, m.get("role"), m.get("content"))
        for p in _projection("ctx-null-contents.jsonl").values()
        for m in p.messages
    ]
    assert contents == [
        ("e0000003", "system", ""),
        ("e0000004", "user", []),
        ("e0000005", "assistant", []),
        ("e0000006", "toolResult", []),
        ("e0000007", "custom", []),
    ]


def test_a_replacement_without_content_is_not_normalised() -> None:
    by_id = _projection("ctx-edit-content-null.jsonl")
    assert by_id["e0000003"].messages[0]["content"] is None
    assert "content" not in by_id["e0000004"].messages[0]


def test_an_edit_without_replacement_changes_nothing_in_pitui() -> None:
    target = _projection("ctx-edit-no-replacement.jsonl")["e0000004"]
    assert target.edit is not None and target.messages == target.original


def test_system_messages_and_usage_entries_are_ordinary_entries() -> None:
    session = Session.load(str(FIXTURES / "sys-messages.jsonl"), keep_bodies=True)
    assert [e.role for e in session.path_to() if e.type == "message"] == [
        "system",
        "user",
        "assistant",
        "system",
        "system",
        "user",
        "assistant",
    ]
    usage = Session.load(str(FIXTURES / "sys-usage-leaf.jsonl"), keep_bodies=True)
    assert usage.leaf_id == "e0000006"
    assert [p.entry.id for p in usage.projection() if p.messages] == ["e0000003", "e0000004"]
    fields = Session.load(str(FIXTURES / "sys-new-fields.jsonl"), keep_bodies=True)
    assert fields.context().thinking_level == "max"


@settings(max_examples=200, deadline=None)
@given(objects=session_objects(max_entries=30), extra=st.lists(st.sampled_from(["elsewhere", "missing", "self"])))
def test_the_kept_entries_found_from_the_id_map_are_those_pis_rules_find(objects: list, extra: list) -> None:
    """With no id twice, the context's first kept entry is looked up in the id map and found
    from the compaction back; the entries chosen are those of the rules that compare every id
    of the path (firstKeptEntryId on the path, on another branch, missing, or the compaction)."""
    session = Session()
    for k, kind in enumerate(extra):  # compactions whose first kept entry is not on the path before them
        ids = [o["id"] for o in objects[1:]]
        if not ids:
            break
        target = {"elsewhere": ids[0], "missing": "nowhere0", "self": f"c{k:07x}"}[kind]
        objects.append(entry("compaction", f"c{k:07x}", ids[-1], n=50 + k, summary="s", firstKeptEntryId=target))
    for value in objects[1:]:
        session.add(Entry.from_data(value))
    assume(len(session.by_id) == len(session.entries))
    for leaf in session.entries:
        path = session.path_to(leaf.id)
        assert select_entries(path, session.by_id) == select_entries(path)
