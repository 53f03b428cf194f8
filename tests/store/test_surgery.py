"""Context surgery in the store (``pitui.store.write.surgery``, the view's editor, the command
line's action): what each edit writes, what it refuses, and undo. That pi reads the edits as
pitui does is checked in ``tests/conformance/test_context_surgery.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.store.context import context_messages, projected_messages
from pitui.store.context_size import estimate_tokens
from pitui.store.reader import Session
from pitui.store.write.actions import ActionError, context_edit
from pitui.store.write.editing import SessionEditor
from pitui.store.write.surgery import describe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    shutil.copyfile(FIXTURES / f"{name}.jsonl", path)
    return path


def appended(path: Path, before: bytes) -> list[dict[str, Any]]:
    data = path.read_bytes()
    assert data.startswith(before)
    return [json.loads(line) for line in data[len(before) :].splitlines()]


def model_sees(path: Path) -> dict[str, int]:
    """How many messages each entry gives the model at the leaf."""
    return {str(p.entry.id): len(p.messages) for p in Session.load(str(path)).projection()}


def test_omitting_a_tool_call_omits_its_results_as_pi_does(tmp_path: Path) -> None:
    path = copy(tmp_path, "linear")  # e0000004 calls bash; e0000005 is its result
    before = path.read_bytes()
    done, ids = context_edit(str(path), "omit", "e0000004")
    lines = appended(path, before)
    assert [(e["targetId"], e["replacement"]) for e in lines] == [("e0000004", None), ("e0000005", None)]
    assert ids == [e["id"] for e in lines]
    assert list(lines[0]) == ["type", "id", "parentId", "timestamp", "targetId", "replacement"]
    assert lines[0]["parentId"] == "e0000006" and lines[1]["parentId"] == lines[0]["id"], "each on the leaf"
    source = Session.load(str(FIXTURES / "linear.jsonl"))
    saved = sum(estimate_tokens(m) for i in ("e0000004", "e0000005") for m in context_messages(source.by_id[i]))
    assert done == f"Omitted assistant message e0000004 and its 1 tool result from the context, ~{saved} tokens saved"
    seen = model_sees(path)
    assert seen["e0000004"] == seen["e0000005"] == 0 and seen["e0000003"] == seen["e0000006"] == 1


def test_a_tool_result_alone_is_omitted_alone_and_restored(tmp_path: Path) -> None:
    path = copy(tmp_path, "linear")
    context_edit(str(path), "omit", "e0000005")
    assert model_sees(path)["e0000005"] == 0 and model_sees(path)["e0000004"] == 1
    before = path.read_bytes()
    context_edit(str(path), "restore", "e0000005")
    [restore] = appended(path, before)
    original = Session.load(str(path)).by_id["e0000005"].message["content"]
    assert restore["replacement"] == {"content": original}, "a restore is the content as written"
    assert Session.load(str(path)).context().messages == Session.load(str(FIXTURES / "linear.jsonl")).context().messages


def test_replacing_keeps_the_role_and_makes_pis_text_block(tmp_path: Path) -> None:
    path = copy(tmp_path, "linear")
    before = path.read_bytes()
    context_edit(str(path), "replace", "e0000003", "  [omitted: the question]  ")
    context_edit(str(path), "replace", "e0000005", "[omitted: bash ls, 3 lines]")
    user, result = appended(path, before)
    assert user["replacement"] == {"content": "[omitted: the question]"}, "a user's note stays a string (trimmed)"
    assert result["replacement"] == {"content": [{"type": "text", "text": "[omitted: bash ls, 3 lines]"}]}
    messages = projected_messages(Session.load(str(path)).projection())
    assert messages[0]["role"] == "user" and messages[0]["content"] == "[omitted: the question]"


def test_replacing_a_tool_call_omits_its_results(tmp_path: Path) -> None:
    path = copy(tmp_path, "linear")
    before = path.read_bytes()
    context_edit(str(path), "replace", "e0000004", "[omitted: ran ls]")
    lines = appended(path, before)
    assert [(e["targetId"], e["replacement"] is None) for e in lines] == [("e0000004", False), ("e0000005", True)]


@pytest.mark.parametrize(
    ("name", "ref", "op", "says"),
    [
        ("linear", "e0000001", "omit", "model change entry: context edits change only"),
        ("sys-messages", None, "omit", r"system message \(the system prompt\)"),
        ("linear", "e0000006", "restore", "in the context as written: nothing to restore"),
        ("linear", "e0000003", "replace", "An empty note"),
        ("branches-timestamp-order", "off-branch", "omit", "not on the active branch"),
        ("compaction-two", "summarised", "omit", "summarised by a compaction"),
    ],
)
def test_refused_edits_write_nothing(tmp_path: Path, name: str, ref: str | None, op: str, says: str) -> None:
    path = copy(tmp_path, name)
    session = Session.load(str(path))
    on_path = session.path_to()
    context = {id(e) for e in session.context_entries()}
    messages = [e for e in session.entries if e.type == "message" and e.role in ("user", "assistant")]
    if ref is None:
        ref = next(e.id for e in session.entries if e.type == "message" and e.role == "system")
    elif ref == "off-branch":
        ref = next(e.id for e in messages if all(e is not p for p in on_path))
    elif ref == "summarised":
        ref = next(e.id for e in messages if any(e is p for p in on_path) and id(e) not in context)
    before = path.read_bytes()
    with pytest.raises(ActionError, match=says):
        context_edit(str(path), op, ref, "  " if op == "replace" else None)
    assert path.read_bytes() == before


def test_undo_puts_each_target_back_as_it_was(tmp_path: Path) -> None:
    path = copy(tmp_path, "ctx-edit-replace")  # e0000004 and e0000005 are replaced already
    editor = SessionEditor(Session.load(str(path)))
    seen = Session.load(str(path)).context().messages
    editor.context_edit("e0000005", "omit")
    written = editor.context_edit("e0000004", "toggle")  # edited: the toggle restores it, and its omitted result
    assert written.message.startswith("Restored assistant message e0000004 and its 1 tool result in the context")
    assert written.show_id == "e0000004"
    assert Session.load(str(path)).context().messages != seen
    before = path.read_bytes()
    undone = editor.undo()
    assert undone.message.startswith("Undid the restore")
    lines = appended(path, before)
    assert [(e["targetId"], e["replacement"]) for e in lines] == [
        ("e0000004", {"content": [{"type": "text", "text": "Ran the tests."}]}),
        ("e0000005", None),
    ]
    editor.undo()  # the omit of the result
    assert Session.load(str(path)).context().messages == seen
    with pytest.raises(ActionError, match="Nothing to undo"):
        editor.undo()


def test_undo_of_an_omit_is_refused_once_the_entry_was_edited_again(tmp_path: Path) -> None:
    path = copy(tmp_path, "linear")
    editor = SessionEditor(Session.load(str(path)))
    editor.context_edit("e0000005", "omit")
    context_edit(str(path), "restore", "e0000005")  # another writer, meanwhile
    before = path.read_bytes()
    with pytest.raises(ActionError, match="edited again since"):
        editor.undo()
    assert path.read_bytes() == before


def test_the_note_prefilled_says_what_is_replaced(tmp_path: Path) -> None:
    session = Session.load(str(FIXTURES / "linear.jsonl"))
    assert describe(session, session.by_id["e0000005"]) == "[omitted: bash ls, 3 lines]"
    assert describe(session, session.by_id["e0000004"]) == "[omitted: assistant reply calling bash ls, 1 line]"
    assert describe(session, session.by_id["e0000003"]) == "[omitted: user message “What is in this folder?”, 1 line]"
    custom = Session.load(str(FIXTURES / "custom.jsonl"))
    assert describe(custom, custom.by_id["e0000004"]) == "[omitted: timer message, 1 line]"


def test_a_message_whose_role_is_an_array_is_refused_not_a_crash(tmp_path: Path) -> None:
    from devkit.builder import header, lines, msg
    from pitui.store.write.manager import ContextEditError, SessionManager

    odd = msg("e0000002", "e0000001", "user", "odd", n=2)
    odd["message"]["role"] = ["user"]
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(header(), msg("e0000001", None, "user", "hi", n=1), odd))
    before = path.read_bytes()
    with pytest.raises(ActionError, match="context edits change only"):
        context_edit(str(path), "omit", "e0000002", None)
    with pytest.raises(ContextEditError, match="does not contribute editable model content"):
        SessionManager.open(str(path)).append_context_edit("e0000002", None)
    assert path.read_bytes() == before
