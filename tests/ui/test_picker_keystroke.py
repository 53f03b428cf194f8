"""A search keystroke on screen: the key typed and the rows it finds come in one frame when the
search answers in time, and a search that does not answer never keeps the key from showing.

Frames are what Textual hands the terminal (``App._display``, called for every screen update,
headless too): the only place a test sees which frame showed what."""

from __future__ import annotations

import threading
from typing import Any

from helpers.apps import demo_app, listing, picker
from helpers.pilot import settle

from pitui.ui.screens.picker import PickerScreen


def _record_frames(app: Any) -> list[tuple[str, object]]:
    """From now on, each frame drawn: (the search box's text, the list's rows then)."""
    frames: list[tuple[str, object]] = []
    display = app._display

    def frame(screen: object, renderable: object) -> None:
        if renderable is not None:
            frames.append((picker(app).search_box.value, listing(app).rows))
        display(screen, renderable)

    app._display = frame
    return frames


async def test_the_key_and_its_rows_come_in_one_frame(tmp_path, monkeypatch) -> None:
    # However slow the machine, the hold lasts until the rows come.
    monkeypatch.setattr(PickerScreen, "FRAME_HOLD_S", 60.0)
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        before = listing(app).rows
        frames = _record_frames(app)
        await pilot.press("g")
        await settle(pilot)
        assert frames, "nothing was drawn"
        text, rows = frames[0]
        assert text == "g"  # the first frame after the key shows it ...
        assert rows is not before  # ... and the rows it found
        assert rows is listing(app).rows


async def test_a_key_shows_while_its_search_has_not_answered(tmp_path) -> None:
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        catalog = app.catalog
        search = catalog.search
        go_on = threading.Event()

        def stuck(*args: Any, **kwargs: Any) -> Any:
            go_on.wait(30)
            return search(*args, **kwargs)

        catalog.search = stuck  # type: ignore[method-assign]
        before = listing(app).rows
        frames = _record_frames(app)
        try:
            await pilot.press("g")
            await pilot.pause(PickerScreen.FRAME_HOLD_S * 8)
            assert ("g", before) in frames  # drawn: the key, the rows of before
        finally:
            go_on.set()
        await settle(pilot)
        shown = listing(app).rows
        assert shown is not before and all(row.hit is not None for row in shown)  # the rows of "g" came after
        assert frames[-1] == ("g", shown)
