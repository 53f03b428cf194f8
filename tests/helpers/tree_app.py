"""The session tree widget alone in an app (with an app-level Escape), on the demo's sessions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType

from pitui.store.reader import Session
from pitui.store.tree import TreeModel
from pitui.ui.widgets.session_tree import SessionTree

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "pitui" / "demo" / "sessions"
# Branches, labels, a branch summary, tool calls of every kind.
WEATHER, SHORTLINKS = DEMO / "--home-user-projects-weatherapp--", DEMO / "--home-user-projects-shortlinks--"
BRANCHY = WEATHER / "2026-03-16T08-41-17-303Z_019cf5ce-80f7-794c-8c76-db8cd8dcb35f.jsonl"
NOW = datetime(2026, 3, 16, 12, 0, tzinfo=UTC)


class TreeApp(App[None]):
    """The tree alone, with an app-level Escape to see what the tree leaves to its screen."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "outer_escape")]

    def __init__(self, model: TreeModel) -> None:
        super().__init__()
        self.model = model
        self.seen: list[tuple[Any, ...]] = []

    def compose(self) -> ComposeResult:
        yield SessionTree(self.model)

    def on_session_tree_highlighted(self, message: SessionTree.Highlighted) -> None:
        self.seen.append(("highlighted", message.entry_id))

    def on_session_tree_selected(self, message: SessionTree.Selected) -> None:
        self.seen.append(("selected", message.entry_id))

    def on_session_tree_status_changed(self, message: SessionTree.StatusChanged) -> None:
        self.seen.append(("status", message.status, message.query))

    def action_outer_escape(self) -> None:
        self.seen.append(("escape",))

    def last(self, kind: str) -> tuple[Any, ...] | None:
        return next((m for m in reversed(self.seen) if m[0] == kind), None)


def make(session: Session, **kwargs: Any) -> TreeApp:
    kwargs.setdefault("home", "/home/user")
    kwargs.setdefault("now", lambda: NOW)
    kwargs.setdefault("tz", UTC)
    return TreeApp(TreeModel(session, **kwargs))
