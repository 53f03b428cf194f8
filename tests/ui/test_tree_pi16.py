"""The tree on pi 1.6 sessions, as a user works it: Enter where a hidden leaf sits writes nothing
(pi's B10, fixed), and Ctrl+X copies the highlighted entry's text with pi's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.apps import SIZE, opened, static_text, view_app
from helpers.pilot import until
from helpers.sessions import worked_session
from textual.pilot import Pilot

from pitui.ui.screens.dialogs import BranchDialog
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.session_tree import SessionTree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def status(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    return static_text(screen, "#session-status") if isinstance(screen, SessionScreen) else ""


def tree_of(pilot: Pilot[Any]) -> SessionTree:
    return pilot.app.screen.query_one(SessionTree)


@pytest.mark.parametrize("fixture", ["b10-usage-leaf", "b10-context-edit-leaf"])
async def test_enter_where_the_hidden_leaf_sits_writes_nothing_and_asks_nothing(tmp_path: Path, fixture: str) -> None:
    """The leaf is a usage entry (or a context edit) the tree does not show; the cursor starts on
    the answer above it, which is where the conversation is: Enter says so. pi would move the
    leaf up past the hidden entry and ask whether to summarise it."""
    path = tmp_path / f"{fixture}.jsonl"
    path.write_bytes((FIXTURES / f"{fixture}.jsonl").read_bytes())
    before = path.read_bytes()
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert tree_of(pilot).selected_id == "e0000006"  # the leaf's nearest shown ancestor
        await pilot.press("enter")
        await until(pilot, lambda: "Already at this point: nothing written" in status(pilot))
        assert not isinstance(pilot.app.screen, BranchDialog)
        await pilot.press("up", "up", "enter")  # a real move still asks about the answer left behind
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
    assert path.read_bytes() == before


async def test_ctrl_x_copies_the_highlighted_entrys_whole_text(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert tree_of(pilot).select("u2")
        await pilot.press("ctrl+x", "down")  # the row highlighted when Ctrl+X was pressed
        await until(pilot, lambda: "Copied selected message to clipboard" in status(pilot))
        assert pilot.app.clipboard == "Now add a changelog entry"
        assert tree_of(pilot).select("a2")
        await pilot.press("ctrl+x")
        await until(pilot, lambda: pilot.app.clipboard == "The retry loop was off by one.")


async def test_ctrl_x_on_an_entry_without_text_says_so(tmp_path: Path) -> None:
    path = FIXTURES / "b10-usage-leaf.jsonl"
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+a")  # all: the model change shows
        assert tree_of(pilot).select("e0000001")
        await pilot.pause()
        await pilot.press("ctrl+x")
        await until(pilot, lambda: "Selected entry has no text to copy" in status(pilot))
        assert pilot.app.clipboard == ""
