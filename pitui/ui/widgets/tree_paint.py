"""Painting the session tree: one row as a Strip, the lines of a frame, the scrollbar's thumb.

A cursor step that scrolls the tree repaints every line of it (a terminal has no scrolling
region Textual would use), so what a line costs is paid 30 to 50 times a key. Three things keep
that small (``devkit/bench/view_bench.py``, ``actions.cursor``):

* A row's Strip is made once and kept (the widget's cache, by row, cursor, width and pan), as
  wide as the widget, so that Textual's own caches, which are kept per Strip object (a line
  filter's result, the compositor's cuts), hit as well.
* :func:`plain_lines` hands those Strips to the compositor as they are when the widget has
  nothing Textual's style cache would add to them (no border, padding, tint, opacity or
  hatch): that cache keys its lines by screen line, and a scroll changes every one, so it
  would copy and filter every line anew.
* :func:`same_thumb`: the scrollbar is drawn again only when its thumb moves on screen, which
  in a session of thousands of rows is once every few hundred rows, not every step (and in the
  picker's list, whose rows a search keystroke changes, only when their count moves it).
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

from pitui.safe_text import safe_line
from pitui.store.tree import RowText, TreeModel

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = ["gutter_width", "plain_lines", "row_strip", "same_thumb"]

_COUNTED_FILTERS = frozenset({"no-tools", "user-only", "labeled-only"})
_BOLD = Style(bold=True)
MARK = "◆"  # the row marked for a comparison


def row_strip(
    model: TreeModel,
    row: int,
    text: RowText,
    *,
    cursor: bool,
    width: int,
    full_width: int,
    pan: int,
    style_of: Callable[[str], Style],
    marked: bool = False,
) -> Strip:
    """One row as the tree draws it: ``width`` cells of text (the count of hidden rows kept in
    sight), then the row's background up to ``full_width`` (under the scrollbar)."""
    # The cursor row's style underlies its whole width; the roles only add colours.
    base = style_of("cursor_row" if cursor else "row")
    parts = text.segments
    if pan:  # the cursor mark stays; a « beside it says the row is scrolled
        # A row shallower than the cursor row is panned less, so its text stays in sight. The
        # columns panned away are gutter characters, one cell each: cut from the text itself.
        pan = min(pan, gutter_width(text))
        mark = Segment("›", base + style_of("accent")) if cursor else Segment(" ", base)
        segments = [mark, Segment("«" if pan else " ", base + style_of("dim"))]
        if pan:
            parts = ((parts[0][0][pan:], parts[0][1]), *parts[1:])
    else:
        segments = [Segment("› ", base + style_of("accent")) if cursor else Segment("  ", base)]
    if marked:  # marked for a comparison: the mark takes the lead's second cell
        segments[-1:] = [Segment(segments[-1].text[:-1], segments[-1].style), Segment(MARK, base + style_of("warning"))]
    # A row's text can be long: only what can be seen is measured (no character is wider than
    # 2 cells).
    budget = 2 * width + 2
    cut = False
    for index, (part, role) in enumerate(parts):
        if len(part) > budget:
            part, cut = part[:budget], True
        budget -= len(part)
        style = base + style_of(role)
        if cursor and index >= text.content_start:
            style += _BOLD  # pi shows the selected entry's text bold
        segments.append(Segment(safe_line(part), style))  # session text: never markup
        if cut:
            break
    folded, filtered = model.hidden_counts(row)
    if folded:
        count = Segment(f" +{folded}", base + style_of("fold_count"))
    elif filtered and (model.query or model.filter_mode in _COUNTED_FILTERS):
        count = Segment(f" +{filtered}", base + style_of("count"))
    else:
        count = None
    strip = Strip(segments)
    room = width - (count.cell_length if count else 0)
    if cut or strip.cell_length > room:  # rows never wrap; the count stays in sight
        strip = Strip.join([strip.crop(0, max(0, room - 1)), Strip([Segment("…", segments[-1].style)])])
    if count is not None:
        strip = Strip.join([strip, Strip([count])])
    return strip.crop_extend(0, max(width, full_width), base)


def gutter_width(text: RowText) -> int:
    """The columns of gutters before a row's connector (the part a pan may hide: the connector
    and what follows stay)."""
    if text.content_start and text.segments[0][1] == "dim":
        return max(0, len(text.segments[0][0]) - 3)
    return 0


def plain_lines(widget: Widget, crop: Region, render_line: Callable[[int], Strip]) -> list[Strip] | None:
    """The lines of ``crop``, straight from ``render_line`` with the app's line filters, when
    Textual's style cache would add nothing to them; None when it would (a border, padding,
    an outline, tint, opacity, text opacity, hatch, a border title): then it must draw them.

    Lines shorter or longer than the widget are fitted to it, as that cache does."""
    styles = widget.styles
    size = widget.region.size
    if (
        widget.content_region.size != size
        or widget._border_title is not None
        or widget._border_subtitle is not None
        or any(edge for edge, _ in styles.border)
        or any(edge for edge, _ in styles.outline)
        or any(styles.padding)
        or styles.tint.a
        or styles.text_opacity != 1.0
        or widget.opacity != 1.0
        or (styles.has_rule("hatch") and styles.hatch != "none")
    ):
        return None
    width = size.width
    base_background, background = widget.background_colors
    filters = widget.get_line_filters()
    fill: Style | None = None
    strips: list[Strip] = []
    for y in crop.line_range:
        strip = render_line(y)
        if strip.cell_length != width:
            if fill is None:
                fill = Style(bgcolor=(base_background + background).rich_color)
            strip = strip.adjust_cell_length(width, fill)
        for line_filter in filters:
            strip = strip.apply_filter(line_filter, background)  # cached per Strip by Textual
        strips.append(strip)
    if crop.column_span != (0, width):
        x1, x2 = crop.column_span
        strips = [strip.crop(x1, x2) for strip in strips]
    return strips


def _thumb(bar: ScrollBar, position: float, virtual_size: float, window_size: float) -> tuple[float, ...]:
    """What a vertical scrollbar's drawing depends on, for ``position`` in a window of
    ``window_size`` rows over ``virtual_size``: Textual's ``ScrollBarRender.render_bar`` draws
    the thumb from these two numbers (in eighths of a cell), the bar's size and its colours."""
    size = bar.size.height
    virtual = ceil(virtual_size)
    window = ceil(window_size if window_size < virtual_size else 0)
    if not (window and size and virtual and size != virtual):
        return (size,)
    thumb = max(1, window / (virtual / size))
    bars = len(ScrollBarRender.VERTICAL_BARS)
    start = int((size - thumb) * (position / (virtual - window)) * bars)
    return (size, start, start + ceil(thumb * bars))


def same_thumb(
    bar: ScrollBar, position: float, virtual_size: float | None = None, window_size: float | None = None
) -> bool:
    """Whether ``bar`` at ``position`` (over ``virtual_size`` rows, in a window of
    ``window_size``: by default its own) draws exactly what it draws now (its own renderer
    only: a replaced one may draw anything)."""
    if bar.renderer is not ScrollBarRender or bar.grabbed:
        return False
    virtual = bar.window_virtual_size if virtual_size is None else virtual_size
    window = bar.window_size if window_size is None else window_size
    now = _thumb(bar, bar.position, bar.window_virtual_size, bar.window_size)
    return now == _thumb(bar, bar.validate_position(position), virtual, window)
