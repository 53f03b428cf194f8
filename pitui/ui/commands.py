"""The command palette (F2): each screen lists its own actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider

__all__ = ["PaletteCommand", "ScreenCommands"]

PaletteCommand = tuple[str, Callable[[], Any], str]  # title, what it does, help text


class HasPaletteCommands(Protocol):
    def palette_commands(self) -> list[PaletteCommand]: ...


class ScreenCommands(Provider):
    """The palette entries of the screen it was opened over: ``screen.palette_commands()``,
    titles like ``tree: Go to the leaf`` so that they group by what they act on."""

    def _commands(self) -> list[PaletteCommand]:
        commands = getattr(self.screen, "palette_commands", None)
        return commands() if commands is not None else []

    async def discover(self) -> Hits:
        for title, callback, text in self._commands():
            yield DiscoveryHit(title, callback, help=text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=text)
