"""The picker's writes, driven as a user drives them: renaming a session and moving one to the
trash, with every way to cancel, and what the files hold afterwards."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.apps import (
    header_lines,
    picker,
    picker_app,
    selected_title,
    titles,
)
from helpers.pilot import screen_text, settle, type_text
from helpers.sessions import CWD, KIT_NOW, family, file_bytes, kit_folder
from helpers.trash import trash_dir
from textual.widgets import Input

from pitui.ui.screens.dialogs import RenameScreen
from pitui.ui.screens.picker import PickerScreen

# -- building apps and looking at the screen: tests/helpers (apps, pilot, sessions) ------------------


# -- rename ----------------------------------------------------------------------------------------


async def test_rename_saves_a_name_pi_reads(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        assert selected_title(app) == "Recursive descent"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, RenameScreen)
        box = app.screen.query_one(Input)
        assert box.value == "Recursive descent"  # prefilled with the current name
        assert "enter to save · escape/ctrl+c to cancel" in screen_text(app)
        box.value = ""
        await type_text(pilot, "Descent, final")
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, RenameScreen)
        assert selected_title(app) == "Descent, final"
        last = paths["b"].read_bytes().splitlines()[-1]
        assert b'"type":"session_info"' in last and b'"name":"Descent, final"' in last


async def test_rename_escape_and_empty_name_write_nothing(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    before = file_bytes(paths.values())
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        box = app.screen.query_one(Input)
        assert box.value == ""  # unnamed: empty, not the first message
        await type_text(pilot, "   ")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RenameScreen)  # an empty name does nothing
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
    assert file_bytes(paths.values()) == before


# -- delete ----------------------------------------------------------------------------------------


def trashed(name: str) -> tuple[Path, Path]:
    return trash_dir() / "files" / name, trash_dir() / "info" / f"{name}.trashinfo"


async def test_delete_asks_then_moves_the_file_to_the_trash(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    others = file_bytes(p for key, p in paths.items() if key != "lone")
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("up", *["down"] * 4)
        assert selected_title(app) == "Unrelated: fix the CI cache"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Delete session? enter confirm · escape/ctrl+c cancel"
        assert header_lines(app)[2].strip() == "Unrelated: fix the CI cache · lone.jsonl"  # what it moves
        await pilot.press("x", "up", "tab", "ctrl+s")  # ignored while the question is open
        await settle(pilot)
        assert picker(app).query_text == "" and selected_title(app) == "Unrelated: fix the CI cache"
        assert header_lines(app)[0].endswith("Sort: Threaded")
        await pilot.press("enter")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Session moved to trash"
        assert "Unrelated: fix the CI cache" not in titles(app)
        assert selected_title(app) == "Recursive descent"  # the row above moved under the cursor
    in_trash, info = trashed("lone.jsonl")
    assert not paths["lone"].exists()
    assert in_trash.read_bytes().startswith(b'{"type":"session"')
    assert f"Path={paths['lone']}" in info.read_text() or "Path=" in info.read_text()
    assert info.read_text().splitlines()[1].endswith("lone.jsonl")
    assert file_bytes(others) == others
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for k, p in paths.items() if k != "lone")


async def test_delete_cancelled_keeps_everything(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    before = file_bytes(paths.values())
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "parser")
        await pilot.press("ctrl+d")  # in the search box, Ctrl+D is still delete
        await settle(pilot)
        assert "Delete session?" in header_lines(app)[1]
        await pilot.press("escape")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
        assert picker(app).query_text == "parser"  # Escape answered the question only
        await pilot.press("ctrl+d")
        await settle(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
    assert file_bytes(paths.values()) == before


async def test_ctrl_backspace_deletes_only_with_an_empty_query(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "table")
        await pilot.press("ctrl+backspace")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
        await pilot.press("ctrl+u")
        await settle(pilot)
        assert picker(app).query_text == ""
        await pilot.press("ctrl+backspace")
        await settle(pilot)
        assert "Delete session?" in header_lines(app)[1]


async def test_the_session_open_in_a_view_cannot_be_deleted(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    monkeypatch.setattr(app, "open_session_paths", lambda: {os.path.realpath(paths["root"])})
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert selected_title(app) == "Plan the parser"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Cannot delete the currently active session"
        await pilot.press("enter")  # no question was asked: Enter opens, nothing is deleted
    assert paths["root"].exists()


async def test_a_failed_trash_is_reported_and_the_file_stays(tmp_path, monkeypatch):
    from pitui.store.write import trash

    agent, folder = kit_folder(tmp_path)
    paths = family(folder)

    def refuse(path: str) -> None:
        raise trash.TrashError(f"{path}: cannot move it to the trash: read-only file system")

    monkeypatch.setattr("pitui.store.write.actions.move_to_trash", refuse)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(140, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+d", "enter")
        await settle(pilot)
        assert header_lines(app)[1].strip().startswith("Failed to delete: ")
        assert "read-only file system" in header_lines(app)[1]
    assert paths["root"].exists()
