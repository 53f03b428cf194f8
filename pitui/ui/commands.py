"""The command palette (F2): each screen lists its own actions, most of them its key bindings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pitui.ui.keys import binding_defaults

if TYPE_CHECKING:
    from textual.dom import DOMNode

__all__ = ["PaletteCommand", "ScreenCommands", "binding_commands"]


class PaletteCommand(NamedTuple):
    title: str
    run: Callable[[], Any]
    help: str


def binding_commands(node: DOMNode, titles: Mapping[str, str], *, focus: bool = False) -> list[PaletteCommand]:
    """Commands for bindings of ``node``: binding id -> the command's title in the palette
    (``tree: Go to the leaf``), with the binding's tooltip (else its description) as help;
    choosing one runs the binding's action on ``node`` (focused first if ``focus``), as its
    key would."""
    bindings = binding_defaults([type(node)])
    commands = []
    for binding_id, title in titles.items():
        binding = bindings[binding_id]

        def run(action: str = binding.action) -> None:
            if focus:
                node.focus()  # type: ignore[attr-defined]
            node.call_later(node.run_action, action)

        commands.append(PaletteCommand(title, run, binding.tooltip or binding.description))
    return commands


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
