"""Writing from the session view, as a user does it: branch (with and without a summary),
label, rename, fork, clone, trash, resume and undo; cancel at every step; each write read back
by pi's own SessionManager, which must see what pitui shows."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.apps import SIZE, opened, static_text, view_app
from helpers.items import PI_ROLE
from helpers.pilot import until
from helpers.sessions import worked_session
from helpers.trash import trash_dir
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from devkit.builder import header, msg, write
from pitui.config import Config
from pitui.store.reader import Session
from pitui.store.write import writer
from pitui.ui.app import AppResult
from pitui.ui.screens.dialogs import (
    BranchDialog,
    ConfirmDialog,
    LabelDialog,
    RenameScreen,
    SummarizingDialog,
    SummaryEditor,
)
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_tree import SessionTree


def app_for(path: Path, tmp_path: Path, config: Config | None = None) -> Any:
    app = view_app(path, tmp_path)
    if config is not None:
        app.config = config
    return app


def dialog_text(screen: Any) -> str:
    """Every line a dialog shows."""
    return "\n".join(str(widget.render()) for widget in screen.query(Static))


def tree_of(pilot: Pilot[Any]) -> SessionTree:
    return pilot.app.screen.query_one(SessionTree)


def status(pilot: Pilot[Any]) -> str:
    """The view's status line ('' while a dialog is over it)."""
    screen = pilot.app.screen
    return static_text(screen, "#session-status") if isinstance(screen, SessionScreen) else ""


async def press_for(pilot: Pilot[Any], key: str, screen: type[Screen[Any]]) -> None:
    """Press ``key`` and wait for the screen (a dialog, or the view again) it brings up."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, screen))


async def highlight(pilot: Pilot[Any], entry_id: str) -> None:
    assert tree_of(pilot).select(entry_id)
    await pilot.pause()


async def branch_dialog(pilot: Pilot[Any], entry_id: str) -> BranchDialog:
    await highlight(pilot, entry_id)
    await press_for(pilot, "enter", BranchDialog)
    return pilot.app.screen  # type: ignore[return-value]


async def choose(pilot: Pilot[Any], downs: int) -> None:
    for _ in range(downs):
        await pilot.press("down")
    await pilot.press("enter")


def last_entry(path: Path) -> dict[str, Any]:
    return orjson.loads(path.read_bytes().splitlines()[-1])


def shown_roles(pilot: Pilot[Any]) -> list[str]:
    view = pilot.app.screen.query_one(ConversationView)
    return [PI_ROLE[type(item)] for item in view.items if type(item) in PI_ROLE]


@pytest.fixture
def pis(oracle: Any, oracle_073: Any) -> tuple[Any, Any]:
    """pi 1.6.0 and pi 0.73.1: every write of the view must load in both."""
    return oracle, oracle_073


async def pi_sees_the_view(pis: tuple[Any, Any], path: Path, pilot: Pilot[Any]) -> dict[str, Any]:
    """Each pi loads the file and finds the leaf, labels, name and context the view shows (with
    the cursor on the leaf, Ctrl+G: the pane shows the conversation pi continues); returns pi
    1.6.0's view."""
    views = [pi.open(path) for pi in pis]
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen) and screen.session is not None
    await pilot.press("ctrl+g")
    await until(pilot, lambda: len(shown_roles(pilot)) == len(views[0]["context"]["messages"]))
    for seen in views:
        assert seen["leafId"] == screen.session.leaf_id, seen["piVersion"]
        assert seen["labels"] == dict(screen.session.labels), seen["piVersion"]
        assert seen["name"] == screen.session.name, seen["piVersion"]
        assert [m["role"] for m in seen["context"]["messages"]] == shown_roles(pilot), seen["piVersion"]
    return views[0]


# -- branching -------------------------------------------------------------------------------------


async def test_enter_on_the_leaf_says_so_and_writes_nothing(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: "Already at this point" in status(pilot))
        assert not isinstance(pilot.app.screen, BranchDialog)
    assert path.read_bytes() == before


async def test_escape_at_the_question_writes_nothing(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await press_for(pilot, "escape", SessionScreen)
        assert "Branch cancelled: nothing written" in status(pilot)
        assert tree_of(pilot).selected_id == "a2"
    assert path.read_bytes() == before


async def test_branch_without_summary_shows_at_once_and_pi_agrees(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await branch_dialog(pilot, "a2")
        about = str(dialog.query_one("#branch-about").render())
        assert "Continue from a2" in about and "The retry loop was off by one." in about
        assert "Leaving behind 4 entries (1 prompt)" in about
        await choose(pilot, 0)  # No summary
        await until(pilot, lambda: "wrote a pitui.branch entry" in status(pilot))
        written = last_entry(path)
        assert written["customType"] == "pitui.branch" and written["parentId"] == "a2"
        assert f"Branched to a2: wrote a pitui.branch entry {written['id']}" in status(pilot)
        assert tree_of(pilot).selected_id == "a2"
        await until(pilot, lambda: shown_roles(pilot) == ["user", "assistant", "toolResult", "assistant"])
        await pi_sees_the_view(pis, path, pilot)


async def test_a_written_summary_starts_from_the_digest(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 1)  # Write a summary
        await until(pilot, lambda: isinstance(pilot.app.screen, SummaryEditor))
        area = pilot.app.screen.query_one("#summary-text")
        assert "## Prompts\n1. Now add a changelog entry" in area.text
        assert "## Files changed\n- CHANGELOG.md" in area.text
        await pilot.press(*"Changelog done")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "wrote branch summary" in status(pilot))
        written = last_entry(path)
        assert written["type"] == "branch_summary" and written["fromId"] == "a4"  # the leaf left
        assert written["summary"].endswith("Changelog done")
        assert written["details"] == {"readFiles": ["README.md"], "modifiedFiles": ["CHANGELOG.md"]}
        assert tree_of(pilot).selected_id == written["id"]
        await until(pilot, lambda: shown_roles(pilot)[-1:] == ["branchSummary"])
        await pi_sees_the_view(pis, path, pilot)


async def test_escape_in_the_editor_returns_to_the_question_and_an_empty_summary_is_refused(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 1)
        await until(pilot, lambda: isinstance(pilot.app.screen, SummaryEditor))
        pilot.app.screen.query_one("#summary-text").text = "   "
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(pilot.app.screen, SummaryEditor)  # still editing
        await press_for(pilot, "escape", BranchDialog)
        await press_for(pilot, "escape", SessionScreen)
        assert "Branch cancelled" in status(pilot)
    assert path.read_bytes() == before


def summarizer(tmp_path: Path, body: str, timeout: float = 30) -> Config:
    script = tmp_path / "summarize.py"
    script.write_text(body)
    return Config(summarizer_command=(sys.executable, str(script)), summarizer_timeout=timeout)


async def test_the_summarizer_gets_the_branch_and_its_summary_is_written(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    seen_input = tmp_path / "input.txt"
    config = summarizer(
        tmp_path,
        "import sys, pathlib\n"
        f"pathlib.Path({str(seen_input)!r}).write_text(sys.stdin.read())\n"
        "print('The changelog got its entry.')\n",
    )
    async with app_for(path, tmp_path, config).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 2)  # Summarize with the command
        await until(pilot, lambda: "wrote branch summary" in status(pilot))
        written = last_entry(path)
        # As pi's own summaries: the text, then the files the branch read and changed.
        assert written["summary"] == (
            "The changelog got its entry.\n\n<read-files>\nREADME.md\n</read-files>\n\n"
            "<modified-files>\nCHANGELOG.md\n</modified-files>"
        )
        await pi_sees_the_view(pis, path, pilot)
    assert seen_input.read_text().startswith("[User]: Now add a changelog entry")


async def test_a_failing_summarizer_writes_nothing_and_says_why(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    config = summarizer(tmp_path, "import sys\nsys.stderr.write('no API key set\\n')\nsys.exit(2)\n")
    async with app_for(path, tmp_path, config).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 2)
        await until(pilot, lambda: "No summary" in status(pilot))
        assert "failed (exit 2): no API key set" in status(pilot)
        assert isinstance(pilot.app.screen, SessionScreen)
    assert path.read_bytes() == before


async def test_a_slow_summarizer_can_be_cancelled_and_times_out(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    config = summarizer(tmp_path, "import time\ntime.sleep(60)\n", timeout=60)
    async with app_for(path, tmp_path, config).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 2)
        await until(pilot, lambda: isinstance(pilot.app.screen, SummarizingDialog))
        await pilot.press("escape")
        await until(pilot, lambda: "Summarization cancelled: nothing written" in status(pilot))
        pilot.app.config = summarizer(tmp_path, "import time\ntime.sleep(60)\n", timeout=0.5)
        await branch_dialog(pilot, "a2")
        await choose(pilot, 2)
        await until(pilot, lambda: "did not finish within 0.5 s" in status(pilot))
    assert path.read_bytes() == before


async def test_without_a_summarizer_its_choice_cannot_be_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # and no pi to offer instead
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await branch_dialog(pilot, "a2")
        choices = dialog.query_one("#branch-choices")
        assert choices.get_option("command").disabled
        assert "set summarizer_command in config.toml" in str(choices.get_option("command").prompt)
        await pilot.press("escape")


async def test_choosing_a_user_message_copies_it_to_ask_again(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "u2")
        await choose(pilot, 0)
        await until(pilot, lambda: "Branched to a2" in status(pilot))
        assert pilot.app.clipboard == "Now add a changelog entry"
        assert "copied to the clipboard, to ask again in pi" in status(pilot)  # said once, in the status line
        assert not pilot.app._notifications
        assert tree_of(pilot).selected_id == "a2"
        await pi_sees_the_view(pis, path, pilot)


# -- labels, names, undo ---------------------------------------------------------------------------


async def test_label_set_cancel_and_clear(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a2")
        await press_for(pilot, "L", LabelDialog)
        size = path.stat().st_size
        await press_for(pilot, "escape", SessionScreen)
        assert path.stat().st_size == size
        await press_for(pilot, "L", LabelDialog)
        await pilot.press(*"fixed", "enter")
        await until(pilot, lambda: "Label “fixed” set on a2" in status(pilot))
        tree = tree_of(pilot)
        assert "[fixed]" in tree.model.row(tree.model.cursor).plain
        await pi_sees_the_view(pis, path, pilot)
        # Again: the dialog holds the label; emptied, it clears it.
        await highlight(pilot, "a2")
        await press_for(pilot, "L", LabelDialog)
        assert pilot.app.screen.query_one("#label-input").value == "fixed"
        pilot.app.screen.query_one("#label-input").value = ""
        await pilot.press("enter")
        await until(pilot, lambda: "Label cleared on a2" in status(pilot))
        assert (await pi_sees_the_view(pis, path, pilot))["labels"] == {}


async def test_rename_shows_in_the_title_and_cancel_keeps_the_name(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await press_for(pilot, "ctrl+r", RenameScreen)
        size = path.stat().st_size
        await press_for(pilot, "escape", SessionScreen)
        assert path.stat().st_size == size
        await press_for(pilot, "ctrl+r", RenameScreen)
        await pilot.press(*"Flaky test", "enter")
        await until(pilot, lambda: "Named “Flaky test”" in status(pilot))
        assert static_text(screen, "#session-title").startswith("Flaky test")
        assert (await pi_sees_the_view(pis, path, pilot))["name"] == "Flaky test"


async def test_undo_restores_each_action_in_turn(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a1")
        await press_for(pilot, "L", LabelDialog)
        await pilot.press(*"start", "enter")
        await until(pilot, lambda: "Label “start”" in status(pilot))
        await branch_dialog(pilot, "a2")
        await choose(pilot, 0)
        await until(pilot, lambda: "Branched to a2" in status(pilot))
        before_undo = path.read_bytes()

        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Undid the branch" in status(pilot))
        assert path.read_bytes().startswith(before_undo)  # the file only grew
        await until(pilot, lambda: len(shown_roles(pilot)) == 8)
        await pi_sees_the_view(pis, path, pilot)

        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Undid the label" in status(pilot))
        assert (await pi_sees_the_view(pis, path, pilot))["labels"] == {}
        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Nothing to undo" in status(pilot))


# -- fork, clone, trash, resume --------------------------------------------------------------------


async def test_fork_opens_the_new_session_and_escape_comes_back(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a2")
        await press_for(pilot, "ctrl+n", ConfirmDialog)
        question = dialog_text(pilot.app.screen)
        assert "Fork a new session?" in question and "(4 entries)" in question and "a2" in question
        assert sorted(path.parent.glob("*.jsonl")) == [path]  # nothing written before the answer
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, SessionScreen)
                and pilot.app.screen.session_path != str(path)
                and pilot.app.screen.session is not None
            ),
        )
        forked = Path(pilot.app.screen.session_path)
        assert forked.parent == path.parent
        for seen in (pi.open(forked) for pi in pis):
            assert seen["header"]["parentSession"] == str(path)
            assert seen["branch"] == ["u1", "a1", "r1", "a2"]
        await until(pilot, lambda: shown_roles(pilot) == ["user", "assistant", "toolResult", "assistant"])
        await pilot.press("escape")
        await until(
            pilot, lambda: isinstance(pilot.app.screen, SessionScreen) and pilot.app.screen.session_path == str(path)
        )
    assert path.read_bytes() == before  # the source is not written


async def test_fork_on_a_user_message_stops_before_it(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "u2")
        await press_for(pilot, "ctrl+n", ConfirmDialog)
        await pilot.press("enter")
        await until(pilot, lambda: pilot.app.screen.session_path != str(path))
        assert [pi.open(pilot.app.screen.session_path)["branch"] for pi in pis] == [["u1", "a1", "r1", "a2"]] * 2
        assert pilot.app.clipboard == "Now add a changelog entry"
        await pilot.press("escape")
        await until(pilot, lambda: pilot.app.screen.session_path == str(path))
        await highlight(pilot, "u1")
        await pilot.press("ctrl+n")  # nothing to ask: it says why at once
        await until(pilot, lambda: "Nothing comes before the first message" in status(pilot))


async def test_clone_copies_the_active_path(tmp_path: Path, pis: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a1")  # the highlight does not matter: the active path is cloned
        await press_for(pilot, "ctrl+k", ConfirmDialog)
        await pilot.press("escape")
        await until(pilot, lambda: "Not cloned: nothing written" in status(pilot))
        assert sorted(path.parent.glob("*.jsonl")) == [path]
        await press_for(pilot, "ctrl+k", ConfirmDialog)
        assert "(8 entries)" in dialog_text(pilot.app.screen)
        await pilot.press("enter")
        await until(pilot, lambda: pilot.app.screen.session_path != str(path) and pilot.app.screen.session is not None)
        for seen in (pi.open(pilot.app.screen.session_path) for pi in pis):
            assert seen["branch"] == ["u1", "a1", "r1", "a2", "u2", "a3", "r2", "a4"]


async def test_trash_asks_first_then_goes_back_to_the_picker(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "trashed-from-the-view.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await press_for(pilot, "ctrl+delete", ConfirmDialog)
        await pilot.press("escape")
        await until(pilot, lambda: "Not moved to the trash" in status(pilot))
        assert path.read_bytes() == before
        await press_for(pilot, "f8", ConfirmDialog)
        await press_for(pilot, "enter", PickerScreen)
    assert not path.exists()
    assert (trash_dir() / "files" / path.name).read_bytes() == before


async def test_resume_leaves_for_pi_on_this_file(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    app = app_for(path, tmp_path, Config(resume_command=(sys.executable, "-c", "pass", "{path}")))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value == AppResult("resume", str(path), None)  # its folder does not exist here


async def test_resume_without_pi_stays_and_copies_the_command(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    app = app_for(path, tmp_path, Config(resume_command=("no-such-pi-here", "--session", "{path}")))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.clipboard != "")
        assert isinstance(app.screen, SessionScreen) and app.return_value is None
        assert app.clipboard == f"no-such-pi-here --session {path}"
        assert any("no-such-pi-here is not installed" in str(n.message) for n in app._notifications)


async def test_every_letter_typed_is_search_text_but_pis_two(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        # The words that forked, cloned, quit and trashed when capitals were the view's keys.
        await pilot.press(*"Committed Fix Please Done changelog")
        await until(pilot, lambda: tree_of(pilot).query == "Committed Fix Please Done changelog")
        assert isinstance(pilot.app.screen, SessionScreen)
        await pilot.press("escape")  # clears the search (no row matched it)
        await until(pilot, lambda: tree_of(pilot).query == "")
        await press_for(pilot, "L", LabelDialog)  # pi's Shift+L: the label editor, never text
    assert path.read_bytes() == before
    assert sorted(path.parent.glob("*.jsonl")) == [path]


# -- failures and a writer at the same time --------------------------------------------------------


async def test_a_failed_write_is_reported_and_the_file_is_unchanged(tmp_path: Path, monkeypatch) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()

    def full_disk(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        monkeypatch.setattr(writer.os, "write", full_disk)
        await highlight(pilot, "a2")
        await press_for(pilot, "L", LabelDialog)
        await pilot.press(*"x", "enter")
        await until(pilot, lambda: "Cannot write to the session" in status(pilot))
        assert "No space left on device" in status(pilot)
        monkeypatch.undo()
        assert pilot.app.screen.session.labels == {}
        # The app goes on: the next write works.
        await press_for(pilot, "L", LabelDialog)
        await pilot.press(*"y", "enter")
        await until(pilot, lambda: "Label “y”" in status(pilot))
    assert path.read_bytes().startswith(before)


WRITER = """
import os, sys, time, orjson
path, count = sys.argv[1], int(sys.argv[2])
parent = "a1"
for n in range(count):  # pi's appends: each message under the one before, one write a line
    line = orjson.dumps({"type": "message", "id": f"p{n:07d}", "parentId": parent,
                         "timestamp": "2025-01-01T00:10:00.000Z",
                         "message": {"role": "user", "content": "x" * 3000 + str(n), "timestamp": 1}}) + b"\\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, line)
    os.close(fd)
    parent = f"p{n:07d}"
    time.sleep(0.01)
"""


async def test_writes_while_pi_appends_keep_every_line_whole(tmp_path: Path, oracle_073: Any) -> None:
    path = write(
        tmp_path / "s.jsonl", header(), msg("u1", None, "user", "start"), msg("a1", "u1", "assistant", "ok", n=1)
    )
    count = 400
    pi = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(count)])
    mine: list[str] = []
    try:
        async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
            screen = await opened(pilot)
            for n in range(6):
                await highlight(pilot, "a1")
                await press_for(pilot, "L", LabelDialog)
                pilot.app.screen.query_one("#label-input").value = ""  # it holds the label set before
                await pilot.press(*f"l{n}", "enter")
                await until(
                    pilot,
                    lambda n=n: (
                        f"“l{n}”" in status(pilot) or "Not written" in status(pilot) or "read again" in status(pilot)
                    ),
                )
                assert screen.editor is not None
                await highlight(pilot, "u1")
                await pilot.press("enter")
                await until(
                    pilot,
                    lambda: (
                        isinstance(pilot.app.screen, BranchDialog)
                        or "Branched" in status(pilot)
                        or "Already" in status(pilot)
                    ),
                )
                if isinstance(pilot.app.screen, BranchDialog):
                    await choose(pilot, 0)
                await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
            mine = [e.id for e in screen.session.entries if e.type in ("label", "custom")]
    finally:
        pi.wait(timeout=60)
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    parsed = [orjson.loads(line) for line in raw.splitlines()]  # every line whole
    ids = [p.get("id") for p in parsed[1:]]
    assert len(ids) == len(set(ids))
    assert {f"p{n:07d}" for n in range(count)} <= set(ids)  # everything pi wrote
    assert set(mine) <= set(ids) and len(mine) >= 6  # everything pitui wrote
    assert len(Session.load(str(path)).problems) == 0
    oracle_073.open(path)


async def test_an_old_format_file_is_rewritten_once_with_the_original_in_the_trash(
    tmp_path: Path, oracle_073: Any
) -> None:
    old = [header(version=None)] + [
        {
            "type": "message",
            "timestamp": f"2025-01-01T00:00:0{n}.000Z",
            "message": {"role": "user" if n % 2 == 0 else "assistant", "content": f"old {n}", "timestamp": n},
        }
        for n in range(4)
    ]
    path = write(tmp_path / "old-format-labelled-in-the-view.jsonl", *old)
    original = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await press_for(pilot, "L", LabelDialog)
        await pilot.press(*"v1", "enter")
        await until(pilot, lambda: "Label “v1”" in status(pilot))
        await until(
            pilot,
            lambda: (
                screen.session is not None
                and screen.session.source is not None
                and "v1" in screen.session.labels.values()
            ),
        )
        seen = oracle_073.open(path)
        assert list(seen["labels"].values()) == ["v1"]
        assert seen["header"]["version"] == 3
    assert (trash_dir() / "files" / path.name).read_bytes() == original
