"""What a branch being left holds, for its summary: pi's rules for which entries, made without a model.

When the leaf moves, pi summarises the *abandoned* entries: from the old leaf back to the
deepest entry it shares with the chosen one (``collectEntriesForBranchSummary``). pitui offers
two texts of them:

- :func:`branch_digest`, Markdown the user edits into a summary: the prompts, the files read
  and changed, the commands run and the errors met;
- :func:`branch_transcript`, the branch as pi serialises it for its summarising model
  (``serializeConversation``, from :mod:`pitui.store.branch_prompt`), fed to a summarizer
  command the user configured.

:func:`file_lists` (from :mod:`pitui.store.branch_prompt`) gives the ``details`` pi stores with
a summary (``readFiles`` and ``modifiedFiles``), so pi's cumulative file tracking carries on
across pitui's summaries.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct, field

from pitui.store.branch_prompt import (
    FileLists,
    file_lists,
    format_file_operations,
    prepare_branch,
    serialize_conversation,
    to_llm,
)
from pitui.store.content import text_blocks
from pitui.store.js import MISSING
from pitui.store.model import Entry
from pitui.store.reader import Session

__all__ = [
    "BranchNotes",
    "CommandNote",
    "FileLists",
    "Note",
    "abandoned_entries",
    "branch_digest",
    "branch_notes",
    "branch_transcript",
    "deepest_common",
    "entries_below",
    "file_lists",
    "format_file_operations",
]

# The digest is for a person to edit: long prompts and errors are cut.
DIGEST_LINE_CHARS = 200


def abandoned_entries(session: Session, old_leaf: Any, target_id: Any) -> list[Entry]:
    """The entries left behind when the leaf moves from ``old_leaf`` to ``target_id``, oldest
    first: pi's ``collectEntriesForBranchSummary`` (none when there is no old leaf).

    pi builds both paths from the root; here :func:`deepest_common` walks both up from their
    ends, so the cost is the size of the branch, not the depth of the session.
    """
    by_id = session.by_id
    old = by_id.get(old_leaf) if old_leaf is not None and old_leaf is not MISSING else None
    if old is None:
        return []
    target = by_id.get(target_id) if target_id is not None else None
    return entries_below(session, old, deepest_common(session, old, target))


def deepest_common(session: Session, first: Entry | None, second: Entry | None) -> Entry | None:
    """The deepest entry on both paths from the root to ``first`` and to ``second`` (either
    itself when it is on the other's path; None: no entry in common).

    Both are walked up from their ends in turns until one reaches an entry the other passed,
    so the cost is the size of the two branches, not the depth of the session; a ``parentId``
    cycle ends a path where it closes.
    """
    by_id = session.by_id
    walkers: list[Entry | None] = [first, second]
    seen: list[dict[int, Entry]] = [{}, {}]
    while walkers[0] is not None or walkers[1] is not None:
        for side in (0, 1):
            entry = walkers[side]
            if entry is None:
                continue
            key = id(entry)
            if key in seen[1 - side]:
                return entry
            if key in seen[side]:  # a parentId cycle: this path ends here
                walkers[side] = None
                continue
            seen[side][key] = entry
            parent = entry.parent_id
            walkers[side] = by_id.get(parent) if parent is not None and parent is not MISSING else None
    return None


def entries_below(session: Session, end: Entry | None, common: Entry | None) -> list[Entry]:
    """The entries from just after ``common`` down to ``end``, oldest first (``common`` None:
    the whole path to ``end``)."""
    by_id = session.by_id
    below: list[Entry] = []
    entry = end
    visited: set[int] = set()
    while entry is not None and entry is not common and id(entry) not in visited:
        visited.add(id(entry))
        below.append(entry)
        parent = entry.parent_id
        entry = by_id.get(parent) if parent is not None and parent is not MISSING else None
    below.reverse()
    return below


def branch_digest(entries: list[Entry]) -> str:
    """A Markdown starting point for a branch summary: what was asked, which files were read and
    changed, which commands ran, what failed. Made from the entries alone, without a model."""
    notes = branch_notes(entries)
    files = file_lists(entries)
    parts = ["The user explored another branch before coming back here."]
    parts.append(_section("Prompts", [f"{n}. {_one_line(p.text)}" for n, p in enumerate(notes.prompts, 1)]))
    parts.append(_section("Files read", [f"- {f}" for f in files.read]))
    parts.append(_section("Files changed", [f"- {f}" for f in files.modified]))
    parts.append(_section("Commands", [f"- {c}" for c in _unique_notes(notes.commands)]))
    parts.append(_section("Errors", [f"- {e}" for e in _unique([e.text for e in notes.errors])]))
    parts.append("## Outcome\n- ")
    return "\n\n".join(p for p in parts if p)


class Note(Struct):
    """One thing a branch holds: a prompt, an answer, an error (``text``), at ``entry_id``."""

    entry_id: Any
    text: str


class CommandNote(Struct):
    """A command a branch ran: a ``bash`` tool call (``entry_id`` the assistant message that made
    it) or a shell command the user ran (a ``bashExecution`` message). ``failed``: its tool
    result is an error, or it exited with a code other than 0; ``result_id``: that tool result."""

    entry_id: Any
    command: str
    tool_call: bool
    failed: bool = False
    result_id: Any = None
    outcome: str = ""  # a shell command's " (exit 2)" or " (cancelled)"

    def digest_line(self) -> str:
        return f"`{_one_line(self.command)}`{self.outcome}"


class BranchNotes(Struct):
    """What a branch's entries hold, entry by entry, oldest first: :func:`branch_notes`."""

    prompts: list[Note] = field(default_factory=list)
    answers: list[Note] = field(default_factory=list)  # every assistant text; the last is the final one
    commands: list[CommandNote] = field(default_factory=list)
    errors: list[Note] = field(default_factory=list)


def branch_notes(entries: Iterable[Entry]) -> BranchNotes:
    """The prompts (user and extension messages), the assistant's answers, the commands run and
    whether they failed, and the errors met (a model error, a tool result marked as an error, a
    shell command that exited with a code other than 0), in the order of ``entries``."""
    notes = _NoteTaker()
    for entry in entries:
        notes.take(entry)
    return notes.notes


class _NoteTaker:
    """Gathers :class:`BranchNotes`, keeping the tool calls seen so far (a failed tool result
    names its call's subject, and marks its ``bash`` command as failed)."""

    def __init__(self) -> None:
        self.notes = BranchNotes()
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self.commands: dict[str, CommandNote] = {}

    def take(self, entry: Entry) -> None:
        if entry.type == "custom_message":
            self._prompt(entry, entry.get("content"))
            return
        if entry.type != "message":
            return
        message = entry.message
        if not isinstance(message, dict):
            return
        role = entry.role
        if role == "user":
            self._prompt(entry, message.get("content"))
        elif role == "assistant":
            self._assistant(entry, message)
        elif role == "toolResult" and message.get("isError") is True:
            self._failed_tool(entry, message)
        elif role == "bashExecution" and isinstance(message.get("command"), str):
            self._bash(entry, message)

    def _prompt(self, entry: Entry, content: Any) -> None:
        text = "\n".join(text_blocks(content))
        if text.strip():
            self.notes.prompts.append(Note(entry.id, text))

    def _assistant(self, entry: Entry, message: dict[str, Any]) -> None:
        for call_id, name, args in _tool_calls_with_ids(message):
            self.calls[call_id] = (name, args)
            if name == "bash" and isinstance(args.get("command"), str):
                command = CommandNote(entry.id, args["command"], True)
                self.notes.commands.append(command)
                if isinstance(call_id, str):
                    self.commands[call_id] = command
        text = "\n".join(text_blocks(message.get("content")))
        if text.strip():
            self.notes.answers.append(Note(entry.id, text))
        if message.get("stopReason") == "error":
            reason = message.get("errorMessage")
            self.notes.errors.append(
                Note(entry.id, f"model error: {_one_line(reason if isinstance(reason, str) else 'unknown')}")
            )

    def _failed_tool(self, entry: Entry, message: dict[str, Any]) -> None:
        name = message.get("toolName")
        call_id = message.get("toolCallId")
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        subject = _call_subject(call) if call else ""
        label = f"{name if isinstance(name, str) else 'tool'}{subject}"
        output = "\n".join(text_blocks(message.get("content")))
        self.notes.errors.append(Note(entry.id, f"{label}: {_one_line(output or 'failed')}"))
        command = self.commands.get(call_id) if isinstance(call_id, str) else None
        if command is not None:
            command.failed, command.result_id = True, entry.id

    def _bash(self, entry: Entry, message: dict[str, Any]) -> None:
        code = message.get("exitCode")
        command = CommandNote(entry.id, message["command"], False, result_id=entry.id)
        if message.get("cancelled") is True:
            command.outcome = " (cancelled)"
        elif isinstance(code, int) and code != 0:
            command.outcome, command.failed = f" (exit {code})", True
            self.notes.errors.append(Note(entry.id, f"`{_one_line(message['command'])}` exited with {code}"))
        self.notes.commands.append(command)


def branch_transcript(entries: list[Entry]) -> str:
    """The branch as pi shows it to its summarising model (``serializeConversation`` of what
    ``prepareBranchEntries`` keeps), without the prompt around it: a configured summarizer
    command's input."""
    return serialize_conversation(to_llm(prepare_branch(entries).messages))


def _tool_calls(message: Any) -> list[tuple[Any, dict[str, Any]]]:
    return [(name, args) for _, name, args in _tool_calls_with_ids(message)]


def _tool_calls_with_ids(message: Any) -> list[tuple[Any, Any, dict[str, Any]]]:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [
        (block.get("id"), block.get("name"), block["arguments"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("arguments"), dict)
    ]


def _call_subject(call: tuple[str, dict[str, Any]]) -> str:
    _, args = call
    for key in ("path", "command", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return f" {_one_line(value, 80)}"
    return ""


def _one_line(text: str, limit: int = DIGEST_LINE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _unique_notes(commands: list[CommandNote]) -> list[str]:
    return _unique([c.digest_line() for c in commands])


def _section(title: str, lines: list[str]) -> str:
    return f"## {title}\n" + "\n".join(lines) if lines else ""
