#!/usr/bin/env python3
"""Write the README's screenshots: the real app, headless, on the demo sessions.

    python -m devkit.screenshots                # every shot into screenshots/
    python -m devkit.screenshots picker         # only the shots named
    python -m devkit.screenshots --list         # the shots there are

Each shot runs ``PituiApp`` with ``run_test(size=SIZE)`` on a fresh copy of the demo sessions,
with the snapshot tests' settings (``devkit.deterministic``: a fixed clock a little after the
newest demo session, UTC local time, a home folder no demo path is under, no cursor blink, a
fixed theme), then saves ``screenshots/<name>.svg``.

To add a shot, write an ``async def`` taking the pilot that drives the app to the state to show,
and decorate it with ``@shot("name")``. The app is already on the picker, the listing done.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from devkit.deterministic import NOW_MS, steady
from devkit.env import REPO

SIZE = (120, 36)
OUT = REPO / "screenshots"

Drive = Callable[[Any], Awaitable[None]]
SHOTS: dict[str, Drive] = {}


def shot(name: str) -> Callable[[Drive], Drive]:
    def register(drive: Drive) -> Drive:
        SHOTS[name] = drive
        return drive

    return register


async def settle(pilot: Any) -> None:
    """Let the app's workers finish (a file watcher would never: none is started)."""
    for _ in range(50):
        await pilot.pause()
        # A write flow waits on its dialog: it ends when the user answers, not before.
        busy = [worker for worker in pilot.app.workers if not worker.is_finished and worker.group != "session-write"]
        if not busy:
            await pilot.pause()
            return
        await pilot.app.workers.wait_for_complete(busy)


async def press(pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


KEY_NAMES = {" ": "space", '"': "quotation_mark", ":": "colon", "(": "left_parenthesis", ")": "right_parenthesis"}


async def type_text(pilot: Any, text: str) -> None:
    await press(pilot, *(KEY_NAMES.get(char, char) for char in text))


# -- the shots ---------------------------------------------------------------------------------------


@shot("picker")
async def picker(pilot: Any) -> None:
    """Every project's sessions, a fork under its parent, the cursor on a session with labels."""
    await press(pilot, "tab", "down", "down", "down", "down")


@shot("session")
async def session(pilot: Any) -> None:
    """A session with branches and labels: its tree beside the conversation up to an entry."""
    await open_demo_session(pilot)
    await press(pilot, *["up"] * 6)


async def open_demo_session(pilot: Any) -> None:
    """Open the second demo session and wait for its header's usage figures."""
    from pitui.ui.screens.session import SessionScreen

    await press(pilot, "down", "enter")
    for _ in range(100):
        screen = pilot.app.screen
        if isinstance(screen, SessionScreen) and screen.stats is not None:
            break
        await pilot.pause(0.05)


@shot("context")
async def context(pilot: Any) -> None:
    """The conversation pane at a tool result a context edit replaced: the note the model sees,
    the original one key away."""
    from pitui.ui.screens.session import SessionScreen

    await press(pilot, "enter")
    for _ in range(100):
        screen = pilot.app.screen
        if isinstance(screen, SessionScreen) and screen.stats is not None:
            break
        await pilot.pause(0.05)
    await press(pilot, "tab", *["up"] * 8)


@shot("branch")
async def branch(pilot: Any) -> None:
    """Enter on an earlier entry: pi's question, whether to summarise the branch being left."""
    await open_demo_session(pilot)
    await press(pilot, *["up"] * 6, "enter", "down")


@shot("summary")
async def summary(pilot: Any) -> None:
    """The summary editor, started from a digest of the branch being left, made without a model."""
    await open_demo_session(pilot)
    await press(pilot, *["up"] * 6, "enter", "down", "enter")


# -- running them ------------------------------------------------------------------------------------


@shot("usage")
async def usage(pilot: Any) -> None:
    """Every project's tokens per model, over all time: the plot beside the table."""
    await press(pilot, "ctrl+g", "tab", "p", "p", "g", "g")


async def take(name: str, drive: Drive, out: Path) -> Path:
    from pitui.store.catalog import Catalog
    from pitui.store.demo import install_demo
    from pitui.ui.app import PituiApp

    with tempfile.TemporaryDirectory(prefix="pitui-shots-") as work:
        demo = install_demo(work)
        catalog = Catalog(demo.agent_dir, cache_dir=os.path.join(work, "cache"))
        app = PituiApp(cwd=demo.cwd, agent_dir=demo.agent_dir, now=lambda: NOW_MS, watch=False, catalog=catalog)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await drive(pilot)
            await settle(pilot)
            path = app.save_screenshot(filename=f"{name}.svg", path=str(out))
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="shots to take (default: all)")
    parser.add_argument("--list", action="store_true", help="list the shots and exit")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the SVGs (default {OUT})")
    args = parser.parse_args(argv)
    if args.list:
        for name, drive in SHOTS.items():
            print(f"{name:16} {(drive.__doc__ or '').strip()}")
        return 0
    unknown = [name for name in args.names if name not in SHOTS]
    if unknown:
        parser.error(f"no such shot: {', '.join(unknown)} (see --list)")
    args.out.mkdir(parents=True, exist_ok=True)
    with steady():  # paths are shown whole, times in UTC: the same on every machine
        for name in args.names or list(SHOTS):
            print(asyncio.run(take(name, SHOTS[name], args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
