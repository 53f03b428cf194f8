"""What the picker looks like: SVG snapshots at a fixed size and clock, on the demo sessions (or
small hand-made ones); time zone, home folder and cursors are fixed by tests/snapshots/conftest.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.apps import demo_app, picker_app
from helpers.pilot import settle, type_text
from helpers.sessions import KIT_NOW, family, kit_folder
from textual.pilot import Pilot

SIZE = (120, 36)


def keys(*pressed: str, text: str = "") -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        if text:
            await type_text(pilot, text)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


def test_current_folder(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys())


def test_all_projects(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys("tab"))


def test_threaded_with_forks(snap_compare, tmp_path: Path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, "/home/me/proj", tmp_path, now=KIT_NOW)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys())


def test_search_with_snippets(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys("tab", text="cache"))


def test_delete_confirmation(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys("down", "ctrl+d"))


def test_rename_input(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys("down", "ctrl+r"))


def test_empty_folder(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the folder it names is ~/agent/...: the same every run
    agent, _ = kit_folder(tmp_path)
    app = picker_app(agent, "/home/me/proj", tmp_path, now=KIT_NOW)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys())


def test_bad_regex(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=SIZE, run_before=keys(text="re:(unclosed"))
