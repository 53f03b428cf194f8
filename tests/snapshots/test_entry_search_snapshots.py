"""What Find entries looks like: the demo sessions' hits for a word, at 100x30."""

from __future__ import annotations

from typing import Any

from helpers.apps import demo_app
from helpers.pilot import settle, type_text
from textual.pilot import Pilot


async def _find_cache(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("ctrl+f")
    await settle(pilot)
    await type_text(pilot, "cache")
    await pilot.press("down")
    await settle(pilot)


def test_hits_for_a_word(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path), terminal_size=(100, 30), run_before=_find_cache)
