"""The base of pitui's full screens: ``self.app`` typed as the :class:`~pitui.ui.app.PituiApp`.

The app's services (the catalog, the clock, the config, opening and leaving sessions) are its
public methods; a screen reaches them through ``self.app``, and this says which app that is.
The app module imports the screens, so the type is imported for checkers only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from pitui.ui.app import PituiApp

__all__ = ["PituiScreen"]


class PituiScreen(Screen[None]):
    """A screen of the pitui app (the picker, a session view)."""

    if TYPE_CHECKING:

        @property
        def app(self) -> PituiApp: ...
