"""The conversation items' pi roles, for tests that compare the items with pi's context."""

from __future__ import annotations

from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ToolResult,
    UserMessage,
)

PI_ROLE = {
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolResult: "toolResult",
    BashExecution: "bashExecution",
    CustomMessage: "custom",
    BranchSummary: "branchSummary",
    CompactionSummary: "compactionSummary",
}
"""pi's ``role`` of the message each item shows."""
