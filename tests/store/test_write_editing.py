"""The session view's writes (``pitui.store.write.editing``) and branch digests (``pitui.store.digest``),
each read back by pi's own SessionManager."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.sessions import worked_session

from devkit.builder import entry, msg
from pitui.store.digest import abandoned_entries, branch_digest, branch_transcript, file_lists
from pitui.store.model import FileChangedError
from pitui.store.reader import Session
from pitui.store.write.actions import BRANCH_CUSTOM_TYPE, ActionError
from pitui.store.write.editing import SessionEditor
from pitui.store.write.manager import SessionManager


def pi_append(path: Path, *objects: Any) -> None:
    """pi writing to the file: whole lines appended."""
    with open(path, "ab") as handle:
        for o in objects:
            handle.write(orjson.dumps(o) + b"\n")


def check_with_pi(oracle_073: Any, path: Path) -> dict[str, Any]:
    """pi reads back what pitui holds: leaf, path, labels, name and context."""
    seen = oracle_073.open(path)
    mine = Session.load(str(path))
    assert seen["leafId"] == mine.leaf_id
    assert seen["branch"] == [e.id for e in mine.path_to()]
    assert seen["labels"] == dict(mine.labels)
    assert seen["name"] == mine.name
    assert len(seen["context"]["messages"]) == len(mine.context().messages)
    return seen


# -- branching -------------------------------------------------------------------------------------


def test_choosing_the_leaf_writes_nothing(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    editor = SessionEditor(Session.load(str(path)))
    written = editor.branch("a4")
    assert written.entry_id is None and "Already at this point" in written.message
    assert path.read_bytes() == before
    assert not editor.can_undo


def test_branch_without_summary_moves_pi_to_the_entry(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    written = editor.branch("a2")
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["type"] == "custom" and last["customType"] == BRANCH_CUSTOM_TYPE
    assert last["parentId"] == "a2" and last["data"] == {"from": "a4"}
    assert written.entry_id == last["id"] and written.show_id == "a2"
    assert session.leaf_id == last["id"]  # the view's session took the write in
    seen = check_with_pi(oracle_073, path)
    assert seen["branch"][-2:] == ["a2", last["id"]]
    assert [m["role"] for m in seen["context"]["messages"]] == ["user", "assistant", "toolResult", "assistant"]


def test_branch_with_summary_is_written_as_pi_writes_one(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    written = editor.branch("a2", "Added a changelog entry.")
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["type"] == "branch_summary" and last["parentId"] == "a2" and last["fromId"] == "a4"
    assert last["summary"] == "Added a changelog entry."
    # The files the branch left behind read and changed, as pi's own summaries record them.
    assert last["details"] == {"readFiles": ["README.md"], "modifiedFiles": ["CHANGELOG.md"]}
    assert written.show_id == last["id"] and "branch summary" in written.message
    seen = check_with_pi(oracle_073, path)
    assert seen["context"]["messages"][-1]["role"] == "branchSummary"


def test_choosing_a_user_message_puts_the_leaf_on_its_parent_and_offers_its_text(
    tmp_path: Path, oracle_073: Any
) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    written = editor.branch("u2")
    assert written.prompt_text == "Now add a changelog entry"
    assert written.show_id == "a2"
    seen = check_with_pi(oracle_073, path)
    assert seen["branch"][-2] == "a2"


def test_choosing_the_root_message_empties_the_conversation(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    written = editor.branch("u1")
    assert written.prompt_text == "Fix the flaky test in tests/test_io.py" and written.show_id is None
    seen = check_with_pi(oracle_073, path)
    assert seen["context"]["messages"] == []


def test_a_summary_of_nothing_left_behind_is_not_written(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    editor.branch("a2")
    written = editor.branch("a4", "nothing to say")  # forward along a branch: nothing is left behind
    assert session.entry(written.entry_id).type == "custom"
    assert "no summary" in written.message


def test_writes_hang_off_what_pi_appended_meanwhile(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    pi_append(path, msg("u3", "a4", "user", "one more thing", n=9))
    written = editor.label("a1", "checkpoint")
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["parentId"] == "u3" and last["id"] == written.entry_id
    assert session.entry("u3") is not None
    check_with_pi(oracle_073, path)


def test_a_replaced_file_is_not_written_to(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    replacement = path.read_bytes()[:-1]
    path.unlink()
    path.write_bytes(replacement)
    with pytest.raises(FileChangedError):
        editor.label("a1", "x")
    assert path.read_bytes() == replacement


# -- labels and names ------------------------------------------------------------------------------


def test_label_set_change_clear_and_unchanged(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    first = editor.label("a2", "  fixed  ")
    assert session.labels == {"a2": "fixed"} and "“fixed”" in first.message
    size = path.stat().st_size
    assert editor.label("a2", "fixed").entry_id is None and path.stat().st_size == size
    editor.label("a2", "")
    assert session.labels == {}
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["type"] == "label" and "label" not in last  # cleared: pi leaves the key out
    check_with_pi(oracle_073, path)


def test_rename_and_unchanged_name(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    editor.rename("  Flaky   test\nfix ")  # pi's rule: line breaks become spaces, then trim
    assert session.name == "Flaky   test fix"
    assert editor.rename("Flaky   test fix").entry_id is None
    assert check_with_pi(oracle_073, path)["name"] == "Flaky   test fix"


# -- undo ------------------------------------------------------------------------------------------


def test_undo_restores_label_name_and_leaf_in_turn(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    editor.label("a1", "one")
    editor.label("a1", "two")
    editor.rename("named")
    leaf_before = session.leaf_id  # the session_info entry: labels and names hang off the leaf
    editor.branch("a2", "left the changelog")
    size = path.stat().st_size
    lines = path.read_bytes()

    undone = editor.undo()  # the branch
    assert path.read_bytes().startswith(lines) and path.stat().st_size > size  # only ever grows
    assert undone.show_id == leaf_before and f"the leaf is back on {leaf_before}" in undone.message
    seen = check_with_pi(oracle_073, path)
    assert seen["branch"][-2] == leaf_before
    assert len(seen["context"]["messages"]) == 8

    editor.undo()  # the name
    assert session.name is None
    editor.undo()  # the second label
    assert session.labels == {"a1": "one"}
    editor.undo()  # the first
    assert session.labels == {}
    assert not editor.can_undo
    with pytest.raises(ActionError, match="Nothing to undo"):
        editor.undo()
    seen = check_with_pi(oracle_073, path)
    assert seen["labels"] == {} and seen["name"] is None


def test_undo_of_a_branch_is_refused_once_pi_went_on(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    editor.branch("a2")
    marker = Session.load(str(path)).leaf_id
    pi_append(path, msg("u9", marker, "user", "carry on from here", n=20))
    before = path.read_bytes()
    with pytest.raises(ActionError, match="went on since"):
        editor.undo()
    assert path.read_bytes() == before
    assert editor.can_undo


def test_undo_of_a_label_changed_elsewhere_is_refused(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    editor = SessionEditor(Session.load(str(path)))
    editor.label("a1", "mine")
    pi_append(path, entry("label", "l9", "a4", n=30, targetId="a1", label="theirs"))
    with pytest.raises(ActionError, match="changed since"):
        editor.undo()


def test_undo_from_a_marker_restores_the_entry_it_stood_for(tmp_path: Path, oracle_073: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    editor = SessionEditor(session)
    editor.branch("a2")  # leaf: a marker under a2
    editor.branch("u1")  # leaf: a root marker
    undone = editor.undo()
    assert undone.show_id == "a2"
    seen = check_with_pi(oracle_073, path)
    assert len(seen["context"]["messages"]) == 4


# -- the digest and the summarizer's input ---------------------------------------------------------


def test_digest_lists_prompts_files_commands_and_errors(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    left = abandoned_entries(session, "a4", "u1")
    assert [e.id for e in left] == ["a1", "r1", "a2", "u2", "a3", "r2", "a4"]
    digest = branch_digest(left)
    assert "## Prompts\n1. Now add a changelog entry" in digest
    assert "## Files read\n- README.md" in digest
    assert "## Files changed\n- CHANGELOG.md\n- src/io.py" in digest
    assert "## Commands\n- `pytest -q tests/test_io.py`" in digest
    assert "## Errors\n- bash pytest -q tests/test_io.py: 1 failed AssertionError: timeout" in digest
    assert file_lists(left).details() == {"readFiles": ["README.md"], "modifiedFiles": ["CHANGELOG.md", "src/io.py"]}


def test_digest_and_transcript_match_pi_on_the_same_moves(tmp_path: Path, oracle: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    # A branch summary with details and a user bash execution on the branch, as pi writes them.
    pi_append(
        path,
        entry(
            "branch_summary",
            "b1",
            "a4",
            n=9,
            fromId="a4",
            summary="Earlier: tried a cache.",
            details={"readFiles": ["src/cache.py"], "modifiedFiles": ["src/io.py"]},
        ),
        {
            "type": "message",
            "id": "x1",
            "parentId": "b1",
            "timestamp": "2025-01-01T00:00:10.000Z",
            "message": {
                "role": "bashExecution",
                "command": "git status",
                "output": "clean",
                "exitCode": 1,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1735689610000,
            },
        },
    )
    session = Session.load(str(path))
    targets = ["u1", "a1", "a2", "u2", "r2", "x1"]
    answers = oracle.branch_summary_input({"file": str(path), "target": t} for t in targets)
    for target, seen in zip(targets, answers, strict=True):
        left = abandoned_entries(session, session.leaf_id, target)
        assert [e.id for e in left] == seen["entryIds"], target
        assert branch_transcript(left) == seen["transcript"], target
        files = file_lists(left)
        assert (list(files.read), list(files.modified)) == (seen["readFiles"], seen["modifiedFiles"]), target


# -- every write of the view, on a file pi 1.6 made, read back by pi 1.6.0 and pi 0.73.1 ----------

PI16_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "write-pi16.jsonl"


def both_pis_read_what_pitui_holds(oracles: list[Any], paths: list[Path]) -> None:
    """Each pi loads each file with the leaf, path, labels and name pitui holds for it."""
    for oracle in oracles:
        seen = oracle.open_many(paths)
        for path in paths:
            pi, mine = seen[str(path)], Session.load(str(path))
            assert "error" not in pi, f"pi {oracle.version} cannot load {path.name}: {pi}"
            where = f"pi {oracle.version} on {path.name}"
            assert pi["leafId"] == mine.leaf_id, where
            assert pi["branch"] == [e.id for e in mine.path_to()], where
            assert pi["labels"] == dict(mine.labels) and pi["name"] == mine.name, where


def test_the_views_writes_on_a_pi_16_file_load_in_both_pis(tmp_path: Path, oracle: Any, oracle_073: Any) -> None:
    path = tmp_path / PI16_FILE.name
    path.write_bytes(PI16_FILE.read_bytes())
    editor = SessionEditor(Session.load(str(path)))
    assert editor.label("e0000013", "tests run").entry_id
    named = editor.rename("Loader\nrewrite").entry_id
    summary = editor.branch("e0000016", "Kept the lexer.")  # leaves e0000014, its usage entry and the two above
    written = editor.session.entry(summary.entry_id)
    assert written is not None and written.get("summary") == "Kept the lexer."
    assert written.get("fromId") == named, "fromId: the leaf left (the name's entry), as pi 1.6 writes it"
    forked = editor.fork("e0000019")  # past the retain-none compaction e0000017
    cloned = editor.clone()
    assert editor.branch("e0000005").entry_id  # a pitui.branch marker: the leaf back on e0000005
    editor.undo()
    both_pis_read_what_pitui_holds([oracle, oracle_073], [path, Path(forked.path), Path(cloned)])
    copy = {e["id"]: e for e in map(orjson.loads, Path(forked.path).read_bytes().splitlines()[1:])}
    assert copy["e0000017"]["firstKeptEntryId"] == "e0000017", "retain-none stays its own id"
    assert [e.id for e in Session.load(cloned).path_to() if e.type != "label"][-2:] == ["e0000016", summary.entry_id]


def test_fork_from_a_v1_file_migrates_it_first(tmp_path: Path, oracle: Any, oracle_073: Any) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_bytes((PI16_FILE.parent / "v1.jsonl").read_bytes())
    before = source.read_bytes()
    manager = SessionManager.fork_from(str(source), "/home/me/elsewhere", str(tmp_path / "fork"))
    forked = Path(manager.get_session_file() or "")
    assert source.read_bytes() == before, "the source is not written"
    header, *rows = map(orjson.loads, forked.read_bytes().splitlines())
    assert header["version"] == 3 and header["cwd"] == "/home/me/elsewhere" and header["parentSession"] == str(source)
    assert all(isinstance(r.get("id"), str) for r in rows), "every entry has an id (pi 1.6 copies them without)"
    both_pis_read_what_pitui_holds([oracle, oracle_073], [forked])
    theirs = oracle.open(source)["context"]["messages"]
    assert [m["role"] for m in oracle.open(forked)["context"]["messages"]] == [m["role"] for m in theirs]
