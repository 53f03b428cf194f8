"""What the session view looks like on a demo session, once its usage is counted (an SVG snapshot)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.apps import SIZE, demo_file, opened, static_text, view_app
from helpers.pilot import until
from textual.pilot import Pilot


def test_session_view_snapshot(snap_compare, tmp_path: Path) -> None:
    path = demo_file(tmp_path)

    async def settle(pilot: Pilot[Any]) -> None:
        screen = await opened(pilot)
        await until(pilot, lambda: "tokens" in static_text(screen, "#session-facts"))
        await pilot.pause()

    assert snap_compare(view_app(path, tmp_path), terminal_size=SIZE, run_before=settle)
