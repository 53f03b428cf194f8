"""Context surgery from the session view, as a user does it: Ctrl+E omits or restores the
highlighted entry, Ctrl+W replaces it with a note from a prefilled editor, Ctrl+Z undoes; keys
typed together act in order; each file loaded by pi 1.6.0 (the edit applied) and 0.73.1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.apps import SIZE, opened, static_text, view_app
from helpers.pilot import feed, screen_text, until
from textual.pilot import Pilot

from pitui.ui.screens.dialogs import NoteEditor
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.session_tree import SessionTree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def linear(tmp_path: Path) -> Path:
    """user e0000003, assistant e0000004 calling bash, its result e0000005, assistant e0000006."""
    path = tmp_path / "linear.jsonl"
    shutil.copyfile(FIXTURES / "linear.jsonl", path)
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def status(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    return static_text(screen, "#session-status") if isinstance(screen, SessionScreen) else ""


async def at(pilot: Pilot[Any], entry_id: str) -> None:
    assert pilot.app.screen.query_one(SessionTree).select(entry_id)
    await pilot.pause()


def seen_by_pi(oracle: Any, path: Path) -> dict[str, int]:
    """How many messages each entry gives pi 1.6.0's model."""
    return dict(map(tuple, oracle.open(path)["projection"]))


async def test_ctrl_e_omits_and_ctrl_z_puts_it_back(tmp_path: Path, oracle: Any, oracle_073: Any) -> None:
    path = linear(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await at(pilot, "e0000005")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: status(pilot).startswith("Omitted tool result e0000005 from the context"))
        edit = lines(path)[-1]
        assert (edit["type"], edit["targetId"], edit["replacement"]) == ("context_edit", "e0000005", None)
        assert pilot.app.screen.query_one(SessionTree).selected_id == "e0000005", "the cursor stays on it"
        # The pane shows the conversation the model now gets, the omitted result marked at its top.
        await until(pilot, lambda: f"omitted from context by {edit['id']}" in screen_text(pilot.app))
        assert seen_by_pi(oracle, path)["e0000005"] == 0
        assert "error" not in oracle_073.open(path)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: status(pilot).startswith("Undid the omit"))
        assert seen_by_pi(oracle, path)["e0000005"] == 1
        assert oracle.open(path)["context"] == oracle.open(FIXTURES / "linear.jsonl")["context"]


async def test_ctrl_e_twice_restores_and_a_tool_call_takes_its_result(tmp_path: Path, oracle: Any) -> None:
    path = linear(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await at(pilot, "e0000004")
        feed(pilot, "ctrl+e", "ctrl+e")  # one read: the second sees what the first wrote
        await until(pilot, lambda: len(lines(path)) == 11)
        await until(pilot, lambda: status(pilot).startswith("Restored assistant message e0000004 and its 1 tool"))
        kinds = [(e["targetId"], e["replacement"] is None) for e in lines(path)[-4:]]
        assert kinds == [("e0000004", True), ("e0000005", True), ("e0000004", False), ("e0000005", False)]
        assert oracle.open(path)["context"] == oracle.open(FIXTURES / "linear.jsonl")["context"]


async def test_ctrl_w_note_typed_and_saved_in_one_read(tmp_path: Path, oracle: Any, oracle_073: Any) -> None:
    path = linear(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await at(pilot, "e0000005")
        feed(pilot, "ctrl+w", *" (see ls)", "ctrl+s", "up")  # Up waits for the write, then moves
        await until(pilot, lambda: status(pilot).startswith("Replaced tool result e0000005 with a note"))
        await until(pilot, lambda: pilot.app.screen.query_one(SessionTree).selected_id == "e0000004")
        edit = lines(path)[-1]
        note = "[omitted: bash ls, 3 lines] (see ls)"
        assert edit["replacement"] == {"content": [{"type": "text", "text": note}]}
        messages = oracle.open(path)["context"]["messages"]
        assert next(m for m in messages if m["role"] == "toolResult")["textLen"] == len(note)
        assert "error" not in oracle_073.open(path)


async def test_escape_in_the_note_editor_writes_nothing(tmp_path: Path) -> None:
    path = linear(tmp_path)
    before = path.read_bytes()
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await at(pilot, "e0000003")
        await pilot.press("ctrl+w")
        await until(pilot, lambda: isinstance(pilot.app.screen, NoteEditor))
        await pilot.press("escape")
        await until(pilot, lambda: status(pilot) == "Not replaced: nothing written")
    assert path.read_bytes() == before


@pytest.mark.parametrize("key", ["ctrl+e", "ctrl+w"])
async def test_an_entry_pi_cannot_edit_is_refused_and_says_why(tmp_path: Path, key: str) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copyfile(FIXTURES / "branches-timestamp-order.jsonl", path)
    before = path.read_bytes()
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SessionScreen) and screen.session is not None
        on_path = {id(e) for e in screen.session.path_to()}
        off = next(e.id for e in screen.session.entries if e.type == "message" and id(e) not in on_path)
        await at(pilot, off)
        await pilot.press(key)
        await until(pilot, lambda: "is not on the active branch" in status(pilot))
        assert not isinstance(pilot.app.screen, NoteEditor)
    assert path.read_bytes() == before
