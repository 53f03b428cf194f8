"""Keys that arrive in one read (fast typing, SSH batching, ``tmux send-keys Down Enter``) act in
the order they were typed, in the picker, the session view and the dialogs: several key events
are posted to the app at once, as the terminal driver posts what one read brought."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from helpers.apps import listing, opened, picker_app, selected_title, view_app
from helpers.pilot import feed, settle, until
from helpers.sessions import CWD, KIT_NOW, family, kit_folder, session, worked_session
from textual.pilot import Pilot

from pitui.store.reader import Session
from pitui.ui.screens.dialogs import BranchDialog, ConfirmDialog, LabelDialog, SummaryEditor
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.session_tree import SessionTree
from pitui.ui.widgets.text_area_field import OrderedTextArea


def view_of(pilot: Pilot[Any]) -> SessionScreen:
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    return screen


# -- the picker ------------------------------------------------------------------------------------


def family_picker(tmp_path: Path) -> tuple[Any, dict[str, Path]]:
    """The picker over a root session, its forks and an unrelated one, and their files."""
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    return picker_app(agent, CWD, tmp_path, now=KIT_NOW), paths


async def test_down_enter_in_one_read_opens_the_second_row(tmp_path: Path) -> None:
    app, _ = family_picker(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        second = listing(app).rows[1].path
        feed(pilot, "down", "enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert view_of(pilot).session_path == second


async def test_up_ctrl_d_in_one_read_asks_about_the_row_moved_to(tmp_path: Path) -> None:
    app, _ = family_picker(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")
        above = listing(app).rows[1]
        feed(pilot, "up", "ctrl+d")
        await until(pilot, lambda: "Delete session?" in str(app.screen.query_one("#picker-header").render()))
        header = str(app.screen.query_one("#picker-header").render())
        assert f"{os.path.basename(above.path)}" in header and selected_title(app) in header
        assert listing(app).selected is above


async def test_text_then_enter_in_one_read_opens_the_best_match(tmp_path: Path) -> None:
    app, paths = family_picker(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert listing(app).rows[0].path != str(paths["lone"])
        feed(pilot, *"CI cache", "enter")  # the search runs in a thread: Enter waits for its rows
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert view_of(pilot).session_path == str(paths["lone"])


async def test_text_down_enter_in_one_read_opens_the_second_match(tmp_path: Path) -> None:
    app, _ = family_picker(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press(*"parser")
        await settle(pilot)
        second = listing(app).rows[1].path
        await pilot.press(*["backspace"] * 6)
        await settle(pilot)
        feed(pilot, *"parser", "down", "enter")  # Down and Enter act on the rows of "parser"
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert view_of(pilot).session_path == second


async def test_typing_after_a_cancelled_delete_is_text(tmp_path: Path) -> None:
    app, paths = family_picker(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        feed(pilot, "ctrl+d", "x", "escape", *"lone")  # x is refused while the question is open
        await until(pilot, lambda: app.screen.query_one("#picker-query").value == "lone")
        folder = paths["lone"].parent
        assert paths["lone"].exists() and sorted(folder.glob("*.jsonl")) == sorted(paths.values())


async def test_a_new_session_is_on_the_top_row_with_the_cursor(tmp_path: Path) -> None:
    """The daily flow: pi wrote a new session; pitui starts (the cache still lists the old top
    row first), the new session is row 1 and the cursor is on it."""
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:  # fills the cache
        await settle(pilot)
    newest = session(folder, "newest", "Just finished in pi", n=90)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert listing(app).rows[0].path == str(newest)
        assert listing(app).cursor == 0
        assert "(1/6)" in str(app.screen.query_one("#picker-status").render())
        # Live: another one appears while the picker is open, the cursor unmoved: still on top.
        another = session(folder, "another", "And one more", n=95)
        picker = app.screen
        picker._written()  # as a change seen on disk does
        await settle(pilot)
        assert listing(app).rows[0].path == str(another) and listing(app).cursor == 0
        # Once the user moved, the cursor stays with their session.
        await pilot.press("down")
        chosen = listing(app).selected.path
        session(folder, "third", "A third", n=99)
        picker._written()
        await settle(pilot)
        assert listing(app).selected.path == chosen and listing(app).cursor == 2


# -- the session view and its dialogs --------------------------------------------------------------


def _forked(pilot: Pilot[Any], path: Path) -> bool:
    screen = pilot.app.screen
    return isinstance(screen, SessionScreen) and screen.session_path != str(path) and screen.session is not None


async def test_up_up_ctrl_n_in_one_read_forks_from_the_entry_moved_to(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await pilot.press("up", "up")
        two_up = view_of(pilot).query_one(SessionTree).selected_id
        await pilot.press("ctrl+g")  # back to the leaf
        await until(pilot, lambda: view_of(pilot).query_one(SessionTree).selected_id != two_up)
        feed(pilot, "up", "up", "ctrl+n", "enter")  # Enter answers the question that Ctrl+N asks
        await until(pilot, lambda: _forked(pilot, path))
        forked = Session.load(view_of(pilot).session_path)
        expected = Session.load(str(path)).path_to(two_up)
        if expected[-1].role == "user":
            expected = expected[:-1]  # forking at a prompt stops before it, as pi's /fork
        assert [e.id for e in forked.path_to()] == [e.id for e in expected]


async def test_label_typed_and_entered_in_one_read(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        target = view_of(pilot).query_one(SessionTree).selected_id
        feed(pilot, "L", *"keep", "enter")
        await until(pilot, lambda: Session.load(str(path)).labels.get(target) == "keep")
        assert not isinstance(pilot.app.screen, LabelDialog)


async def test_summary_typed_and_saved_in_one_read(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        screen = view_of(pilot)
        screen.app.push_screen(SummaryEditor("digest"), lambda text: setattr(screen, "saved_summary", text))
        await until(pilot, lambda: isinstance(pilot.app.focused, OrderedTextArea))
        feed(pilot, *" and more", "ctrl+s")
        await until(pilot, lambda: getattr(screen, "saved_summary", None) is not None)
        assert screen.saved_summary == "digest and more"


async def test_trash_then_escape_in_one_read_asks_and_keeps_the_file(tmp_path: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        feed(pilot, "ctrl+delete", "escape", *"abc")
        await until(
            pilot,
            lambda: (
                view_of(pilot).query_one(SessionTree).query == "abc"
                if isinstance(pilot.app.screen, SessionScreen)
                else False
            ),
        )
        assert not isinstance(pilot.app.screen, ConfirmDialog)
    assert path.read_bytes() == before


async def test_enter_down_enter_in_one_read_answers_the_branch_question(tmp_path: Path) -> None:
    """Enter asks "Summarize branch?"; the Down and Enter typed after it are the dialog's: they
    choose "Write a summary", and the tree's cursor does not move."""
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        tree = view_of(pilot).query_one(SessionTree)
        await pilot.press("up", "up", "up")
        chosen = tree.selected_id
        feed(pilot, "enter", "down", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SummaryEditor))
        assert tree.selected_id == chosen
        feed(pilot, "escape", "escape")  # back to the question, then cancel it
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
        assert not isinstance(pilot.app.screen, BranchDialog)
    assert path.read_bytes() == before


def _slow_reading(monkeypatch: Any) -> threading.Event:
    """The session view's reading of its file waits until the event returned is set (as a big
    session keeps it reading)."""
    import pitui.ui.screens.session as view

    real = view.Session.load
    done = threading.Event()

    def slow(path: str, *args: Any, **kwargs: Any) -> Session:
        done.wait(10)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(view.Session, "load", staticmethod(slow))
    return done


async def test_keys_typed_while_the_session_is_read_act_once_it_is(tmp_path: Path, monkeypatch: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await pilot.press("up", "up")
        two_up = view_of(pilot).query_one(SessionTree).selected_id
    read = _slow_reading(monkeypatch)
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert view_of(pilot).session is None  # still reading
        feed(pilot, "up", "up", "L", *"seen", "enter")
        await pilot.pause(0.2)
        read.set()
        await until(pilot, lambda: Session.load(str(path)).labels.get(two_up) == "seen")


async def test_escape_while_the_session_is_read_goes_back_at_once(tmp_path: Path, monkeypatch: Any) -> None:
    from pitui.ui.screens.picker import PickerScreen

    path = worked_session(tmp_path / "s.jsonl")
    read = _slow_reading(monkeypatch)
    async with view_app(path, tmp_path).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = view_of(pilot)
        feed(pilot, "escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))
        assert screen.session is None  # it did not wait for the file to be read
        read.set()
