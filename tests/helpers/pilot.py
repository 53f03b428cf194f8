"""Driving a running app in tests: waiting for a state, and reading the screen as text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.pilot import Pilot

# The file watcher's worker runs for as long as the picker does: waiting for it would never end.
WATCH_GROUP = "picker-watch"


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], Any],
    timeout: float = 10.0,
    *,
    poke: Callable[[], Any] | None = None,
    poke_every: float = 1.0,
) -> None:
    """Let the app run until ``condition`` holds (workers and file watching take real time).

    ``poke()`` is called every ``poke_every`` seconds while waiting: a change made before a file
    watcher was armed is made again until its event arrives, instead of sleeping first.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    next_poke = loop.time() + poke_every
    while not condition():
        assert loop.time() < deadline, "the screen did not get there in time"
        await pilot.pause(0.05)
        if poke is not None and loop.time() >= next_poke:
            poke()
            next_poke = loop.time() + poke_every


async def settle(pilot: Pilot[Any]) -> None:
    """Let every worker (but the file watcher) finish and the screen catch up."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        busy = [w for w in app.workers if w.group != WATCH_GROUP and not w.is_finished]
        if not busy:
            await pilot.pause()
            if not [w for w in app.workers if w.group != WATCH_GROUP and not w.is_finished]:
                return
            continue
        await app.workers.wait_for_complete(busy)


def screen_lines(app: App[Any], *, right_margin: int = 0) -> list[str]:
    """The screen as the user sees it, one string per row, without the last ``right_margin``
    columns (a scrollbar's), trailing spaces removed.

    Textual has no public text export of the screen (``App.export_screenshot`` gives SVG), so this
    one helper reads the composited strips from the screen's compositor.
    """
    strips = app.screen._compositor.render_strips()
    if right_margin:
        return [strip.text[:-right_margin].rstrip() for strip in strips]
    return [strip.text.rstrip() for strip in strips]


def screen_text(app: App[Any], *, right_margin: int = 0) -> str:
    return "\n".join(screen_lines(app, right_margin=right_margin))


KEY_NAMES = {" ": "space", '"': "quotation_mark", ":": "colon", "(": "left_parenthesis"}


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` a key at a time, then :func:`settle`."""
    await pilot.press(*[KEY_NAMES.get(c, c) for c in text])
    await settle(pilot)


# What a terminal sends for the keys that are characters too.
CHARACTERS = {"enter": "\r", "tab": "\t", "escape": "\x1b", "backspace": "\x7f", "space": " "}


def feed(pilot: Pilot[Any], *keys: str) -> None:
    """Post ``keys`` (key names, or characters) to the app all at once, as the driver posts the
    keys of one read."""
    for key in keys:
        key = "space" if key == " " else key
        character = key if len(key) == 1 else CHARACTERS.get(key)
        pilot.app.post_message(events.Key(key, character))
