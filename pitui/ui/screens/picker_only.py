"""The picker showing a given set of sessions (a usage bucket's), with a line above the list
saying which and how to go back to all of them; and the key that opens the usage screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec import Struct
from textual.widgets import Static

from pitui.safe_text import safe_line

if TYPE_CHECKING:
    from pitui.store.catalog import Scope, SessionInfo

__all__ = ["OnlySessions", "PickerOnly", "only_these"]


class OnlySessions(Struct, frozen=True):
    """The sessions the picker is limited to, and what they are (said in the line above the list)."""

    paths: frozenset[str]
    label: str


def only_these(only: OnlySessions | None, infos: list[SessionInfo]) -> list[SessionInfo]:
    return infos if only is None else [info for info in infos if info.path in only.paths]


class PickerOnly:
    """The picker's part of it (mixed into PickerScreen)."""

    only: OnlySessions | None = None

    def action_usage(self: Any) -> None:
        from pitui.ui.screens.usage import UsageScreen

        self.app.push_screen(UsageScreen(self.listing, self.scope, self.show_only))

    def show_only(self: Any, paths: list[str] | None, label: str = "", scope: Scope | None = None) -> None:
        """Limit the list to ``paths`` (None: show every session again), in ``scope``."""
        self.only = None if paths is None else OnlySessions(frozenset(paths), label)
        bar = self.query_one("#picker-only", Static)
        if self.only is not None:
            back = self.app.keys_text("picker.cancel").split("/")[0]
            bar.update(f"Only the {len(paths or ()):,} sessions of {safe_line(label)} · {back} shows all again")
        bar.set_class(self.only is not None, "-shown")
        if scope is not None and scope != self.scope:
            self.action_toggle_scope()
        self.search_box.value = ""
        self._refilter()
