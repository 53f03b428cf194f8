"""The settings that make a screen the same on every machine: snapshot tests and the README's
screenshots (devkit/screenshots.py) use this one recipe.

Local time is UTC (``TZ`` plus ``time.tzset()``), the home folder is one no path is under (paths
are shown whole, never shortened to ``~``; tests that trash files give an empty folder that
exists, since the trash looks at the home folder's device), there is no config folder, the cursors of ``Input``
and ``TextArea`` do not blink, the theme is fixed, the clock is :data:`NOW_MS` wherever the
app takes one (``PituiApp(now=...)``, ``TreeModel(now=...)``), and every session's folder counts
as existing (the demo's and the tests' projects are on no machine; a test of a missing folder
says which is missing).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TZ = "UTC"
HOME = "/nonexistent-home"
THEME = "textual-dark"
NOW_MS = 1774008000000.0  # 2026-03-20T12:00:00Z, a little after the newest demo session
UNSET = ("NO_COLOR",)  # Textual turns colours off when it is set


def _patches() -> list[tuple[Any, str, Any]]:
    from textual.app import App
    from textual.widgets import Input, TextArea

    from pitui.store import session_cwd

    return [
        (session_cwd, "_gone", lambda folder: False),
        (Input, "_toggle_cursor", lambda self: None),
        (TextArea, "_toggle_cursor_blink_visible", lambda self: None),
        # Textual reads $TEXTUAL_THEME once, at import, into the default of the theme reactive.
        (App.theme, "_default", THEME),
    ]


def environment(home: str = HOME) -> dict[str, str]:
    """The environment variables of the settings (also for child processes)."""
    return {"TZ": TZ, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config")}


@contextmanager
def steady(home: str = HOME) -> Iterator[None]:
    """Apply the settings for the duration of the block, then put everything back."""
    env = environment(home)
    saved_env = {name: os.environ.get(name) for name in (*env, *UNSET)}
    patches = _patches()
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    os.environ.update(env)
    for name in UNSET:
        os.environ.pop(name, None)
    time.tzset()
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        time.tzset()
