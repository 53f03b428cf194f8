"""The command palette (F2): each screen lists its own actions, most of them its key bindings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pitui.ui.keys import binding_defaults

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = [
    "PaletteCommand",
    "ScreenCommands",
    "binding_commands",
    "picker_commands",
    "session_commands",
]


class PaletteCommand(NamedTuple):
    title: str
    run: Callable[[], Any]
    help: str


def binding_commands(node: Widget, titles: Mapping[str, str], *, focus: bool = False) -> list[PaletteCommand]:
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
                node.focus()
            node.call_later(node.run_action, action)

        commands.append(PaletteCommand(title, run, binding.tooltip or binding.description))
    return commands


# The picker's palette: these bindings, then the commands that have no key of their own.
PICKER_COMMANDS = {
    "picker.open": "session: Open",
    "picker.resume": "session: Resume in pi",
    "picker.rename": "session: Rename",
    "picker.delete": "session: Trash",
    "picker.scope": "view: Toggle scope",
    "picker.sort": "view: Next sort mode",
    "picker.named": "view: Toggle named sessions only",
    "picker.path": "view: Toggle paths",
    "picker.find_entries": "search: Find entries in every session",
    "picker.usage": "view: Usage (tokens and cost)",
}
PICKER_EXTRA = (
    ("search: Clear", "clear_search", "Empty the search box"),
    ("view: Show skipped files", "show_problems", "Files the listing could not use, and why"),
)


def picker_commands(
    screen: Widget, can_run: Callable[[str, tuple[object, ...]], bool | None], run_action: Callable[[str], Any]
) -> list[PaletteCommand]:
    """The picker's commands that ``can_run`` now (its ``check_action``)."""
    bindings = binding_defaults([type(screen)])
    commands = binding_commands(
        screen,
        {
            binding_id: title
            for binding_id, title in PICKER_COMMANDS.items()
            if can_run(bindings[binding_id].action, ())
        },
    )
    commands += [
        PaletteCommand(title, partial(run_action, action), text)
        for title, action, text in PICKER_EXTRA
        if can_run(action, ())
    ]
    return commands


# The session view's palette: the tree's filters (set, not toggled as their keys do: the
# palette names the filter it shows), then the titles of the bindings it lists.
FILTER_COMMANDS = (
    ("default", "default", "every entry but bookkeeping (labels, model changes, names)"),
    ("no-tools", "no tools", "the default entries without tool results"),
    ("user-only", "user only", "your own messages only"),
    ("labeled-only", "labeled only", "labelled entries only"),
    ("all", "all", "every entry"),
)
TREE_COMMANDS = {
    "tree.leaf": "tree: Go to the leaf",
    "tree.parent": "tree: Go to the parent",
    "tree.next_branch": "tree: Next branch",
    "tree.previous_branch": "tree: Previous branch",
    "tree.next_label": "tree: Next label",
    "tree.previous_label": "tree: Previous label",
    "tree.label_times": "tree: Toggle label times",
}
SESSION_COMMANDS = {
    "session.label": "session: Label the entry",
    "session.rename": "session: Rename",
    "session.fork": "session: Fork",
    "session.clone": "session: Clone",
    "session.undo": "session: Undo",
    "session.resume": "session: Resume in pi",
    "session.trash": "session: Move to the trash",
    "session.reload": "session: Reload",
    "session.back": "session: Back to the session list",
}


def session_commands(screen: Widget, tree: Any, view: Widget, branch_here: Callable[[], Any]) -> list[PaletteCommand]:
    """The session view's commands: ``tree`` (a SessionTree), ``view`` (its ConversationView)."""

    def set_filter(mode: str) -> Callable[[], None]:
        def run() -> None:
            tree.focus()
            tree.action_filter(mode)

        return run

    commands = [
        PaletteCommand(f"tree: Filter {label}", set_filter(mode), f"Show {shows}")
        for mode, label, shows in FILTER_COMMANDS
    ]
    commands += binding_commands(tree, TREE_COMMANDS, focus=True)
    commands.append(
        PaletteCommand(
            "session: Branch here",
            branch_here,
            "Continue from the highlighted entry, with or without a summary of the branch left",
        )
    )
    commands += binding_commands(screen, SESSION_COMMANDS)
    commands += binding_commands(view, {"conversation.toggle_thinking": "conversation: Toggle thinking"})
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
