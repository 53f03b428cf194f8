"""The keys screen (F1): every key of the screen below it, with the id to rebind it by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

__all__ = ["HelpScreen", "KeyRow", "key_rows"]


@dataclass(frozen=True, slots=True)
class KeyRow:
    group: str
    keys: str
    description: str
    binding_id: str


def _group_name(node: DOMNode) -> str:
    title = getattr(node, "BINDING_GROUP_TITLE", None)
    if title:
        return title
    name = type(node).__name__
    return "".join(f" {c}" if c.isupper() and i else c for i, c in enumerate(name)).strip()


def key_rows(screen: Screen[object]) -> list[KeyRow]:
    """The bindings of ``screen``, of every widget on it and of the app, as the user's keymap
    has them, one row per binding id (several keys for one action share a row)."""
    app = screen.app
    nodes: list[DOMNode] = [screen, *screen.walk_children(with_self=False), app]
    seen: set[tuple[str, str]] = set()
    rows: list[KeyRow] = []
    for node in nodes:
        bindings = node._bindings.copy()
        if app._keymap:
            bindings.apply_keymap(app._keymap)
        by_id: dict[str, tuple[list[str], Binding]] = {}
        for key, key_bindings in bindings.key_to_bindings.items():
            for binding in key_bindings:
                if binding.id is None or binding.system:
                    continue
                keys, _ = by_id.setdefault(binding.id, ([], binding))
                display = app.get_key_display(Binding(key, binding.action))
                if display not in keys:
                    keys.append(display)
        group = _group_name(node)
        for binding_id, (keys, binding) in by_id.items():
            if (group, binding_id) in seen:
                continue
            seen.add((group, binding_id))
            description = binding.tooltip or binding.description or binding.action
            rows.append(KeyRow(group, " ".join(keys), description, binding_id))
    return rows


class HelpScreen(ModalScreen[None]):
    """Lists the keys of the screen it was opened over. Keys are remapped in the config file
    (``[keys]``, by the ids shown here)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, over: Screen[object]) -> None:
        super().__init__()
        self._rows = key_rows(over)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(Text("Keys  ·  rebind them in ~/.config/pitui/config.toml under [keys], by id"),
                         id="help-title")
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Keys", "Action", "Id")
        group = None
        for row in self._rows:
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold"), "", "")
            table.add_row(Text(row.keys), Text(row.description), Text(row.binding_id, style="dim"))
        table.focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
