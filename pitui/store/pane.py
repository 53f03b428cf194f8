"""The conversation pane's items for one context entry: pi 1.6.0's projection, with what the
model no longer sees kept in its place and marked.

:func:`projected_items` turns one :class:`~pitui.store.context.ProjectedEntry` into items:

* an entry a ``context_edit`` omits gives its messages as :class:`Marked` items with
  ``omitted`` set ("omitted from context by <edit id>");
* one it replaces gives :class:`Marked` items showing the replacement, the original beside it;
* a compaction older than the path's latest gives no message to the model (pi's projection):
  its summary is kept, marked as omitted;
* a ``system`` message, and a compaction's ``systemMessage`` checkpoint, give a
  :class:`SystemBlock`: the first and a checkpoint as the whole prompt (sections, tools, size),
  a later one as its changes (``+tool grep``, ``-section skills``, from
  :mod:`pitui.store.system_prompt`).

:func:`model_sees` keeps only what pi sends: the items a view shows "as the model sees it".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from msgspec import Struct

from pitui.store.context import ProjectedEntry
from pitui.store.conversation import CompactionSummary, Item, entry_items, item_from_message
from pitui.store.js import js_string
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.system_prompt import SystemChange, replay_system

__all__ = ["Marked", "PaneItem", "SystemBlock", "item_key", "model_sees", "projected_items"]


class SystemBlock(Struct, frozen=True):
    """A system message: the prompt it declares (``whole``: the first on the path, or a
    compaction's checkpoint) or the changes it makes (``changes``: one short line each)."""

    entry_id: Any
    whole: bool
    checkpoint: bool = False
    sections: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    text: str = ""  # the whole prompt text, for a whole prompt
    changes: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def size(self) -> int:
        """The prompt's length in characters."""
        return len(self.text)


class Marked(Struct, frozen=True):
    """A message the model no longer sees as it was: ``item`` is what the pane shows (the
    original when ``omitted``, else the replacement), ``original`` the replaced message."""

    entry_id: Any
    item: Any  # an Item
    omitted: bool
    edit_id: Any = None  # the context_edit; None: a later compaction left it out
    original: Any = None  # an Item, for a replacement

    @property
    def note(self) -> str:
        by = js_string(self.edit_id)
        if self.edit_id is None:
            return "not in the context: a later compaction summarised it"
        return f"omitted from context by {by}" if self.omitted else f"replaced in context by {by}"


PaneItem = Item | SystemBlock | Marked


def item_key(projected: ProjectedEntry, first_system: Any) -> tuple[Any, ...]:
    """What an entry's pane items depend on besides the entry: the edit in force on it, whether
    it is a dropped older compaction, and (a system message) whether it is the path's first."""
    entry = projected.entry
    dropped = entry.type == "compaction" and not projected.original
    first = entry.type == "message" and entry.role == "system" and entry.id == first_system
    return (entry, projected.edit, dropped, first)


def projected_items(session: Session, projected: ProjectedEntry, change: SystemChange | None) -> list[PaneItem]:
    """The pane items of one projected entry (``change``: what it changed, for a system message)."""
    entry = projected.entry
    if entry.type == "compaction" and not projected.original:
        return [Marked(entry.id, item, True) for item in _plain(session, entry)]
    if entry.type == "message" and entry.role == "system":
        return [_system(entry, change)]
    items = _plain(session, entry)
    edit = projected.edit
    if edit is None or projected.messages is projected.original:
        return items
    if projected.omitted:
        return [Marked(entry.id, item, True, edit.id) for item in items]
    out: list[PaneItem] = []
    for old, new, item in zip(projected.original, projected.messages, items, strict=False):
        if new is old:
            out.append(item)
        else:
            out.append(Marked(entry.id, item_from_message(new, entry.id), False, edit.id, item))
    return out


def _plain(session: Session, entry: Entry) -> list[PaneItem]:
    """The entry's items before edits, a compaction's checkpoint as a system block."""
    out: list[PaneItem] = []
    for item in entry_items(session, entry):
        if entry.type == "compaction" and not isinstance(item, CompactionSummary):
            checkpoint = entry.get("systemMessage")
            out.append(_whole(entry.id, [checkpoint], checkpoint=True))
        else:
            out.append(item)
    return out


def _whole(entry_id: Any, messages: Sequence[Any], *, checkpoint: bool = False) -> SystemBlock:
    prompt = replay_system(messages)
    if prompt is None:
        return SystemBlock(entry_id, True, checkpoint)
    sections = tuple(name for name, value in prompt.sections.items() if value is not None)
    return SystemBlock(entry_id, True, checkpoint, sections, tuple(prompt.tool_names), prompt.text)


def _system(entry: Entry, change: SystemChange | None) -> SystemBlock:
    if change is None or change.first:
        block = _whole(entry.id, [entry.message])
        return block if change is None else _with_problem(block, change.problem)
    return SystemBlock(entry.id, False, changes=tuple(change.lines), problem=change.problem)


def _with_problem(block: SystemBlock, problem: str | None) -> SystemBlock:
    if problem is None:
        return block
    return SystemBlock(
        block.entry_id, block.whole, block.checkpoint, block.sections, block.tools, block.text, block.changes, problem
    )


def model_sees(items: Iterable[PaneItem]) -> list[PaneItem]:
    """The items "as the model sees it": omitted ones left out, replacements as themselves."""
    out: list[PaneItem] = []
    for item in items:
        if isinstance(item, Marked):
            if not item.omitted:
                out.append(item)
        else:
            out.append(item)
    return out
