"""Sessions whose folder no longer exists: the mark in the picker's rows and preview, and pi 1.6's
question before resuming one (continue here, fork here, cancel), driven as a user drives it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.apps import listing, opened, picker_app, row_lines, static_text, view_app
from helpers.pilot import screen_text, settle, until
from helpers.sessions import session
from textual.widgets import OptionList

from pitui.config import Config
from pitui.store import session_cwd
from pitui.store.paths import default_session_dir
from pitui.ui.app import AppResult
from pitui.ui.screens.missing_cwd import MissingCwdDialog
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.widgets.preview_pane import PreviewPane

RESUME = Config(resume_command=(sys.executable, "-c", "pass", "{path}"))  # an installed command


@pytest.fixture(autouse=True)
def real_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests look at the disk (the deterministic settings count every folder as there)."""
    monkeypatch.setattr(session_cwd, "_gone", lambda folder: not os.path.isdir(folder))


def two_projects(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """An agent folder with a session of a folder that exists and one of a removed folder;
    the current folder (a third one, that exists)."""
    agent = tmp_path / "agent"
    kept, removed, here = tmp_path / "kept", tmp_path / "removed-project", tmp_path / "here"
    kept.mkdir()
    here.mkdir()
    alive = session(Path(default_session_dir(str(kept), str(agent))), "alive", "Still here", n=10, cwd=str(kept))
    gone = session(
        Path(default_session_dir(str(removed), str(agent))), "gone", "Folder removed", n=20, cwd=str(removed)
    )
    return agent, here, alive, gone


def row_of(app: Any, text: str) -> str:
    return next(line for line in row_lines(app) if text in line)


@pytest.mark.parametrize("width", [80, 120])
async def test_a_session_whose_folder_is_gone_is_marked(tmp_path: Path, width: int) -> None:
    agent, here, _, _ = two_projects(tmp_path)
    app = picker_app(agent, str(here), tmp_path, scope="all")
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        gone, alive = row_of(app, "Folder removed"), row_of(app, "Still here")
        assert "✗ " in gone and "✗" not in alive
        assert gone.index("Folder removed") < gone.index("✗ ") < gone.index("removed-project")
        for line in (gone, alive):  # one line each, count and age kept at the end
            assert len(line) <= listing(app).size.width and line.endswith(" 1 1y")
        if width >= 100:  # the preview beside the list
            await until(pilot, lambda: listing(app).selected is not None)
            while "Folder removed" not in listing(app).selected.info.first_message:
                await pilot.press("down")
            await until(pilot, lambda: "✗ no longer exists" in screen_text(app))


async def test_the_preview_says_nothing_of_a_folder_that_exists(tmp_path: Path) -> None:
    agent, here, alive, _ = two_projects(tmp_path)
    app = picker_app(agent, str(here), tmp_path, scope="all")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        while "Still here" not in listing(app).selected.info.first_message:
            await pilot.press("down")
        pane = app.screen.query_one(PreviewPane)
        await until(pilot, lambda: pane.preview is not None and pane.preview.path == str(alive))
        await settle(pilot)
        assert "alive.jsonl" in screen_text(app)
        assert "no longer exists" not in screen_text(app)


async def choose_gone(pilot: Any, app: Any) -> None:
    await settle(pilot)
    while "Folder removed" not in listing(app).selected.info.first_message:
        await pilot.press("down")
    await pilot.press("ctrl+o")
    await until(pilot, lambda: isinstance(app.screen, MissingCwdDialog))


async def test_resume_asks_pis_question_and_cancel_stays(tmp_path: Path) -> None:
    agent, here, _, gone = two_projects(tmp_path)
    app = picker_app(agent, str(here), tmp_path, scope="all", config=RESUME)
    async with app.run_test(size=(100, 30)) as pilot:
        await choose_gone(pilot, app)
        await settle(pilot)
        title = static_text(app.screen, ".dialog-title")
        assert title == f"Session cwd does not exist: {tmp_path / 'removed-project'}"
        options = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        assert options == [
            f"Continue in {here} (asks again next time)",
            f"Fork into {here} (new session ID, original kept)",
            "Cancel",
        ]
        about = static_text(app.screen, "#missing-cwd-about")  # said before anything is written
        assert f"Fork writes a new session file in {default_session_dir(str(here), str(agent))} " in about
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.return_value is None
        assert any("Resume cancelled" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, MissingCwdDialog))
        await pilot.press("down", "down", "enter")  # Cancel
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
    assert app.return_value is None
    assert sorted(p.name for p in gone.parent.iterdir()) == ["gone.jsonl"]


async def test_continue_resumes_this_file_in_the_current_folder(tmp_path: Path) -> None:
    agent, here, _, gone = two_projects(tmp_path)
    before = gone.read_bytes()
    app = picker_app(agent, str(here), tmp_path, scope="all", config=RESUME)
    async with app.run_test(size=(100, 30)) as pilot:
        await choose_gone(pilot, app)
        await pilot.press("enter")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value is not None
    assert (app.return_value.action, app.return_value.path, app.return_value.cwd) == ("resume", str(gone), str(here))
    assert gone.read_bytes() == before


async def test_fork_writes_pis_fork_and_resumes_it(tmp_path: Path, oracle: Any) -> None:
    agent, here, _, gone = two_projects(tmp_path)
    before = gone.read_bytes()
    app = picker_app(agent, str(here), tmp_path, scope="all", config=RESUME)
    async with app.run_test(size=(100, 30)) as pilot:
        await choose_gone(pilot, app)
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.return_value is not None)
    result = app.return_value
    assert isinstance(result, AppResult) and result.action == "resume" and result.cwd == str(here)
    fork = Path(result.path)
    assert fork.parent == Path(default_session_dir(str(here), str(agent)))
    header = orjson.loads(fork.read_bytes().splitlines()[0])
    assert header["cwd"] == str(here) and header["parentSession"] == str(gone)
    assert result.note == f"Forked into new session {header['id']} in {here}"
    assert gone.read_bytes() == before, "the original is kept as it was"
    assert oracle.open(fork)["header"]["cwd"] == str(here)


async def test_the_session_view_resume_asks_too(tmp_path: Path) -> None:
    _, here, _, gone = two_projects(tmp_path)
    app = view_app(gone, tmp_path)
    app.config = RESUME
    app.cwd = str(here)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, MissingCwdDialog))
        await pilot.press("enter")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value is not None and app.return_value.cwd == str(here)


async def test_the_session_view_header_says_the_folder_is_gone(tmp_path: Path) -> None:
    _, _, alive, gone = two_projects(tmp_path)
    for path, marked in ((gone, True), (alive, False)):
        app = view_app(path, tmp_path)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await opened(pilot)
            title = static_text(screen, "#session-title")
            assert (f"✗ {tmp_path / 'removed-project'} (folder gone)" in title) is marked
