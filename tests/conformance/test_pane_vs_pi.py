"""The conversation pane's items (pitui.store.pane through the session view's ``path_items``)
against pi 1.6.0's projection: "as the model sees it" is pi's projection message for message,
by entry and role; "everything on the path" adds the omitted messages, marked, in place."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    OtherMessage,
    ToolResult,
    UserMessage,
)
from pitui.store.pane import Marked, SystemBlock, model_sees
from pitui.store.reader import Session
from pitui.ui.screens.session_live import path_items

FIXTURES = Path(__file__).parent.parent / "fixtures"
CONTEXT_FIXTURES = sorted(p for p in FIXTURES.glob("*.jsonl") if p.name.startswith(("ctx-", "sys-", "b15-")))

_ROLES = {
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolResult: "toolResult",
    BashExecution: "bashExecution",
    CustomMessage: "custom",
    BranchSummary: "branchSummary",
    CompactionSummary: "compactionSummary",
    SystemBlock: "system",
}


def _role(item: Any) -> str:
    if isinstance(item, Marked):
        return _role(item.item)
    if isinstance(item, OtherMessage):
        return item.role
    return _ROLES[type(item)]


def _pane(path: Path) -> list[Any]:
    session = Session.load(str(path))
    return path_items(session, session.leaf_id, OrderedDict()).items


def _check(path: Path, pi: dict[str, Any]) -> None:
    items = _pane(path)
    seen = model_sees(items)
    expected = [entry_id for entry_id, count in pi["projection"] for _ in range(count)]
    assert [i.entry_id for i in seen] == expected, path.name
    assert [_role(i) for i in seen] == [m.get("role") for m in pi["context"]["messages"]], path.name
    omitted = [i for i in items if isinstance(i, Marked) and i.omitted]
    assert len(items) == len(seen) + len(omitted)


@pytest.mark.parametrize("path", CONTEXT_FIXTURES, ids=lambda p: p.stem)
def test_fixture_pane_is_pis_projection(path, oracle):
    try:
        pi = oracle.open(path)
    except oracle.Error as error:
        pytest.skip(f"pi cannot load it: {error}")
    _check(path, pi)


def test_pi_written_pane_is_pis_projection(oracle, pi_written):
    marks = 0
    for written in pi_written:
        pi = oracle.open(written.file)
        _check(written.file, pi)
        marks += sum(isinstance(i, Marked | SystemBlock) for i in _pane(written.file))
    assert marks > 0  # the sessions pi wrote have system messages and context edits


def test_omitted_and_replaced_are_marked_with_their_edit():
    items = _pane(FIXTURES / "ctx-edit-omit.jsonl")
    omitted = [i for i in items if isinstance(i, Marked) and i.omitted]
    assert omitted and all(i.note == f"omitted from context by {i.edit_id}" for i in omitted)
    items = _pane(FIXTURES / "ctx-edit-replace.jsonl")
    replaced = [i for i in items if isinstance(i, Marked) and not i.omitted]
    assert replaced and all(i.original is not None and i.original != i.item for i in replaced)


def test_system_prompt_folded_then_changes():
    items = _pane(FIXTURES / "sys-messages.jsonl")
    blocks = [i for i in items if isinstance(i, SystemBlock)]
    assert blocks[0].whole and blocks[0].tools and blocks[0].size > 0
    assert any(not b.whole and b.changes for b in blocks[1:])


def test_header_and_preview_totals_are_pis_session_totals(oracle, pi_written):
    """The session header and the picker preview show stats.session_preview's tokens and cost:
    pi 1.6's /session totals on the sessions it wrote (usage entries and every branch counted)."""
    from pitui.store.stats import session_preview

    for written in pi_written:
        stats = oracle.open(written.file)["stats"]
        preview = session_preview(str(written.file))
        assert preview.tokens.total == stats["tokens"]["total"], written.story
        assert round(preview.cost, 9) == stats["cost"], written.story
