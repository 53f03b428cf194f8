"""Two branches of a session side by side: from their deepest common entry down to each of two
marked entries, what each side asked, answered, read, changed, ran and spent.

The one home of the comparison rule, shared by ``pitui compare`` and the comparison screen:

- the common ancestor is :func:`pitui.store.digest.deepest_common` (both ends walked up in
  turns, so a 50,000-deep chain costs the size of the branches, never a recursion);
- a side is the entries from just after the ancestor down to its marked entry, oldest first
  (empty when its entry is the ancestor: the same entry twice, or one above the other);
- its prompts, answers, commands and errors are :func:`pitui.store.digest.branch_notes`, its
  files :func:`pitui.store.digest.file_lists` (exactly what a branch summary's digest and
  ``details`` say), its totals pi's ``/session`` counting (:func:`pitui.store.totals.session_stats`)
  over that side's entries alone;
- an item (a prompt, a file, a command, an error, the final answer) is *only here* when the
  other side has no item of the same text in the same section.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from msgspec import Struct

from pitui.store.content import text_blocks
from pitui.store.context_size import format_tokens
from pitui.store.digest import branch_notes, deepest_common, entries_below, file_lists
from pitui.store.js import MISSING
from pitui.store.jsonl import prepare
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.totals import SessionStats, session_stats

__all__ = ["SECTIONS", "CompareError", "Comparison", "Item", "Side", "compare", "entry_summary"]

# The sections of a side, in the order both the command and the screen show them: (key, title).
SECTIONS: tuple[tuple[str, str], ...] = (
    ("prompts", "Prompts"),
    ("answer", "Final answer"),
    ("files_read", "Files read"),
    ("files_changed", "Files changed"),
    ("commands", "Commands"),
    ("failures", "Failures"),
    ("errors", "Errors"),
)
SNIPPET_CHARS = 120


class CompareError(ValueError):
    """Entries that cannot be compared (one is not in the session), with a message for the user."""


class Item(Struct, frozen=True):
    """One line of a side: ``text`` at ``entry_id`` (where Enter goes; None: no entry says it)."""

    text: str
    entry_id: Any
    only_here: bool  # the other side has no item of the same text in this section
    failed: bool = False  # a command whose tool result is an error, or that exited non-zero
    result_id: Any = None  # a command's tool result

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {"id": _json_id(self.entry_id), "text": self.text, "onlyHere": self.only_here}
        if self.failed or self.result_id is not None:
            value["failed"] = self.failed
            value["resultId"] = _json_id(self.result_id)
        return value


class Side(Struct, frozen=True):
    """One branch, from just after the common ancestor down to ``entry`` (its entries oldest
    first)."""

    entry: Entry
    entries: tuple[Entry, ...]
    prompts: tuple[Item, ...]
    answer: tuple[Item, ...]  # the last assistant text on this side (none or one)
    files_read: tuple[Item, ...]
    files_changed: tuple[Item, ...]
    commands: tuple[Item, ...]
    failures: tuple[Item, ...]
    errors: tuple[Item, ...]
    stats: SessionStats
    by_type: dict[str, int]  # entries by type; messages by role ("message:user")

    def totals_lines(self) -> list[str]:
        """The side's tokens and cost, as the command and the screen show them."""
        stats = self.stats
        return [
            f"{format_tokens(stats.total_tokens)} tokens · ${stats.cost:,.3f}",
            f"in {format_tokens(stats.input)} · out {format_tokens(stats.output)}",
            f"cache read {format_tokens(stats.cache_read)} · write {format_tokens(stats.cache_write)}",
        ]

    def entries_lines(self) -> list[str]:
        """How many entries the side holds, then how many of each type (the most first)."""
        count = len(self.entries)
        kinds = sorted(self.by_type.items(), key=lambda kv: (-kv[1], kv[0]))
        return [f"{count:,} {'entry' if count == 1 else 'entries'}"] + [
            f"{n:,} {k.removeprefix('message:')}" for k, n in kinds
        ]

    def section(self, key: str) -> tuple[Item, ...]:
        items: tuple[Item, ...] = getattr(self, key)
        return items

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {"entry": _json_id(self.entry.id), "entries": len(self.entries), "byType": self.by_type}
        for key, _ in SECTIONS:
            items = [item.to_json() for item in self.section(key)]
            if key == "answer":
                value["answer"] = items[0] if items else None
            else:
                value[_camel(key)] = items
        value["totals"] = prepare(self.stats.pi_json())
        return value


class Comparison(Struct, frozen=True):
    """Two entries' branches from their deepest common entry (``ancestor``; None: the two share
    no entry, as two roots do)."""

    path: str | None
    ancestor: Entry | None
    a: Side
    b: Side

    @property
    def relation(self) -> str:
        """``same`` (one entry twice), ``a-above-b`` / ``b-above-a`` (one is on the other's path),
        ``apart`` (two branches) or ``unrelated`` (no entry in common)."""
        if self.ancestor is None:
            return "unrelated"
        if self.a.entry is self.b.entry:
            return "same"
        if not self.a.entries:
            return "a-above-b"
        if not self.b.entries:
            return "b-above-a"
        return "apart"

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.path,
            "relation": self.relation,
            "ancestor": entry_summary(self.ancestor) if self.ancestor is not None else None,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
        }


def compare(session: Session, a_id: Any, b_id: Any) -> Comparison:
    """Compare the branches down to the entries ``a_id`` and ``b_id`` (exact ids) of ``session``.
    Reads the entries' bodies: a view calls it from a worker thread."""
    a_entry, b_entry = _entry(session, a_id), _entry(session, b_id)
    ancestor = deepest_common(session, a_entry, b_entry)
    a_entries = entries_below(session, a_entry, ancestor)
    b_entries = entries_below(session, b_entry, ancestor)
    a_raw, b_raw = _RawSide(a_entry, a_entries), _RawSide(b_entry, b_entries)
    return Comparison(session.path, ancestor, a_raw.side(b_raw), b_raw.side(a_raw))


def entry_summary(entry: Entry) -> dict[str, Any]:
    """An entry as a comparison names it: id, type, role (messages), and a one-line snippet."""
    role = entry.role if entry.type == "message" and isinstance(entry.role, str) else None
    return {"id": _json_id(entry.id), "type": _json_id(entry.type), "role": role, "text": _snippet(entry)}


def _entry(session: Session, entry_id: Any) -> Entry:
    entry = session.entry(entry_id) if entry_id is not None and entry_id is not MISSING else None
    if entry is None:
        raise CompareError(f"no entry {entry_id!r} in {session.path}")
    return entry


class _RawSide:
    """A side's texts before the other side is known (which items are only here)."""

    def __init__(self, entry: Entry, entries: list[Entry]) -> None:
        self.entry = entry
        self.entries = entries
        # Each body is read once here, not once by each of the notes, the files and the totals.
        self.kept = kept = [e.kept() for e in entries]
        notes = branch_notes(kept)
        files = file_lists(kept)
        where = _file_entries(kept)
        self.sections: dict[str, list[tuple[str, Any, bool, Any]]] = {
            "prompts": [(n.text, n.entry_id, False, None) for n in notes.prompts],
            "answer": [(n.text, n.entry_id, False, None) for n in notes.answers[-1:]],
            "files_read": [(f, where.get(f), False, None) for f in files.read],
            "files_changed": [(f, where.get(f), False, None) for f in files.modified],
            # A command's tool result, where there is one: pi's tree shows that row, not the call's.
            "commands": [
                (c.command + c.outcome, c.result_id or c.entry_id, c.failed, c.result_id) for c in notes.commands
            ],
            "failures": [
                (c.command + c.outcome, c.result_id or c.entry_id, True, c.result_id)
                for c in notes.commands
                if c.failed
            ],
            "errors": [(n.text, n.entry_id, False, None) for n in notes.errors],
        }

    def texts(self, key: str) -> set[str]:
        return {text for text, *_ in self.sections[key]}

    def side(self, other: _RawSide) -> Side:
        items: dict[str, tuple[Item, ...]] = {}
        for key, _ in SECTIONS:
            theirs = other.texts(key)
            items[key] = tuple(
                Item(text, entry_id, text not in theirs, failed, result_id)
                for text, entry_id, failed, result_id in self.sections[key]
            )
        by_type: Counter[str] = Counter()
        for entry in self.entries:
            kind = entry.type if isinstance(entry.type, str) else "?"
            by_type[f"message:{entry.role}" if kind == "message" and isinstance(entry.role, str) else kind] += 1
        # pi's /session adds up in file order: the same order as the path, unless a parent was
        # written after its child.
        stats = session_stats(sorted(self.kept, key=lambda e: e.line))
        return Side(self.entry, tuple(self.entries), stats=stats, by_type=dict(sorted(by_type.items())), **items)


def _file_entries(entries: list[Entry]) -> dict[str, Any]:
    """Where each file a side names was last touched: the tool result of the last ``read``,
    ``write`` or ``edit`` call with that path (the row pi's tree shows; the call's message when
    it has none), else the branch summary that lists it (the lists themselves come from
    :func:`~pitui.store.digest.file_lists`)."""
    where: dict[str, Any] = {}
    calls: dict[str, str] = {}  # tool call id -> its path
    for entry in entries:
        if entry.type == "message" and entry.role == "toolResult":
            message = entry.message
            call = message.get("toolCallId") if isinstance(message, dict) else None
            if isinstance(call, str) and call in calls:
                where[calls.pop(call)] = entry.id
            continue
        if entry.type == "branch_summary":
            details = entry.get("details")
            if isinstance(details, dict):
                for key in ("readFiles", "modifiedFiles"):
                    paths = details.get(key)
                    for path in paths if isinstance(paths, list) else []:
                        if isinstance(path, str):
                            where.setdefault(path, entry.id)
        elif entry.type == "message" and entry.role == "assistant":
            content = entry.message.get("content") if isinstance(entry.message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    args = block.get("arguments")
                    path = args.get("path") if isinstance(args, dict) else None
                    if isinstance(path, str) and path:
                        where[path] = entry.id
                        if isinstance(block.get("id"), str):
                            calls[block["id"]] = path
    return where


def _snippet(entry: Entry) -> str:
    data = entry.data
    kind = entry.type
    if kind == "message":
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        text = "\n".join(text_blocks(content))
        if not text and isinstance(message, dict) and isinstance(message.get("command"), str):
            text = "$ " + message["command"]
    elif kind == "custom_message":
        text = "\n".join(text_blocks(data.get("content")))
    elif kind in ("compaction", "branch_summary"):
        summary = data.get("summary")
        text = summary if isinstance(summary, str) else ""
    elif kind == "label":
        label = data.get("label")
        text = f"label {label}" if isinstance(label, str) else "label cleared"
    else:
        text = ""
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET_CHARS else line[: SNIPPET_CHARS - 1] + "…"


def _json_id(value: Any) -> Any:
    return None if value is MISSING else value


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)
