"""The system prompt of a path, replayed from its ``system`` messages (pi 1.6).

Since pi 0.86 a session stores its system prompt and tool set as ``message`` entries with role
``system``: the first declares the prompt's sections and every tool, later ones patch them.
pi-ai's ``getCurrentSystemMessage`` (``utils/transcript.js``) replays them in order:

* a non-empty ``content`` text (a string, or the text blocks joined with ``"\\n"``) is appended
  to the prompt's base text, the parts joined with ``"\\n\\n"``;
* ``sections`` are set by name, and a ``null`` value deletes one (a JavaScript ``Map``: a name
  set again keeps its place, one deleted and set again goes last; as a JavaScript object,
  integer-like names come first, in numeric order);
* ``toolsRemoved`` (by ``name``) then ``toolsAdded`` update a name -> declaration map;
* the timestamp is the first one given; with no timestamp and no tools there is no prompt.

The prompt text is ``getSystemMessageText``: the base text, then each section's text, the
non-empty ones joined with ``"\\n\\n"``. :func:`path_system_prompt` gives the prompt at the end
of a path and, for each system message on it, what that message changed: plain data for the
session view (a folded block for the first, one-line changes such as ``+tool grep`` or
``-section skills`` for later ones, the wording of pi's HTML export).

Where pi would throw (content that is neither a string nor an array, a ``null`` block or tool,
tools that are not a list), the value is read as empty and the message's ``problem`` says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from msgspec import Struct, field

from pitui.store.js import MISSING, js_string
from pitui.store.reader import Session

__all__ = ["SystemChange", "SystemPrompt", "path_system_prompt", "replay_system"]


class SystemPrompt(Struct, frozen=True):
    """The system prompt in force: pi's replayed system message, and its text."""

    content: str  # the base text and every later instruction text, joined with blank lines
    sections: dict[str, Any]  # name -> text, in pi's order
    tools: dict[Any, Any]  # tool name -> declaration (as the file has it), in pi's order
    timestamp: Any  # the first system message's timestamp (ms), else 0

    @property
    def text(self) -> str:
        """``getSystemMessageText``: what the model is given as its system prompt."""
        parts = [self.content, *(_section_text(v) for v in self.sections.values() if v is not None)]
        return "\n\n".join(part for part in parts if part)

    @property
    def tool_names(self) -> list[str]:
        return [js_string(name) for name in self.tools]


class SystemChange(Struct, frozen=True):
    """What one system message on a path changed."""

    entry_id: Any
    first: bool  # the first system message on the path: the prompt as declared (pi's "system prompt")
    instructions: str  # its own content text ("" when none)
    sections_set: tuple[str, ...]
    sections_removed: tuple[str, ...]
    tools_added: tuple[str, ...]
    tools_removed: tuple[str, ...]
    size: int  # the length of its line in the file, in bytes (0 when not known)
    problem: str | None = None  # why pi could not replay it, if it could not

    @property
    def lines(self) -> list[str]:
        """One short line per change: ``instructions``, ``section rules``, ``-section skills``,
        ``+tool grep``, ``-tool bash`` (a tool re-declared is ``-tool x`` then ``+tool x``)."""
        out = ["instructions"] if self.instructions else []
        out += [f"section {name}" for name in self.sections_set]
        out += [f"-section {name}" for name in self.sections_removed]
        out += [f"-tool {name}" for name in self.tools_removed]
        out += [f"+tool {name}" for name in self.tools_added]
        return out


class PathSystem(Struct, frozen=True):
    """The prompt at the end of a path, and each system message on it in path order."""

    prompt: SystemPrompt | None
    changes: list[SystemChange] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# JavaScript's view of the values


def _section_text(value: Any) -> str:
    """A section's value where ``getSystemMessageText`` keeps it: a non-empty string (an array
    is kept too, as ``String(array)``); anything without a length is dropped."""
    if type(value) is str:
        return value
    if type(value) is list:
        return js_string(value) if value else ""
    return ""


def _is_index(name: str) -> bool:
    return name.isdigit() and name.isascii() and (name == "0" or name[0] != "0") and int(name) < 2**32 - 1


def _object_order(names: Iterable[str]) -> list[str]:
    """A JavaScript object's key order: integer-like names first, ascending, then the rest."""
    names = list(names)
    return sorted((n for n in names if _is_index(n)), key=int) + [n for n in names if not _is_index(n)]


def _entries(value: Any) -> list[tuple[str, Any]]:
    """``Object.entries(value ?? {})``."""
    if type(value) is dict:
        return [(name, value[name]) for name in _object_order(value)]
    if type(value) is list:
        return [(str(i), v) for i, v in enumerate(value)]
    if type(value) is str:
        return [(str(i), c) for i, c in enumerate(value)]
    return []


def _content_text(content: Any) -> tuple[str, str | None]:
    """pi-ai's ``contentText``, and what pi would throw on instead."""
    if type(content) is str:
        return content, None
    if type(content) is not list:
        what = "undefined" if content is MISSING else "null" if content is None else None
        if what is not None:
            return "", f"Cannot read properties of {what} (reading 'filter')"
        return "", "content.filter is not a function"
    if any(block is None for block in content):
        return "", "Cannot read properties of null (reading 'type')"
    texts = [b.get("text", MISSING) for b in content if type(b) is dict and b.get("type") == "text"]
    return "\n".join("" if t is None or t is MISSING else js_string(t) for t in texts), None


def _tool_key(tool: Any) -> Any:
    """``tool.name`` as a Map key (JavaScript keeps 1 and "1" apart; Python would not)."""
    name = tool.get("name", MISSING) if type(tool) is dict else MISSING
    return name if type(name) is str else ("\0", type(name).__name__, repr(name))


def _tools(value: Any) -> tuple[list[Any], str | None]:
    """``for (const tool of value ?? [])``: the tools, and what pi would throw on instead."""
    if value is None or value is MISSING:
        return [], None
    if type(value) is str:
        return list(value), None
    if type(value) is not list:
        return [], "tools are not iterable"
    if any(tool is None for tool in value):
        return [t for t in value if t is not None], "Cannot read properties of null (reading 'name')"
    return value, None


def _name(key: Any) -> str:
    return key if type(key) is str else key[2]


# --------------------------------------------------------------------------------------------
# Replay


class _Replay:
    def __init__(self) -> None:
        self.content: list[str] = []
        self.sections: dict[str, Any] = {}
        self.tools: dict[Any, Any] = {}
        self.timestamp: Any = MISSING

    def feed(self, message: dict[str, Any]) -> tuple[str, list[str], list[str], list[str], list[str], str | None]:
        if self.timestamp is MISSING or self.timestamp is None:
            self.timestamp = message.get("timestamp", MISSING)
        text, problem = _content_text(message.get("content", MISSING))
        if text:
            self.content.append(text)
        set_names: list[str] = []
        removed_sections: list[str] = []
        sections = message.get("sections", MISSING)
        for name, value in _entries(sections if sections is not None else MISSING):
            if value is None:
                self.sections.pop(name, None)
                removed_sections.append(name)
            else:
                self.sections[name] = value
                set_names.append(name)
        removed, problem_removed = _tools(message.get("toolsRemoved", MISSING))
        added, problem_added = _tools(message.get("toolsAdded", MISSING))
        for tool in removed:
            self.tools.pop(_tool_key(tool), None)
        for tool in added:
            self.tools[_tool_key(tool)] = tool
        removed_names = [_name(_tool_key(t)) for t in removed]
        added_names = [_name(_tool_key(t)) for t in added]
        return (
            text,
            set_names,
            removed_sections,
            removed_names,
            added_names,
            problem or problem_removed or problem_added,
        )

    def result(self) -> SystemPrompt | None:
        if (self.timestamp is MISSING or self.timestamp is None) and not self.tools:
            return None
        sections = {name: self.sections[name] for name in _object_order(self.sections)}
        timestamp = 0 if self.timestamp is MISSING or self.timestamp is None else self.timestamp
        return SystemPrompt("\n\n".join(self.content), sections, dict(self.tools), timestamp)


def _is_system(message: Any) -> bool:
    return type(message) is dict and message.get("role") == "system"


def replay_system(messages: Iterable[Any]) -> SystemPrompt | None:
    """pi-ai's ``getCurrentSystemMessage(messages)``: the system messages among ``messages``
    (message objects, in order) replayed into one; None when pi gives ``undefined``."""
    replay = _Replay()
    for message in messages:
        if _is_system(message):
            replay.feed(message)
    return replay.result()


def path_system_prompt(session: Session, entry_id: Any = MISSING) -> PathSystem:
    """The system messages on the path root..``entry_id`` (left out: the leaf) replayed, with
    what each changed. The raw path is replayed (every system message on it, compacted ones
    too); pi's context after a compaction starts from the compaction's ``systemMessage``
    checkpoint instead, which is the same prompt when pi wrote the file."""
    replay = _Replay()
    changes: list[SystemChange] = []
    path: Sequence[Any] = session.path_to(entry_id) if entry_id is not None else []
    for entry in path:
        if entry.type != "message" or entry.role != "system":
            continue
        message = entry.message
        if not _is_system(message):
            continue
        text, set_names, removed_sections, removed, added, problem = replay.feed(message)
        changes.append(
            SystemChange(
                entry.id,
                not changes,
                text,
                tuple(set_names),
                tuple(removed_sections),
                tuple(added),
                tuple(removed),
                max(entry.length, 0),
                problem,
            )
        )
    return PathSystem(replay.result(), changes)
