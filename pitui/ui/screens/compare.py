"""The comparison screen: two branches of a session from their common entry, side by side.

The comparison (:func:`pitui.store.compare.compare`) is made in a worker thread, so a deep
chain never holds the UI up; keys typed meanwhile wait for it. Then each section (prompts,
final answer, files, commands, failures, errors, tokens and cost, entries) is one block of rows
with A's items beside B's; an item only one side has is marked ``+`` and coloured. The cursor
moves over the items of both columns; Enter shows the item's entry in the tree, and Ctrl+A /
Ctrl+B continue a side (the session view's branch, asked first). The screen dismisses with
``("jump", entry_id)``, ``("continue", entry_id)`` or None.
"""

from __future__ import annotations

import bisect
from typing import Any, ClassVar

from msgspec import Struct
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from pitui.safe_text import safe_line
from pitui.store.compare import SECTIONS, CompareError, Comparison, Item, compare, entry_summary
from pitui.store.model import FileChangedError
from pitui.store.reader import Session
from pitui.ui import bindings
from pitui.ui.keys import OrderedKeys
from pitui.ui.screens.dialogs import ConfirmDialog
from pitui.ui.widgets.footer import KeysFooter
from pitui.ui.workers import work

__all__ = ["CompareScreen", "Row", "comparison_rows"]

ONLY_HERE = "+"
FAILED = "✗"


class Row(Struct, frozen=True):
    """One row of the table: a section's title, or a line of each side (an item, or plain text)."""

    title: str | None = None
    cells: tuple[Item | str | None, Item | str | None] = (None, None)


# A section shows this many items of a side at most, its first and last halves, with a line
# saying how many are left out between (``pitui compare --json`` has them all): a branch of
# 50,000 prompts would otherwise make a table too big to build and to move through.
SECTION_ITEMS = 200


def _shown(items: tuple[Item, ...], kind: str) -> list[Item | str]:
    if not items:
        return ["(none)"]
    if len(items) <= SECTION_ITEMS:
        return list(items)
    half = SECTION_ITEMS // 2
    left_out = len(items) - 2 * half
    return [*items[:half], f"… {left_out:,} more {kind} (pitui compare --json lists them all)", *items[-half:]]


def comparison_rows(comparison: Comparison) -> list[Row]:
    """The table's rows: each section's title, then its items, A's beside B's."""
    rows: list[Row] = []
    a, b = comparison.a, comparison.b
    for key, title in SECTIONS:
        rows.append(Row(title))
        left, right = _shown(a.section(key), title.lower()), _shown(b.section(key), title.lower())
        for n in range(max(len(left), len(right))):
            rows.append(Row(cells=(left[n] if n < len(left) else None, right[n] if n < len(right) else None)))
    for title, lines in (
        ("Tokens and cost", (a.totals_lines(), b.totals_lines())),
        ("Entries", (a.entries_lines(), b.entries_lines())),
    ):
        rows.append(Row(title))
        for n in range(max(map(len, lines))):
            cells = tuple(side[n] if n < len(side) else None for side in lines)
            rows.append(Row(cells=(cells[0], cells[1])))
    return rows


class ComparisonTable(OrderedKeys, DataTable[Text], inherit_bindings=False):
    """The two columns. Its keys are the screen's (bindings.COMPARE); they wait while the
    comparison is made."""

    ready = False

    def key_waits(self, key: str, character: str | None, actions: list[tuple[Any, str]]) -> bool:
        return not self.ready and key != "escape"


class CompareScreen(OrderedKeys, Screen[Any]):
    """Compare the branches of ``session`` down to ``a_id`` and ``b_id``."""

    BINDING_GROUP_TITLE = "Comparison"
    BINDINGS: ClassVar[list[BindingType]] = bindings.COMPARE

    def __init__(self, session: Session, a_id: Any, b_id: Any) -> None:
        super().__init__()
        self.session = session
        self.ids = (a_id, b_id)
        self.comparison: Comparison | None = None
        self.rows: list[Row] = []
        self.items: tuple[list[int], list[int]] = ([], [])  # the rows with an item, per side
        self.column = 0  # the side the cursor is on
        self.row = -1  # the cursor's row (-1: no item)

    def compose(self) -> ComposeResult:
        yield Static(id="compare-title")
        yield Static(id="compare-ancestor")
        table = ComparisonTable(id="compare-table", cursor_type="cell", zebra_stripes=False)
        yield table
        yield Static(id="compare-status")
        yield KeysFooter()

    def on_mount(self) -> None:
        a, b = (safe_line(str(i))[:8] for i in self.ids)
        self.query_one("#compare-title", Static).update(Text(f"Comparing A {a} with B {b}", style="bold"))
        self.query_one("#compare-ancestor", Static).update(Text("Comparing…", style="dim"))
        self.query_one(ComparisonTable).focus()
        self._compare(self.session, *self.ids)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def _compare(self, session: Session, a_id: Any, b_id: Any) -> None:
        rows: list[Row] = []
        try:
            comparison: Comparison | None = compare(session, a_id, b_id)
            error = None
        except (CompareError, FileChangedError, OSError) as problem:
            comparison, error = None, str(problem) or "the file changed"
        else:
            rows = comparison_rows(comparison)
        self.app.call_from_thread(self._compared, comparison, rows, error)

    def _compared(self, comparison: Comparison | None, rows: list[Row], error: str | None) -> None:
        table = self.query_one(ComparisonTable)
        if comparison is None:
            self.query_one("#compare-ancestor", Static).update(
                Text(safe_line(f"Cannot compare: {error}"), style="bold red")
            )
            table.ready = True
            table.flush_keys()
            return
        self.comparison = comparison
        self.rows = rows
        self.items = tuple(  # type: ignore[assignment]
            [n for n, row in enumerate(rows) if isinstance(row.cells[column], Item)] for column in (0, 1)
        )
        self._show_ancestor(comparison)
        self._fill()
        first = self._items_of(0)
        self.row = first[0] if first else -1
        if self.row < 0:
            self.column, items = 1, self._items_of(1)
            self.row = items[0] if items else -1
        self._move_cursor()
        table.ready = True
        table.flush_keys()

    def _show_ancestor(self, comparison: Comparison) -> None:
        ancestor = comparison.ancestor
        line = Text()
        if ancestor is None:
            line.append("No common entry: the two are in separate trees", style="bold")
        else:
            about = entry_summary(ancestor)
            line.append("Common entry ", style="dim")
            line.append(safe_line(str(about["id"])), style="bold")
            line.append(f" {safe_line(str(about['role'] or about['type']))}", style="italic")
            line.append(f"  {safe_line(about['text'])}")
        relation = {
            "same": "  (A and B are the same entry)",
            "a-above-b": "  (A is on B's path)",
            "b-above-a": "  (B is on A's path)",
        }.get(comparison.relation, "")
        line.append(relation, style="dim")
        line.append(f"   {ONLY_HERE} only on this side  {FAILED} failed", style="dim")
        self.query_one("#compare-ancestor", Static).update(line)

    def _fill(self) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        table = self.query_one(ComparisonTable)
        table.clear(columns=True)
        # Each column is padded by a cell on either side; the vertical scrollbar takes two.
        inner = table.scrollable_content_region.width or self.app.size.width - 2
        width = max((inner - 2) // 2 - 2, 10)
        table.add_column(Text(f"A {safe_line(str(comparison.a.entry.id))}", style="bold"), width=width, key="a")
        table.add_column(Text(f"B {safe_line(str(comparison.b.entry.id))}", style="bold"), width=width, key="b")
        table.add_rows([_row_cells(row) for row in self.rows])

    def on_resize(self) -> None:
        if self.comparison is not None:
            self._fill()
            self._move_cursor()

    # ------------------------------------------------------------------ the cursor

    def _items_of(self, column: int) -> list[int]:
        return self.items[column]

    def _move_cursor(self) -> None:
        if self.row >= 0:
            self.query_one(ComparisonTable).move_cursor(row=self.row, column=self.column, scroll=True)
            self._say_item()

    def _say_item(self) -> None:
        item = self.item
        if item is None:
            return
        where = "only on this side" if item.only_here else "on both sides"
        text = f"{'AB'[self.column]} · {where}"
        if item.entry_id is not None:
            text += f" · entry {safe_line(str(item.entry_id))} (enter: show it in the tree)"
        self.query_one("#compare-status", Static).update(Text(text, style="dim"))

    @property
    def item(self) -> Item | None:
        if 0 <= self.row < len(self.rows):
            cell = self.rows[self.row].cells[self.column]
            return cell if isinstance(cell, Item) else None
        return None

    def action_move(self, step: int) -> None:
        items = self._items_of(self.column)
        if not items:
            return
        if step > 0:
            at = bisect.bisect_right(items, self.row)
            self.row = items[at] if at < len(items) else self.row
        else:
            at = bisect.bisect_left(items, self.row)
            self.row = items[at - 1] if at > 0 else self.row
        self._move_cursor()

    def action_side(self, column: int) -> None:
        items = self._items_of(column)
        if not items or column == self.column:
            return
        self.column = column
        self.row = min(items, key=lambda n: (abs(n - self.row), n))
        self._move_cursor()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        """A click on a cell: the cursor goes there if it is an item."""
        row, column = event.coordinate.row, event.coordinate.column
        if 0 <= row < len(self.rows) and isinstance(self.rows[row].cells[column], Item):
            self.row, self.column = row, column
            self._say_item()
        else:
            self._move_cursor()

    # ------------------------------------------------------------------ acting

    def action_jump(self) -> None:
        item = self.item
        if item is None or item.entry_id is None:
            self.query_one("#compare-status", Static).update(Text("No entry to show here", style="dim"))
            return
        self.dismiss(("jump", item.entry_id))

    @work(exclusive=True, group="compare-continue", exit_on_error=False)
    async def action_continue(self, column: int) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        side = comparison.b if column else comparison.a
        entry_id = side.entry.id
        about = entry_summary(side.entry)
        question = (
            f"Continue branch {'AB'[column]}: the session's leaf moves to entry {entry_id} "
            f"({about['role'] or about['type']}: {about['text'][:60]}), as Enter on it in the tree does. "
            "The session view asks next whether to summarise the branch left behind, then appends "
            "one entry to the session file."
        )
        table = self.query_one(ComparisonTable)
        table.hold_keys()
        answer = self.app.push_screen(
            ConfirmDialog(f"Continue branch {'AB'[column]}?", question), wait_for_dismiss=True
        )
        table.flush_keys()
        if await answer:
            self.dismiss(("continue", entry_id))
        else:
            table.release_keys()
            self.query_one("#compare-status", Static).update(Text("Nothing written", style="dim"))

    def action_back(self) -> None:
        self.dismiss(None)


def _row_cells(row: Row) -> list[Text]:
    if row.title is not None:
        return [Text(row.title, style="bold underline"), Text(row.title, style="bold underline")]
    return [_cell(cell) for cell in row.cells]


def _cell(cell: Item | str | None) -> Text:
    if cell is None:
        return Text("")
    if isinstance(cell, str):
        return Text(f"   {safe_line(cell)}", style="dim" if cell == "(none)" else "")
    line = " ".join(safe_line(cell.text).split())
    text = Text()
    text.append(ONLY_HERE if cell.only_here else " ", style="bold yellow" if cell.only_here else "")
    text.append(FAILED if cell.failed else " ", style="bold red" if cell.failed else "")
    text.append(" ")
    text.append(line, style="yellow" if cell.only_here else "")
    return text
