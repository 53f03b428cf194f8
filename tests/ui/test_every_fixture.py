"""Every edge-case file of tests/fixtures opens in the session view and is drawn: the tree, the
conversation of its leaf's path and the facts line, or, for a file that is no session, the
reason in words. Bad input gets a clear message, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.apps import SIZE, screen_of, static_text, view_app
from helpers.pilot import screen_text, until

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
async def test_every_fixture_is_drawn(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    shutil.copyfile(FIXTURES / name, path)
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: (
                screen_of(app).session is not None or "Cannot read" in static_text(screen_of(app), "#session-facts")
            ),
        )
        await pilot.pause(0.1)  # the path's items, the facts
        screen = screen_of(app)
        if screen.session is None:
            assert "Cannot read this session" in static_text(screen, "#session-facts"), name
        else:
            assert "entries" in static_text(screen, "#session-facts") or not screen.session.entries
        text = screen_text(app)
        assert "Traceback" not in text
    assert app.return_code in (None, 0), name  # an exception in a handler ends the app with 1
