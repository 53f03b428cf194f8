"""The ``[keys]`` table: each bad entry is reported and keeps that binding's default keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.apps import demo_app, header_lines
from helpers.pilot import settle

from pitui.config import Config
from pitui.ui.keys import check_keymap, is_key


@pytest.mark.parametrize(
    "spec",
    [
        "ctrl+d",
        "f3",
        "delete",
        "L",
        "shift+l",
        "ctrl+shift+o",
        "alt+left",
        "question_mark",
        "ctrl+backspace",
        "pagedown",
        "escape",
        "space",
        "enter",
    ],
)
def test_keys_that_are_keys(spec: str) -> None:
    assert is_key(spec)


@pytest.mark.parametrize(
    "spec",
    ["ctrl+shift+banana", "banana", "ctrl+", "", "ctrl+ctrl+d", "hyperdrive+x", "f99x", "ctrl+snowman", "shift+ a"],
)
def test_keys_that_are_not(spec: str) -> None:
    assert not is_key(spec)


async def test_bad_entries_are_reported_and_keep_their_defaults(tmp_path: Path) -> None:
    keys = {"tree.cursor_dow": "j", "picker.delete": "ctrl+shift+banana", "picker.sort": "f5,ctrl+s"}
    app = demo_app(tmp_path, config=Config(keys=keys, path="/cfg/config.toml"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        notes = [str(n.message) for n in app._notifications]
        assert any("no binding has the id 'tree.cursor_dow'" in note and "tree.cursor_down" in note for note in notes)
        assert any(
            "picker.delete = 'ctrl+shift+banana'" in note and "is not a key" in note and "keeping 'ctrl+d'" in note
            for note in notes
        )
        assert app.keymap == {"picker.sort": "f5,ctrl+s"}
        hints = " ".join(header_lines(app)[1:])
        assert "ctrl+d delete" in hints and "f5/ctrl+s sort" in hints
        await pilot.press("ctrl+d")  # the default still works
        await settle(pilot)
        assert "Delete session?" in " ".join(header_lines(app))


def test_check_keymap_alone() -> None:
    from textual.binding import Binding

    defaults = {"a.one": Binding("ctrl+o", "one", id="a.one")}
    usable, problems = check_keymap({"a.one": "f4, ctrl+x", "a.two": "f5"}, defaults)
    assert usable == {"a.one": "f4,ctrl+x"}
    assert problems == ["[keys]: no binding has the id 'a.two' (ids here: a.one)"]


async def test_every_screen_s_bindings_can_be_rebound(tmp_path: Path) -> None:
    # A [keys] entry for any binding id of any screen is taken, not reported as unknown.
    from pitui.ui import bindings

    ids = {b.id for name in bindings.__all__ for b in getattr(bindings, name) if getattr(b, "id", None)}
    assert {"entries.open", "usage.group", "session.compare"} <= ids
    keys = {"entries.scope": "f6", "usage.group": "f7", "session.compare": "f9"}
    app = demo_app(tmp_path, config=Config(keys=keys, path="/cfg/config.toml"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert ids <= set(app.binding_defaults)
        assert not [str(n.message) for n in app._notifications if "no binding" in str(n.message)]
        assert app.keymap == keys
