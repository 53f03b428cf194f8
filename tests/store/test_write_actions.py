"""Writing: appends pi reads back exactly, new files, migration on first write, trash."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest
from helpers.trash import trash_dir

from devkit.builder import entry, header, linear, lines, msg, ts, write
from pitui.store.reader import Session
from pitui.store.write import actions
from pitui.store.write.manager import EntryNotFoundError, SessionManager
from pitui.store.write.trash import TrashError, move_to_trash

ID = re.compile(r"^[0-9a-f]{8}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def trash_home() -> Path:
    """The real freedesktop trash of this test run (conftest points XDG_DATA_HOME at it)."""
    return trash_dir()


def new_lines(path: Path, before: bytes) -> list[bytes]:
    data = path.read_bytes()
    assert data.startswith(before), "an append must leave the old bytes as they were"
    return data[len(before) :].splitlines()


def test_label_is_one_compact_line_in_pi_key_order_parented_at_the_leaf(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    actions.set_label(str(path), "a0000001", "  important  ")
    (line,) = new_lines(path, before)
    assert b" " not in line.replace(b"important", b"")
    data = orjson.loads(line)
    assert list(data) == ["type", "id", "parentId", "timestamp", "targetId", "label"]
    assert ID.match(data["id"]) and TIMESTAMP.match(data["timestamp"])
    assert data["parentId"] == "a0000003" and data["targetId"] == "a0000001" and data["label"] == "important"
    session = Session.load(str(path))
    assert session.labels == {"a0000001": "important"} and session.leaf_id == data["id"]


def test_clearing_a_label_omits_the_label_key(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    actions.set_label(str(path), "a0000001", "x")
    before = path.read_bytes()
    actions.set_label(str(path), "a0000001", None)
    (line,) = new_lines(path, before)
    assert list(orjson.loads(line)) == ["type", "id", "parentId", "timestamp", "targetId"]
    assert Session.load(str(path)).labels == {}


def test_label_of_unknown_entry_writes_nothing(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    with pytest.raises(actions.ActionError, match="no entry"):
        actions.set_label(str(path), "zzz", "x")
    assert path.read_bytes() == before


def test_rename_collapses_line_breaks_and_empty_clears(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    actions.rename(str(path), "  Fix the\r\nparser  ")
    assert Session.load(str(path)).name == "Fix the parser"
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert list(last) == ["type", "id", "parentId", "timestamp", "name"]
    actions.rename(str(path), "")
    assert Session.load(str(path)).name is None


def test_append_after_a_torn_last_line_starts_on_a_new_line(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    path.write_bytes(path.read_bytes() + b'{"type":"message","id":"torn"')
    actions.rename(str(path), "named")
    session = Session.load(str(path))
    assert session.name == "named"
    assert path.read_bytes().count(b"\n") == 7  # header, 4 messages, newline after the torn line, entry


def test_branch_without_summary_appends_a_pitui_branch_custom_entry(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    result = actions.branch(str(path), "a0000001")
    (line,) = new_lines(path, before)
    data = orjson.loads(line)
    assert list(data) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert data["customType"] == "pitui.branch" and data["parentId"] == "a0000001"
    assert data["data"] == {"from": "a0000003"}
    session = Session.load(str(path))
    assert [e.id for e in session.path_to()][:-1] == ["a0000000", "a0000001"]
    assert [
        m["content"][0]["text"] if m["role"] == "assistant" else m["content"] for m in session.context().messages
    ] == ["text 0", "text 1"]
    assert result.prompt_text is None


def test_branch_to_a_user_message_moves_to_its_parent_and_offers_its_text(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    result = actions.branch(str(path), "a0000002")
    assert result.new_leaf == "a0000001" and result.prompt_text == "text 2"
    result = actions.branch(str(path), "a0000000")  # a root user message: before everything
    assert result.new_leaf is None
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["parentId"] is None
    assert Session.load(str(path)).context().messages == []


def test_branch_to_the_leaf_writes_nothing(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    assert actions.branch(str(path), "a0000003").entry_id is None
    assert path.read_bytes() == before


def test_branch_with_summary(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    before = path.read_bytes()
    actions.branch(str(path), "a0000001", summary="Tried X; it failed.")
    (line,) = new_lines(path, before)
    data = orjson.loads(line)
    # pi's key order; details as pi records them (no file was read or changed on that branch)
    assert list(data) == ["type", "id", "parentId", "timestamp", "fromId", "summary", "details"]
    assert data["details"] == {"readFiles": [], "modifiedFiles": []}
    # fromId: the leaf the move left (pi 1.6; pi 0.73.1 wrote the new parent)
    assert data["parentId"] == "a0000001" and data["fromId"] == "a0000003"
    roles = [m["role"] for m in Session.load(str(path)).context().messages]
    assert roles == ["user", "assistant", "branchSummary"]


def test_fork_rechains_past_labels_and_relinks_labels(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a", None),
        msg("b", "a", "assistant", n=1),
        entry("label", "l1", "b", n=2, targetId="a", label="start"),
        msg("c", "l1", n=3),
        msg("d", "c", "assistant", n=4),
        msg("x", "b", n=5),
    )
    # the leaf is x; fork from d, whose path runs through the label entry l1
    new = Path(actions.fork(str(path), "d"))
    assert new.parent == path.parent and new.name.endswith(".jsonl")
    rows = [orjson.loads(line) for line in new.read_bytes().splitlines()]
    assert rows[0]["parentSession"] == str(path) and rows[0]["version"] == 3
    assert [(r["id"], r["parentId"]) for r in rows[1:5]] == [("a", None), ("b", "a"), ("c", "b"), ("d", "c")]
    label = rows[5]
    assert (label["type"], label["parentId"], label["targetId"], label["label"], label["timestamp"]) == (
        "label",
        "d",
        "a",
        "start",
        ts(2),
    )
    session = Session.load(str(new))
    assert session.labels == {"a": "start"} and len(session.tree().roots) == 1
    assert len(session.context().messages) == 4


def test_fork_points_a_compaction_past_a_dropped_label_at_the_next_kept_entry(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a", None),
        msg("b", "a", "assistant", n=1),
        entry("label", "l1", "b", n=2, targetId="a", label="start"),
        entry("label", "l2", "l1", n=3, targetId="b", label="reply"),
        msg("c", "l2", n=4),
        msg("d", "c", "assistant", n=5),
        entry("compaction", "k1", "d", n=6, summary="S1", firstKeptEntryId="l1", tokensBefore=9),
        entry("compaction", "k2", "k1", n=7, summary="S2", firstKeptEntryId="k2", tokensBefore=9),
        msg("e", "k2", n=8),
    )
    new = Path(actions.clone(str(path)))
    rows = {r.get("id"): r for r in map(orjson.loads, new.read_bytes().splitlines()[1:])}
    assert rows["k1"]["firstKeptEntryId"] == "c", "the label it kept from is gone: the next kept entry"
    assert rows["k2"]["firstKeptEntryId"] == "k2", "retain-none stays its own id"
    assert list(rows["k1"]) == ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"]
    assert rows["c"]["parentId"] == "b"
    source = Session.load(str(path)).context().messages
    assert Session.load(str(new)).context().messages == source


def test_fork_or_clone_without_a_user_or_assistant_message_writes_nothing(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        entry("model_change", "m0000001", None, 1, provider="p", modelId="m"),
        msg("s", "m0000001", "system", "You are pi.", n=2),
        msg("a", "s", n=3),
    )
    with pytest.raises(actions.ActionError, match="no user or assistant message"):
        actions.fork(str(path), "s")
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl"]
    assert Path(actions.fork(str(path), "a")).is_file()


def test_clone_copies_the_active_path(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl", 6)
    new = Path(actions.clone(str(path)))
    assert [e.id for e in Session.load(str(new)).entries] == [f"a{i:07d}" for i in range(6)]


def test_first_write_to_a_v1_file_migrates_it_atomically_keeping_the_original_in_the_trash(
    tmp_path: Path, trash_home: Path
):
    v1 = [header(version=None)] + [
        {"type": "message", "timestamp": ts(i), "message": {"role": "user", "content": f"m{i}"}} for i in range(3)
    ]
    path = write(tmp_path / f"old-{tmp_path.name}.jsonl", *v1)
    original = path.read_bytes()
    actions.rename(str(path), "migrated")
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert rows[0]["version"] == 3 and all(ID.match(r["id"]) for r in rows[1:])
    assert rows[-1]["type"] == "session_info" and rows[-1]["parentId"] == rows[-2]["id"]
    assert (trash_home / "files" / path.name).read_bytes() == original
    info = (trash_home / "info" / f"{path.name}.trashinfo").read_text()
    assert f"Path={path}" in info
    assert [f for f in os.listdir(tmp_path) if f.endswith(".tmp")] == []


def test_trash_moves_the_file_and_says_why_when_it_cannot(tmp_path: Path, trash_home: Path):
    path = linear(tmp_path / f"s-{tmp_path.name}.jsonl")
    actions.trash(str(path))
    assert not path.exists() and (trash_home / "files" / path.name).exists()
    assert f"Path={path}" in (trash_home / "info" / f"{path.name}.trashinfo").read_text()
    with pytest.raises(actions.ActionError):
        actions.trash(str(path))
    with pytest.raises(TrashError):
        move_to_trash(str(tmp_path / "missing.jsonl"))


# ---------------------------------------------------------------- SessionManager API


def test_new_session_is_written_on_the_first_user_message(tmp_path: Path):
    manager = SessionManager.create("/home/me/proj", str(tmp_path))
    manager.append_model_change("anthropic", "claude-x")
    manager.append_message({"role": "system", "content": "You are pi.", "timestamp": 1})
    file = Path(manager.get_session_file())
    assert not file.exists(), "setup entries alone (a system prompt too) make no file"
    manager.append_message({"role": "user", "content": "hello", "timestamp": 2})
    rows = [orjson.loads(line) for line in file.read_bytes().splitlines()]
    assert [r["type"] for r in rows] == ["session", "model_change", "message", "message"]
    assert list(rows[0]) == ["type", "version", "id", "timestamp", "cwd"]
    assert file.name == rows[0]["timestamp"].replace(":", "-").replace(".", "-") + f"_{rows[0]['id']}.jsonl"
    manager.append_session_info("named")  # later entries go straight to the file
    assert SessionManager.open(str(file)).get_session_name() == "named"
    assert [r["type"] for r in map(orjson.loads, file.read_bytes().splitlines())][-1] == "session_info"


def test_new_session_file_is_created_never_over_another(tmp_path: Path):
    manager = SessionManager.create("/home/me/proj", str(tmp_path))
    file = Path(manager.get_session_file())
    file.write_bytes(b"someone else's\n")
    with pytest.raises(FileExistsError):
        manager.append_message({"role": "user", "content": "hello", "timestamp": 2})
    assert file.read_bytes() == b"someone else's\n"


def test_appends_to_an_opened_file_are_immediate_without_any_message(tmp_path: Path):
    path = write(tmp_path / "s.jsonl", header(), entry("model_change", "m0000001", None, 1, provider="p", modelId="m"))
    before = path.read_bytes()
    SessionManager.open(str(path)).append_session_info("setup only")
    (line,) = new_lines(path, before)
    assert orjson.loads(line)["name"] == "setup only"


def test_manager_tree_api(tmp_path: Path):
    manager = SessionManager.in_memory("/x")
    a = manager.append_message({"role": "user", "content": "a", "timestamp": 1})
    b = manager.append_message({"role": "assistant", "content": [], "timestamp": 2})
    manager.branch(a)
    c = manager.append_message({"role": "assistant", "content": [], "timestamp": 3})
    assert [e["id"] for e in manager.get_children(a)] == [b, c]
    assert [e["id"] for e in manager.get_branch()] == [a, c]
    summary = manager.branch_with_summary(a, "left b")
    assert manager.get_entry(summary)["fromId"] == c and manager.get_leaf_id() == summary  # the leaf left
    manager.reset_leaf()
    first = manager.branch_with_summary(None, "from nowhere")
    assert manager.get_entry(first)["fromId"] == "root" and manager.get_entry(first)["parentId"] is None
    manager.branch(summary)
    manager.reset_leaf()
    root = manager.append_custom_entry("x", {"k": 1})
    assert manager.get_entry(root)["parentId"] is None
    with pytest.raises(EntryNotFoundError, match="Entry nope not found"):
        manager.append_label_change("nope", "x")
    assert manager.create_branched_session(c) is None  # in memory: replaces the state
    assert [e["id"] for e in manager.get_entries()] == [a, c]


def test_compaction_leaves_out_what_is_not_given(tmp_path: Path):
    manager = SessionManager.in_memory("/x")
    manager.append_message({"role": "user", "content": "a", "timestamp": 1})
    manager.append_compaction("S", None, 100)
    data = manager.get_leaf_entry()
    assert list(data) == ["type", "id", "parentId", "timestamp", "summary", "tokensBefore"]
    assert [m["role"] for m in manager.build_session_context().messages] == ["compactionSummary"]


def test_fork_from_and_continue_recent(tmp_path: Path):
    source = linear(tmp_path / "src.jsonl")
    target_dir = tmp_path / "target"
    forked = SessionManager.fork_from(str(source), "/other", str(target_dir))
    assert forked.get_header()["parentSession"] == str(source) and forked.get_cwd() == "/other"
    assert len(forked.get_entries()) == 4
    recent = SessionManager.continue_recent("/other", str(target_dir))
    assert recent.get_session_file() == forked.get_session_file()


def test_open_refuses_a_foreign_file_without_touching_it(tmp_path: Path):
    from pitui.store.model import NotASessionError

    path = tmp_path / "foreign.jsonl"
    path.write_bytes(b'{"kind":"header","version":4}\n')
    with pytest.raises(NotASessionError):
        SessionManager.open(str(path))
    assert path.read_bytes() == b'{"kind":"header","version":4}\n'


# ---------------------------------------------------------------- a file that changes under us


def test_a_write_on_a_stale_read_is_refused(tmp_path: Path):
    from pitui.store.model import FileChangedError

    path = linear(tmp_path / "s.jsonl")
    manager = SessionManager.open(str(path))
    with path.open("ab") as handle:  # pi appends meanwhile
        handle.write(lines(msg("pi00000", "a0000003", "user", "from pi", n=9)))
    before = path.read_bytes()
    with pytest.raises(FileChangedError, match="changed on disk"):
        manager.append_label_change("a0000001", "x")
    assert path.read_bytes() == before


def test_actions_read_again_when_pi_appended_in_between(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = linear(tmp_path / "s.jsonl")
    real_open = SessionManager.open
    appended = []

    def open_then_pi_appends(*args, **kwargs):
        manager = real_open(*args, **kwargs)
        if not appended:
            appended.append(True)
            with path.open("ab") as handle:
                handle.write(lines(msg("pi00000", "a0000003", "user", "from pi", n=9)))
        return manager

    monkeypatch.setattr(SessionManager, "open", open_then_pi_appends)
    actions.set_label(str(path), "a0000001", "x")
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert last["type"] == "label" and last["parentId"] == "pi00000"


def test_bodies_come_from_the_file_as_it_was_read(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(path.read_bytes().replace(b"text 2", b"HACK 2"))
    os.replace(replacement, path)
    assert session.entry("a0000002").message["content"] == "text 2"


def test_branch_refuses_a_leaf_inside_a_parent_cycle(tmp_path: Path):
    path = write(
        tmp_path / "c.jsonl",
        header(),
        msg("r", None),
        msg("a", "b", n=1),
        msg("b", "a", "assistant", n=2),
        msg("z", "r", "assistant", n=3),
    )
    before = path.read_bytes()
    with pytest.raises(actions.ActionError, match="cycle"):
        actions.branch(str(path), "b")
    assert path.read_bytes() == before


def test_branch_to_the_leaf_user_message_or_the_same_place_twice_writes_nothing(tmp_path: Path):
    path = write(tmp_path / "s.jsonl", header(), msg("a", None), msg("b", "a", "assistant", n=1), msg("c", "b", n=2))
    before = path.read_bytes()
    assert actions.branch(str(path), "c").entry_id is None  # the leaf itself: already there
    assert path.read_bytes() == before
    assert actions.branch(str(path), "a").entry_id is not None
    after_first = path.read_bytes()
    assert actions.branch(str(path), "a").entry_id is None  # the marker already stands there
    assert path.read_bytes() == after_first


def test_trash_refuses_a_file_that_is_not_a_session(tmp_path: Path):
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(actions.ActionError, match="not a pi session"):
        actions.trash(str(other))
    assert other.read_text() == "my notes\n"


def test_migrating_on_first_write_keeps_unreadable_lines_where_they_were(tmp_path: Path):
    v1 = [header(version=None), {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "a"}}]
    path = tmp_path / f"old-bad-{tmp_path.name}.jsonl"
    path.write_bytes(
        lines(*v1)
        + b"garbage line\n"
        + lines({"type": "message", "timestamp": ts(2), "message": {"role": "user", "content": "b"}})
        + b'{"torn'
    )
    actions.rename(str(path), "kept")
    rows = path.read_bytes().split(b"\n")
    assert rows[2] == b"garbage line" and rows[4] == b'{"torn'
    session = Session.load(str(path))
    assert session.name == "kept" and [m["content"] for m in session.context().messages] == ["a", "b"]


def test_the_rest_of_pis_api_reads_back_in_a_new_manager(tmp_path: Path):
    manager = SessionManager.create("/home/me/proj", str(tmp_path))
    assert manager.is_persisted() and manager.get_cwd() == "/home/me/proj"
    assert manager.get_session_dir() == str(tmp_path) and len(manager.get_session_id()) == 36
    manager.append_thinking_level_change("high")
    user = manager.append_message({"role": "user", "content": "hi", "timestamp": 1})
    manager.append_custom_message_entry("note", [{"type": "text", "text": "from an extension"}], True)
    manager.append_message({"role": "assistant", "content": [], "provider": "p", "model": "m", "timestamp": 2})
    manager.append_label_change(user, "start")
    again = SessionManager.open(manager.get_session_file())
    assert again.get_label(user) == "start" and again.get_session_id() == manager.get_session_id()
    assert [e["type"] for e in again.build_context_entries()] == [
        "thinking_level_change",
        "message",
        "custom_message",
        "message",
        "label",
    ]
    context = again.build_session_context()
    assert [m["role"] for m in context.messages] == ["user", "custom", "assistant"]
    assert context.thinking_level == "high" and context.model == {"provider": "p", "modelId": "m"}
    tree = again.get_tree()
    assert len(tree.roots) == 1 and [e.id for e in tree.children_of(tree.roots[0])] == [user]
    rows = [orjson.loads(line) for line in Path(manager.get_session_file()).read_bytes().splitlines()]
    assert list(rows[3]) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]


def test_a_branch_left_behind_with_an_entry_whose_type_is_an_array_is_summarised() -> None:
    """Leaving type-array.jsonl's compacted branch (the odd entry on it) for the one beside it:
    what is left behind holds messages, so a summary is offered."""
    session = Session.load(str(Path(__file__).parent.parent / "fixtures" / "type-array.jsonl"))
    target = next(e for e in session.entries if e.type == "message" and "Elsewhere." in str(e.read_data()))
    plan = actions.plan_branch(session, target)
    assert not plan.already_there and plan.prompt_text == "Elsewhere."
    assert ["message"] in [e.type for e in plan.abandoned]
