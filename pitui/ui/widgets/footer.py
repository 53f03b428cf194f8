"""The key bindings' footer, composed again only when the keys it shows change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["KeysFooter"]


class KeysFooter(Footer):
    """Textual's footer, composed again once for the binding changes that come together, and
    not at all when the keys it would show are the ones it shows.

    Each change (a focus move, a screen stacked) asks the footer to compose itself after the
    next refresh, and each compose mounts its 9 to 25 keys again: 20 to 25 ms. The session
    screen's start makes five such asks while the session is read, for keys that change once.
    Here an ask that a later one follows is let go (the later one composes what is there by
    then), and so is one that finds the same keys. A compose asked for otherwise (a change of
    the footer's own settings) runs as always."""

    _asked = 0  # composes asked for by binding changes that have not come yet
    _composed: tuple[Any, ...] | None = None  # the bindings the keys shown were made from

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Footer's own conditions for asking (it asks nothing of a screen not its own).
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._asked += 1
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        asked = self._asked > 0
        if asked:
            self._asked -= 1
            if self._asked > 0:
                return  # a later ask composes what this one would, and what changed since
        if not self.is_attached:
            return  # its screen has gone (as Widget.recompose, which would do nothing)
        # What Footer.compose reads of each binding: the binding, whether it is enabled, its tooltip.
        shown = tuple(
            (binding, enabled, tooltip) for _, binding, enabled, tooltip in self.screen.active_bindings.values()
        )
        if asked and shown == self._composed:
            return
        self._composed = shown
        await super().recompose()
