"""Where the tokens went: the listed sessions' tokens and cost per day, project or model, as a
plot (:class:`~pitui.ui.widgets.usage_plot.UsagePlot`, the highlighted row's bar vivid) beside a
table (above it below 110 columns), the period, grouping, scope and metric chosen from the
keyboard. Enter lists the sessions of the row's bucket in the picker.

The figures come from :meth:`pitui.store.catalog.Catalog.usage` (the catalog's cache), counted
in a thread worker; a cold cache shows how many files are left to read.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
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
from pitui.ui.format import format_tokens, plural
from pitui.ui.screens.base import PituiScreen
from pitui.ui.screens.picker_listing import PickerListing
from pitui.ui.widgets.usage_plot import UsagePlot, legend, plot_data
from pitui.ui.workers import work

__all__ = ["UsageScreen"]

# What Enter hands to the picker: the bucket's sessions, what they are, and the scope they are of.
ChooseFn = Callable[[list[str], str, Scope], None]

HEADINGS = ("input", "output", "cache rd", "cache wr", "cost", "sessions")
WIDE = 110  # the plot beside the table from this width on, above it below
PLOT_MIN = 36  # the plot's least width beside the table


def fit_left(text: str, width: int) -> str:
    """``text``, cut from the left to ``width`` when longer: whole path parts when they fit."""
    if len(text) <= width:
        return text
    tail = text[-(width - 1) :]
    cut = tail.find("/")
    return "…" + (tail[cut:] if 0 <= cut < len(tail) - 1 else tail)


class UsageScreen(PituiScreen):
    """The usage of the sessions of ``scope``; ``on_choose`` gets a bucket's sessions."""

    BINDING_GROUP_TITLE = "Usage"
    BINDINGS: ClassVar[list[BindingType]] = bindings.USAGE

    @dataclass(eq=False)
    class _Counting(Message):
        scope: Scope
        text: str

    @dataclass(eq=False)
    class _Counted(Message):
        scope: Scope
        infos: list[SessionInfo]
        usage: dict[str, Any]

    def __init__(self, listing: PickerListing, scope: Scope, on_choose: ChooseFn) -> None:
        super().__init__()
        self.listing = listing
        self.scope: Scope = scope
        self.on_choose = on_choose
        self.by: Grouping = "day"
        self.days: int | None = 30
        self.metric = "tokens"
        self._period_chosen = False  # (until then: 30 days, or all time when those have none)
        self.report: UsageReport | None = None
        self._infos: dict[Scope, list[SessionInfo]] = {}
        self._usage: dict[Scope, dict[str, Any]] = {}
        self._status = "Counting…"

    def compose(self) -> ComposeResult:
        yield Static(id="usage-title", markup=False)
        with Horizontal(id="usage-body"):
            with Vertical(id="usage-chart"):
                yield Static(id="usage-legend", markup=False)
                yield UsagePlot(id="usage-plot")
            yield DataTable(id="usage-table", cursor_type="row", zebra_stripes=False)
        yield Static(id="usage-keys", markup=False)

    @property
    def _narrow(self) -> bool:
        """The plot above the table (a terminal narrower than WIDE), not beside it."""
        return self.app.size.width < WIDE

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#usage-table", DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._show()
        self._count(self.scope)

    def on_resize(self) -> None:
        self.query_one("#usage-body").set_class(self._narrow, "-narrow")
        self._show()
        self.call_after_refresh(self._show_plot)  # (the plot's width, once laid out)

    # -- counting --------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="usage-count", exit_on_error=False)
    def _count(self, scope: Scope) -> None:
        worker = get_current_worker()
        catalog = self.app.catalog
        last = 0.0

        # Posted, never waited for: the count tells its progress with the cache's lock held,
        # and the UI thread may be waiting for that lock (the app closes the cache as it quits).
        # The results go the same way, so that they come after the last progress.
        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if done == total or now - last >= 0.1:
                last = now
                self.post_message(self._Counting(scope, f"Counting… {done:,} of {total:,} files read"))

        def cancelled() -> bool:
            return worker.is_cancelled

        try:
            infos, _ = self.listing.listed(catalog, scope, lambda done, total: None)
            usage = catalog.usage(infos, progress, cancelled)
        except Exception as error:  # counting must never take the app down
            self.post_message(self._Counting(scope, f"Could not count: {type(error).__name__}: {error}"))
            return
        if not worker.is_cancelled:
            self.post_message(self._Counted(scope, infos, usage))

    @on(_Counting)
    def _progress(self, message: _Counting) -> None:
        if message.scope == self.scope:
            self._status = message.text
            self._show_title()

    @on(_Counted)
    def _counted(self, message: _Counted) -> None:
        scope = message.scope
        self._infos[scope] = message.infos
        self._usage[scope] = message.usage
        if scope == self.scope:
            self._status = ""
            self._show()

    # -- drawing ---------------------------------------------------------------------------

    def _today(self) -> datetime.date:
        """The local date of the app's clock (tests fix it)."""
        return datetime.date.fromtimestamp(self.app.now_ms() / 1000)

    def _report(self, days: int | None) -> UsageReport:
        return usage_report(self._infos[self.scope], self._usage[self.scope], self.by, days, self._today())

    def _show(self) -> None:
        if self.scope not in self._infos:
            self.report = None
        else:
            if not self._period_chosen:  # the default: 30 days, or all time when those have none
                self.days = 30 if self._report(30).rows else None
            self.report = self._report(self.days)
        self._show_title()
        self._fill_table()
        self._show_plot()
        self._show_keys()

    def _lines(self, parts: list[str], widget_id: str) -> None:
        """``parts`` joined by `` · ``, on as many lines as the screen's width needs (a part is
        never cut across lines)."""
        room = max(self.size.width, 20)
        lines: list[str] = []
        for part in parts:
            if lines and len(lines[-1]) + 3 + len(part) <= room:
                lines[-1] += " · " + part
            else:
                lines.append(part)
        self.query_one(widget_id, Static).update("\n".join(lines))

    def _show_keys(self) -> None:
        k = self.app.keys_text
        keys = [
            (k("usage.open"), "sessions"),
            (k("usage.group"), f"by {self.by}"),
            (k("usage.period"), period_label(self.days)),
            (k("usage.scope"), "scope"),
            (k("usage.metric"), f"plot {self.metric}"),
            (k("usage.back"), "back"),
        ]
        self._lines([f"{key} {what}" for key, what in keys], "#usage-keys")

    def _period_text(self) -> str:
        if self.days is None and not self._period_chosen and self.report is not None:
            return "all time (nothing in the last 30 days)"
        return period_label(self.days)

    def _show_title(self) -> None:
        where = "this folder" if self.scope == "current" else "all projects"
        parts = [f"Usage · {where}", self._period_text(), f"by {self.by}"]
        report = self.report
        if report is not None and not self._status:
            total = report.total
            parts += [
                f"{format_tokens(total.tokens)} tokens",
                f"${total.cost:,.2f}",
                plural(len(total.sessions), "session", "sessions"),
            ]
        elif self._status:
            parts.append(self._status)
        self._lines(parts, "#usage-title")

    def _rows(self) -> list[UsageRow]:
        return [] if self.report is None else self.report.rows

    def _fill_table(self) -> None:
        table = self.table
        old = table.cursor_row
        rows = self._rows()
        total = None if self.report is None else self.report.total
        cells = [self._cells(row) for row in ([*rows, total] if total is not None else [])]
        widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(HEADINGS)]
        names = [short_key(row.key, self.by) for row in rows]
        fixed = sum(widths) + 2 * (len(widths) + 1) + 2  # cells' padding, the scroll bar
        room = self.size.width - fixed - (0 if self._narrow else PLOT_MIN)
        first = max(min(max([len(self.by), 5, *map(len, names)]), room), 8)
        table.clear(columns=True)
        table.add_column(self.by, width=first)
        for heading, width in zip(HEADINGS, widths, strict=True):
            table.add_column(Text(heading, justify="right"), width=width)
        self.query_one("#usage-table").styles.width = "100%" if self._narrow else first + fixed
        for row, name, figures in zip(rows, names, cells, strict=False):
            table.add_row(Text(fit_left(name, first)), *figures, key=row.key)
        if total is not None:
            table.add_row(Text("total", style="bold"), *cells[-1], key="\0total")
        if self.by == "day" and old == 0:
            old = max(len(rows) - 1, 0)  # the latest day
        if table.row_count:
            table.move_cursor(row=min(old, table.row_count - 1))

    @staticmethod
    def _cells(row: UsageRow) -> list[Text]:
        figures = [format_tokens(row.input), format_tokens(row.output), format_tokens(row.cache_read)]
        figures += [format_tokens(row.cache_write), f"${row.cost:,.2f}", f"{len(row.sessions):,}"]
        return [Text(figure, justify="right") for figure in figures]

    def _show_plot(self) -> None:
        rows = self._rows()
        plot = self.query_one(UsagePlot)
        key_line = self.query_one("#usage-legend", Static)
        if not rows:
            period = self.app.keys_text("usage.period")
            if self.report is None:
                message = ""
            elif self.days is None:
                message = "No usage in these sessions."
            else:
                message = f"No usage in the {period_label(self.days)}: {period} changes the period."
            key_line.update(message)
            plot.show(None)
            return
        key_line.update(legend(self.metric, max(plot.size.width, 20)))
        report = self.report
        assert report is not None
        cursor = self.table.cursor_row
        plot.show(plot_data(rows, self.by, self.metric, cursor, plot.size.width, self._today(), report.first_day))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_plot()

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
        self._period_chosen = True
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
