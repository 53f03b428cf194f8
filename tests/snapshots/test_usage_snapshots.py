"""What the usage screen looks like on the demo sessions: SVG snapshots at a fixed clock (a day
that makes the first view "all time"), time zone and home folder fixed by tests/snapshots/conftest.py."""

from __future__ import annotations

from typing import Any

from helpers.apps import demo_app
from helpers.pilot import settle, until
from textual.pilot import Pilot

from pitui.ui.screens.usage import UsageScreen

LATER = 1796112000000.0  # 2026-12-01T08:00:00Z: nothing in the last 30 days, so all time


def usage(*pressed: str) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await until(pilot, lambda: isinstance(pilot.app.screen, UsageScreen) and pilot.app.screen.report is not None)
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


def test_usage_all_time_by_day(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path, now=LATER), terminal_size=(120, 40), run_before=usage())


def test_usage_all_projects_by_project_80x24(snap_compare, tmp_path):
    app = demo_app(tmp_path, now=LATER)
    assert snap_compare(app, terminal_size=(80, 24), run_before=usage("tab", "g"))
