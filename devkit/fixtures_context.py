# ruff: noqa: E501  (fixture text is data)
"""The fixtures of pi 1.6.0's reading rules: system messages, ``usage`` and ``context_edit``
entries, compactions with a system prompt checkpoint, null contents (reference pi-1.6.md F2–F5,
R6–R8, B5, B13). :mod:`devkit.make_fixtures` writes them with the others.
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    MISSING,
    _clean,
    assistant_entry,
    assistant_msg,
    branch_summary,
    chat,
    compaction,
    custom_message,
    fixture_header,
    iso_at,
    message,
    ms_at,
    pi_lines,
    session_info,
    start,
    tool_result_msg,
    user_entry,
)
from devkit.builder import entry_id as e

CONTEXT_FIXTURES: list[tuple[str, bytes, str, str]] = []  # (file, bytes, what it tests, pi notes)


def fixture(name: str, tests: str, pi: str = "") -> Any:
    def deco(fn: Any) -> Any:
        CONTEXT_FIXTURES.append((name, fn(), tests, pi))
        return fn

    return deco


# ---- entries pi 1.6.0 writes ------------------------------------------------------------------


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"The {name} tool.", "parameters": {"type": "object", "properties": {}}}


def system_msg(
    t: float, content: Any = "", sections: Any = MISSING, added: Any = MISSING, removed: Any = MISSING
) -> dict[str, Any]:
    """A system message as pi 1.6.0's agent loop writes it (``role,content,sections,timestamp,toolsAdded``)."""
    return _clean(
        {
            "role": "system",
            "content": content,
            "sections": sections,
            "timestamp": ms_at(t),
            "toolsAdded": added,
            "toolsRemoved": removed,
        }
    )


FIRST_SYSTEM = {
    "sections": {"preamble": "You are pi.", "tools": "Use the tools.", "cwd": "/home/user/projects/fixture"},
    "added": [tool("read"), tool("bash")],
}


def system_entry(i: str, parent: Any, t: float, **kw: Any) -> dict[str, Any]:
    return message(i, parent, t, system_msg(t, **kw))


def usage_entry(i: str, parent: Any, t: float, note: Any = MISSING) -> dict[str, Any]:
    usage = {
        "input": 1200,
        "output": 1,
        "cacheRead": 0,
        "cacheWrite": 1200,
        "totalTokens": 2401,
        "cost": {"input": 0.0036, "output": 0.000015, "cacheRead": 0, "cacheWrite": 0.0045, "total": 0.008115},
    }
    return _clean(
        {
            "type": "usage",
            "id": i,
            "parentId": parent,
            "timestamp": iso_at(t),
            "kind": "cache_warm",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "note": note,
        }
    )


def context_edit(i: str, parent: Any, t: float, target: Any, replacement: Any = MISSING) -> dict[str, Any]:
    return _clean(
        {
            "type": "context_edit",
            "id": i,
            "parentId": parent,
            "timestamp": iso_at(t),
            "targetId": target,
            "replacement": replacement,
        }
    )


def tool_turn(first: int, parent: str, t: float, call: str) -> list[dict[str, Any]]:
    """A user question, an assistant tool call, its result and the answer (ids first..first+3)."""
    return [
        user_entry(e(first), parent, t, "Run the tests."),
        assistant_entry(
            e(first + 1), e(first), t + 2, "Running them.", stop="toolUse", tool=(call, "bash", {"command": "pytest"})
        ),
        message(e(first + 2), e(first + 1), t + 3, tool_result_msg(call, "bash", "3 passed", t + 3)),
        assistant_entry(e(first + 3), e(first + 2), t + 5, "All 3 pass."),
    ]


# ---- system messages, usage, new fields ----------------------------------------------------------


@fixture(
    "sys-messages.jsonl",
    "A pi 1.6.0 layout: the first system message (empty content, sections, tools) before the first user message, then a patch (a section set, one removed, a tool added, one removed) and one with string content.",
    "pi 1.6.0: system messages are ordinary message entries: on the path and in the context (digests with `sections`, `toolsAdded`, `toolsRemoved`).",
)
def _sys_messages() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        system_entry(e(3), e(2), 5, **FIRST_SYSTEM),
        *chat(4, e(3), 10, 1),
        system_entry(
            e(6),
            e(5),
            30,
            sections={"cwd": "/home/user/projects/fixture/sub", "tools": None},
            added=[tool("grep")],
            removed=[{"name": "bash"}],
        ),
        system_entry(e(7), e(6), 31, content="Answer in one line."),
        *chat(8, e(7), 40, 1),
    )


@fixture(
    "sys-usage-leaf.jsonl",
    "A `usage` entry (cache warming, with a note) after the last answer: it is the leaf.",
    "pi 1.6.0: leaf = the usage entry; it gives nothing to the context (projection 0).",
)
def _sys_usage_leaf() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        usage_entry(e(5), e(4), 300),
        usage_entry(e(6), e(5), 600, note="extension override"),
    )


@fixture(
    "sys-new-fields.jsonl",
    'The optional message fields of pi 1.6.0: thinking level `max`, an assistant with `thinkingLevel`, `responseModel`, `durationMs` and `stopReason: "deferred"`, a tool result with `usage` and `durationMs`, usage with `cacheWrite1h` and `reasoning`.',
    "pi 1.6.0: all tolerated; thinking level `max`.",
)
def _sys_new_fields() -> bytes:
    answer = assistant_msg("Checking.", 12, stop="toolUse", tool=("toolu_01New", "bash", {"command": "ls"}))
    answer.update(thinkingLevel="max", responseModel="claude-sonnet-4-5-20250929", durationMs=812)
    answer["usage"] = {**answer["usage"], "cacheWrite1h": 0, "reasoning": 3}
    result = tool_result_msg("toolu_01New", "bash", "a b", 13)
    result.update(durationMs=15, usage=dict(answer["usage"]))
    deferred = assistant_msg(None, 14, stop="deferred")
    deferred.update(thinkingLevel="max")
    return pi_lines(
        fixture_header(),
        *start(1),
        {
            "type": "thinking_level_change",
            "id": e(2),
            "parentId": e(1),
            "timestamp": iso_at(0.02),
            "thinkingLevel": "max",
        },
        user_entry(e(3), e(2), 10, "List the files."),
        message(e(4), e(3), 12, answer),
        message(e(5), e(4), 13, result),
        message(e(6), e(5), 14, deferred),
    )


# ---- context edits ---------------------------------------------------------------------------------


@fixture(
    "ctx-edit-omit.jsonl",
    "A `context_edit` with `replacement: null` aimed at a tool result, written after the turn.",
    "pi 1.6.0: the tool result is left out of the context (projection 0 for e0000006); the entry stays on the path.",
)
def _ctx_edit_omit() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *tool_turn(3, e(2), 10, "toolu_01Omi"),
        context_edit(e(7), e(6), 20, e(5), None),
        *chat(8, e(7), 30, 1),
    )


@fixture(
    "ctx-edit-replace.jsonl",
    "Replacements: a string for an assistant (one text block), a string for a tool result, blocks for a user message, a string for a custom message, and one aimed at a branch summary (not an editable role).",
    "pi 1.6.0: content swapped for user/assistant/toolResult/custom (string -> text block for assistant and toolResult), the branch summary unchanged.",
)
def _ctx_edit_replace() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *tool_turn(3, e(2), 10, "toolu_01Rep"),
        custom_message(e(7), e(6), 16, "git-context", "branch main, clean", True),
        branch_summary(e(8), e(7), 17, e(6), "Tried another way."),
        context_edit(e(9), e(8), 20, e(4), {"content": "Ran the tests."}),
        context_edit(e(10), e(9), 21, e(5), {"content": "(output dropped)"}),
        context_edit(e(11), e(10), 22, e(3), {"content": [{"type": "text", "text": "Run the test suite, please."}]}),
        context_edit(e(12), e(11), 23, e(7), {"content": "branch main"}),
        context_edit(e(13), e(12), 24, e(8), {"content": "ignored"}),
        *chat(14, e(13), 30, 1),
    )


@fixture(
    "ctx-edit-multi.jsonl",
    "Two edits of one target (omit, then replace) and two of another (replace, then omit): the latest wins.",
    "pi 1.6.0: e0000004 replaced (text of 9 characters), e0000005 omitted.",
)
def _ctx_edit_multi() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *tool_turn(3, e(2), 10, "toolu_01Mul"),
        context_edit(e(7), e(6), 20, e(4), None),
        context_edit(e(8), e(7), 21, e(5), {"content": "short"}),
        context_edit(e(9), e(8), 22, e(4), {"content": "Ran them."}),
        context_edit(e(10), e(9), 23, e(5), None),
        *chat(11, e(10), 30, 1),
    )


@fixture(
    "ctx-edit-off-branch.jsonl",
    "An edit on an abandoned branch: the leaf's branch does not contain it.",
    "pi 1.6.0: ignored (edits are branch-relative); the context keeps e0000005.",
)
def _ctx_edit_off_branch() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *tool_turn(3, e(2), 10, "toolu_01Off"),
        context_edit(e(7), e(6), 20, e(5), None),
        *chat(8, e(6), 30, 1),
    )


@fixture(
    "ctx-edit-summarised.jsonl",
    "An edit written before a compaction whose kept range starts after it, aimed at an entry in the kept range.",
    "pi 1.6.0: the edit is not selected, so it does nothing: e0000004 keeps its content.",
)
def _ctx_edit_summarised() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Question 1"),
        context_edit(e(4), e(3), 11, e(5), None),
        assistant_entry(e(5), e(4), 12, "Answer 1, kept."),
        *chat(6, e(5), 20, 1),
        compaction(e(8), e(7), 90, "Summary.", e(5)),
        *chat(9, e(8), 120, 1),
    )


@fixture(
    "ctx-edit-on-compaction.jsonl",
    "Edits aimed at compactions (pi's writer refuses them, a reader meets them): a replacement on the latest (no effect), then `null` on it (checkpoint and summary both go).",
    "pi 1.6.0: the compaction gives nothing (projection 0); the kept entries and those after it remain.",
)
def _ctx_edit_on_compaction() -> bytes:
    checkpoint = system_msg(90, **FIRST_SYSTEM)
    c = compaction(e(7), e(6), 90, "Summary.", e(5))
    c["systemMessage"] = checkpoint
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        c,
        context_edit(e(8), e(7), 100, e(7), {"content": "x"}),
        context_edit(e(9), e(8), 101, e(7), None),
        *chat(10, e(9), 120, 1),
    )


@fixture(
    "ctx-edit-no-replacement.jsonl",
    "A `context_edit` without a `replacement` key, aimed at an assistant message on the path.",
    "pi 1.6.0 throws (TypeError: Cannot read properties of undefined (reading 'content')): no context, the session cannot be resumed. pitui ignores the edit and says so in `inspect`.",
)
def _ctx_edit_no_replacement() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        context_edit(e(5), e(4), 20, e(4)),
        *chat(6, e(5), 30, 1),
    )


@fixture(
    "ctx-edit-no-replacement-summary.jsonl",
    "A `context_edit` without `replacement` aimed at a branch summary: not an editable role, so the missing key is never read.",
    "pi 1.6.0 loads it: the summary is kept.",
)
def _ctx_edit_no_replacement_summary() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        branch_summary(e(5), e(4), 15, e(4), "Tried another way."),
        context_edit(e(6), e(5), 20, e(5)),
        *chat(7, e(6), 30, 1),
    )


@fixture(
    "ctx-edit-content-null.jsonl",
    "A replacement `{content: null}` for a user message and `{}` (no content) for an assistant.",
    "pi 1.6.0: the user message gets `content: null` and the assistant none at all (not normalised): digests without `text` or `blocks`.",
)
def _ctx_edit_content_null() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        context_edit(e(5), e(4), 20, e(3), {"content": None}),
        context_edit(e(6), e(5), 21, e(4), {}),
        *chat(7, e(6), 30, 1),
    )


# ---- compactions and system prompts ---------------------------------------------------------------


@fixture(
    "ctx-compaction-system.jsonl",
    "A pi 1.6.0 compaction with its `systemMessage` checkpoint; a system patch inside the kept range and one after the compaction; an older compaction inside the kept range.",
    "pi 1.6.0: checkpoint, summary, the kept entries without the system patch (the older compaction stays in the list and gives nothing), then the entries after, the later patch included.",
)
def _ctx_compaction_system() -> bytes:
    older = compaction(e(6), e(5), 30, "Older summary.", e(4))
    latest = compaction(e(11), e(10), 90, "Latest summary.", e(5))
    latest["systemMessage"] = system_msg(90, **FIRST_SYSTEM)
    return pi_lines(
        fixture_header(),
        *start(),
        system_entry(e(3), e(2), 5, **FIRST_SYSTEM),
        *chat(4, e(3), 10, 1),
        older,
        system_entry(e(7), e(6), 40, sections={"cwd": "/tmp"}),
        *chat(8, e(7), 50, 1),
        assistant_entry(e(10), e(9), 60, "Also this."),
        latest,
        system_entry(e(12), e(11), 100, content="Be brief."),
        *chat(13, e(12), 120, 1),
    )


@fixture(
    "ctx-compaction-retain-none.jsonl",
    "A compaction whose `firstKeptEntryId` is its own id (pi 1.6.0's retain-none), with a checkpoint.",
    "pi 1.6.0: nothing before the compaction is kept: checkpoint, summary, then the entries after.",
)
def _ctx_compaction_retain_none() -> bytes:
    c = compaction(e(7), e(6), 90, "Summary of everything.", e(7))
    c["systemMessage"] = system_msg(90, content="You are pi.")
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        c,
        *chat(8, e(7), 120, 1),
    )


@fixture(
    "ctx-first-kept-system.jsonl",
    "A compaction whose `firstKeptEntryId` names a system message.",
    "pi 1.6.0: keeping starts there, but the system message itself is dropped.",
)
def _ctx_first_kept_system() -> bytes:
    c = compaction(e(8), e(7), 90, "Summary.", e(5))
    c["systemMessage"] = system_msg(90, **FIRST_SYSTEM)
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        system_entry(e(5), e(4), 30, sections={"cwd": "/tmp"}),
        *chat(6, e(5), 40, 1),
        c,
        *chat(9, e(8), 120, 1),
    )


@fixture(
    "ctx-null-contents.jsonl",
    "Null and missing contents: a system message with `content: null`, a user message without content, an assistant and a tool result with `content: null`, a custom message with `content: null`.",
    'pi 1.6.0 normalises them: system `""`, the others `[]` (digests `blocks: []`, `textLen: 0`).',
)
def _ctx_null_contents() -> bytes:
    answer = assistant_msg(None, 12, stop="toolUse")
    answer["content"] = None
    result = tool_result_msg("toolu_01Nul", "bash", "", 13)
    result["content"] = None
    user = {"role": "user", "timestamp": ms_at(10)}
    custom = custom_message(e(7), e(6), 14, "git-context", None, True)
    return pi_lines(
        fixture_header(),
        *start(),
        system_entry(e(3), e(2), 5, content=None),
        message(e(4), e(3), 10, user),
        message(e(5), e(4), 12, answer),
        message(e(6), e(5), 13, result),
        custom,
    )


@fixture(
    "ctx-name-not-string.jsonl",
    "The latest `session_info` has a number as its name.",
    "pi 1.6.0 throws in getSessionName (TypeError: entry.name?.trim is not a function); listing skips the file. pitui shows no name and says so in `inspect`.",
)
def _ctx_name_not_string() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        session_info(e(5), e(4), 20, 42),
    )
