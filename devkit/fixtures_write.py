# ruff: noqa: E501  (fixture text is data)
"""The file pitui writes to in the conformance tests: a session as pi 1.6 itself writes it
(system messages, ``context_edit`` and ``usage`` entries, compactions with a system checkpoint).
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    FIXTURE_CWD,
    USAGE,
    assistant_entry,
    compaction,
    fixture_header,
    iso_at,
    label,
    message,
    ms_at,
    pi_lines,
    start,
    user_entry,
)
from devkit.builder import entry_id as e
from devkit.fixtures_registry import Fixture, registrar

WRITE_FIXTURES: list[Fixture] = []
fixture = registrar(WRITE_FIXTURES)


_PROMPT_SECTIONS = {"preamble": "You are pi, a coding agent.", "cwd": f"Current working directory: {FIXTURE_CWD}"}
_READ_TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def _system_msg(t: float, **extra: Any) -> dict[str, Any]:
    """A pi 1.6 system message: the prompt as sections, the tools declared (keys as the agent
    loop writes them)."""
    return {"role": "system", "content": "", "sections": _PROMPT_SECTIONS, "timestamp": ms_at(t), **extra}


def _usage_entry(i: str, parent: str, t: float) -> dict[str, Any]:
    return {
        "type": "usage",
        "id": i,
        "parentId": parent,
        "timestamp": iso_at(t),
        "kind": "cache_warm",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {**USAGE, "input": 0, "output": 1},
    }


def _context_edit(i: str, parent: str, t: float, target: str, replacement: Any) -> dict[str, Any]:
    return {
        "type": "context_edit",
        "id": i,
        "parentId": parent,
        "timestamp": iso_at(t),
        "targetId": target,
        "replacement": replacement,
    }


@fixture(
    "write-pi16.jsonl",
    "A session as pi 1.6 writes it, to write to: a system message (prompt sections, tools), a label whose entry the next message hangs from, a `context_edit` replacing an answer and one omitting a question, a compaction with a `systemMessage` checkpoint whose `firstKeptEntryId` names the label entry, a side branch ending in a retain-none compaction (`firstKeptEntryId` = its own id), and a `usage` entry as the last line (the leaf).",
    "pi 1.6: context = the checkpoint system message, compactionSummary, then e0000007.. with the edits applied (e0000010 omitted), the entries after; pi 0.73.1 ignores system checkpoints and edits. A fork or clone through e0000012 points its `firstKeptEntryId` at e0000007.",
)
def _write_pi16() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        message(e(3), e(2), 1, _system_msg(1, toolsAdded=[_READ_TOOL])),
        user_entry(e(4), e(3), 10, "Read the config loader"),
        assistant_entry(e(5), e(4), 15, "It parses TOML with a hand-written lexer."),
        label(e(6), e(5), 16, e(4), "start"),
        user_entry(e(7), e(6), 20, "Why not use tomllib?"),
        assistant_entry(e(8), e(7), 25, "It predates Python 3.11; tomllib would do now, and handle the edge cases."),
        _context_edit(e(9), e(8), 26, e(8), {"content": "tomllib would do now."}),
        user_entry(e(10), e(9), 30, "Switch to it"),
        assistant_entry(e(11), e(10), 35, "Switched; the lexer is gone."),
        _context_edit(e(21), e(11), 36, e(10), None),
        {
            **compaction(e(12), e(21), 40, "Replaced the TOML lexer with tomllib.", e(6), 61_000, from_hook=False),
            "systemMessage": _system_msg(40, toolsAdded=[_READ_TOOL]),
        },
        user_entry(e(13), e(12), 50, "Run the tests"),
        assistant_entry(e(14), e(13), 55, "All 212 pass."),
        user_entry(e(15), e(8), 60, "Keep the lexer, fix its edge cases instead"),
        assistant_entry(e(16), e(15), 65, "Fixed the three edge cases."),
        compaction(e(17), e(16), 70, "Fixed the lexer's edge cases.", e(17), 52_000, from_hook=False),
        user_entry(e(18), e(17), 75, "Add a test for each"),
        assistant_entry(e(19), e(18), 80, "Added three tests."),
        _usage_entry(e(20), e(14), 90),
    )
