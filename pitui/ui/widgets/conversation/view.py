"""The conversation pane: the context on a path, message by message, rendered lazily.

A line-API :class:`~textual.scroll_view.ScrollView` over a flat list of blocks, one block per
item of :mod:`pitui.store.conversation`. Mounting a widget per message is far too slow for long
paths (reference: textual-conventions §3.3), so a block is rendered to strips only when it comes
on screen, at the current width, and kept in a small cache. Blocks not rendered yet have an
estimated height; when one is rendered its real height replaces the estimate and the scroll
position is corrected, so what is on screen never jumps (:meth:`ConversationView._settle`).

Session text is untrusted: every string goes through :mod:`pitui.safe_text` and into
``rich.text.Text`` or a ``Markdown`` renderable that makes no hyperlinks; nothing is markup.
"""

from __future__ import annotations

import bisect
import itertools
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.store.conversation import AssistantMessage, CompactionSummary, Item, ThinkingPart
from pitui.ui import bindings
from pitui.ui.keys import OrderedKeys
from pitui.ui.widgets.conversation.blocks import (
    CACHE_BLOCKS,
    END,
    GUTTER,
    REPLACED,
    Anchor,
    Block,
    part_open,
)
from pitui.ui.widgets.conversation.render import Look, estimate_height, render_rows

__all__ = ["ConversationView"]


class ConversationView(OrderedKeys, ScrollView, can_focus=True, inherit_bindings=False):
    """What the model sees on a path, one block per message, with a block cursor.

    The screen gives it items (:func:`pitui.store.conversation.context_items`) with
    :meth:`show` and, while pi appends to the session, :meth:`append`. A compaction's replaced
    entries are asked for with :class:`ReplacedRequested` and given with :meth:`set_replaced`::

        view.show(context_items(session, entry_id))

        def on_conversation_view_replaced_requested(self, event):
            event.view.set_replaced(event.entry_id, replaced_items(self.session, event.entry_id))

    Keys: up/down (k/j) move between messages, scrolling through one taller than the screen
    first; page up/down, home/end; enter or space opens or folds the current message's folded
    parts; ``t`` shows or hides every thinking block. A click opens a folded part.
    """

    DEFAULT_CSS = """
    ConversationView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        & > .conversation--cursor { color: $accent; }
        & > .conversation--user { color: $text-primary; text-style: bold; }
        & > .conversation--assistant { color: $text-accent; text-style: bold; }
        & > .conversation--thinking { color: $text-muted; text-style: italic; }
        & > .conversation--tool { color: $text-warning; }
        & > .conversation--tool-result { color: $text-success; text-style: bold; }
        & > .conversation--output { color: $foreground; }
        & > .conversation--error { color: $text-error; }
        & > .conversation--bash { color: $text-secondary; text-style: bold; }
        & > .conversation--fold { color: $text-accent; text-style: italic; }
        & > .conversation--meta { color: $text-muted; }
        & > .conversation--image { color: $text-secondary; text-style: italic; }
        & > .conversation--summary { color: $text-warning; text-style: bold; }
        & > .conversation--custom { color: $text-secondary; text-style: bold; }
        & > .conversation--guide { color: $text-muted; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"conversation--{name}"
        for name in (
            "cursor",
            "user",
            "assistant",
            "thinking",
            "tool",
            "tool-result",
            "output",
            "error",
            "bash",
            "fold",
            "meta",
            "image",
            "summary",
            "custom",
            "guide",
        )
    }

    BINDING_GROUP_TITLE = "Conversation"
    BINDINGS: ClassVar[list[BindingType]] = bindings.CONVERSATION

    EMPTY = "No messages on this path."

    @dataclass(eq=False)
    class Highlighted(Message):
        """The block cursor moved to another message."""

        view: ConversationView
        entry_id: Any
        item: Item

        @property
        def control(self) -> ConversationView:
            return self.view

    @dataclass(eq=False)
    class ReplacedRequested(Message):
        """A compaction was opened: answer with :meth:`ConversationView.set_replaced`."""

        view: ConversationView
        compaction: CompactionSummary

        @property
        def entry_id(self) -> Any:
            return self.compaction.entry_id

        @property
        def replaced_ids(self) -> tuple[Any, ...]:
            return self.compaction.replaced_ids

        @property
        def control(self) -> ConversationView:
            return self.view

    def __init__(
        self,
        items: Iterable[Item] = (),
        *,
        show_thinking: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.show_thinking = show_thinking
        self.empty_text = self.EMPTY  # what an empty pane says ("": nothing, while there is no path yet)
        self._blocks: list[Block] = []
        self._tops: list[int] = [0]  # the first row of each block, and the total at the end
        self._tops_stale = False
        self._width = 0  # the width blocks were measured at
        self._cursor = -1
        self._anchor: Anchor | None = None  # where to scroll on the next settle
        self._follow = True  # at the end: stays there when blocks change or come in
        self._settled_y = 0  # the scroll position the last settle left
        self._rendered: OrderedDict[int, Block] = OrderedDict()  # blocks holding rows, oldest first
        self._folds: dict[tuple[Any, int, int], dict[int, bool]] = {}  # folds the user changed, across show()
        self._styles: dict[str, Style] = {}
        self._settling = False
        self._base = Style()  # the widget's own style, taken at each frame
        self._gutters = (Segment(" " * GUTTER), Segment("▌ "))
        if items:
            self.show(items)

    # ------------------------------------------------------------------ public API

    @property
    def items(self) -> list[Item]:
        """The items shown at the top level (replaced entries under a compaction not included)."""
        return [b.item for b in self._blocks if b.depth == 0]

    @property
    def cursor(self) -> int:
        """The index of the current block among the blocks shown (-1: none)."""
        return self._cursor

    @property
    def cursor_item(self) -> Item | None:
        return self._blocks[self._cursor].item if 0 <= self._cursor < len(self._blocks) else None

    @property
    def following(self) -> bool:
        """Whether the view is at the end (and stays there when messages come in)."""
        return self._follow

    def show(self, items: Iterable[Item], *, anchor_entry_id: Any = None) -> None:
        """Show ``items``, scrolled to the end, or with the first message of
        ``anchor_entry_id`` at the top (and the cursor on it).

        Messages already shown at the same place keep their rendering, so moving along a path
        re-renders only what changed; folds are remembered per entry.
        """
        old = [b for b in self._blocks if b.depth == 0]
        blocks: list[Block] = []
        ordinal: dict[Any, int] = {}
        same = True
        for index, item in enumerate(items):
            previous = old[index] if same and index < len(old) else None
            same = previous is not None and (previous.item is item or previous.item == item)
            if same:
                assert previous is not None
                ordinal[item.entry_id] = ordinal.get(item.entry_id, 0) + 1
                blocks.append(previous)
                blocks.extend(self._descendants(previous))
            else:
                blocks.append(self._new_block(item, 0, ordinal))
        self._blocks = blocks
        self._rendered = OrderedDict((id(b), b) for b in blocks if b.rows is not None)
        self._tops_stale = True
        target = self._top_level_index(anchor_entry_id) if anchor_entry_id is not None else None
        self._cursor = len(blocks) - 1 if target is None else target
        self._settle(END if target is None else (target, 0, 0))
        self.refresh()

    def append(self, items: Iterable[Item]) -> None:
        """Add messages pi appended. The view follows them only if it was at the end."""
        following = self._follow and round(self.scroll_y) == self._settled_y
        ordinal: dict[Any, int] = {}
        for block in self._blocks:
            if block.depth == 0:
                ordinal[block.item.entry_id] = ordinal.get(block.item.entry_id, 0) + 1
        added = [self._new_block(item, 0, ordinal) for item in items]
        if not added:
            return
        was_last = self._cursor == len(self._blocks) - 1
        self._blocks.extend(added)
        self._tops_stale = True
        if following and was_last:
            self._cursor = len(self._blocks) - 1
        self._settle(END if following else None)
        self.refresh()

    def set_replaced(self, compaction_id: Any, items: Sequence[Item]) -> None:
        """The items a compaction replaced (see :class:`ReplacedRequested`)."""
        anchor = self._keep_cursor_anchor()
        for block in list(self._blocks):
            item = block.item
            if not (isinstance(item, CompactionSummary) and item.entry_id == compaction_id and block.children is None):
                continue
            ordinal: dict[Any, int] = {}
            block.children = [self._new_block(i, block.depth + 1, ordinal) for i in items]
            block.pending = False
            self._invalidate(block)
            if block.folds.get(REPLACED):
                self._show_replaced(self._blocks.index(block), True)
        self._settle(anchor)
        self.refresh()

    # ------------------------------------------------------------------ blocks

    def _new_block(self, item: Item, depth: int, ordinal: dict[Any, int]) -> Block:
        number = ordinal.get(item.entry_id, 0)
        ordinal[item.entry_id] = number + 1
        key = (item.entry_id, number, depth)
        block = Block(item, key, self._folds.get(key, {}), depth)
        block.height = self._estimate(block, self._width or 80)
        if isinstance(item, CompactionSummary) and block.folds.get(REPLACED):
            block.pending = True  # it was open when last shown: it opens again
            self.post_message(self.ReplacedRequested(self, item))
        return block

    def _descendants(self, block: Block) -> list[Block]:
        if block.children is None or not block.folds.get(REPLACED):
            return []
        return self._expanded(block.children)

    def _expanded(self, blocks: list[Block]) -> list[Block]:
        out: list[Block] = []
        for child in blocks:
            out.append(child)
            out.extend(self._descendants(child))
        return out

    def _top_level_index(self, entry_id: Any) -> int | None:
        for index, block in enumerate(self._blocks):
            if block.depth == 0 and block.item.entry_id == entry_id:
                return index
        return None

    def _invalidate(self, block: Block) -> None:
        block.rows = None
        block.measured = False
        block.height = self._estimate(block, self._width or 80)
        self._rendered.pop(id(block), None)
        self._tops_stale = True

    def _is_open(self, block: Block, key: int) -> bool:
        return part_open(block, key, self.show_thinking)

    def _estimate(self, block: Block, width: int) -> int:
        return estimate_height(block, width, self.show_thinking)

    # ------------------------------------------------------------------ layout

    def _viewport(self) -> tuple[int, int]:
        region = self.scrollable_content_region
        return region.width, region.height

    def _ensure_tops(self) -> list[int]:
        if self._tops_stale:
            self._tops = [0, *itertools.accumulate(b.height for b in self._blocks)]
            self._tops_stale = False
        return self._tops

    def _block_at(self, row: int) -> int:
        tops = self._ensure_tops()
        return max(0, min(len(self._blocks) - 1, bisect.bisect_right(tops, row) - 1))

    def _settle(self, anchor: Anchor | None = None) -> bool:
        """Render the blocks in view and put the scroll position where it belongs.

        The position is kept by an anchor: ``anchor``, else the one left pending (by a call
        made before the view had a size), else the end while following, else the row now at
        the top of the screen. Blocks rendered for the first time replace their estimated
        height by the real one, which can move the anchor's block; so this repeats until every
        block in view is measured. Returns whether anything changed.
        """
        if anchor is not None:
            self._anchor = anchor
        if self._settling or not self.is_mounted:
            return False
        width, height = self._viewport()
        if width <= GUTTER or height <= 0:
            return False
        self._settling = True
        try:
            return self._settle_at(width, height)
        finally:
            self._settling = False

    def _settle_at(self, width: int, height: int) -> bool:
        changed = False
        if width != self._width:
            self._width = width
            for block in self._blocks:
                block.rows = None
                block.measured = False
                block.height = self._estimate(block, width)
            self._rendered.clear()
            self._tops_stale = True
            changed = True
        anchor, self._anchor = self._anchor, None
        scroll_y = round(self.scroll_y)
        if anchor is None:
            if self._follow and scroll_y == self._settled_y:
                anchor = END
            elif self._blocks:
                first = self._block_at(scroll_y)
                anchor = (first, scroll_y - self._ensure_tops()[first], 0)
        y = 0
        for _ in range(len(self._blocks) + 1):
            tops = self._ensure_tops()
            total = tops[-1]
            if anchor is None or anchor == END:
                y = max(0, total - height)
            else:
                index, row, screen_row = anchor
                index = max(0, min(index, len(self._blocks) - 1))
                row = min(row, max(0, self._blocks[index].height - 1))
                y = max(0, min(tops[index] + row - screen_row, total - height))
            if not self._measure(y, y + height):
                break
            changed = True
        total = self._ensure_tops()[-1]
        if self.virtual_size != Size(width, total):
            self.virtual_size = Size(width, total)
            changed = True
        if scroll_y != y:
            # Not the validated setter: it would clamp to the size the layout has not seen yet.
            # The target too: wheel and keys scroll from there.
            self.set_scroll(None, y)
            self.set_reactive(ScrollView.scroll_target_y, y)
            if self.show_vertical_scrollbar:
                self.vertical_scrollbar.position = y
            changed = True
        self._settled_y = y
        self._follow = y >= total - height
        if changed:
            self.refresh()
        return changed

    def _measure(self, top: int, bottom: int) -> bool:
        """Render the blocks that cover rows ``top`` to ``bottom``; whether a height changed."""
        if not self._blocks:
            return False
        tops = self._ensure_tops()
        index = self._block_at(top)
        changed = False
        while index < len(self._blocks) and tops[index] < bottom:
            block = self._blocks[index]
            if not block.measured:
                self._render_block(block)
                if block.height != tops[index + 1] - tops[index]:
                    changed = True
            index += 1
        if changed:
            self._tops_stale = True
        return changed

    # ------------------------------------------------------------------ rendering lines

    def render_lines(self, crop: Region) -> list[Strip]:
        self._settle()  # a resize or a scroll since the last frame: measure what is now in view
        self._base = base = self.rich_style
        self._gutters = (Segment(" " * GUTTER, base), Segment("▌ ", base + self._style("conversation--cursor")))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._width
        row = round(self.scroll_y) + y
        tops = self._ensure_tops()
        base = self._base
        if not self._blocks and y == 0 and self.empty_text:
            text = Text(" " * GUTTER + self.empty_text, base + self._style("conversation--meta"))
            return Strip(text.render(self.app.console), text.cell_len).crop_extend(0, width, base)
        if not self._blocks or row >= tops[-1]:
            return Strip.blank(width, base)
        index = self._block_at(row)
        rows = self._rows(self._blocks[index])
        offset = row - tops[index]
        if offset >= len(rows):  # only while a block is re-measured
            return Strip.blank(width, base)
        cursor = index == self._cursor and offset < len(rows) - 1
        return Strip([self._gutters[cursor], *rows[offset]], width)

    def _rows(self, block: Block) -> list[list[Segment]]:
        if block.rows is None:
            self._render_block(block)  # evicted from the cache: same width, same height
        self._rendered.move_to_end(id(block))
        assert block.rows is not None
        return block.rows

    def _render_block(self, block: Block) -> None:
        """Render ``block`` into rows of segments as wide as the view less the gutter."""
        render_rows(self._look(), block, self._width, self.app.console, self.rich_style)
        self._rendered[id(block)] = block
        while len(self._rendered) > CACHE_BLOCKS:
            _, old = self._rendered.popitem(last=False)
            old.rows = None  # its height stays known

    def _look(self) -> Look:
        return Look(self._style, self.app.current_theme.dark, self.show_thinking)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name)
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        for block in self._blocks:
            block.rows = None  # colours changed; heights did not
        self._rendered.clear()

    # ------------------------------------------------------------------ cursor and keys

    def _set_cursor(self, index: int, *, notify: bool = True) -> None:
        index = min(index, len(self._blocks) - 1)
        if index == self._cursor:
            return
        self._cursor = index
        self.refresh()
        if index >= 0 and notify:
            item = self._blocks[index].item
            self.post_message(self.Highlighted(self, item.entry_id, item))

    def _keep_cursor_anchor(self) -> Anchor | None:
        """An anchor that keeps the cursor's block where it is on screen (if it is on screen)."""
        if not 0 <= self._cursor < len(self._blocks):
            return None
        tops = self._ensure_tops()
        _, height = self._viewport()
        y = round(self.scroll_y)
        top, bottom = tops[self._cursor], tops[self._cursor + 1]
        if bottom <= y or top >= y + height:
            return None
        row = max(0, y - top)
        return self._cursor, row, top + row - y

    def _visible(self) -> tuple[int, int, list[int]]:
        self._settle()
        _, height = self._viewport()
        return round(self.scroll_y), height, self._ensure_tops()

    def _reveal(self, index: int, *, from_below: bool = False) -> None:
        """Scroll the least that shows block ``index`` (its top; its end if ``from_below`` and
        it is taller than the screen)."""
        y, height, tops = self._visible()
        self._measure(tops[index], tops[index] + 1)
        tops = self._ensure_tops()
        top, bottom = tops[index], tops[index + 1] - 1  # without the space after it
        size = bottom - top
        if top >= y and bottom <= y + height:
            self._settle()
        elif size > height:
            self._settle((index, size - 1, height - 1) if from_below else (index, 0, 0))
        elif top < y:
            self._settle((index, 0, 0))
        else:
            self._settle((index, size - 1, height - 1))

    def _scroll_by(self, rows: int) -> None:
        y, height, tops = self._visible()
        self._follow = False
        target = max(0, min(y + rows, tops[-1] - height))
        index = self._block_at(target)
        self._settle((index, target - tops[index], 0))

    def _cursor_in_view(self) -> bool:
        y, height, tops = self._visible()
        c = self._cursor
        return 0 <= c < len(self._blocks) and tops[c] < y + height and tops[c + 1] - 1 > y

    def _first_in_view(self) -> int:
        y, height, tops = self._visible()
        index = self._block_at(y)
        if tops[index] < y and index + 1 < len(self._blocks) and tops[index + 1] < y + height:
            index += 1  # the first block whose top is on screen
        return index

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        """To the next (1) or previous (-1) message, scrolling through the rest of a message
        taller than the screen first."""
        if not self._blocks:
            return
        if not self._cursor_in_view():
            self._set_cursor(self._first_in_view())
            self._reveal(self._cursor)
            return
        y, height, tops = self._visible()
        step = max(1, height // 2)
        # Rows of the current message beyond the screen's edge in that direction.
        hidden = tops[self._cursor + 1] - 1 - (y + height) if direction > 0 else y - tops[self._cursor]
        if hidden > 0:
            self._scroll_by(direction * min(step, hidden))
        elif 0 <= self._cursor + direction < len(self._blocks):
            self._set_cursor(self._cursor + direction)
            self._reveal(self._cursor, from_below=direction < 0)

    def action_page_down(self) -> None:
        self._page(1)

    def action_page_up(self) -> None:
        self._page(-1)

    def _page(self, direction: int) -> None:
        if not self._blocks:
            return
        _, height = self._viewport()
        self._scroll_by(direction * max(1, height - 1))
        if not self._cursor_in_view():
            self._set_cursor(self._first_in_view())

    def action_first(self) -> None:
        if self._blocks:
            self._set_cursor(0)
            self._settle((0, 0, 0))

    def action_last(self) -> None:
        if self._blocks:
            self._set_cursor(len(self._blocks) - 1)
            self._settle(END)

    def action_toggle(self) -> None:
        """Open every folded part of the current message, or fold them all if none is."""
        if not (0 <= self._cursor < len(self._blocks)):
            return
        block = self._blocks[self._cursor]
        if not block.measured:
            self._render_block(block)
        keys = block.foldable
        if keys:
            self._set_folds(self._cursor, keys, not all(self._is_open(block, k) for k in keys))

    def action_toggle_thinking(self) -> None:
        """Show or hide every thinking block."""
        self.show_thinking = not self.show_thinking
        anchor = END if self._follow else self._keep_cursor_anchor()
        for block in self._blocks:
            item = block.item
            if isinstance(item, AssistantMessage) and any(isinstance(p, ThinkingPart) for p in item.parts):
                for index, part in enumerate(item.parts):
                    if isinstance(part, ThinkingPart):
                        block.folds.pop(index, None)
                self._invalidate(block)
        self._settle(anchor)
        self.refresh()

    def _set_folds(self, index: int, keys: Iterable[int], is_open: bool) -> None:
        anchor = self._keep_cursor_anchor() if index == self._cursor else None
        block = self._blocks[index]
        self._folds[block.key] = block.folds
        for key in keys:
            block.folds[key] = is_open
            if key == REPLACED:
                self._show_replaced(index, is_open)
        self._invalidate(block)
        self._settle(anchor)
        self.refresh()

    def _show_replaced(self, index: int, is_open: bool) -> None:
        block = self._blocks[index]
        end = index + 1
        while end < len(self._blocks) and self._blocks[end].depth > block.depth:
            end += 1
        del self._blocks[index + 1 : end]
        if self._cursor >= end:
            self._cursor -= end - index - 1
        elif self._cursor > index:
            self._cursor = index
        if is_open:
            if block.children is None:
                if not block.pending:
                    block.pending = True
                    assert isinstance(block.item, CompactionSummary)
                    self.post_message(self.ReplacedRequested(self, block.item))
            else:
                children = self._expanded(block.children)
                self._blocks[index + 1 : index + 1] = children
                if self._cursor > index:
                    self._cursor += len(children)
        self._tops_stale = True

    # ------------------------------------------------------------------ mouse

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self._blocks:
            return
        row = round(self.scroll_y) + offset.y
        tops = self._ensure_tops()
        if row >= tops[-1]:
            return
        index = self._block_at(row)
        self._set_cursor(index)
        block = self._blocks[index]
        line = row - tops[index]
        for spot in block.hotspots:
            if spot.start <= line < spot.end:
                is_open = self._is_open(block, spot.key)
                if not is_open or spot.header:
                    self._set_folds(index, (spot.key,), not is_open)
                break

    def on_resize(self, event: events.Resize) -> None:
        self._settle()
