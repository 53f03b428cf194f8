"""Context surgery: omitting, restoring or replacing an entry's part of the model's context, as
``context_edit`` entries pi 1.6 writes with ``appendContextEdit`` (reference pi-1.6.md F3, R8).

pi's model has two edits: ``replacement: null`` omits every message of the target, and
``replacement: {content}`` swaps their content; the latest edit on the path wins. So a
*restore* is an edit whose content is the target's own, as written (pi has no "un-edit"): the
file only grows, and pi reads the original back.

A tool call and its results stay together, as in pi's own omission of a failed attempt
(``AgentSession._omitRecoveryAttempt``): omitting an assistant message also omits the tool
results that answer its calls (those the model still sees after it, up to the next assistant
message), and so does replacing it (a note has no tool calls: a result left without its call
fails pi's next request). A tool result alone may be omitted or replaced: pi-ai answers a call
left without a result with a "No result provided" error result. Restoring an assistant message
restores its omitted results with it; a result is not restored while its call is out of the
context.

:func:`plan` says what an action would write (checked against what pi accepts, and refused with
a message for the user otherwise); :func:`write_plan` writes it through the manager.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from pitui.store.context import apply_edit, context_messages, edit_key, has_replacement
from pitui.store.context_size import estimate_tokens, format_tokens
from pitui.store.js import MISSING, js_trim
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.write.actions import ActionError
from pitui.store.write.manager import EDITABLE_ROLES, ContextEditError, EntryNotFoundError, SessionManager

__all__ = ["EditPlan", "describe", "plan", "plan_undo", "write_plan"]

OPERATIONS = ("omit", "restore", "replace", "toggle")


class EditPlan(Struct, frozen=True):
    """The ``context_edit`` entries one action writes, in order, and what it undoes to."""

    op: str  # "omit", "restore" or "replace"
    target: Entry  # the entry acted on
    edits: list[tuple[Entry, dict[str, Any] | None]]  # (target, replacement) to append
    # Each target's edit in force before (its ``replacement``; MISSING: none, as written).
    before: list[tuple[Entry, Any]] = field(default_factory=list)
    saved: int = 0  # the tokens the context loses (negative: gains), as pi's estimateTokens counts them

    def describe(self) -> str:
        """What it does, for the status line and the command line: ``Omitted tool result
        96d49450 from the context, ~412 tokens saved``."""
        verb = {"omit": "Omitted", "restore": "Restored", "replace": "Replaced"}[self.op]
        what = f"{verb} {kind(self.target)} {short(self.target.id)}"
        others = len(self.edits) - 1
        if others:
            results = f"{others} tool result{'s' if others != 1 else ''}"
            what += f" and its {results}" if self.op != "replace" else f" (and omitted its {results})"
        what += {"omit": " from the context", "restore": " in the context", "replace": " with a note"}[self.op]
        if self.saved > 0:
            what += f", ~{format_tokens(self.saved)} tokens saved"
        elif self.saved < 0:
            what += f", ~{format_tokens(-self.saved)} tokens more"
        return what


class _Context:
    """The model's context at the leaf, as far as the edits go: the selected entries in order
    and the latest selected edit aimed at each entry (pi's ``buildSessionProjection``)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.entries = session.context_entries()
        self.index = {id(e): i for i, e in enumerate(self.entries)}
        self.edits: dict[Any, Entry] = {}
        for entry in self.entries:
            if entry.type == "context_edit":
                key = edit_key(entry.get("targetId"))
                if key is not None:
                    self.edits[key] = entry

    def edit_of(self, entry: Entry) -> Entry | None:
        key = edit_key(entry.id)
        return self.edits.get(key) if key is not None else None

    def state(self, entry: Entry) -> str:
        """``"omitted"``, ``"replaced"`` or ``"as written"`` (no edit, an edit that puts the
        content back, or one pi cannot read, which changes nothing in pitui's reading)."""
        edit = self.edit_of(entry)
        if edit is None or not has_replacement(edit):
            return "as written"
        if edit.get("replacement") is None:
            return "omitted"
        original = context_messages(entry)
        return "as written" if apply_edit(original, edit) == original else "replaced"

    def in_force(self, entry: Entry) -> Any:
        """The replacement of the edit in force on ``entry`` (MISSING: none)."""
        edit = self.edit_of(entry)
        return edit.get("replacement") if edit is not None and has_replacement(edit) else MISSING

    def call_ids(self, entry: Entry) -> list[Any]:
        """The ids of an assistant message's tool calls, as written."""
        message = entry.message
        content = message.get("content") if type(message) is dict else None
        if type(content) is not list:
            return []
        return [b.get("id") for b in content if type(b) is dict and b.get("type") == "toolCall"]

    def results_of(self, assistant: Entry, omitted: bool) -> list[Entry]:
        """The tool results answering ``assistant``'s calls, after it up to the next assistant
        message the model sees (pi's rule): those the model sees (``omitted`` False), or those
        an edit omits (True)."""
        calls = set(filter(None, self.call_ids(assistant)))
        at = self.index.get(id(assistant))
        if not calls or at is None:
            return []
        found = []
        for entry in self.entries[at + 1 :]:
            if entry.type != "message":
                continue
            state = self.state(entry)
            if entry.role == "assistant" and state != "omitted":
                break
            if entry.role == "toolResult" and (state == "omitted") == omitted:
                message = entry.message
                if type(message) is dict and message.get("toolCallId") in calls:
                    found.append(entry)
        return found

    def call_of(self, result: Entry) -> Entry | None:
        """The assistant message before a tool result whose call it answers."""
        message = result.message
        call = message.get("toolCallId") if type(message) is dict else None
        at = self.index.get(id(result), 0)
        for entry in reversed(self.entries[:at]):
            if entry.type == "message" and entry.role == "assistant" and call in self.call_ids(entry):
                return entry
        return None


_ROLE_WORDS = {"toolResult": "tool result", "user": "user message", "assistant": "assistant message"}


def kind(entry: Entry) -> str:
    """An entry's kind in words."""
    if entry.type == "custom_message":
        return "custom message"
    if entry.type == "message":
        role = entry.role  # (any JSON value)
        words = _ROLE_WORDS.get(role) if type(role) is str else None
        return words or f"{role} message"
    return str(entry.type).replace("_", " ")


def short(entry_id: Any) -> str:
    return str(entry_id)[:8]


def check_editable(context: _Context, entry: Entry) -> None:
    """Refuse (:class:`ActionError`) an entry pi's ``appendContextEdit`` cannot edit, or one an
    edit would not change: not on the active branch, or summarised away by a compaction."""
    if entry.type == "message" and entry.role == "system":
        raise ActionError(
            f"{short(entry.id)} is a system message (the system prompt): context edits change only "
            "user, assistant, tool result and custom messages; nothing written"
        )
    if not (entry.type == "custom_message" or (entry.type == "message" and entry.role in EDITABLE_ROLES)):
        raise ActionError(
            f"{short(entry.id)} is a {kind(entry)} entry: context edits change only user, assistant, "
            "tool result and custom messages; nothing written"
        )
    if not any(e is entry for e in context.session.path_to()):
        raise ActionError(
            f"{short(entry.id)} is not on the active branch: an edit changes the context at the leaf "
            "(branch there first); nothing written"
        )
    if id(entry) not in context.index:
        raise ActionError(
            f"{short(entry.id)} is summarised by a compaction: the model no longer sees it; nothing written"
        )


def original_content(entry: Entry) -> Any:
    """The content an entry gives the model as written (a null content as pi reads it: [])."""
    source = entry.message if entry.type == "message" else entry.data
    content = source.get("content") if type(source) is dict else None
    return [] if content is None or content is MISSING else content


def plan(session: Session, entry: Entry, op: str, note: str | None = None) -> EditPlan:
    """What ``op`` (omit, restore, replace with ``note``, or toggle: omit, or restore an
    edited entry) on ``entry`` writes; :class:`ActionError` when it writes nothing."""
    context = _Context(session)
    check_editable(context, entry)
    state = context.state(entry)
    if op == "toggle":
        op = "omit" if state == "as written" else "restore"
    is_assistant = entry.type == "message" and entry.role == "assistant"
    edits: list[tuple[Entry, dict[str, Any] | None]]
    if op == "omit":
        if state == "omitted":
            raise ActionError(f"{short(entry.id)} is already omitted from the context: nothing written")
        results = context.results_of(entry, omitted=False) if is_assistant else []
        edits = [(e, None) for e in [entry, *results]]
    elif op == "replace":
        text = js_trim(note or "")
        if not text:
            raise ActionError("An empty note: nothing written (omit the entry instead)")
        results = context.results_of(entry, omitted=False) if is_assistant else []
        edits = [(entry, {"content": text}), *((e, None) for e in results)]
    elif op == "restore":
        if state == "as written":
            raise ActionError(f"{short(entry.id)} is in the context as written: nothing to restore")
        if entry.type == "message" and entry.role == "toolResult":
            call = context.call_of(entry)
            if call is not None and context.state(call) != "as written":
                raise ActionError(
                    f"The call of this tool result ({short(call.id)}) is out of the context: restore it "
                    "first (a result without its call fails pi's next request); nothing written"
                )
        results = context.results_of(entry, omitted=True) if is_assistant else []
        edits = [(e, {"content": original_content(e)}) for e in [entry, *results]]
    else:
        raise ValueError(f"unknown context edit {op!r}")
    return _made(context, op, entry, edits)


def _made(context: _Context, op: str, entry: Entry, edits: list[tuple[Entry, dict[str, Any] | None]]) -> EditPlan:
    """The plan, with what each target had in force and the tokens the edits save."""
    saved = 0
    for target, replacement in edits:
        original = context_messages(target)
        edit = context.edit_of(target)
        now = apply_edit(original, edit) if edit is not None and has_replacement(edit) else original
        then = apply_edit(original, Entry.from_data({"type": "context_edit", "replacement": replacement}))
        saved += sum(map(estimate_tokens, now)) - sum(map(estimate_tokens, then))
    return EditPlan(op, entry, edits, [(e, context.in_force(e)) for e, _ in edits], saved)


def plan_undo(session: Session, done: EditPlan, written: list[str]) -> EditPlan:
    """The edits that put ``done``'s targets back as they were before it (``written``: the ids
    of the edits it wrote); refused when one of them is not as ``done`` left it (edited again
    since, or the leaf moved away from the edits)."""
    context = _Context(session)
    edits: list[tuple[Entry, dict[str, Any] | None]] = []
    for (target, before), edit_id in zip(done.before, written, strict=True):
        ours = session.entry(edit_id)
        if ours is None or context.in_force(target) != ours.get("replacement"):
            raise ActionError(f"{short(target.id)} was edited again since (or the leaf moved): nothing undone")
        if before is MISSING:
            edits.append((target, {"content": original_content(target)}))
        else:
            edits.append((target, before))
    return _made(context, "restore", done.target, edits)


def write_plan(manager: SessionManager, edits: EditPlan) -> list[str]:
    """Append the plan's edits, one line each; the ids written."""
    written = []
    for target, replacement in edits.edits:
        try:
            written.append(manager.append_context_edit(target.id, replacement))
        except (ContextEditError, EntryNotFoundError) as error:
            done = f"{error}: nothing written" if not written else f"{error} (after {len(written)} written)"
            raise ActionError(done) from None
    return written


# ---------------------------------------------------------------------- a note's first line


def describe(session: Session, entry: Entry) -> str:
    """A one-line note saying what an entry held, to replace it with: ``[omitted: read
    src/x.py, 412 lines]``."""
    content = original_content(entry)
    text = _text_of(content)
    lines = text.count("\n") + 1 if text else 0
    size = f"{lines} line{'s' if lines != 1 else ''}"
    if entry.type == "message" and entry.role == "toolResult":
        message = entry.message if type(entry.message) is dict else {}
        what = _call_text(session, entry, message) or str(message.get("toolName") or "tool") + " result"
        return f"[omitted: {what}, {size}]"
    if entry.type == "message" and entry.role == "assistant":
        calls = (
            [_tool_call_text(b) for b in content if type(b) is dict and b.get("type") == "toolCall"]
            if type(content) is list
            else []
        )
        what = "assistant reply" + (f" calling {', '.join(calls[:3])}" if calls else "")
        if len(calls) > 3:
            what += f" and {len(calls) - 3} more"
        return f"[omitted: {what}, {size}]"
    if entry.type == "custom_message":
        return f"[omitted: {entry.get('customType') or 'custom'} message, {size}]"
    first = " ".join(text.split())[:60]
    return f"[omitted: user message “{first}”, {size}]" if first else f"[omitted: user message, {size}]"


def _text_of(content: Any) -> str:
    if type(content) is str:
        return content
    if type(content) is not list:
        return ""
    parts = []
    for block in content:
        if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str:
            parts.append(block["text"])
        elif type(block) is dict and block.get("type") == "thinking" and type(block.get("thinking")) is str:
            parts.append(block["thinking"])
    return "\n".join(parts)


def _tool_call_text(block: dict[str, Any]) -> str:
    """``read src/x.py``, ``bash ls -la``: a call's name and its main argument, short."""
    name = str(block.get("name") or "tool")
    args = block.get("arguments")
    if type(args) is dict:
        for key in ("path", "file_path", "command", "pattern", "query", "url"):
            value = args.get(key)
            if type(value) is str and value:
                one = " ".join(value.split())
                return f"{name} {one[:50]}{'…' if len(one) > 50 else ''}"
    return name


def _call_text(session: Session, result: Entry, message: dict[str, Any]) -> str | None:
    """The call a tool result answers, as :func:`_tool_call_text`, from the messages before it."""
    call_id = message.get("toolCallId")
    current = session.entry(result.parent_id)
    for _ in range(200):
        if current is None:
            return None
        if current.type == "message" and current.role == "assistant":
            content = current.message.get("content") if type(current.message) is dict else None
            for block in content if type(content) is list else []:
                if type(block) is dict and block.get("type") == "toolCall" and block.get("id") == call_id:
                    return _tool_call_text(block)
        current = session.entry(current.parent_id)
    return None
