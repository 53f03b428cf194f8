"""The usage screen: opened from the picker with Ctrl+G, its keys (grouping, period, scope,
metric) and Enter, which shows the row's sessions in the picker until Escape."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers.apps import demo_app, listing, picker, picker_app
from helpers.cache_lock import ui_thread_asks_for_the_lock
from helpers.pilot import feed, screen_text, settle, until

from pitui.store.catalog import Catalog
from pitui.ui.screens.usage import UsageScreen
from pitui.ui.widgets.usage_plot import UsagePlot

LATER = 1796112000000.0  # 2026-12-01T08:00:00Z: the demo sessions (March 2026) are older than 30 days

pytestmark = pytest.mark.asyncio


def _usage(app) -> UsageScreen:
    screen = app.screen
    assert isinstance(screen, UsageScreen)
    return screen


def _table_keys(screen: UsageScreen) -> list[str]:
    table = screen.table
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def _opened(pilot) -> UsageScreen:
    await settle(pilot)
    await pilot.press("ctrl+g")
    await until(pilot, lambda: isinstance(pilot.app.screen, UsageScreen) and pilot.app.screen.report is not None)
    await settle(pilot)
    return _usage(pilot.app)


async def test_ctrl_g_shows_usage_and_the_keys_change_what_it_shows(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _opened(pilot)
        text = screen_text(app)
        assert "Usage · this folder · last 30 days · by day" in text
        assert "g by day" in text and "p last 30 days" in text and "tab scope" in text
        await pilot.press("p", "p")  # 90 days, then all time
        assert screen.days is None and "all time" in screen_text(app)
        days = _table_keys(screen)
        assert days[-1] == "total" and days[:-1] == sorted(days[:-1]) and len(days) > 1
        await pilot.press("g")
        assert screen.by == "project" and "by project" in screen_text(app)
        await pilot.press("g")
        keys = _table_keys(screen)
        assert all("/" in key for key in keys[:-1]) and keys[-1] == "total"
        assert "cache read" in screen_text(app) and "m plot tokens" in screen_text(app)  # the legend
        await pilot.press("m")
        assert "highlighted row" in screen_text(app) and "m plot cost" in screen_text(app)
        here = screen.report.total.tokens
        await pilot.press("tab")
        await until(pilot, lambda: screen.report is not None)
        await settle(pilot)
        assert "Usage · all projects" in screen_text(app)
        assert screen.report.total.tokens >= here
        await pilot.press("escape")
        assert app.screen is picker(app)


async def test_enter_lists_the_rows_sessions_in_the_picker_until_escape(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _opened(pilot)
        await pilot.press("p", "p", "g", "g")  # all time, by model
        row = screen.report.rows[0]
        everyone = {r.info.path for r in listing(app).rows}
        await pilot.press("home", "enter")
        await settle(pilot)
        shown = picker(app)
        assert app.screen is shown
        assert {r.info.path for r in listing(app).rows} == set(row.sessions) < everyone
        assert f"Only the {len(row.sessions)} sessions of model {row.key}, all time" in screen_text(app)
        assert "escape shows all again" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert {r.info.path for r in listing(app).rows} == everyone
        assert "Only the" not in screen_text(app)


async def _burst_opens_the_model_row(pilot, send) -> None:
    """``p p g g enter`` typed at once: all time, by model, then Enter on the row the cursor is
    on then (the first model's): the picker shows that row's sessions."""
    app = pilot.app
    screen = await _opened(pilot)
    await send("p", "p", "g", "g", "enter")
    await until(pilot, lambda: app.screen is picker(app))
    await settle(pilot)
    assert (screen.by, screen.days) == ("model", None)
    row = screen.report.rows[0]
    assert {r.info.path for r in listing(app).rows} == set(row.sessions)
    assert f"Only the {len(row.sessions)} sessions of model {row.key}, all time" in screen_text(app)


async def test_keys_pressed_without_pauses_act_in_order(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _burst_opens_the_model_row(pilot, pilot.press)


async def test_keys_of_one_read_act_in_order(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:

        async def one_read(*keys: str) -> None:
            feed(pilot, *keys)  # posted at once, as the driver posts one read's keys

        await _burst_opens_the_model_row(pilot, one_read)


async def test_the_first_view_is_all_time_when_the_last_30_days_have_no_usage(tmp_path):
    app = demo_app(tmp_path, now=LATER)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _opened(pilot)
        assert screen.days is None and screen.report.rows
        assert "Usage · this folder · all time (nothing in the last 30 days) · by day" in screen_text(app)
        await pilot.press("p")  # the user's choice from then on: 7 days, none
        assert screen.days == 7 and "No usage in the last 7 days" in screen_text(app)
        assert "nothing in the last 30 days" not in screen_text(app)


async def test_the_first_view_is_30_days_when_they_have_usage(tmp_path):
    app = demo_app(tmp_path)  # the clock a day after the newest demo session
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _opened(pilot)
        assert screen.days == 30 and "· last 30 days · by day" in screen_text(app)


async def test_the_plot_highlights_the_cursors_row(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _opened(pilot)
        plot = screen.query_one(UsagePlot)
        days = [row.key for row in screen.report.rows]
        assert len(days) > 1 and screen.table.cursor_row == len(days) - 1  # the latest day
        latest = plot.data
        assert latest.highlight == len(latest.xs) - 1 and len(latest.xs) == len(days)
        assert sum(latest.values[-1]) == screen.report.rows[-1].tokens  # its stack: the row's tokens
        await pilot.press("up")
        await settle(pilot)
        assert plot.data.highlight == len(days) - 2
        await pilot.press("down", "down")  # the total row: no bar of its own
        await settle(pilot)
        assert plot.data.highlight is None


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_table_fits_by_project(tmp_path, size):
    app = demo_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await _opened(pilot)
        await pilot.press("tab")
        await until(pilot, lambda: screen.report is not None and screen.scope == "all")
        await pilot.press("g")
        await settle(pilot)
        region = screen.table.region
        assert region.right <= size[0]
        lines = [line[region.x :] for line in screen_text(app).splitlines()[region.y : region.bottom]]
        header = lines[0]
        assert header.rstrip().endswith("sessions")  # the last column not cut off
        total = next(line for line in lines if line.strip().startswith("total"))
        assert total.rstrip().endswith(f"{len(screen.report.total.sessions)}")
        names = [line.split()[0] for line in lines if "/weatherapp " in line or "/shortlinks " in line]
        assert names and all(name.endswith(("/projects/weatherapp", "/projects/shortlinks")) for name in names)
        assert screen_text(app).rstrip().endswith("escape back")  # the keys' line not cut


async def test_a_folder_without_sessions_says_there_is_no_usage(tmp_path):
    agent = tmp_path / "agent"
    (agent / "sessions").mkdir(parents=True)
    app = picker_app(agent, "/home/user/empty", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot)
        assert screen.days is None and not screen.report.rows
        text = screen_text(app)
        assert "No usage in these sessions." in text and "in the all time" not in text
        assert "0 sessions" in text


async def test_progress_is_told_while_the_ui_thread_waits_for_the_cache(tmp_path, monkeypatch):
    """The count tells its progress from inside the cache's lock: it must not wait for the UI
    thread, which may be waiting for that lock (the app closes the cache as it quits). Here the
    UI thread asks for the lock as the first progress is told: it gets it once the count is
    done, and the usage shows."""
    app = demo_app(tmp_path)
    loop = asyncio.get_running_loop()
    took: list[bool] = []
    asked = []
    real_usage = Catalog.usage

    def usage(self: Catalog, infos: Any, on_progress: Any = None, cancelled: Any = None) -> Any:
        def progress(done: int, total: int) -> None:
            if not asked and on_progress is not None:
                asked.append(done)
                ui_thread_asks_for_the_lock(self, loop, took)
            if on_progress is not None:
                on_progress(done, total)

        return real_usage(self, infos, progress, cancelled)

    monkeypatch.setattr(Catalog, "usage", usage)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _opened(pilot)
        assert took == [True]
        assert "Usage · this folder" in screen_text(app) and "Counting" not in screen_text(app)
        assert screen.report is not None
