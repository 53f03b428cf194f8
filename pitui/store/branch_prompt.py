"""What a model is given to summarise an abandoned branch, and how its answer is written: pi
1.6.0's ``prepareBranchEntries``, ``convertToLlm``, ``serializeConversation`` and the finishing
of ``generateBranchSummary`` (core/compaction/branch-summarization.ts, utils.ts, messages.ts).

- :func:`prepare_branch`: the entries' messages, newest first until the token budget is spent
  (a summary entry squeezed in while under 90 % of it), each as the latest ``context_edit``
  among the entries left it; and the files read and changed;
- :func:`serialize_conversation`: those messages as the ``[User]:`` / ``[Assistant]:`` /
  ``[Assistant tool calls]:`` text pi feeds its summarising model (thinking left out);
- :func:`branch_prompt`: that text inside ``<conversation>`` tags, then pitui's instructions
  (the structure of pi's: goal, constraints, progress, decisions, next steps), a custom prompt
  added as "additional focus";
- :func:`finish_summary`: the model's answer as pi stores it (its preamble, then the text,
  then the ``<read-files>``/``<modified-files>`` trailer).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from msgspec import Struct

from pitui.store.context import apply_edit, context_messages, edit_key, edit_map, has_replacement
from pitui.store.js import js_head, js_len, js_string, js_truthy
from pitui.store.jsonl import dumps
from pitui.store.model import Entry

__all__ = [
    "BRANCH_SUMMARY_PREAMBLE",
    "NO_CONTENT_SUMMARY",
    "SUMMARY_SYSTEM_PROMPT",
    "BranchPreparation",
    "BranchPrompt",
    "FileLists",
    "branch_prompt",
    "estimate_tokens",
    "file_lists",
    "finish_summary",
    "format_file_operations",
    "prepare_branch",
    "serialize_conversation",
    "to_llm",
]

# pi's budget: the model's window (128k when unknown, as pitui never knows the user's model)
# less ``branchSummary.reserveTokens`` (16384 by default).
CONTEXT_WINDOW = 128_000
RESERVE_TOKENS = 16_384
TOKEN_BUDGET = CONTEXT_WINDOW - RESERVE_TOKENS
TOOL_RESULT_MAX_CHARS = 2000  # serializeConversation's cut of a tool result
IMAGE_CHARS = 4800  # estimateTokens counts an image as this many characters

# What pi puts before a model's summary, and writes when the branch holds no message: part of
# the summary as pi stores it, so kept word for word.
BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)
NO_CONTENT_SUMMARY = "No content to summarize"
# pi's wrappers of earlier summaries in a transcript (core/messages.ts).
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"

# pitui's words, in the structure of pi's own summarisation prompts.
SUMMARY_SYSTEM_PROMPT = (
    "You summarise a conversation between a user and an AI coding assistant so that the work "
    "can be picked up later. The conversation is given to you as text: do not continue it, do "
    "not answer anything asked in it, and use no tools. Reply with the summary alone, in the "
    "format you are asked for."
)
SUMMARY_INSTRUCTIONS = """Summarise the conversation above: a branch the user is leaving, so that the work can
resume without it. Keep to this format:

## Goal
[What the user set out to do on this branch]

## Constraints & Preferences
- [Requirements, limits and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [What was finished: changes made, questions answered]

### In Progress
- [ ] [What was started and left unfinished]

### Blocked
- [What stood in the way, if anything]

## Key Decisions
- **[Decision]**: [Why it was taken]

## Next Steps
1. [What to do next to carry the work on]

Be brief in every section. Quote file paths, function names and error messages exactly."""


class FileLists(Struct, frozen=True):
    read: tuple[str, ...]  # read and never changed
    modified: tuple[str, ...]  # written or edited

    def details(self) -> dict[str, list[str]]:
        """The ``details`` of a ``branch_summary`` entry, as pi writes them."""
        return {"readFiles": list(self.read), "modifiedFiles": list(self.modified)}


class BranchPreparation(Struct, frozen=True):
    messages: list[dict[str, Any]]  # pi's AgentMessages, oldest first
    files: FileLists
    tokens: int  # estimated tokens of the messages kept (0 with no budget: not counted)


class BranchPrompt(Struct, frozen=True):
    text: str | None  # what the model is given; None: nothing to summarise (pi asks no model)
    files: FileLists


def prepare_branch(entries: Sequence[Entry], token_budget: int = TOKEN_BUDGET) -> BranchPreparation:
    """``prepareBranchEntries``: the messages of ``entries`` (oldest first) that fit in
    ``token_budget`` estimated tokens (0: no limit), and the files they read and changed (with
    those of earlier summaries pi made, whatever the budget)."""
    read: set[str] = set()
    modified: set[str] = set()
    for entry in entries:
        details = entry.get("details") if entry.type == "branch_summary" else None
        if isinstance(details, dict) and not js_truthy(entry.get("fromHook")):
            read.update(_strings(details.get("readFiles")))
            modified.update(_strings(details.get("modifiedFiles")))
    edits = edit_map(entries)  # pi honours the latest edit per target among the branch's entries
    messages: list[dict[str, Any]] = []
    total = 0
    for entry in reversed(entries):
        key = edit_key(entry.id) if edits else None
        message = _message_of(entry, edits.get(key) if key is not None else None)
        if message is None:
            continue
        _file_ops(message, read, modified)
        if token_budget <= 0:  # no budget: every message is kept, none needs its size
            messages.append(message)
            continue
        tokens = estimate_tokens(message)
        if total + tokens > token_budget:
            if entry.type in ("compaction", "branch_summary") and total < token_budget * 0.9:
                messages.append(message)
                total += tokens
            break
        messages.append(message)
        total += tokens
    messages.reverse()
    return BranchPreparation(messages, FileLists(tuple(sorted(read - modified)), tuple(sorted(modified))), total)


def file_lists(entries: Iterable[Entry]) -> FileLists:
    """The files a branch read and changed, over all its entries (no budget)."""
    return prepare_branch(list(entries), 0).files


def _message_of(entry: Entry, edit: Entry | None) -> dict[str, Any] | None:
    """``getMessageFromEntry``: tool results left to their calls, edits applied."""
    kind = entry.type
    if kind == "message":
        message = entry.message
        if not isinstance(message, dict) or message.get("role") == "toolResult":
            return None
        if edit is None:
            return message
    elif kind == "custom_message":
        if edit is None:
            return _first(context_messages(entry))
    elif kind == "branch_summary":
        return {"role": "branchSummary", "summary": entry.get("summary"), "fromId": entry.get("fromId")}
    elif kind == "compaction":
        return {"role": "compactionSummary", "summary": entry.get("summary"), "tokensBefore": entry.get("tokensBefore")}
    else:
        return None
    assert edit is not None
    original = context_messages(entry)
    return _first(apply_edit(original, edit) if has_replacement(edit) else original)


def _first(messages: list[Any]) -> dict[str, Any] | None:
    return messages[0] if messages and isinstance(messages[0], dict) else None


def _file_ops(message: dict[str, Any], read: set[str], modified: set[str]) -> None:
    """``extractFileOpsFromMessage`` for an assistant message: ``read``, ``write`` and ``edit``
    calls with a ``path``."""
    if message.get("role") != "assistant":
        return
    for block in _blocks(message.get("content")):
        if block.get("type") != "toolCall":
            continue
        args = block.get("arguments")
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or not path:
            continue
        name = block.get("name")
        if name == "read":
            read.add(path)
        elif name in ("write", "edit"):
            modified.add(path)


def estimate_tokens(message: dict[str, Any]) -> int:
    """``estimateTokens``: a message's characters (UTF-16 units) over four, rounded up."""
    role = message.get("role")
    chars = 0
    if role == "system":
        chars = _content_chars(message.get("content"))
        sections = message.get("sections")
        if isinstance(sections, dict):
            chars += sum(js_len(s) for s in sections.values() if isinstance(s, str) and s)
        if js_truthy(message.get("toolsAdded")):
            chars += js_len(_stringify(message.get("toolsAdded")))
    elif role in ("user", "custom", "toolResult"):
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "text":
                chars += js_len(js_string(block.get("text")))
            elif kind == "thinking":
                chars += js_len(js_string(block.get("thinking")))
            elif kind == "toolCall":
                chars += js_len(js_string(block.get("name"))) + js_len(_stringify(block.get("arguments")))
    elif role == "bashExecution":
        chars = js_len(js_string(message.get("command"))) + js_len(js_string(message.get("output")))
    elif role in ("branchSummary", "compactionSummary"):
        chars = js_len(js_string(message.get("summary")))
    return math.ceil(chars / 4)


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return js_len(content)
    chars = 0
    for block in _blocks(content):
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            chars += js_len(block["text"])
        elif block.get("type") == "image":
            chars += IMAGE_CHARS
    return chars


def to_llm(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``convertToLlm``: shell commands, custom messages and summaries become user messages; a
    command run with ``!!`` (kept out of the context) is dropped."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "bashExecution":
            if not js_truthy(message.get("excludeFromContext")):
                out.append(_user(_bash_text(message)))
        elif role == "custom":
            content = message.get("content")
            out.append(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": content}] if isinstance(content, str) else content,
                }
            )
        elif role == "branchSummary":
            out.append(_user(BRANCH_SUMMARY_PREFIX + js_string(message.get("summary")) + BRANCH_SUMMARY_SUFFIX))
        elif role == "compactionSummary":
            out.append(_user(COMPACTION_SUMMARY_PREFIX + js_string(message.get("summary")) + COMPACTION_SUMMARY_SUFFIX))
        elif role in ("system", "user", "assistant", "toolResult"):
            out.append(message)
    return out


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _bash_text(message: dict[str, Any]) -> str:
    """``bashExecutionToText``."""
    text = f"Ran `{js_string(message.get('command'))}`\n"
    output = message.get("output")
    text += f"```\n{js_string(output)}\n```" if js_truthy(output) else "(no output)"
    code = message.get("exitCode")
    if js_truthy(message.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif code is not None and not (type(code) in (int, float) and code == 0):
        text += f"\n\nCommand exited with code {js_string(code)}"
    if js_truthy(message.get("truncated")) and js_truthy(message.get("fullOutputPath")):
        text += f"\n\n[Output truncated. Full output: {js_string(message.get('fullOutputPath'))}]"
    return text


def serialize_conversation(messages: Iterable[dict[str, Any]]) -> str:
    """``serializeConversation``: user text, the assistant's text and tool calls (thinking left
    out), tool results cut at 2000 characters; blocks apart by a blank line."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            text = _content_text(content, "")
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = _blocks(content)
            calls = []
            for block in blocks:
                if block.get("type") == "toolCall":
                    args = block.get("arguments")
                    shown = ", ".join(f"{k}={_stringify(v)}" for k, v in args.items()) if isinstance(args, dict) else ""
                    calls.append(f"{js_string(block.get('name'))}({shown})")
            if any(block.get("type") == "text" for block in blocks):
                parts.append(f"[Assistant]: {_content_text(content, chr(10))}")
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif role == "toolResult":
            text = _content_text(content, "")
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


def _content_text(content: Any, separator: str) -> str:
    """pi-ai's ``contentText``: a string as is, else the text blocks' texts joined."""
    if isinstance(content, str):
        return content
    return separator.join(js_string(b.get("text")) for b in _blocks(content) if b.get("type") == "text")


def _truncate(text: str, limit: int) -> str:
    if js_len(text) <= limit:
        return text
    head = js_head(text, limit)
    if head and "\ud800" <= head[-1] <= "\udbff":  # sliceHead splits no surrogate pair
        head = head[:-1]
    return f"{head}\n\n[... {js_len(text) - limit} more characters truncated]"


def branch_prompt(entries: Sequence[Entry], focus: str | None = None, token_budget: int = TOKEN_BUDGET) -> BranchPrompt:
    """What the summarising model is given for ``entries``: the conversation in
    ``<conversation>`` tags, then the instructions, ``focus`` (a custom prompt) added to them
    as "Additional focus"."""
    prepared = prepare_branch(entries, token_budget)
    if not prepared.messages:
        return BranchPrompt(None, FileLists((), ()))  # pi: "No content to summarize", no lists
    conversation = serialize_conversation(to_llm(prepared.messages))
    instructions = SUMMARY_INSTRUCTIONS
    if focus:
        instructions += f"\n\nAdditional focus: {focus}"
    return BranchPrompt(f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}", prepared.files)


def finish_summary(answer: str | None, files: FileLists) -> str:
    """The summary as pi writes it: its preamble, the model's ``answer``, then the file lists
    (``answer`` None: the branch held nothing to summarise)."""
    if answer is None:
        return NO_CONTENT_SUMMARY
    return BRANCH_SUMMARY_PREAMBLE + answer + format_file_operations(files)


def format_file_operations(files: FileLists) -> str:
    """``formatFileOperations``: the ``<read-files>``/``<modified-files>`` trailer ('' when none)."""
    sections = []
    if files.read:
        sections.append("<read-files>\n" + "\n".join(files.read) + "\n</read-files>")
    if files.modified:
        sections.append("<modified-files>\n" + "\n".join(files.modified) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _stringify(value: Any) -> str:
    """``JSON.stringify(value)`` ("undefined" spelt as pi's template string would)."""
    try:
        return dumps(value).decode()
    except (TypeError, ValueError):
        return "undefined"
