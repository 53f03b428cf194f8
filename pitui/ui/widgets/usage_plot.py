"""The usage screen's plot: bars with axes (a ``textual-plotext`` plot), stacked input / output /
cache read / cache write in tokens, single bars in cost; one bar in a vivid colour (the table's
highlighted row) and the others muted.

The figure is built only when its data, size or theme change (:meth:`UsagePlot.show`): a repaint
for any other reason reuses the last one.
"""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Sequence

from msgspec import Struct
from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from pitui.store.catalog.usage import UNKNOWN_DAY
from pitui.store.usage_report import UsageRow
from pitui.ui.format import format_tokens

__all__ = ["SEGMENTS", "PlotData", "UsagePlot", "legend", "nice_ticks", "plot_data"]

RGB = tuple[int, int, int]
# The stacked segments of a tokens bar, bottom up: name, muted colour, vivid colour.
SEGMENTS: tuple[tuple[str, RGB, RGB], ...] = (
    ("input", (52, 90, 140), (96, 170, 255)),
    ("output", (56, 118, 68), (110, 230, 120)),
    ("cache read", (96, 96, 110), (215, 215, 230)),
    ("cache write", (140, 100, 50), (255, 180, 70)),
)
COST: tuple[RGB, RGB] = ((90, 110, 140), (255, 180, 70))


class PlotData(Struct, frozen=True):
    """What the plot shows: bars at ``xs`` (day numbers, or 1, 2, … for buckets), each a stack of
    ``values`` (one per segment in tokens, one in cost), the tick labels at ``ticks``, and the
    index of the highlighted bar (None: none)."""

    metric: str  # "tokens" or "cost"
    xs: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]
    ticks: tuple[tuple[float, str], ...]
    highlight: int | None
    span: tuple[float, float]  # the x axis' range
    width: float = 0.8  # a bar's, in steps of the x axis


Y_AXIS = 8  # the columns the y axis' labels and frame take


def _figures(row: UsageRow, metric: str) -> tuple[float, ...]:
    if metric == "cost":
        return (float(row.cost),)
    return (float(row.input), float(row.output), float(row.cache_read), float(row.cache_write))


def _window(count: int, room: int, centre: int | None) -> range:
    """The ``room`` consecutive positions of ``count`` around ``centre`` (the last ones: None)."""
    if count <= room:
        return range(count)
    start = count - room if centre is None else min(max(centre - room // 2, 0), count - room)
    return range(start, start + room)


def plot_data(
    rows: Sequence[UsageRow], by: str, metric: str, cursor: int, width: int, today: datetime.date, first: str | None
) -> PlotData:
    """The bars of ``rows`` (a report's, the cursor on row ``cursor``) for a plot ``width`` wide.

    By day a time line: a bar on each day that has usage, from the period's ``first`` day (None:
    the first with usage) to ``today`` (all time: the last with usage), as many days as fit
    around the cursor's. By project or model a bar a row, as many as fit around the cursor's."""
    cols = max(width - Y_AXIS, 8)
    if by == "day":
        dated = [(datetime.date.fromisoformat(row.key), i) for i, row in enumerate(rows) if row.key != UNKNOWN_DAY]
        if not dated:
            return PlotData(metric, (), (), (), None, (0, 1))
        start = datetime.date.fromisoformat(first) if first else dated[0][0]
        end = today if first else dated[-1][0]
        end = max(end, dated[-1][0])
        span = (end - start).days + 1
        at = next((day for day, i in dated if i == cursor), None)
        days = _window(span, max(cols // 2, 7), None if at is None else (at - start).days)
        lo, hi = start + datetime.timedelta(days=days.start), start + datetime.timedelta(days=days.stop - 1)
        shown = [(day, i) for day, i in dated if lo <= day <= hi]
        xs = tuple(float(day.toordinal()) for day, _ in shown)
        values = tuple(_figures(rows[i], metric) for _, i in shown)
        highlight = next((j for j, (_, i) in enumerate(shown) if i == cursor), None)
        count = max(min(cols // 9, len(days)), 1)
        step = max((len(days) - 1) / max(count - 1, 1), 1)
        picks = sorted({round(days.start + k * step) for k in range(count) if days.start + k * step < days.stop})
        form = "%Y-%m" if len(days) > 366 else "%m-%d"
        ticks = tuple(
            (
                float((start + datetime.timedelta(days=p)).toordinal()),
                (start + datetime.timedelta(days=p)).strftime(form),
            )
            for p in picks
        )
        return PlotData(metric, xs, values, ticks, highlight, (lo.toordinal() - 0.6, hi.toordinal() + 0.6))
    centre = cursor if 0 <= cursor < len(rows) else None
    shown_rows = _window(len(rows), max(cols // 3, 3), centre)
    slot = cols // max(len(shown_rows), 1) - 1
    ticks = []
    for j, i in enumerate(shown_rows):
        name = rows[i].key.rsplit("/", 1)[-1] if by == "model" else os.path.basename(rows[i].key.rstrip("/"))
        ticks.append((float(j + 1), name[: max(slot, 0)] if slot >= 3 else ""))
    return PlotData(
        metric,
        tuple(float(j + 1) for j in range(len(shown_rows))),
        tuple(_figures(rows[i], metric) for i in shown_rows),
        tuple(ticks),
        None if centre is None else centre - shown_rows.start,
        (0.4, len(shown_rows) + 0.6),
        min(0.8, 14 * len(shown_rows) / cols),  # (a lone bar not a wall)
    )


def nice_ticks(peak: float, count: int = 4) -> list[float]:
    """Round values from 0 to at least ``peak`` for the y axis, about ``count`` steps."""
    if peak <= 0:
        return [0.0, 1.0]
    raw = peak / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(math.ceil(peak / step - 1e-9) + 1)]


def tick_label(value: float, metric: str) -> str:
    if metric == "cost":
        return f"${value:,.0f}" if value >= 10 or value == int(value) else f"${value:,.2f}"
    return format_tokens(value)


def _rgb(colour: RGB) -> str:
    return "rgb({},{},{})".format(*colour)


def legend(metric: str, width: int) -> Text:
    """The colours' key, on as many lines of ``width`` as it needs: the segments in tokens (each
    vivid on the highlighted row's bar, muted on the others), the highlighted bar in cost."""
    if metric == "cost":
        items = [("highlighted row", COST[1], None), ("others", COST[0], None)]
    else:
        items = [(name, vivid, muted) for name, muted, vivid in SEGMENTS]
    text = Text(no_wrap=True, overflow="ellipsis")
    used = 0
    for name, first, second in items:
        size = len(name) + (3 if second else 2)
        if used and used + 2 + size > width:
            text.append("\n")
            used = 0
        elif used:
            text.append("  ")
            used += 2
        text.append("█", style=_rgb(first))
        if second:
            text.append("█", style=_rgb(second))
        text.append(f" {name}")
        used += size
    return text


class UsagePlot(PlotextPlot):
    """The bars; :meth:`show` gives them their data."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: PlotData | None = None
        self._version = 0
        self._built: tuple[object, Text] | None = None

    def show(self, data: PlotData | None) -> None:
        if data != self.data:
            self.data = data
            self._version += 1
            self.refresh()

    def render(self) -> RenderResult:
        key = (self._version, self.size, self.app.theme, self.theme)
        if self._built is not None and self._built[0] == key:
            return self._built[1]
        self._draw()
        text = super().render()
        assert isinstance(text, Text)
        self._built = (key, text)
        return text

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        data = self.data
        if data is None or not data.xs or self.size.width < 12 or self.size.height < 5:
            plt.frame(False)
            plt.xticks([])
            plt.yticks([])
            return
        stacks = [sum(v) for v in data.values]
        ticks = nice_ticks(max(stacks))
        segments = len(data.values[0])
        muted = [SEGMENTS[i][1] for i in range(segments)] if segments > 1 else [COST[0]]
        vivid = [SEGMENTS[i][2] for i in range(segments)] if segments > 1 else [COST[1]]
        # The muted bars, then the highlighted one on its own (a bar of zeros would blank a cell).
        for on, colours in ((False, muted), (True, vivid)):
            picked = [j for j in range(len(data.xs)) if (j == data.highlight) == on]
            if picked:
                xs = [data.xs[j] for j in picked]
                series = [[data.values[j][i] for j in picked] for i in range(segments)]
                plt.stacked_bar(xs, series, color=colours, width=data.width, minimum=0)
        plt.xlim(*data.span)
        plt.ylim(0, ticks[-1])
        plt.yticks(ticks, [tick_label(t, data.metric) for t in ticks])
        plt.xticks([x for x, _ in data.ticks], [label for _, label in data.ticks])
