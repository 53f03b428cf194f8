"""What a branch being left holds, for its summary: pi's rules for which entries, made without a model.

When the leaf moves, pi summarises the *abandoned* entries: from the old leaf back to the
deepest entry it shares with the chosen one (``collectEntriesForBranchSummary``). pitui offers
two texts of them:

- :func:`branch_digest`, Markdown the user edits into a summary: the prompts, the files read
  and changed, the commands run and the errors met;
- :func:`branch_transcript`, the branch as pi serialises it for its summarising model
  (``serializeConversation``), fed to a summarizer command the user configured.

:func:`file_lists` gives the ``details`` pi stores with a summary (``readFiles`` and
``modifiedFiles``), so pi's cumulative file tracking carries on across pitui's summaries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pitui.store.content import extract_user_message_text, text_blocks
from pitui.store.js import MISSING
from pitui.store.jsonl import dumps
from pitui.store.model import Entry
from pitui.store.reader import Session

__all__ = [
    "FileLists",
    "abandoned_entries",
    "branch_digest",
    "branch_transcript",
    "file_lists",
    "format_file_operations",
]

# pi's constants (core/messages.js, core/compaction/utils.js).
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
# A transcript keeps the newest messages that fit: about pi's budget for a 128k-token model
# (pi estimates four characters a token).
TRANSCRIPT_MAX_CHARS = (128_000 - 16_384) * 4
# The digest is for a person to edit: long prompts and errors are cut.
DIGEST_LINE_CHARS = 200


def abandoned_entries(session: Session, old_leaf: Any, target_id: Any) -> list[Entry]:
    """The entries left behind when the leaf moves from ``old_leaf`` to ``target_id``, oldest
    first: pi's ``collectEntriesForBranchSummary`` (none when there is no old leaf).

    pi builds both paths from the root; here both are walked up from their ends in turns until
    one reaches an entry the other passed, their deepest common entry, so the cost is the size
    of the branch, not the depth of the session.
    """
    by_id = session.by_id
    old = by_id.get(old_leaf) if old_leaf is not None and old_leaf is not MISSING else None
    if old is None:
        return []
    target = by_id.get(target_id) if target_id is not None else None
    walkers: list[Entry | None] = [old, target]
    seen: list[dict[int, Entry]] = [{}, {}]
    common: Entry | None = None
    while common is None and (walkers[0] is not None or walkers[1] is not None):
        for side in (0, 1):
            entry = walkers[side]
            if entry is None:
                continue
            key = id(entry)
            if key in seen[1 - side]:
                common = entry
                break
            if key in seen[side]:  # a parentId cycle: this path ends here
                walkers[side] = None
                continue
            seen[side][key] = entry
            parent = entry.parent_id
            walkers[side] = by_id.get(parent) if parent is not None and parent is not MISSING else None
    left: list[Entry] = []
    entry = old
    visited: set[int] = set()
    while entry is not None and entry is not common and id(entry) not in visited:
        visited.add(id(entry))
        left.append(entry)
        parent = entry.parent_id
        entry = by_id.get(parent) if parent is not None and parent is not MISSING else None
    left.reverse()
    return left


@dataclass(frozen=True, slots=True)
class FileLists:
    read: tuple[str, ...]  # read and never changed
    modified: tuple[str, ...]  # written or edited

    def details(self) -> dict[str, list[str]]:
        """The ``details`` of a ``branch_summary`` entry, as pi writes them."""
        return {"readFiles": list(self.read), "modifiedFiles": list(self.modified)}


def file_lists(entries: Iterable[Entry]) -> FileLists:
    """Files read and changed in these entries: the ``read``/``write``/``edit`` tool calls of
    assistant messages, and the lists of earlier summaries pi made (pi's ``prepareBranchEntries``)."""
    read: set[str] = set()
    modified: set[str] = set()
    for entry in entries:
        if entry.type == "branch_summary":
            details = entry.get("details")
            if not entry.get("fromHook") and isinstance(details, dict):
                read.update(f for f in _strings(details.get("readFiles")))
                modified.update(f for f in _strings(details.get("modifiedFiles")))
        elif entry.type == "message" and entry.role == "assistant":
            for name, args in _tool_calls(entry.message):
                path = args.get("path")
                if not isinstance(path, str) or not path:
                    continue
                if name == "read":
                    read.add(path)
                elif name in ("write", "edit"):
                    modified.add(path)
    return FileLists(tuple(sorted(read - modified)), tuple(sorted(modified)))


def format_file_operations(files: FileLists) -> str:
    """pi's ``<read-files>``/``<modified-files>`` trailer of a generated summary ('' when none)."""
    sections = []
    if files.read:
        sections.append("<read-files>\n" + "\n".join(files.read) + "\n</read-files>")
    if files.modified:
        sections.append("<modified-files>\n" + "\n".join(files.modified) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


def branch_digest(entries: list[Entry]) -> str:
    """A Markdown starting point for a branch summary: what was asked, which files were read and
    changed, which commands ran, what failed. Made from the entries alone, without a model."""
    notes = _DigestNotes()
    for entry in entries:
        notes.take(entry)
    files = file_lists(entries)
    parts = ["The user explored another branch before coming back here."]
    parts.append(_section("Prompts", [f"{n}. {p}" for n, p in enumerate(notes.prompts, 1)]))
    parts.append(_section("Files read", [f"- {f}" for f in files.read]))
    parts.append(_section("Files changed", [f"- {f}" for f in files.modified]))
    parts.append(_section("Commands", [f"- {c}" for c in _unique(notes.commands)]))
    parts.append(_section("Errors", [f"- {e}" for e in _unique(notes.errors)]))
    parts.append("## Outcome\n- ")
    return "\n\n".join(p for p in parts if p)


class _DigestNotes:
    """What :func:`branch_digest` gathers, entry by entry: prompts, commands and errors, and the
    tool calls seen so far (a failed tool result names its call's subject)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.commands: list[str] = []
        self.errors: list[str] = []
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}

    def take(self, entry: Entry) -> None:
        if entry.type == "custom_message":
            self._prompt(entry.get("content"))
            return
        if entry.type != "message":
            return
        message = entry.message
        if not isinstance(message, dict):
            return
        role = entry.role
        if role == "user":
            self._prompt(message.get("content"))
        elif role == "assistant":
            self._assistant(message)
        elif role == "toolResult" and message.get("isError") is True:
            self._failed_tool(message)
        elif role == "bashExecution" and isinstance(message.get("command"), str):
            self._bash(message)

    def _prompt(self, content: Any) -> None:
        text = "\n".join(text_blocks(content))
        if text.strip():
            self.prompts.append(_one_line(text))

    def _assistant(self, message: dict[str, Any]) -> None:
        for call_id, name, args in _tool_calls_with_ids(message):
            self.calls[call_id] = (name, args)
            if name == "bash" and isinstance(args.get("command"), str):
                self.commands.append(f"`{_one_line(args['command'])}`")
        if message.get("stopReason") == "error":
            reason = message.get("errorMessage")
            self.errors.append(f"model error: {_one_line(reason if isinstance(reason, str) else 'unknown')}")

    def _failed_tool(self, message: dict[str, Any]) -> None:
        name = message.get("toolName")
        call_id = message.get("toolCallId")
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        subject = _call_subject(call) if call else ""
        label = f"{name if isinstance(name, str) else 'tool'}{subject}"
        output = "\n".join(text_blocks(message.get("content")))
        self.errors.append(f"{label}: {_one_line(output or 'failed')}")

    def _bash(self, message: dict[str, Any]) -> None:
        code = message.get("exitCode")
        line = f"`{_one_line(message['command'])}`"
        if message.get("cancelled") is True:
            line += " (cancelled)"
        elif isinstance(code, int) and code != 0:
            line += f" (exit {code})"
            self.errors.append(f"`{_one_line(message['command'])}` exited with {code}")
        self.commands.append(line)


def branch_transcript(entries: list[Entry], max_chars: int = TRANSCRIPT_MAX_CHARS) -> str:
    """The branch as pi shows it to its summarising model (``serializeConversation`` of the
    entries' messages, tool results left to their calls), the newest messages that fit."""
    parts: list[str] = []
    used = 0
    for entry in reversed(entries):
        block = _serialize(entry)
        if not block:
            continue
        if used + len(block) > max_chars and parts:
            break
        parts.append(block)
        used += len(block) + 2
    parts.reverse()
    return "\n\n".join(parts)


# -- helpers ---------------------------------------------------------------------------------------


def _serialize(entry: Entry) -> str:
    kind = entry.type
    if kind == "message":
        message = entry.message
        if not isinstance(message, dict):
            return ""
        role = entry.role
        if role == "user":
            text = extract_user_message_text(message.get("content"))
            return f"[User]: {text}" if text else ""
        if role == "assistant":
            return _serialize_assistant(message)
        if role == "bashExecution":
            if message.get("excludeFromContext") is True:
                return ""
            return f"[User]: {_bash_text(message)}"
        return ""  # tool results: their calls carry the context (pi's getMessageFromEntry)
    if kind == "custom_message":
        text = extract_user_message_text(entry.get("content"))
        return f"[User]: {text}" if text else ""
    if kind == "branch_summary":
        summary = entry.get("summary")
        return f"[User]: {BRANCH_SUMMARY_PREFIX}{summary if isinstance(summary, str) else ''}{BRANCH_SUMMARY_SUFFIX}"
    if kind == "compaction":
        summary = entry.get("summary")
        return (
            f"[User]: {COMPACTION_SUMMARY_PREFIX}{summary if isinstance(summary, str) else ''}"
            f"{COMPACTION_SUMMARY_SUFFIX}"
        )
    return ""


def _serialize_assistant(message: dict[str, Any]) -> str:
    content = message.get("content")
    if not isinstance(content, list):
        return ""
    texts, thinking, calls = [], [], []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "toolCall":
            args = block.get("arguments")
            shown = ", ".join(f"{k}={_stringify(v)}" for k, v in args.items()) if isinstance(args, dict) else ""
            calls.append(f"{block.get('name')}({shown})")
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return "\n\n".join(parts)


def _bash_text(message: dict[str, Any]) -> str:
    """pi's ``bashExecutionToText``."""
    text = f"Ran `{message.get('command')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if isinstance(output, str) and output else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled") is True:
        text += "\n\n(command cancelled)"
    elif isinstance(code, int | float) and not isinstance(code, bool) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    return text


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


def _section(title: str, lines: list[str]) -> str:
    return f"## {title}\n" + "\n".join(lines) if lines else ""


def _stringify(value: Any) -> str:
    """``JSON.stringify(value)``, as pi's ``serializeConversation`` writes a tool call's
    arguments ("null" for what JSON cannot hold)."""
    try:
        return dumps(value).decode()
    except (TypeError, ValueError):
        return "null"
