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
import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.safe_text import safe_line, safe_lines
from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ImagePart,
    Item,
    OtherMessage,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    Usage,
    UserMessage,
)
from pitui.ui.keys import OrderedKeys
from pitui.ui.widgets.preview_pane import format_size, format_tokens

__all__ = ["ConversationView", "format_usage"]

FOLD_LINES = 5  # lines of a long output or argument list shown while it is folded
TEXT_LINES = 200  # lines of a message's text shown before it is folded (a huge paste stays fast)
GUTTER = 2  # the cursor mark and a space
INDENT = 2  # per level of replaced entries shown under a compaction
CACHE_BLOCKS = 300  # blocks whose rendered rows are kept

# Fold keys of a block's foldable parts: a part's index in its item, or one of these.
OUTPUT = -1  # a tool result's or bash execution's output
REPLACED = -2  # a compaction's replaced entries


def format_usage(usage: Usage) -> str:
    """Tokens and cost as pi shows them: ↑input ↓output Rcache-read Wcache-write, total, $."""
    return (f"↑{format_tokens(usage.input)} ↓{format_tokens(usage.output)} R{format_tokens(usage.cache_read)} "
            f"W{format_tokens(usage.cache_write)} · {format_tokens(usage.total_tokens)} tokens · ${usage.cost:.3f}")


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def _arguments_text(arguments: Any) -> str:
    """Tool call arguments, one ``key: value`` line per key (strings as they are, the rest as
    compact JSON), so an edit's text reads as text rather than as one escaped line."""
    if isinstance(arguments, dict) and arguments:
        lines = []
        for key, value in arguments.items():
            shown = value if isinstance(value, str) else _compact_json(value)
            lines.append(f"{key}:\n{shown}" if "\n" in shown else f"{key}: {shown}")
        return "\n".join(lines)
    return _compact_json(arguments)


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


# An anchor: a block, a row in it, and the screen row where that row is to be; or the end.
Anchor = tuple[int, int, int] | str
END = "end"

_Piece = tuple[RenderableType, int | None, bool]  # what to render, its fold key, whether a header row


@dataclass(eq=False, slots=True)
class _Hotspot:
    """Rows of a block that belong to a foldable part; a click there opens or closes it."""

    start: int
    end: int
    key: int
    header: bool  # a click on a header row closes an open part too


@dataclass(eq=False, slots=True)
class _Block:
    item: Item
    key: tuple[Any, int, int]  # entry id, its n-th message, depth: what its folds are remembered by
    folds: dict[int, bool]  # fold key -> open; a key not here is at its default
    depth: int = 0
    height: int = 1
    measured: bool = False  # ``height`` is the real height at the view's width, not a guess
    rows: list[list[Segment]] | None = None  # rendered, while in the cache
    hotspots: list[_Hotspot] = field(default_factory=list)
    foldable: tuple[int, ...] = ()  # the keys found foldable when it was last rendered
    children: list[_Block] | None = None  # a compaction's replaced entries, once known
    pending: bool = False  # a compaction waiting for its replaced entries


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
        "conversation--cursor",
        "conversation--user",
        "conversation--assistant",
        "conversation--thinking",
        "conversation--tool",
        "conversation--tool-result",
        "conversation--output",
        "conversation--error",
        "conversation--bash",
        "conversation--fold",
        "conversation--meta",
        "conversation--image",
        "conversation--summary",
        "conversation--custom",
        "conversation--guide",
    }

    BINDING_GROUP_TITLE = "Conversation"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Previous", id="conversation.cursor_up", show=False),
        Binding("down,j", "cursor_down", "Next", id="conversation.cursor_down", show=False),
        Binding("pageup", "page_up", "Page up", id="conversation.page_up", show=False),
        Binding("pagedown", "page_down", "Page down", id="conversation.page_down", show=False),
        Binding("home", "first", "First", id="conversation.first", show=False),
        Binding("end", "last", "Last", id="conversation.last", show=False),
        Binding("enter,space", "toggle", "Expand", id="conversation.toggle"),
        Binding("t", "toggle_thinking", "Thinking", show=False, id="conversation.toggle_thinking"),
    ]

    EMPTY = "No messages on this path."

    class Highlighted(Message):
        """The block cursor moved to another message."""

        def __init__(self, view: ConversationView, entry_id: Any, item: Item) -> None:
            super().__init__()
            self.view = view
            self.entry_id = entry_id
            self.item = item

        @property
        def control(self) -> ConversationView:
            return self.view

    class ReplacedRequested(Message):
        """A compaction was opened: answer with :meth:`ConversationView.set_replaced`."""

        def __init__(self, view: ConversationView, compaction: CompactionSummary) -> None:
            super().__init__()
            self.view = view
            self.compaction = compaction
            self.entry_id = compaction.entry_id
            self.replaced_ids = compaction.replaced_ids

        @property
        def control(self) -> ConversationView:
            return self.view

    def __init__(self, items: Iterable[Item] = (), *, show_thinking: bool = False, name: str | None = None,
                 id: str | None = None, classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.show_thinking = show_thinking
        self._blocks: list[_Block] = []
        self._tops: list[int] = [0]  # the first row of each block, and the total at the end
        self._tops_stale = False
        self._width = 0  # the width blocks were measured at
        self._cursor = -1
        self._anchor: Anchor | None = None  # where to scroll on the next settle
        self._follow = True  # at the end: stays there when blocks change or come in
        self._settled_y = 0  # the scroll position the last settle left
        self._rendered: OrderedDict[int, _Block] = OrderedDict()  # blocks holding rows, oldest first
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
        blocks: list[_Block] = []
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

    def scroll_to_entry(self, entry_id: Any) -> bool:
        """Put the first message of ``entry_id`` at the top and the cursor on it."""
        index = self._top_level_index(entry_id)
        if index is None:
            return False
        self._set_cursor(index, notify=False)
        self._settle((index, 0, 0))
        return True

    # ------------------------------------------------------------------ blocks

    def _new_block(self, item: Item, depth: int, ordinal: dict[Any, int]) -> _Block:
        number = ordinal.get(item.entry_id, 0)
        ordinal[item.entry_id] = number + 1
        key = (item.entry_id, number, depth)
        block = _Block(item, key, self._folds.get(key, {}), depth)
        block.height = self._estimate(block, self._width or 80)
        if isinstance(item, CompactionSummary) and block.folds.get(REPLACED):
            block.pending = True  # it was open when last shown: it opens again
            self.post_message(self.ReplacedRequested(self, item))
        return block

    def _descendants(self, block: _Block) -> list[_Block]:
        if block.children is None or not block.folds.get(REPLACED):
            return []
        return self._expanded(block.children)

    def _expanded(self, blocks: list[_Block]) -> list[_Block]:
        out: list[_Block] = []
        for child in blocks:
            out.append(child)
            out.extend(self._descendants(child))
        return out

    def _top_level_index(self, entry_id: Any) -> int | None:
        for index, block in enumerate(self._blocks):
            if block.depth == 0 and block.item.entry_id == entry_id:
                return index
        return None

    def _invalidate(self, block: _Block) -> None:
        block.rows = None
        block.measured = False
        block.height = self._estimate(block, self._width or 80)
        self._rendered.pop(id(block), None)
        self._tops_stale = True

    def _is_open(self, block: _Block, key: int) -> bool:
        if key >= 0 and isinstance(block.item, AssistantMessage) and isinstance(block.item.parts[key], ThinkingPart):
            return block.folds.get(key, self.show_thinking)
        return block.folds.get(key, False)

    # ------------------------------------------------------------------ layout

    def _viewport(self) -> tuple[int, int]:
        region = self.scrollable_content_region
        return region.width, region.height

    def _block_width(self, block: _Block) -> int:
        return max(1, self._width - GUTTER - INDENT * block.depth)

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
        if not self._blocks and y == 0:
            text = Text(" " * GUTTER + self.EMPTY, base + self._style("conversation--meta"))
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

    def _rows(self, block: _Block) -> list[list[Segment]]:
        if block.rows is None:
            self._render_block(block)  # evicted from the cache: same width, same height
        self._rendered.move_to_end(id(block))
        assert block.rows is not None
        return block.rows

    def _render_block(self, block: _Block) -> None:
        """Render ``block`` into rows of segments as wide as the view less the gutter."""
        base = self.rich_style
        width = self._block_width(block)
        console = self.app.console
        options = console.options.update(width=width, height=None, highlight=False, markup=False)
        rows: list[list[Segment]] = []
        hotspots: list[_Hotspot] = []
        foldable: list[int] = []
        for renderable, key, header in self._pieces(block, width):
            start = len(rows)
            rows.extend(console.render_lines(renderable, options, style=base, pad=True))
            if key is not None:
                hotspots.append(_Hotspot(start, len(rows), key, header))
                if key not in foldable:
                    foldable.append(key)
        if block.depth:
            guide = Segment("│ " * block.depth, base + self._style("conversation--guide"))
            rows = [[guide, *row] for row in rows]
        rows.append([Segment(" " * max(0, self._width - GUTTER), base)])  # the space between messages
        block.rows = rows
        block.hotspots = hotspots
        block.foldable = tuple(foldable)
        block.height = len(rows)
        block.measured = True
        self._rendered[id(block)] = block
        while len(self._rendered) > CACHE_BLOCKS:
            _, old = self._rendered.popitem(last=False)
            old.rows = None  # its height stays known

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

    # ------------------------------------------------------------------ what a block shows

    def _pieces(self, block: _Block, width: int) -> Iterable[_Piece]:
        item = block.item
        style = self._style
        retained = " · kept by the compaction" if item.retained else ""
        if isinstance(item, UserMessage):
            yield self._title("User", "conversation--user", retained)
            yield from self._content(block, item.parts, width, fold=False)
        elif isinstance(item, AssistantMessage):
            yield self._title("Assistant", "conversation--assistant", retained)
            yield from self._assistant(block, item, width)
        elif isinstance(item, ToolResult):
            yield from self._tool_result(block, item, width, retained)
        elif isinstance(item, BashExecution):
            yield from self._bash(block, item, width, retained)
        elif isinstance(item, CustomMessage):
            hidden = "" if item.display else " · not shown by pi"
            yield self._title(f"◆ {safe_line(item.custom_type) or 'custom'}", "conversation--custom", hidden + retained)
            yield from self._content(block, item.parts, width, fold=True)
        elif isinstance(item, BranchSummary):
            yield self._title("⎇ Branch summary", "conversation--summary", retained)
            yield self._markdown(safe_lines(item.summary)), None, False
            if item.usage is not None:
                yield Text(format_usage(item.usage), style("conversation--meta")), None, False
        elif isinstance(item, CompactionSummary):
            yield from self._compaction(block, item, retained)
        elif isinstance(item, OtherMessage):
            yield self._title(safe_line(item.role), "conversation--custom", retained)
            yield from self._content(block, item.parts, width, fold=True)

    def _title(self, title: str, style: str, note: str = "") -> _Piece:
        text = Text(title, self._style(style))
        if note:
            text.append(note, self._style("conversation--meta"))
        return text, None, False

    def _assistant(self, block: _Block, item: AssistantMessage, width: int) -> Iterable[_Piece]:
        style = self._style
        for index, part in enumerate(item.parts):
            if isinstance(part, ThinkingPart):
                lines = _line_count(part.text)
                if part.redacted or not part.text:
                    yield Text("Thinking (redacted)", style("conversation--thinking")), None, False
                elif self._is_open(block, index):
                    yield Text(f"▾ Thinking · {_lines(lines)}", style("conversation--thinking")), index, True
                    yield Text(safe_lines(part.text), style("conversation--thinking")), index, False
                else:
                    yield Text(f"▸ Thinking · {_lines(lines)}", style("conversation--thinking")), index, True
            elif isinstance(part, TextPart):
                yield from self._folded(safe_lines(part.text), "conversation--output", index,
                                        self._is_open(block, index), limit=TEXT_LINES, markdown=True)
            elif isinstance(part, ToolCallPart):
                yield from self._tool_call(block, index, part, width)
            elif isinstance(part, ImagePart):
                yield self._image(part)
        if item.stop_reason in ("error", "aborted"):
            message = item.error_message or ("aborted" if item.stop_reason == "aborted" else "error")
            yield Text(f"✗ {safe_lines(message)}", style("conversation--error")), None, False
        elif item.stop_reason == "length":
            yield Text("stopped at the output token limit", style("conversation--meta")), None, False
        meta = " ".join(filter(None, (safe_line(item.model), f"({safe_line(item.provider)})" if item.provider else "")))
        if item.usage is not None:
            meta = f"{meta} · {format_usage(item.usage)}" if meta else format_usage(item.usage)
        if meta:
            yield Text(meta, style("conversation--meta")), None, False

    def _tool_call(self, block: _Block, index: int, part: ToolCallPart, width: int) -> Iterable[_Piece]:
        tool = self._style("conversation--tool")
        name = safe_line(part.name) or "tool"
        compact = safe_line(_compact_json(part.arguments))
        if len(name) + 3 + len(compact) <= width and "\\n" not in compact:
            text = Text(f"⚙ {name} ", tool)
            text.append(compact, self._style("conversation--meta"))
            yield text, None, False
            return
        shown = safe_lines(_arguments_text(part.arguments))
        yield Text(f"⚙ {name}", tool), index if _line_count(shown) > FOLD_LINES else None, True
        yield from self._folded(shown, "conversation--meta", index, self._is_open(block, index))

    def _tool_result(self, block: _Block, item: ToolResult, width: int, retained: str) -> Iterable[_Piece]:
        output = safe_lines(item.output.rstrip("\n"))
        lines = _line_count(output)
        key = OUTPUT if lines > FOLD_LINES else None
        name = safe_line(item.tool_name) or "tool"
        if item.is_error:
            title = Text(f"✗ {name} failed", self._style("conversation--error"))
        else:
            title = Text(f"↳ {name}", self._style("conversation--tool-result"))
        if lines:
            title.append(f" · {_lines(lines)}", self._style("conversation--meta"))
        if retained:
            title.append(retained, self._style("conversation--meta"))
        yield title, key, True
        if output:
            yield from self._folded(output, "conversation--error" if item.is_error else "conversation--output",
                                    OUTPUT, self._is_open(block, OUTPUT))
        for part in item.parts:
            if isinstance(part, ImagePart):
                yield self._image(part)
        if item.usage is not None:
            yield Text(format_usage(item.usage), self._style("conversation--meta")), None, False

    def _bash(self, block: _Block, item: BashExecution, width: int, retained: str) -> Iterable[_Piece]:
        output = safe_lines(item.output.rstrip("\n"))
        key = OUTPUT if _line_count(output) > FOLD_LINES else None
        title = Text(f"$ {safe_lines(item.command)}", self._style("conversation--bash"))
        yield title, key, True
        if output:
            yield from self._folded(output, "conversation--output", OUTPUT, self._is_open(block, OUTPUT))
        meta = Text()
        if item.exit_code is not None:
            meta.append(f"exit {item.exit_code}",
                        self._style("conversation--error" if item.exit_code else "conversation--meta"))
        notes = [note for flag, note in ((item.cancelled, "cancelled"), (item.truncated, "output truncated"),
                                         (item.excluded, "not sent to the model")) if flag]
        if item.full_output_path:
            notes.append(f"full output: {safe_line(item.full_output_path)}")
        for note in notes:
            meta.append(" · " if meta else "", self._style("conversation--meta"))
            meta.append(note, self._style("conversation--error" if note == "cancelled" else "conversation--meta"))
        if retained:
            meta.append(retained if meta else retained[3:], self._style("conversation--meta"))
        if meta:
            yield meta, None, False

    def _compaction(self, block: _Block, item: CompactionSummary, retained: str) -> Iterable[_Piece]:
        count = item.replaced_count
        title = f"⊟ Compacted {count} entr{'y' if count == 1 else 'ies'}"
        note = f" · {item.tokens_before:,} tokens before" if item.tokens_before is not None else ""
        yield self._title(title, "conversation--summary", note + retained)
        yield self._markdown(safe_lines(item.summary)), None, False
        if item.usage is not None:
            yield Text(format_usage(item.usage), self._style("conversation--meta")), None, False
        if count:
            fold = self._style("conversation--fold")
            if not self._is_open(block, REPLACED):
                yield Text(f"▸ show the {count} replaced entries", fold), REPLACED, True
            elif block.pending:
                yield Text("▾ replaced entries: loading…", fold), REPLACED, True
            elif block.children is not None and not block.children:
                yield Text("▾ replaced entries: none to show", fold), REPLACED, True
            else:
                yield Text(f"▾ the {count} replaced entries", fold), REPLACED, True

    def _content(self, block: _Block, parts: Sequence[Part], width: int, *, fold: bool) -> Iterable[_Piece]:
        """Text and images of a user, custom or unknown message (long text folded if ``fold``)."""
        for index, part in enumerate(parts):
            if isinstance(part, TextPart):
                text = safe_lines(part.text)
                yield from self._folded(text, "conversation--output", index, self._is_open(block, index),
                                        limit=FOLD_LINES if fold else TEXT_LINES)
            elif isinstance(part, ImagePart):
                yield self._image(part)
            elif isinstance(part, ThinkingPart):
                yield Text(safe_lines(part.text), self._style("conversation--thinking")), None, False
            elif isinstance(part, ToolCallPart):
                yield from self._tool_call(block, index, part, width)

    def _folded(self, text: str, style: str, key: int | None, is_open: bool, *, limit: int = FOLD_LINES,
                markdown: bool = False) -> Iterable[_Piece]:
        """``text`` whole, or its first ``limit`` lines and how many more there are. Folded to a
        few lines, long lines are cut rather than wrapped, so the fold stays that short."""
        lines = _line_count(text)
        if is_open or lines <= limit:
            whole = self._markdown(text) if markdown else Text(text, self._style(style))
            yield whole, key if lines > limit else None, False
            return
        head = "\n".join(text.split("\n", limit)[:limit])
        if markdown:
            yield self._markdown(head), key, False
        else:
            yield Text(head, self._style(style), no_wrap=limit == FOLD_LINES, overflow="ellipsis"), key, False
        more = lines - limit
        yield Text(f"… {more} more {'line' if more == 1 else 'lines'}", self._style("conversation--fold")), key, False

    def _image(self, part: ImagePart) -> _Piece:
        mime = safe_line(part.mime_type) or "unknown type"
        return Text(f"[image: {mime}, {format_size(part.size)}]", self._style("conversation--image")), None, False

    def _markdown(self, text: str) -> RenderableType:
        """Markdown of text already made safe; links are shown as text, never as hyperlinks."""
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        return Markdown(text, code_theme=theme, hyperlinks=False)

    def _estimate(self, block: _Block, width: int) -> int:
        """A cheap guess of a block's height: its lines, wrapped at ``width``, as it is folded."""
        width = max(1, width - GUTTER - INDENT * block.depth)

        def rows(text: str) -> int:
            return _line_count(text) + len(text) // width if text else 0

        def folded(text: str, key: int, limit: int = FOLD_LINES) -> int:
            if _line_count(text) > limit and not self._is_open(block, key):
                return limit + 1
            return rows(text)

        item = block.item
        height = 2  # a title and the space after
        if isinstance(item, AssistantMessage):
            for index, part in enumerate(item.parts):
                if isinstance(part, ThinkingPart):
                    height += 1 + (rows(part.text) if self._is_open(block, index) else 0)
                elif isinstance(part, TextPart):
                    height += folded(part.text, index, TEXT_LINES) + 1
                elif isinstance(part, ToolCallPart):
                    arguments = part.arguments
                    height += 1 + min(FOLD_LINES + 1, len(arguments) if isinstance(arguments, dict) else 1)
                else:
                    height += 1
            height += 1  # the meta line
        elif isinstance(item, ToolResult | BashExecution):
            height += folded(item.output, OUTPUT) + 1
        elif isinstance(item, BranchSummary | CompactionSummary):
            height += rows(item.summary) + 2
        else:
            limit = TEXT_LINES if isinstance(item, UserMessage) else FOLD_LINES
            for index, part in enumerate(getattr(item, "parts", ())):
                height += folded(part.text, index, limit) if isinstance(part, TextPart) else 1
        return height

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
        if not self._blocks:
            return
        if not self._cursor_in_view():
            self._set_cursor(self._first_in_view())
            self._reveal(self._cursor)
            return
        y, height, tops = self._visible()
        bottom = tops[self._cursor + 1] - 1
        if bottom > y + height:  # the rest of a long message first
            self._scroll_by(min(max(1, height // 2), bottom - (y + height)))
        elif self._cursor + 1 < len(self._blocks):
            self._set_cursor(self._cursor + 1)
            self._reveal(self._cursor)

    def action_cursor_up(self) -> None:
        if not self._blocks:
            return
        if not self._cursor_in_view():
            self._set_cursor(self._first_in_view())
            self._reveal(self._cursor)
            return
        y, height, tops = self._visible()
        top = tops[self._cursor]
        if top < y:
            self._scroll_by(-min(max(1, height // 2), y - top))
        elif self._cursor > 0:
            self._set_cursor(self._cursor - 1)
            self._reveal(self._cursor, from_below=True)

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
