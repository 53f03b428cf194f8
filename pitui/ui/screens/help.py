"""The keys screen (F1): every key of the screen below it, with the id to rebind it by.

One row a binding id: its keys as the user's keymap has them, what it does, and the id, whole
at any width (descriptions wrap instead). Grouped by where the keys act, in the order a user
meets them: the screen, its widgets, then the keys that work everywhere.
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

from msgspec import Struct
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from pitui.ui.keys import OrderedKeys, binding_defaults, keys_for

__all__ = ["HelpScreen", "KeyRow", "key_rows"]


class KeyRow(Struct, frozen=True):
    group: str
    keys: str
    description: str
    binding_id: str


def _group_name(node: DOMNode) -> str:
    title = getattr(node, "BINDING_GROUP_TITLE", None)
    return title if isinstance(title, str) and title else type(node).__name__


def key_rows(screen: Screen[Any]) -> list[KeyRow]:
    """The bindings of ``screen``, of every widget on it and of the app, as the user's keymap
    has them, one row per binding id (several keys for one action share a row)."""
    app = screen.app
    keymap = getattr(app, "keymap", {})
    nodes: list[DOMNode] = [screen, *screen.walk_children(with_self=False), app]
    seen: set[str] = set()
    rows: list[KeyRow] = []
    for node in nodes:
        defaults = binding_defaults([type(node)])
        for binding_id, binding in defaults.items():
            if binding_id in seen or binding.system:
                continue
            seen.add(binding_id)
            bound = keys_for(binding_id, keymap, defaults)
            # "shift+l,L" is one key, written two ways: show it once.
            bound = [key for key in bound if not (len(key) == 1 and key.isupper() and f"shift+{key.lower()}" in bound)]
            keys = [app.get_key_display(Binding(key, binding.action)) for key in bound]
            description = binding.tooltip or binding.description or binding.action
            rows.append(KeyRow(_group_name(node), " ".join(dict.fromkeys(keys)), description, binding_id))
    return rows


class _KeysView(OrderedKeys, VerticalScroll):
    """The scrolling list of keys: Up, Down, PgUp, PgDn, Home and End move it up and down."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Up", show=False),
        Binding("down", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]


class HelpScreen(OrderedKeys, ModalScreen[None]):
    """Lists the keys of the screen it was opened over. Keys are remapped in the config file
    (``[keys]``, by the ids shown here)."""

    BINDING_GROUP_TITLE = "Keys screen"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, over: Screen[Any]) -> None:
        super().__init__()
        self._rows = key_rows(over)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                Text("Keys · rebind them under [keys] in ~/.config/pitui/config.toml, by id · esc closes"),
                id="help-title",
            )
            with _KeysView(id="help-keys", can_focus=True):
                yield Static(self._table(), id="help-table")

    def _table(self) -> Group:
        """A bold title and a table of keys, action and id for each group of rows."""
        key_width = max((len(row.keys) for row in self._rows), default=4)
        id_width = max((len(row.binding_id) for row in self._rows), default=2)
        parts: list[Any] = []
        for group, rows in itertools.groupby(self._rows, key=lambda row: row.group):
            table = Table(box=None, show_header=False, expand=True, padding=(0, 1, 0, 0))
            table.add_column("keys", no_wrap=True, min_width=min(key_width, 14), max_width=18)
            table.add_column("action", ratio=1)
            table.add_column("id", no_wrap=True, min_width=id_width, style="dim")
            for row in rows:
                table.add_row(Text(row.keys), Text(row.description), Text(row.binding_id))
            parts += [Text(group, style="bold"), table]
        return Group(*parts)

    def on_mount(self) -> None:
        self.query_one(_KeysView).focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
