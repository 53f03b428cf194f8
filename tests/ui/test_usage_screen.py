"""The usage screen: opened from the picker with Ctrl+G, its keys (grouping, period, scope,
metric) and Enter, which shows the row's sessions in the picker until Escape."""

from __future__ import annotations

import pytest
from helpers.apps import demo_app, listing, picker
from helpers.pilot import feed, screen_text, settle, until

from pitui.ui.screens.usage import UsageScreen

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
