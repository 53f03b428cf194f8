"""Where the tokens went: the listed sessions' tokens and cost per day, project or model, as bars
and a table (one bar per row of the table, the cursor's highlighted), the period, grouping,
scope and metric chosen from the keyboard. Enter lists the sessions of the row's bucket in the
picker.

The figures come from :meth:`pitui.store.catalog.Catalog.usage` (the catalog's cache), counted
in a thread worker; a cold cache shows how many files are left to read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from pitui.store.catalog import Scope, SessionInfo
from pitui.store.usage_report import (
    GROUPINGS,
    PERIODS,
    Grouping,
    UsageReport,
    UsageRow,
    period_label,
    short_key,
    usage_report,
)
from pitui.ui import bindings
from pitui.ui.format import format_tokens
from pitui.ui.screens.base import PituiScreen
from pitui.ui.screens.picker_listing import PickerListing

__all__ = ["UsageScreen"]

# What Enter hands to the picker: the bucket's sessions, what they are, and the scope they are of.
ChooseFn = Callable[[list[str], str, Scope], None]


class UsageScreen(PituiScreen):
    """The usage of the sessions of ``scope``; ``on_choose`` gets a bucket's sessions."""

    BINDING_GROUP_TITLE = "Usage"
    BINDINGS: ClassVar[list[BindingType]] = bindings.USAGE

    def __init__(self, listing: PickerListing, scope: Scope, on_choose: ChooseFn) -> None:
        super().__init__()
        self.listing = listing
        self.scope: Scope = scope
        self.on_choose = on_choose
        self.by: Grouping = "day"
        self.days: int | None = 30
        self.metric = "tokens"
        self.report: UsageReport | None = None
        self._infos: dict[Scope, list[SessionInfo]] = {}
        self._usage: dict[Scope, dict[str, Any]] = {}
        self._status = "Counting…"

    def compose(self) -> ComposeResult:
        yield Static(id="usage-title", markup=False)
        with Horizontal(id="usage-body"):
            yield Static(id="usage-bars", markup=False)
            yield DataTable(id="usage-table", cursor_type="row", zebra_stripes=False)
        yield Static(id="usage-keys", markup=False)

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#usage-table", DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._show()
        self._count(self.scope)

    def on_resize(self) -> None:
        self.query_one("#usage-body").set_class(self.size.width < 110, "-narrow")
        self.call_after_refresh(self._show_bars)

    # -- counting --------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="usage-count", exit_on_error=False)
    def _count(self, scope: Scope) -> None:
        worker = get_current_worker()
        catalog = self.app.catalog
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if done == total or now - last >= 0.1:
                last = now
                self.app.call_from_thread(self._progress, scope, f"Counting… {done:,} of {total:,} files read")

        def cancelled() -> bool:
            return worker.is_cancelled

        try:
            infos, _ = self.listing.listed(catalog, scope, lambda done, total: None)
            usage = catalog.usage(infos, progress, cancelled)
        except Exception as error:  # counting must never take the app down
            self.app.call_from_thread(self._progress, scope, f"Could not count: {type(error).__name__}: {error}")
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._counted, scope, infos, usage)

    def _progress(self, scope: Scope, text: str) -> None:
        if scope == self.scope:
            self._status = text
            self._show_title()

    def _counted(self, scope: Scope, infos: list[SessionInfo], usage: dict[str, Any]) -> None:
        self._infos[scope] = infos
        self._usage[scope] = usage
        if scope == self.scope:
            self._status = ""
            self._show()

    # -- drawing ---------------------------------------------------------------------------

    def _show(self) -> None:
        infos = self._infos.get(self.scope)
        if infos is None:
            self.report = None
        else:
            self.report = usage_report(infos, self._usage[self.scope], self.by, self.days)
        self._show_title()
        self._fill_table()
        self._show_bars()
        k = self.app.keys_text
        keys = [
            (k("usage.open"), "sessions"),
            (k("usage.group"), f"by {self.by}"),
            (k("usage.period"), period_label(self.days)),
            (k("usage.scope"), "scope"),
            (k("usage.metric"), f"bars: {self.metric}"),
            (k("usage.back"), "back"),
        ]
        self.query_one("#usage-keys", Static).update(" · ".join(f"{key} {what}" for key, what in keys))

    def _show_title(self) -> None:
        where = "this folder" if self.scope == "current" else "all projects"
        title = f"Usage · {where} · {period_label(self.days)} · by {self.by}"
        report = self.report
        if report is not None and not self._status:
            total = report.total
            title += f" · {format_tokens(total.tokens)} tokens · ${total.cost:,.2f} · {len(total.sessions):,} sessions"
        elif self._status:
            title += f" · {self._status}"
        self.query_one("#usage-title", Static).update(title)

    def _rows(self) -> list[UsageRow]:
        return [] if self.report is None else self.report.rows

    def _fill_table(self) -> None:
        table = self.table
        old = table.cursor_row
        table.clear(columns=True)
        table.add_columns(self.by, "input", "output", "cache read", "cache write", "cost", "sessions")
        for row in self._rows():
            table.add_row(
                short_key(row.key, self.by),
                format_tokens(row.input),
                format_tokens(row.output),
                format_tokens(row.cache_read),
                format_tokens(row.cache_write),
                f"${row.cost:,.2f}",
                f"{len(row.sessions):,}",
                key=row.key,
            )
        if self.report is not None:
            total = self.report.total
            table.add_row(
                Text("total", style="bold"),
                format_tokens(total.input),
                format_tokens(total.output),
                format_tokens(total.cache_read),
                format_tokens(total.cache_write),
                f"${total.cost:,.2f}",
                f"{len(total.sessions):,}",
                key="\0total",
            )
        if self.by == "day" and old == 0:
            old = max(len(self._rows()) - 1, 0)  # the latest day
        if table.row_count:
            table.move_cursor(row=min(old, table.row_count - 1))

    def _show_bars(self) -> None:
        rows = self._rows()
        bars = self.query_one("#usage-bars", Static)
        if not rows:
            period = self.app.keys_text("usage.period")
            message = (
                ""
                if self.report is None
                else f"No usage in the {period_label(self.days)}: {period} changes the period."
            )
            bars.update(message)
            return
        values = [row.cost if self.metric == "cost" else row.tokens for row in rows]
        peak = max(values) or 1
        cursor = self.table.cursor_row
        region = bars.content_region
        lines = max(region.height - 1, 1)  # (the first line names the metric)
        start = max(0, min(cursor - lines // 2, len(rows) - lines))
        shown = range(start, min(start + lines, len(rows)))
        width = min(max([5, *(len(short_key(rows[i].key, self.by)) for i in shown)]), 28)
        room = max(region.width - width - 10, 4)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{'cost' if self.metric == 'cost' else 'tokens'} per {self.by}\n", style="bold")
        for i in shown:
            row, value = rows[i], values[i]
            name = short_key(row.key, self.by)
            name = name if len(name) <= width else "…" + name[-(width - 1) :]
            cells = value / peak * room
            bar = "█" * int(cells) + ("▌" if cells - int(cells) >= 0.5 else "")
            figure = f"${value:,.2f}" if self.metric == "cost" else format_tokens(value)
            text.append(f"{name:>{width}} ", style="reverse" if i == cursor else "")
            text.append(bar or "▏", style="bold" if i == cursor else "")
            text.append(f" {figure}\n")
        bars.update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_bars()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on the table: its own binding, run in turn with the keys typed before it."""
        event.stop()
        self.action_open()

    # -- keys ------------------------------------------------------------------------------

    def action_group(self) -> None:
        self.by = GROUPINGS[(GROUPINGS.index(self.by) + 1) % len(GROUPINGS)]
        self.table.move_cursor(row=0)
        self._show()

    def action_period(self) -> None:
        self.days = PERIODS[(PERIODS.index(self.days) + 1) % len(PERIODS)]
        self._show()

    def action_metric(self) -> None:
        self.metric = "cost" if self.metric == "tokens" else "tokens"
        self._show()

    def action_scope(self) -> None:
        self.scope = "all" if self.scope == "current" else "current"
        if self.scope not in self._infos:
            self._status = "Counting…"
            self.report = None
            self._count(self.scope)
        self._show()

    def action_open(self) -> None:
        rows = self._rows()
        index = self.table.cursor_row
        if self.report is None:
            return
        row = rows[index] if 0 <= index < len(rows) else self.report.total
        if not row.sessions:
            return
        what = "total" if row is self.report.total else f"{self.by} {short_key(row.key, self.by)}"
        label = f"{what}, {period_label(self.days)}"
        self.dismiss()
        self.on_choose(list(row.sessions), label, self.scope)

    def action_back(self) -> None:
        self.dismiss()
