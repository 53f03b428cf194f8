"""The conversation pane's blocks: one per message, with its folds, hot spots and constants.

A :class:`Block` is what :class:`~pitui.ui.widgets.conversation.view.ConversationView` scrolls
over; :mod:`pitui.ui.widgets.conversation.render` turns one into :class:`Piece` renderables.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from msgspec import Struct, field
from rich.console import RenderableType
from rich.segment import Segment

from pitui.store.conversation import AssistantMessage, ThinkingPart
from pitui.store.pane import PaneItem

__all__ = [
    "CACHE_BLOCKS",
    "END",
    "FOLD_LINES",
    "GUTTER",
    "INDENT",
    "ORIGINAL",
    "OUTPUT",
    "PROMPT",
    "REPLACED",
    "TEXT_LINES",
    "Anchor",
    "Block",
    "Hotspot",
    "Piece",
    "line_count",
    "part_open",
]

FOLD_LINES = 5  # lines of a long output or argument list shown while it is folded
TEXT_LINES = 200  # lines of a message's text shown before it is folded (a huge paste stays fast)
GUTTER = 2  # the cursor mark and a space
INDENT = 2  # per level of replaced entries shown under a compaction
CACHE_BLOCKS = 300  # blocks whose rendered rows are kept

# Fold keys of a block's foldable parts: a part's index in its item, or one of these.
OUTPUT = -1  # a tool result's or bash execution's output
REPLACED = -2  # a compaction's replaced entries
ORIGINAL = -3  # the message a context edit replaced
PROMPT = -4  # a system prompt's whole text

# An anchor: a block, a row in it, and the screen row where that row is to be; or the end.
Anchor = tuple[int, int, int] | str
END = "end"


class Piece(NamedTuple):
    """One renderable of a block."""

    renderable: RenderableType
    key: int | None = None  # the fold key of the part it belongs to
    header: bool = False  # a header row: a click there closes an open part too


class Hotspot(Struct, eq=False):
    """Rows of a block that belong to a foldable part; a click there opens or closes it."""

    start: int
    end: int
    key: int
    header: bool  # a click on a header row closes an open part too


class Block(Struct, eq=False):
    item: PaneItem
    key: tuple[Any, int, int]  # entry id, its n-th message, depth: what its folds are remembered by
    folds: dict[int, bool]  # fold key -> open; a key not here is at its default
    depth: int = 0
    height: int = 1
    measured: bool = False  # ``height`` is the real height at the view's width, not a guess
    rows: list[list[Segment]] | None = None  # rendered, while in the cache
    hotspots: list[Hotspot] = field(default_factory=list)
    foldable: tuple[int, ...] = ()  # the keys found foldable when it was last rendered
    children: list[Block] | None = None  # a compaction's replaced entries, once known
    pending: bool = False  # a compaction waiting for its replaced entries


def part_open(block: Block, key: int, show_thinking: bool) -> bool:
    """Whether a foldable part is open: as the user left it, else closed (thinking: as the
    view's ``show_thinking`` says)."""
    if key >= 0 and isinstance(block.item, AssistantMessage) and isinstance(block.item.parts[key], ThinkingPart):
        return block.folds.get(key, show_thinking)
    return block.folds.get(key, False)


def line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0
