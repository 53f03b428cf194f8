"""pi 1.6's question before resuming a session whose folder no longer exists.

``Session cwd does not exist: <cwd>``: continue in the current folder, fork the session into it
(a new file: the dialog says where before anything is written), or cancel. The words are pi's
(:mod:`pitui.store.session_cwd`); the dialog writes nothing itself.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static
from textual.widgets.option_list import Option

from pitui.safe_text import safe_line
from pitui.store.session_cwd import Choice, MissingCwd
from pitui.ui.screens.dialogs import ChoiceDialog
from pitui.ui.widgets.fields import OrderedOptionList

__all__ = ["MissingCwdDialog"]

CANCEL = "cancel"


class MissingCwdDialog(ChoiceDialog[Choice]):
    """Returns ``"continue"``, ``"fork"``, or None (Cancel, Escape)."""

    BINDING_GROUP_TITLE = "Session cwd does not exist question"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+c", "cancel", "Cancel", id="missing_cwd.cancel"),
        Binding("j", "move(1)", "Down", show=False, id="missing_cwd.down"),
        Binding("k", "move(-1)", "Up", show=False, id="missing_cwd.up"),
    ]

    def __init__(self, issue: MissingCwd, fork_folder: str) -> None:
        super().__init__()
        self._issue = issue
        self._fork_folder = fork_folder

    def compose(self) -> ComposeResult:
        issue = self._issue
        with Vertical(id="missing-cwd-box", classes="dialog-box"):
            yield Static(safe_line(issue.prompt), classes="dialog-title", markup=False)
            yield OrderedOptionList(
                *(Option(safe_line(label), id=choice or CANCEL) for label, choice in issue.options()),
                id="missing-cwd-choices",
            )
            about = Text(style="dim")
            about.append("Continue runs pi in the current folder, on this file. ")
            about.append("Fork writes a new session file in ")
            about.append(safe_line(self._fork_folder), style="not dim")
            about.append(" and resumes that; the original file is not changed.")
            yield Static(about, id="missing-cwd-about")
            yield Static("↑↓ navigate · enter select · escape cancel", classes="dialog-hint", markup=False)

    def answer(self, option_id: str | None) -> Choice | None:
        return "continue" if option_id == "continue" else "fork" if option_id == "fork" else None
