"""The session view never waits for the disk on the UI thread: message bodies that were not kept
(the tree's rows, the path's messages) and what pi appends are read in worker threads, and the
screen shows the same text once they are read."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.apps import view_app
from helpers.pilot import until
from helpers.view_disk import tree_lines, turns

from devkit.builder import lines, msg
from pitui.store.model import LineSource
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_tree import SessionTree

SIZE = (100, 30)


@pytest.fixture
def main_thread_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of a session's lines from the main thread (the UI's), as it happens."""
    seen: list[str] = []

    def guarded(read: Callable[..., Any], name: str) -> Callable[..., Any]:
        def guard(self: LineSource, *args: Any) -> Any:
            if threading.current_thread() is threading.main_thread():
                seen.append(f"{name}{args!r}")
            return read(self, *args)

        return guard

    monkeypatch.setattr(LineSource, "entry_at", guarded(LineSource.entry_at, "entry_at"))
    monkeypatch.setattr(LineSource, "raw", guarded(LineSource.raw, "raw"))
    return seen


def all_text(tree: SessionTree) -> bool:
    """Every row on screen shows its entry's text, none the placeholder of a row being read."""
    shown = [line for line in tree_lines(tree) if line]
    return bool(shown) and all(
        "…" not in line
        and any(text in line for text in ("user: question", "assistant: looking", "assistant: answer", "ls dir"))
        for line in shown
    )


async def test_rows_and_path_are_read_off_the_ui_thread(tmp_path: Path, main_thread_reads: list[str]) -> None:
    path = turns(tmp_path / "s.jsonl", 150)
    app = view_app(path, tmp_path, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        tree = screen.query_one(SessionTree)
        view = screen.query_one(ConversationView)
        await pilot.pause()
        # The first screen is ready when it is shown: the rows and the path were read with the file.
        assert all_text(tree), tree_lines(tree)
        assert view.items and view.items[-1].entry_id == "a000149"
        for keys in (
            ("up", "up"),
            ("pageup",),
            ("pageup", "pageup", "pageup"),
            ("home",),
            ("pagedown",),
            ("end",),
            ("up",),
            ("ctrl+g",),
        ):
            await pilot.press(*keys)
            await until(pilot, lambda: all_text(tree))
            selected = tree.selected_id
            await until(pilot, lambda selected=selected: view.items and view.items[-1].entry_id == selected)
        await pilot.pause(0.3)  # the watch starts
        with open(path, "ab") as file:  # pi writes on: the tree follows the leaf
            file.write(lines(msg("u999999", "a000149", "user", "question more", n=1000)))
        await until(pilot, lambda: tree.selected_id == "u999999")
        await until(pilot, lambda: any(line.endswith("user: question more") for line in tree_lines(tree)))
        assert all_text(tree)
        await until(pilot, lambda: view.items and view.items[-1].entry_id == "u999999")
    assert main_thread_reads == []
