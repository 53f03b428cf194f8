"""Apps for pilot and snapshot tests: the picker on an agent folder or the demo, the session view
on one file, and what their screens show."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from helpers.pilot import screen_lines, until
from pitui.store.catalog import Catalog
from pitui.store.demo import install_demo
from pitui.ui.app import PituiApp
from pitui.ui.format import row_title
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_list import SessionList

DEMO_NOW = 1774008000000.0  # 2026-03-20T12:00:00Z, a little after the newest demo session
SIZE = (120, 36)  # the session view's terminal in pilot and snapshot tests


# -- the picker ------------------------------------------------------------------------------------


def picker_app(
    agent_dir: str | Path, cwd: str, tmp_path: Path, *, now: float = DEMO_NOW, watch: bool = False, **kwargs: Any
) -> PituiApp:
    """The app on the picker of ``agent_dir``, its cache in ``tmp_path``, the clock at ``now``."""
    catalog = Catalog(str(agent_dir), cache_dir=str(tmp_path / "cache"))
    return PituiApp(cwd=cwd, agent_dir=str(agent_dir), now=lambda: now, watch=watch, catalog=catalog, **kwargs)


def demo_app(tmp_path: Path, **kwargs: Any) -> PituiApp:
    """The picker on a copy of the demo sessions."""
    demo = install_demo(str(tmp_path))
    return picker_app(demo.agent_dir, demo.cwd, tmp_path, **kwargs)


def picker(app: PituiApp) -> PickerScreen:
    screen = app.screen_stack[1]
    assert isinstance(screen, PickerScreen)
    return screen


def listing(app: PituiApp) -> SessionList:
    return picker(app).query_one(SessionList)


def row_lines(app: PituiApp) -> list[str]:
    """The list's lines as shown (the list's own width, without the preview beside it)."""
    widget = listing(app)
    out = []
    for y in range(widget.scrollable_content_region.height):
        text = widget.render_line(y).text.rstrip()
        if text:
            out.append(text)
    return out


def titles(app: PituiApp) -> list[str]:
    return [row_title(row.info) for row in listing(app).rows]


def selected_title(app: PituiApp) -> str:
    row = listing(app).selected
    assert row is not None
    return row_title(row.info)


def header_lines(app: PituiApp) -> list[str]:
    """The picker header's lines: the scope, the search and the key hints."""
    return screen_lines(app)[1:4]


# -- the session view ------------------------------------------------------------------------------


def view_app(path: Path | str, tmp_path: Path, *, watch: bool = False) -> PituiApp:
    """The app opened on the session file ``path`` (an empty agent folder and the cache in
    ``tmp_path``), the clock at :data:`DEMO_NOW`."""
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    catalog = Catalog(str(agent), cache_dir=str(tmp_path / "cache"))
    return PituiApp(
        cwd=str(tmp_path), agent_dir=str(agent), open_path=str(path), now=lambda: DEMO_NOW, watch=watch, catalog=catalog
    )


def screen_of(app: PituiApp) -> SessionScreen:
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def opened(pilot: Pilot[Any]) -> SessionScreen:
    """Wait until the session view shows its session's conversation; the screen."""
    await until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, SessionScreen)
            and pilot.app.screen.session is not None
            and pilot.app.screen.query_one(ConversationView).items
        ),
    )
    return screen_of(pilot.app)  # type: ignore[arg-type]


def static_text(screen: SessionScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def demo_file(tmp_path: Path, pattern: str = "*weatherapp*/*019cfc16*") -> str:
    """One session of a copy of the demo (by default the weatherapp session)."""
    demo = install_demo(str(tmp_path))
    return glob.glob(os.path.join(demo.agent_dir, "sessions", pattern))[0]
