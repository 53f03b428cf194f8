"""The footer's keys follow the focus, however many focus moves come before it is drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.apps import SIZE, demo_file, opened, view_app
from helpers.pilot import screen_lines, settle

TREE_KEYS = "⏎ Branch  esc Back  shift+l Label"
PANE_KEYS = "⏎ Expand  esc Back  shift+l Label"


@pytest.mark.parametrize(("tabs", "keys"), [(0, TREE_KEYS), (1, PANE_KEYS), (2, TREE_KEYS), (3, PANE_KEYS)])
async def test_the_footer_shows_the_focused_panes_keys(tmp_path: Path, tabs: int, keys: str) -> None:
    path = demo_file(tmp_path, "*weatherapp*/*019cf5ce*")
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await settle(pilot)
        assert screen_lines(app)[-1].strip().startswith(TREE_KEYS)
        await pilot.press(*["tab"] * tabs)  # one after the other, before the footer is drawn again
        await settle(pilot)
        footer = screen_lines(app)[-1].strip()
        assert footer.startswith(keys), footer
        assert footer.endswith("f2 Commands")
