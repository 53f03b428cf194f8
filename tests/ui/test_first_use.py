"""What a new user meets in the first minutes: paths, ages and places said whole, one message in
one place, dialogs over what they are about, the keys screen readable at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers.apps import demo_app, listing, opened, picker_app, row_lines, static_text, view_app
from helpers.pilot import screen_lines, screen_text, settle, until
from helpers.sessions import CWD, KIT_NOW, family, kit_folder, session, worked_session

from pitui.config import Config
from pitui.store.query import match_spans, parse_search_query
from pitui.store.reader import Session
from pitui.store.write.editing import SessionEditor
from pitui.ui.screens.dialogs import LabelDialog
from pitui.ui.screens.help import HelpScreen, key_rows
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.preview_pane import FactTable, PreviewPane
from pitui.ui.widgets.session_tree import SessionTree

# -- the picker ------------------------------------------------------------------------------------


async def test_ctrl_p_shows_the_path_from_its_start_to_its_file(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(200, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        sessions = Path(app.catalog.agent_dir) / "sessions"
        for row, line in zip(listing(app).rows, row_lines(app), strict=False):
            start = str(sessions)[:20]
            assert start in line, line  # where it is, from the start
            assert Path(row.path).name[-20:] in line, line  # and which file


async def test_a_fork_made_now_is_now_and_its_preview_says_so(tmp_path: Path) -> None:
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    clone = SessionEditor(Session.load(str(paths["lone"]))).clone()  # entries copied, timestamps kept
    now = os.stat(clone).st_mtime * 1000  # made now; its messages hours older
    app = picker_app(agent, CWD, tmp_path, now=now + 30_000)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        rows = {row.path: line for row, line in zip(listing(app).rows, row_lines(app), strict=False)}
        assert rows[clone].endswith(" now")
        while listing(app).selected.path != clone:
            await pilot.press("down")
        await settle(pilot)
        await until(
            pilot,
            lambda: (pane := app.screen.query_one(PreviewPane)).preview is not None and pane.preview.path == clone,
        )
        text = screen_text(app)
        created, last = text.index("Created"), text.index("Last message")
        assert created < last and "Modified" not in text
        rows = app.screen.query_one("#preview-facts", FactTable).rows
        facts = {key: value for key, value, _ in rows if key}
        after = {rows[n - 1][0]: value for n, (key, value, _) in enumerate(rows) if not key and n}
        assert facts["Forked from"] == "Unrelated: fix the CI cache"  # the session, by its title
        assert after["Forked from"] == "lone.jsonl"  # and its file
        assert facts["File"].startswith(Path(clone).name[:12]) and facts["File"].endswith(Path(clone).name[-8:])


def test_an_agent_folder_that_is_a_sessions_folder_is_named(tmp_path: Path) -> None:
    agent, folder = kit_folder(tmp_path)
    family(folder)
    wrong = agent / "sessions"  # PI_CODING_AGENT_DIR set to the sessions folder itself
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(wrong), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pitui", "ls", "--all"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert f"No sessions found in {wrong}/sessions" in done.stderr
    assert f"{wrong} looks like a sessions folder" in done.stderr and f"to {agent} instead" in done.stderr


async def test_the_picker_names_the_folder_it_searched(tmp_path: Path) -> None:
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent / "sessions", CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(200, 20)) as pilot:
        await settle(pilot)
        text = " ".join(line.strip() for line in row_lines(app))
        assert "No sessions in current folder." in text
        assert f"Looked in {agent}/sessions/sessions/--home-me-proj--" in text
        assert f"{agent}/sessions looks like a sessions folder" in text


async def test_resume_without_pi_stays_and_copies_cd_and_command(tmp_path: Path) -> None:
    agent, folder = kit_folder(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    path = session(folder, "here", "Work in a real folder", n=90, cwd=str(project))
    app = picker_app(
        agent, CWD, tmp_path, now=KIT_NOW, config=Config(resume_command=("no-such-pi", "--session", "{path}"))
    )
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        assert listing(app).selected.path == str(path)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.return_value is None and app.screen is app.screen_stack[-1]  # still here
        assert app.clipboard == f"cd {project} && no-such-pi --session {path}"
        note = " ".join(str(n.message) for n in app._notifications)
        assert "no-such-pi is not installed" in note and f"cd {project}" in note


def test_snippets_of_fuzzy_tokens_highlight_only_close_letters() -> None:
    query = parse_search_query("rate")
    assert match_spans("please clear the command", query) == []  # clea[r] comm[a]nd is no match
    assert match_spans("rate limits", query) == [(0, 4)]
    assert match_spans("we repeated it", query) == [(3, 4), (7, 10)]


# -- the session view ------------------------------------------------------------------------------


async def test_nothing_to_undo_is_said_once(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Nothing to undo" in static_text(pilot.app.screen, "#session-status"))
        await pilot.pause(0.2)
        assert not pilot.app._notifications  # not in a toast as well
        assert screen_text(pilot.app).count("Nothing to undo") == 1


async def test_the_label_editor_opens_over_the_view_beside_its_entry(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        screen = await opened(pilot)
        tree = screen.query_one(SessionTree)
        await pilot.press("up", "up")
        row = tree.cursor_region()
        assert row is not None
        await pilot.press("L")
        await until(pilot, lambda: isinstance(pilot.app.screen, LabelDialog))
        await pilot.pause(0.2)
        box = pilot.app.screen.query_one("#label-box").region
        assert box.y == row.bottom or box.bottom == row.y, (box, row)  # just under or over the entry
        lines = screen_lines(pilot.app)
        assert "Tree" in lines[3] or any("Tree" in line for line in lines[:5])  # the view is still there
        assert isinstance(pilot.app.screen_stack[-2], SessionScreen)


async def test_the_keys_screen_shows_every_id_whole_at_80_columns(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        ids = [row.binding_id for row in key_rows(screen)]
        assert {"session.fork", "tree.cursor_down", "conversation.cursor_up", "app.commands", "app.quit"} <= set(ids)
        assert not any(row.group.endswith("App") or "Pitui" in row.group for row in key_rows(screen))
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        seen: set[str] = set()
        for _ in range(30):
            await pilot.pause(0.05)
            seen.update(word for line in screen_lines(pilot.app) for word in line.replace("│", " ").split())
            await pilot.press("pagedown")
        missing = [binding_id for binding_id in ids if binding_id not in seen]
        assert not missing, missing
        await pilot.press("end")  # down, never sideways
        await pilot.pause(0.1)
        assert any("app.quit" in line for line in screen_lines(pilot.app))
