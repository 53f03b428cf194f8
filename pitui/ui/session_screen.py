"""The session view: one session's tree beside the conversation up to the highlighted entry."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..safe_text import safe_line, safe_lines
from ..store.export import render_message
from ..store.session import NotASessionError, Session

__all__ = ["SessionScreen"]


def _home_short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "/" and path.startswith(home + os.sep) else path


class SessionScreen(Screen[None]):
    """One session file: ``session_path`` (kept for the app: the picker will not trash it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="session.back"),
    ]

    def __init__(self, path: str, entry_id: str | None = None) -> None:
        super().__init__()
        self.session_path = path
        self.entry_id = entry_id
        self.session: Session | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(safe_line(_home_short(self.session_path))), id="session-header")
        yield VerticalScroll(id="session-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#session-body").loading = True
        self.load()

    @work(thread=True, exclusive=True, group="session-load")
    def load(self) -> None:
        try:
            session = Session.load(self.session_path)
        except (OSError, NotASessionError) as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self._loaded, session)

    def _failed(self, message: str) -> None:
        body = self.query_one("#session-body")
        body.loading = False
        body.mount(Static(Text(safe_line(message)), classes="error"))

    def _loaded(self, session: Session) -> None:
        self.session = session
        body = self.query_one("#session-body")
        body.loading = False
        widgets = []
        for message in session.context(self.entry_id if self.entry_id else session.leaf_id).messages:
            rendered = render_message(message)
            text = Text(safe_line(rendered.title), style="bold")
            for part in rendered.parts:
                text.append("\n" + safe_lines(part.text))
            widgets.append(Static(text))
        body.mount_all(widgets)
        body.scroll_end(animate=False)

    def action_back(self) -> None:
        self.dismiss()
