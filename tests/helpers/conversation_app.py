"""The conversation pane alone in an app, and items of every kind to show in it (no files)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ImagePart,
    Item,
    OtherMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    Usage,
    UserMessage,
)
from pitui.ui.widgets.conversation.view import ConversationView

USAGE = Usage(input=1_200, output=345, cache_read=20_000, cache_write=512, total_tokens=22_057, cost=0.0421)
OUTPUT = "\n".join(f"output line {n}" for n in range(1, 21))


def user(entry_id: str, text: str) -> UserMessage:
    return UserMessage(entry_id, (TextPart(text),))


def assistant(entry_id: str, *parts: Any, **fields: Any) -> AssistantMessage:
    fields.setdefault("provider", "anthropic")
    fields.setdefault("model", "claude-sonnet-4-5")
    fields.setdefault("usage", USAGE)
    return AssistantMessage(entry_id, tuple(TextPart(p) if isinstance(p, str) else p for p in parts), **fields)


def chat(count: int) -> list[Item]:
    """``count`` alternating user and assistant messages, ``m000``, ``m001``..."""
    return [
        user(f"m{n:03d}", f"message {n}") if n % 2 == 0 else assistant(f"m{n:03d}", f"answer {n}") for n in range(count)
    ]


EVERY_KIND: list[Item] = [
    UserMessage("u1", (TextPart("Why do cache entries never expire?"), ImagePart("image/png", 12_300))),
    assistant(
        "a1",
        ThinkingPart("The TTL logic is in the cache module.\nRead it first."),
        "I'll **read** the cache module.",
        ToolCallPart("call1", "read", {"path": "src/cache.py"}),
    ),
    ToolResult("t1", "read", (TextPart(OUTPUT),), tool_call_id="call1"),
    ToolResult("t2", "edit", (TextPart("oldText not found"),), is_error=True),
    BashExecution("b1", "pytest -q", "3 failed, 9 passed\n", exit_code=1, truncated=True),
    CustomMessage("c1", "todo", (TextPart("remember the README"),), display=False),
    BranchSummary("s1", "Tried a **monotonic** clock first; abandoned.", "e0000004"),
    CompactionSummary("k1", "## Goal\nFix the cache.", 48_210, ("r1", "r2")),
    OtherMessage("d1", "developer", (TextPart("be brief"),)),
]
REPLACED: dict[Any, list[Item]] = {"k1": [user("r1", "the first question"), assistant("r2", "the first answer")]}


class ViewApp(App[None]):
    def __init__(
        self, items: list[Item] | None = None, *, anchor: Any = None, replaced: dict[Any, list[Item]] | None = None
    ) -> None:
        super().__init__()
        self.initial = items or []
        self.anchor = anchor
        self.replaced = REPLACED if replaced is None else replaced
        self.highlighted: list[Any] = []
        self.requested: list[Any] = []

    def compose(self) -> ComposeResult:
        yield ConversationView()

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        view = self.query_one(ConversationView)
        view.show(self.initial, anchor_entry_id=self.anchor)
        view.focus()

    def on_conversation_view_highlighted(self, event: ConversationView.Highlighted) -> None:
        self.highlighted.append(event.entry_id)

    def on_conversation_view_replaced_requested(self, event: ConversationView.ReplacedRequested) -> None:
        self.requested.append(event.entry_id)
        event.view.set_replaced(event.entry_id, self.replaced.get(event.entry_id, []))
