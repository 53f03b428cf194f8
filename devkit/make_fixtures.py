#!/usr/bin/env python3
# ruff: noqa: E501  (fixture text is data)
"""Write the edge-case session files in tests/fixtures/ and their README table.

    python -m devkit.make_fixtures            # (re)write tests/fixtures/*.jsonl and README.md
    python -m devkit.make_fixtures --oracle   # also print what pi's SessionManager makes of each
                                              # file (tests/oracle; never run on the cycle files)

Each file is a few lines and shows one behaviour. The bytes are exact (BOM, CRLF, NUL, invalid
UTF-8, torn lines), which is why they are generated rather than written by hand. Ids are
readable 8-hex strings (``e0000003`` is the third entry), timestamps start at
2026-01-05T10:00:00.000Z and count seconds. The table in README.md is generated from FIXTURES
below, including the notes on what pi 0.73.1 does with each file (checked with ``--oracle``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from devkit.builder import (
    FIXTURE_CWD,
    MISSING,
    USAGE,
    assistant_entry,
    assistant_msg,
    branch_summary,
    chat,
    compaction,
    custom,
    custom_message,
    fixture_header,
    iso_at,
    label,
    message,
    ms_at,
    pi_lines,
    session_info,
    start,
    tool_result_msg,
    user_entry,
    user_msg,
)
from devkit.builder import entry_id as e
from devkit.fixtures_context import CONTEXT_FIXTURES
from devkit.fixtures_pi16 import EXISTING, NO_FILE, PI16_FIXTURES
from devkit.oracle import open_copy_in_pi
from devkit.pijson import dumps, line

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures"


# ---- the fixtures ---------------------------------------------------------------------------

FIXTURES: list[tuple[str, bytes, str, str]] = []  # (file, bytes, what it tests, pi 0.73.1 notes)


def fixture(name: str, tests: str, pi: str = "") -> Any:
    def deco(fn: Any) -> Any:
        FIXTURES.append((name, fn(), tests, pi))
        return fn

    return deco


@fixture(
    "linear.jsonl",
    "A plain linear v3 session: model and thinking level, a tool call and its result.",
    "Path = all 6 entries; context user, assistant, toolResult, assistant.",
)
def _linear() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "What is in this folder?"),
        assistant_entry(
            e(4), e(3), 15, "Let me look.", stop="toolUse", tool=("toolu_01Lin", "bash", {"command": "ls"})
        ),
        message(e(5), e(4), 15.2, tool_result_msg("toolu_01Lin", "bash", "README.md\nsrc\ntests", 15.1)),
        assistant_entry(e(6), e(5), 20, "A README, the sources in `src/` and tests."),
    )


@fixture(
    "branches-timestamp-order.jsonl",
    "Four children of one entry, not in time order in the file: two with the same timestamp (stable order), one with a `+01:00` offset (sorts by instant, not by string). The leaf is on the second branch in the file.",
    "Children of e0000004: e0000006 (10:00:40), e0000008 (11:00:50+01:00 = 10:00:50Z), e0000005 (10:01:40), e0000007 (10:01:40, after e0000005: stable). Leaf e0000010, path through e0000005.",
)
def _branches() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Pick a name for the CLI."),
        assistant_entry(e(4), e(3), 20, "Some options: `wx`, `weather`, `forecast`."),
        user_entry(e(5), e(4), 100, "Call it `wx`."),
        user_entry(e(6), e(4), 40, "Call it `weather`."),
        user_entry(e(7), e(4), 100, "Call it `forecast`."),
        message(e(8), e(4), "2026-01-05T11:00:50.000+01:00", user_msg("Call it `sky`.", 50)),
        assistant_entry(e(9), e(6), 45, "`weather` it is."),
        assistant_entry(e(10), e(5), 105, "`wx` it is."),
    )


@fixture(
    "labels.jsonl",
    'Labels set, changed, cleared (no `label` key), cleared with `""`, set again after a clear (moves to the end of pi\'s label map), and a label on a label entry. Label entries hang off the leaf of their time.',
    'Labels: e0000003 `beginning`, e0000004 `answer again`, e0000011 `meta`; e0000005\'s `q2` is cleared by `""`. Leaf = the last label entry.',
)
def _labels() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),  # 3..6
        label(e(11), e(6), 60, e(3), "start"),
        label(e(12), e(11), 61, e(4), "answer"),
        label(e(13), e(12), 62, e(3), "beginning"),
        label(e(14), e(13), 63, e(4)),
        user_entry(e(15), e(14), 80, "Question 3"),
        assistant_entry(e(16), e(15), 85, "Answer 3"),
        label(e(17), e(16), 90, e(5), "q2"),
        label(e(18), e(17), 91, e(5), ""),
        label(e(19), e(18), 92, e(4), "answer again"),
        label(e(20), e(19), 93, e(11), "meta"),
    )


@fixture(
    "label-missing-target.jsonl",
    "A label whose target id is not in the file.",
    "pi keeps it in its label map but no entry shows it: `labels` is {}.",
)
def _label_missing() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        label(e(5), e(4), 30, "deadbeef", "ghost"),
        *chat(6, e(5), 40, 1),
    )


@fixture(
    "compaction-first-kept.jsonl",
    "A compaction with `firstKeptEntryId` on the path: summary, then the kept entries, then the entries after it.",
    "Context: compactionSummary, e0000005..e0000008 (user, assistant, toolResult, assistant), then user, assistant.",
)
def _compaction_first_kept() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), e(4), 50, "Now run the tests."),
        assistant_entry(e(6), e(5), 55, None, stop="toolUse", tool=("toolu_01Cmp", "bash", {"command": "pytest -q"})),
        message(e(7), e(6), 58, tool_result_msg("toolu_01Cmp", "bash", "3 passed in 0.12s", 57.9)),
        assistant_entry(e(8), e(7), 62, "All 3 tests pass."),
        compaction(e(9), e(8), 90, "## Goal\nGet the tests green.", e(5)),
        *chat(10, e(9), 120, 1),
    )


@fixture(
    "compaction-first-kept-off-path.jsonl",
    "A compaction whose `firstKeptEntryId` is on another branch: nothing before the compaction is kept.",
    "Context: compactionSummary, then the two entries after it.",
)
def _compaction_off_path() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), e(4), 40, "Branch A"),
        assistant_entry(e(6), e(5), 45, "On branch A."),
        user_entry(e(7), e(4), 60, "Branch B"),
        assistant_entry(e(8), e(7), 65, "On branch B."),
        compaction(e(9), e(8), 90, "Summary of branch B.", e(5)),
        *chat(10, e(9), 120, 1),
    )


@fixture(
    "compaction-no-first-kept.jsonl",
    "A compaction without a `firstKeptEntryId` key (optional in the newer format) and without `retainedTail`.",
    "Nothing before the compaction is kept: compactionSummary, user, assistant.",
)
def _compaction_no_first_kept() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        compaction(e(7), e(6), 90, "Summary."),
        *chat(8, e(7), 120, 1),
    )


@fixture(
    "compaction-retained-tail.jsonl",
    "A compaction carrying a non-empty `retainedTail` key (no released pi has it) that differs from the `firstKeptEntryId` range: it is carried along, not read.",
    "pi 0.73.1 and 1.6.0 ignore `retainedTail`: summary, e0000005, e0000006, then the entries after.",
)
def _retained_tail() -> bytes:
    tail = [user_msg("Question 2 (kept in the checkpoint)", 39)]
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        compaction(e(7), e(6), 90, "Summary of question 1.", e(5), retained=tail),
        *chat(8, e(7), 120, 1),
    )


@fixture(
    "compaction-retained-tail-empty.jsonl",
    "A compaction with `retainedTail: []`: the key changes nothing, `firstKeptEntryId`'s range is kept.",
    "pi 0.73.1 and 1.6.0 keep e0000005, e0000006.",
)
def _retained_tail_empty() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        compaction(e(7), e(6), 90, "Summary of everything.", e(5), retained=[]),
        *chat(8, e(7), 120, 1),
    )


@fixture(
    "compaction-two.jsonl",
    "Two compactions on one path: only the last one counts.",
    "Context: the second summary, e0000011..e0000012, then the entries after it.",
)
def _compaction_two() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),  # 3..6
        compaction(e(7), e(6), 90, "First summary.", e(5)),
        *chat(8, e(7), 120, 2),  # 8..11
        compaction(e(12), e(11), 200, "Second summary.", e(10)),
        *chat(13, e(12), 220, 1),
    )


@fixture(
    "compaction-two-overlapping.jsonl",
    "The last compaction's `firstKeptEntryId` lies before the previous compaction, so the kept range contains a compaction entry (impossible for pi's own cut points).",
    "pi 0.73.1 drops the inner compaction from the kept range; the newer rule would show it as a compactionSummary.",
)
def _compaction_overlap() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 2),
        compaction(e(7), e(6), 90, "First summary.", e(5)),
        *chat(8, e(7), 120, 1),
        compaction(e(10), e(9), 200, "Second summary.", e(5)),
        *chat(11, e(10), 220, 1),
    )


@fixture(
    "branch-summary.jsonl",
    "A `branch_summary` parented at the branch point (fromId = its parent), and later one with an empty summary, which adds nothing to the context.",
    "Context: user, assistant, branchSummary, user, assistant, user, assistant (the empty one is skipped).",
)
def _branch_summary() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),  # 3, 4
        *chat(5, e(4), 40, 1),  # 5, 6: the abandoned branch
        branch_summary(
            e(7),
            e(4),
            80,
            e(4),
            "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nTried a regex; too slow.",
        ),
        *chat(8, e(7), 100, 1),  # 8, 9
        branch_summary(e(10), e(9), 140, e(9), "", details={"readFiles": [], "modifiedFiles": []}),
        *chat(11, e(10), 160, 1),
    )


@fixture(
    "branch-summary-root.jsonl",
    'A `branch_summary` with `parentId: null` and `fromId: "root"` (summarising after navigating to before the first entry): a second root.',
    "Roots: e0000001 and e0000005. Path e0000005..e0000007; thinking level `off` (the change is not on the path), model from the assistant.",
)
def _branch_summary_root() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        branch_summary(
            e(5),
            None,
            60,
            "root",
            "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nAsked one question.",
        ),
        *chat(6, e(5), 80, 1),
    )


@fixture(
    "custom.jsonl",
    "`custom` entries (with and without `data`) and `custom_message` entries with string content (displayed, with details) and block content (text + image, hidden).",
    "Context: user, custom (string), assistant, custom (blocks text, image), user, assistant; `custom` entries add nothing.",
)
def _custom() -> bytes:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Start the timer."),
        custom_message(e(4), e(3), 10.1, "timer", "Timer started at 10:00.", True, {"startedAt": ms_at(10)}),
        custom(e(5), e(4), 10.2, "timer-state", {"running": True, "startedAt": ms_at(10)}),
        assistant_entry(e(6), e(5), 15, "Timer is running."),
        custom(e(7), e(6), 16, "heartbeat"),
        custom_message(
            e(8),
            e(7),
            20,
            "screenshot",
            [{"type": "text", "text": "Current screen:"}, {"type": "image", "data": png, "mimeType": "image/png"}],
            False,
        ),
        *chat(9, e(8), 40, 1),
    )


@fixture(
    "session-info.jsonl",
    "Two `session_info` entries: the later one wins although it is on an abandoned branch (names are per file, not per path); its name has spaces around it.",
    "Name `Second name` (trimmed).",
)
def _session_info() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        session_info(e(5), e(4), 30, "First name"),
        *chat(6, e(5), 40, 1),  # 6, 7
        session_info(e(8), e(7), 60, "  Second name  "),
        *chat(9, e(5), 80, 1),  # back on the first branch
    )


@fixture(
    "session-info-cleared.jsonl",
    'A name set and then cleared with `session_info` name `""`.',
    "Name null (pi 0.73.1 lets the latest entry win, even when empty).",
)
def _session_info_cleared() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        session_info(e(5), e(4), 30, "Named"),
        session_info(e(6), e(5), 40, ""),
        *chat(7, e(6), 60, 1),
    )


def v1_entries(first_kept_index: int | None) -> list[Any]:
    """A v1 session: no ids, no parentIds, the header carries the model."""
    hdr = {
        "type": "session",
        "id": "6b1f0c2e-8a7d-4e3b-9f10-2c4d5e6f7a8b",
        "timestamp": iso_at(0),
        "cwd": FIXTURE_CWD,
        "provider": "anthropic",
        "modelId": "claude-opus-4-5",
        "thinkingLevel": "off",
        "branchedFrom": "/home/user/.pi/agent/sessions/--home-user-projects-fixture--/2026-01-05T09-00-00-000Z_0a0b0c0d-0000-4000-8000-000000000000.jsonl",
    }
    out: list[Any] = [hdr]

    def m(t: float, msg: dict) -> dict:
        return {"type": "message", "timestamp": iso_at(t), "message": msg}

    out += [
        m(10, user_msg("Read the config.", 10)),  # index 1
        m(
            15,
            assistant_msg(
                None, 13, stop="toolUse", tool=("toolu_01V1", "read", {"path": "config.toml"}), model="claude-opus-4-5"
            ),
        ),  # 2
        m(15.2, tool_result_msg("toolu_01V1", "read", "[server]\nport = 8080", 15.1)),  # 3
        m(20, assistant_msg("The server listens on 8080.", 17, model="claude-opus-4-5")),  # 4
        {"type": "thinking_level_change", "timestamp": iso_at(25), "thinkingLevel": "high"},  # 5
        {"type": "model_change", "timestamp": iso_at(26), "provider": "anthropic", "modelId": "claude-sonnet-4-5"},  # 6
        m(40, user_msg("Change it to 9090.", 40)),  # 7
        m(45, assistant_msg("Done.", 43)),  # 8
    ]
    comp = {
        "type": "compaction",
        "timestamp": iso_at(60),
        "summary": "Port changed from 8080 to 9090.",
        "firstKeptEntryIndex": first_kept_index,
        "tokensBefore": 12000,
    }
    out.append(comp)  # 9
    out += [m(80, user_msg("Thanks.", 80)), m(85, assistant_msg("You're welcome.", 83))]
    return out


@fixture(
    "v1.jsonl",
    "A v1 file: header without `version` but with `provider`/`modelId`/`thinkingLevel`/`branchedFrom`, entries without `id`/`parentId`, a compaction with `firstKeptEntryIndex` 7 (the header is index 0).",
    "Migrated in memory: one chain in file order with new random ids (compare by position); header version 3 with the legacy keys kept; firstKeptEntryIndex → the id of entry 7 (the user message `Change it to 9090.`).",
)
def _v1() -> bytes:
    return pi_lines(*v1_entries(7))


@fixture(
    "v1-index-shift.jsonl",
    "A v1 file in which an entry before the compaction's target was damaged (its line no longer parses): `firstKeptEntryIndex` counts the parsed objects, so it now lands one entry later.",
    "firstKeptEntryIndex 7 resolves to the assistant `Done.`, not the user message the writer meant: context compactionSummary, assistant, user, assistant.",
)
def _v1_shift() -> bytes:
    objs = v1_entries(7)
    damaged = dumps(objs[3])
    damaged = damaged[:40] + "\x00\x00" + damaged[40:]  # NUL bytes inside the JSON text
    return pi_lines(*objs[:3], damaged.encode() + b"\n", *objs[4:])


@fixture(
    "v1-index-forward.jsonl",
    "A v1 compaction whose `firstKeptEntryIndex` points after the compaction itself: the target has no id yet when the compaction is migrated.",
    "`firstKeptEntryId` is left out, so nothing before the compaction is kept.",
)
def _v1_forward() -> bytes:
    return pi_lines(*v1_entries(10))


@fixture(
    "v2-hook-message.jsonl",
    "A v2 file (ids present) with a message of role `hookMessage`, which migration renames to `custom`.",
    "Header version 3; the message has role `custom` in the context; ids are kept.",
)
def _v2() -> bytes:
    hook = {
        "role": "hookMessage",
        "customType": "git-status",
        "content": "On branch main, clean.",
        "display": True,
        "timestamp": ms_at(12),
    }
    return pi_lines(
        fixture_header(version=2),
        *start(),
        user_entry(e(3), e(2), 10, "Status?"),
        message(e(4), e(3), 12, hook),
        assistant_entry(e(5), e(4), 15, "Clean."),
    )


# ---- files pitui writes to in the conformance tests: what pi 1.6 itself writes ----------------

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


@fixture(
    "bad-lines.jsonl",
    "Bad lines between good ones: plain text, a JSON object cut in the middle, a line of NUL bytes. They are skipped; the entries around them keep their parents.",
    "3 lines skipped; path e0000001..e0000006.",
)
def _bad_lines() -> bytes:
    cut = dumps(user_entry(e(9), e(4), 31, "This entry was never finished"))[:60].encode()
    return pi_lines(
        fixture_header(),
        *start(),
        b"this is not json\n",
        *chat(3, e(2), 10, 1),
        cut + b"\n",
        b"\x00" * 48 + b"\n",
        *chat(5, e(4), 40, 1),
    )


@fixture(
    "torn-last-line.jsonl",
    "The last line is cut in the middle of the JSON and has no newline (a writer died mid-append).",
    "The torn line is skipped; leaf e0000004.",
)
def _torn_last() -> bytes:
    torn = dumps(assistant_entry(e(5), e(4), 40, "A long answer that was being written when the process was killed"))[
        :150
    ]
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1)) + torn.encode()


@fixture(
    "torn-line-joined.jsonl",
    "A torn line followed, on the same physical line, by a complete entry (the writer died without a newline, the next append continued the line), and then an entry whose parent is that complete entry.",
    "pi loses the joined line entirely: e0000005 and e0000006 are gone, e0000007 becomes an orphan root, the path is only e0000007.",
)
def _torn_joined() -> bytes:
    torn = dumps(user_entry(e(5), e(4), 40, "The first attempt at this question"))[:90]
    whole = dumps(user_entry(e(6), e(4), 70, "The question again, after a restart"))
    return (
        pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1))
        + (torn + whole + "\n").encode()
        + pi_lines(assistant_entry(e(7), e(6), 75, "Here is the answer."))
    )


@fixture(
    "self-parent.jsonl",
    "An entry whose `parentId` is its own id (not on the leaf's path).",
    "It is an extra root in the tree (roots e0000001, e0000005); path and context are unaffected.",
)
def _self_parent() -> bytes:
    return pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1), custom(e(5), e(5), 20, "loop"), *chat(6, e(4), 40, 1)
    )


@fixture(
    "cycle-2.jsonl",
    "A 2-cycle in `parentId` (e0000004 ↔ e0000005) containing the leaf.",
    "NOT COMPARABLE: pi 0.73.1 never returns on this file (its path walk has no cycle guard). Never give it to the oracle.",
)
def _cycle2() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Hello"),
        assistant_entry(e(4), e(5), 15, "Hi."),
        user_entry(e(5), e(4), 20, "Loop?"),
    )


@fixture(
    "cycle-3.jsonl",
    "A 3-cycle in `parentId` (e0000004 → e0000006 → e0000005 → e0000004) containing the leaf.",
    "NOT COMPARABLE: pi 0.73.1 never returns on this file. Never give it to the oracle.",
)
def _cycle3() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Hello"),
        assistant_entry(e(4), e(6), 15, "Hi."),
        user_entry(e(5), e(4), 20, "Again"),
        assistant_entry(e(6), e(5), 25, "And again."),
    )


@fixture(
    "cycle-self-leaf.jsonl",
    "The last entry (the leaf) is its own parent.",
    "NOT COMPARABLE: pi 0.73.1 never returns (the leaf's path walk loops). Never give it to the oracle.",
)
def _cycle_self() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), user_entry(e(5), e(5), 30, "Me again"))


@fixture(
    "duplicate-ids.jsonl",
    "Two entries with the same id (`e0000005`, once as a user message under e0000004 and once as another user message under e0000004 later); a child of each.",
    "pi's index keeps the last one (the path goes through the second: ..., e0000004, e0000005, e0000007); its tree attaches the second node twice: e0000004 → [e0000005, e0000005], and e0000005 → [e0000006, e0000007].",
)
def _dup_ids() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), e(4), 30, "First version of the question"),
        assistant_entry(e(6), e(5), 35, "First answer."),
        user_entry(e(5), e(4), 50, "Second version of the question"),
        assistant_entry(e(7), e(5), 55, "Second answer."),
    )


@fixture(
    "orphan.jsonl",
    "Entries whose parent is not in the file (`0badf00d`).",
    "The orphan is an extra root; the path starts at it (e0000005, e0000006); thinking level `off` (the change is not on the path).",
)
def _orphan() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), "0badf00d", 40, "Where did my parent go?"),
        assistant_entry(e(6), e(5), 45, "It is not in this file."),
    )


@fixture(
    "missing-parentid-key.jsonl",
    "An entry without a `parentId` key at all (not null): it behaves like an orphan.",
    "An extra root; the path starts at it. (pi's entryIds show its parentId as null.)",
)
def _missing_parent_key() -> bytes:
    u = user_entry(e(5), None, 40, "No parentId key here")
    del u["parentId"]
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), u, assistant_entry(e(6), e(5), 45, "Noted."))


@fixture(
    "bom.jsonl",
    "A UTF-8 byte order mark before the header.",
    "Loads normally (JavaScript's trim() removes the BOM).",
)
def _bom() -> bytes:
    return b"\xef\xbb\xbf" + pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1))


@fixture(
    "crlf.jsonl",
    "CRLF line endings throughout.",
    "Loads normally (`\\r` before `\\n` is JSON whitespace).",
)
def _crlf() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 2)).replace(b"\n", b"\r\n")


@fixture(
    "unicode-separators.jsonl",
    "U+2028, U+2029 and U+0085 raw inside JSON strings (not line breaks for JSONL), emoji incl. ZWJ sequences, combining marks and right-to-left text, in message text and in the session name.",
    "Loads normally: 1 line per entry; name `Notes 👩‍💻 \\u2028 line`.",
)
def _unicode() -> bytes:
    text = "Line one\u2028line two\u2029paragraph\u0085next — emoji 😀 👩‍💻 🇩🇪, é vs e\u0301, עברית"
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, text),
        assistant_entry(e(4), e(3), 15, "Got it: 👍\u2028(with a separator)"),
        session_info(e(5), e(4), 20, "Notes 👩‍💻 \u2028 line"),
    )


@fixture(
    "lone-surrogate-escape.jsonl",
    "JSON `\\ud83d` and `\\ude00` escapes that are not pairs (valid JSON; JavaScript accepts them, orjson rejects them), and a proper pair.",
    "Loads normally; the message text and the name keep the lone surrogates.",
)
def _lone_surrogate() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        b'{"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"'
        + iso_at(10).encode()
        + b'","message":{"role":"user","content":"broken emoji: \\ud83d and \\ude00, whole: \\ud83d\\ude00","timestamp":'
        + str(ms_at(10)).encode()
        + b"}}\n",
        assistant_entry(e(4), e(3), 15, "I see replacement characters."),
        b'{"type":"session_info","id":"e0000005","parentId":"e0000004","timestamp":"'
        + iso_at(20).encode()
        + b'","name":"half \\ud83d"}\n',
    )


@fixture(
    "invalid-utf8.jsonl",
    "Bytes that are not UTF-8 inside JSON strings (in a message and in the session name): a lone 0xFF, an encoded surrogate ED A0 80, a cut 3-byte sequence E2 82, a cut 4-byte sequence F0 9F 98.",
    "Each bad sequence becomes U+FFFD (ED A0 80 → three of them); the lines still parse. Name `caf\\ufffd \\ufffd\\ufffd\\ufffd`.",
)
def _invalid_utf8() -> bytes:
    msg = (
        b'{"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"'
        + iso_at(10).encode()
        + b'","message":{"role":"user","content":"bad: \xff | \xed\xa0\x80 | \xe2\x82 | \xf0\x9f\x98 | ok \xc3\xa9","timestamp":'
        + str(ms_at(10)).encode()
        + b"}}\n"
    )
    name = (
        b'{"type":"session_info","id":"e0000005","parentId":"e0000004","timestamp":"'
        + iso_at(20).encode()
        + b'","name":"caf\xe9 \xed\xa0\x80"}\n'
    )
    return pi_lines(
        fixture_header(), *start(), msg, assistant_entry(e(4), e(3), 15, "Some bytes were not UTF-8."), name
    )


@fixture(
    "empty.jsonl",
    "A 0-byte file.",
    "Not a session: pi 0.73.1 writes a fresh header (new id, its own cwd) into it when opened.",
)
def _empty() -> bytes:
    return b""


@fixture("header-only.jsonl", "Only the header line.", "Leaf null, empty tree and context.")
def _header_only() -> bytes:
    return pi_lines(fixture_header())


@fixture(
    "whitespace-lines.jsonl",
    "Empty lines, lines of spaces/tabs/`\\r`/NBSP/U+3000 (skipped), an entry indented with spaces and a tab (parses), and a label entry preceded by a NBSP, which JSON does not allow as whitespace.",
    "The indented entry loads; the NBSP-prefixed label does not, so `labels` is {}.",
)
def _whitespace() -> bytes:
    return pi_lines(
        fixture_header(),
        b"\n",
        *start(),
        b"   \n",
        b"\t\t\n",
        b"\r\n",
        b"  \t" + line(user_entry(e(3), e(2), 10, "Indented line")),
        "\u00a0\n".encode(),
        "\u3000\n".encode(),
        assistant_entry(e(4), e(3), 15, "Fine."),
        "\u00a0".encode() + line(label(e(5), e(4), 20, e(3), "nbsp")),
        b"\n\n",
    )


@fixture(
    "foreign.jsonl",
    "Valid JSON lines that are not a pi session (a chat fine-tuning file): the first object is not a `session` header.",
    "Not a session: pi 0.73.1 treats it as corrupt and overwrites it with a fresh header when opened.",
)
def _foreign() -> bytes:
    return pi_lines(
        {
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "content": "4"},
            ]
        },
        {"messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris"}]},
    )


@fixture(
    "garbage-first-line.jsonl",
    "A garbage first line followed by a valid header: only the first *parsed* object must be a header.",
    "Loads normally (the garbage line is skipped before the check).",
)
def _garbage_first() -> bytes:
    return b"\x1b[31mcolour codes from a terminal paste\x1b[0m\n" + pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1)
    )


@fixture(
    "header-id-not-string.jsonl",
    "A header whose `id` is a number.",
    'Not a session (pi requires `typeof id === "string"`); pi 0.73.1 would overwrite it.',
)
def _header_id_number() -> bytes:
    h = fixture_header()
    h["id"] = 12345
    return pi_lines(h, *start(), *chat(3, e(2), 10, 1))


@fixture(
    "v4-harness.jsonl",
    'A file in the v4 harness format (`{"kind":"header","version":4}`, `seq` on every line, a persisted leaf).',
    "Not a session for pi's v3 SessionManager; pi 0.73.1 would overwrite it.",
)
def _v4() -> bytes:
    return pi_lines(
        {
            "kind": "header",
            "version": 4,
            "id": "019b8a3c-0e51-7d22-9a61-3f0e2b7c4d10",
            "createdAt": iso_at(0),
            "cwd": FIXTURE_CWD,
        },
        {
            "kind": "entry",
            "seq": 1,
            "entry": {
                "type": "message",
                "id": "a1b2c3d4",
                "parentId": None,
                "timestamp": iso_at(10),
                "message": user_msg("Hello", 10),
            },
        },
        {
            "kind": "entry",
            "seq": 2,
            "entry": {
                "type": "message",
                "id": "b2c3d4e5",
                "parentId": "a1b2c3d4",
                "timestamp": iso_at(15),
                "message": assistant_msg("Hi.", 13),
            },
        },
        {
            "kind": "entry",
            "seq": 3,
            "entry": {
                "type": "leaf",
                "id": "c3d4e5f6",
                "parentId": "b2c3d4e5",
                "timestamp": iso_at(16),
                "targetId": "b2c3d4e5",
            },
        },
    )


@fixture(
    "duplicate-header.jsonl",
    "pi's old duplicate-header bug: the header and the first entries were written, then written again (same ids) together with the first assistant message.",
    "The second header is skipped. pi's tree lists the duplicated nodes twice: roots [e0000001, e0000001], children e0000001 → [e0000002, e0000002], e0000002 → [e0000003, e0000003]; entryIds has 9 rows; the path is e0000001..e0000006.",
)
def _dup_header() -> bytes:
    first = [fixture_header(), *start(), user_entry(e(3), e(2), 10, "Hello")]
    return pi_lines(*first, *first, assistant_entry(e(4), e(3), 15, "Hi."), *chat(5, e(4), 40, 1))


@fixture(
    "unknown-types.jsonl",
    "Entry types pi does not know (`active_tools_change`, `system_prompt`, `leaf`) on the path, and messages with unknown roles (`developer`, `note`).",
    "Unknown types are in the tree and path but add nothing to the context; unknown roles are passed through into the context.",
)
def _unknown() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        {
            "type": "active_tools_change",
            "id": e(3),
            "parentId": e(2),
            "timestamp": iso_at(5),
            "tools": ["read", "bash"],
        },
        {
            "type": "system_prompt",
            "id": e(4),
            "parentId": e(3),
            "timestamp": iso_at(6),
            "text": "You are a helpful assistant.",
        },
        user_entry(e(5), e(4), 10, "Hello"),
        message(e(6), e(5), 11, {"role": "developer", "content": "Be brief.", "timestamp": ms_at(11)}),
        assistant_entry(e(7), e(6), 15, "Hi."),
        message(e(8), e(7), 16, {"role": "note", "text": "no content key", "timestamp": ms_at(16)}),
        {"type": "leaf", "id": e(9), "parentId": e(8), "timestamp": iso_at(17), "targetId": e(7)},
    )


@fixture(
    "null-content.jsonl",
    "Messages whose `content` is null (user, assistant, toolResult).",
    "Loads; the context keeps the three messages (with no text or blocks).",
)
def _null_content() -> bytes:
    u = user_entry(e(3), e(2), 10, "x")
    u["message"]["content"] = None
    a = assistant_entry(e(4), e(3), 15, None, stop="toolUse", tool=("toolu_01Nul", "bash", {"command": "true"}))
    a["message"]["content"] = None
    r = message(e(5), e(4), 16, tool_result_msg("toolu_01Nul", "bash", "", 16))
    r["message"]["content"] = None
    return pi_lines(fixture_header(), *start(), u, a, r, assistant_entry(e(6), e(5), 20, "Done."))


@fixture(
    "message-null.jsonl",
    "A `message` entry whose `message` is null, on the path.",
    "pi 0.73.1 throws `TypeError: Cannot read properties of null (reading 'role')` while building the context: not loadable.",
)
def _message_null() -> bytes:
    return pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1), message(e(5), e(4), 30, None), *chat(6, e(5), 40, 1)
    )


@fixture(
    "non-object-lines.jsonl",
    "Lines that are valid JSON but not objects: a number, a string, an array, `true` (between good entries).",
    "pi keeps them as entries: entryIds has 10 rows (null id, type and parent for the 4 odd ones) and the tree has roots [e0000001, null, null, null, null]; the leaf is the last real entry, the path is unaffected.",
)
def _non_objects() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        b"42\n",
        *chat(3, e(2), 10, 1),
        b'"a string"\n',
        b"[1,2,3]\n",
        b"true\n",
        *chat(5, e(4), 40, 1),
    )


@fixture(
    "null-line.jsonl",
    "A line that is the JSON literal `null`.",
    "pi 0.73.1 throws `TypeError: Cannot read properties of null (reading 'type')` while indexing: not loadable.",
)
def _null_line() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), b"null\n", *chat(5, e(4), 40, 1))


@fixture(
    "version-4-header.jsonl",
    "A v3-style file whose header says `version: 4` (newer than pi knows).",
    "Loaded as is (no migration for versions ≥ 3); the header keeps version 4.",
)
def _version4() -> bytes:
    return pi_lines(fixture_header(version=4), *start(), *chat(3, e(2), 10, 1))


@fixture(
    "invalid-timestamps.jsonl",
    'Children whose `timestamp` is not a date (`"yesterday"`, `""`, missing, a number) next to valid ones: the children sort compares NaN.',
    "Children of e0000004 in pi: e0000005, e0000006, e0000007, e0000008, e0000009, e0000011, e0000010 (V8's sort with NaN comparisons as 0: only e0000011/e0000010 move; a number is a valid date). Python's `sorted` with a cmp that returns 0 for NaN gives the same order.",
)
def _bad_ts() -> bytes:
    def u(i: int, t: Any, text: str) -> dict:
        m = user_entry(e(i), e(4), 0, text)
        if t is MISSING:
            del m["timestamp"]
        else:
            m["timestamp"] = t
        return m

    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        u(5, iso_at(100), "valid, 10:01:40"),
        u(6, "yesterday", "invalid string"),
        u(7, iso_at(50), "valid, 10:00:50"),
        u(8, "", "empty string"),
        u(9, MISSING, "no timestamp key"),
        u(10, ms_at(30), "a number (Unix ms, 10:00:30)"),
        u(11, iso_at(20), "valid, 10:00:20"),
        assistant_entry(e(12), e(11), 60, "Answer to the last one."),
    )


# ---- totals: pi 1.6's /session sums (AgentSession.getSessionStats) ------------------------------


def _usage(i: int, o: int, r: int, w: int, dollars: Any) -> dict:
    usage: dict[str, Any] = {"input": i, "output": o, "cacheRead": r, "cacheWrite": w, "totalTokens": i + o + r + w}
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": dollars}
    return usage


def _usage_entry(i: str, parent: str, t: float, usage: Any) -> dict:
    """A pi 1.6 ``usage`` entry (cache warming), keys in pi's order; ``usage`` MISSING leaves it out."""
    entry = {"type": "usage", "id": i, "parentId": parent, "timestamp": iso_at(t), "kind": "cache_warm"}
    entry |= {"provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage}
    if usage is MISSING:
        del entry["usage"]
    return entry


def _system(i: str, parent: str, t: float) -> dict:
    tools = [{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}]
    body = {"role": "system", "content": "", "sections": {"preamble": "You are pi."}, "timestamp": ms_at(t)}
    return message(i, parent, t, body | {"toolsAdded": tools})


def _with_usage(entry: dict, usage: Any) -> dict:
    entry["message"]["usage"] = usage
    return entry


@fixture(
    "totals-every-source.jsonl",
    "Every source of pi 1.6's session totals, on two branches: assistant usage, a toolResult `usage`, a `usage` entry (cache warming), a compaction's and a branch summary's `usage`; a system message; a toolResult and a compaction with no usage.",
    "pi 1.6.0 `/session`: 2 user, 3 assistant, 1 tool call, 2 tool results, 8 messages (the system one too); tokens input 1111, output 2222, cacheRead 3333, cacheWrite 4444, total 11110; cost 1.23456789 (all entries, both branches).",
)
def _totals_every_source() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        _system(e(3), e(2), 5),
        user_entry(e(4), e(3), 10, "Read the README."),
        _with_usage(
            assistant_entry(
                e(5), e(4), 15, "Reading.", stop="toolUse", tool=("toolu_01Tot", "read", {"path": "README.md"})
            ),
            _usage(1000, 2000, 3000, 4000, 1.2),
        ),
        message(
            e(6),
            e(5),
            16,
            tool_result_msg("toolu_01Tot", "read", "# Title", 15.5) | {"usage": _usage(100, 200, 300, 400, 0.03)},
        ),
        message(e(7), e(6), 17, tool_result_msg("toolu_01Tot", "read", "more", 16.5)),
        _usage_entry(e(8), e(7), 18, _usage(10, 20, 30, 40, 0.004)),
        {
            "type": "compaction",
            "id": e(9),
            "parentId": e(8),
            "timestamp": iso_at(19),
            "summary": "Read the README.",
            "firstKeptEntryId": e(4),
            "tokensBefore": 9000,
            "usage": _usage(0, 1, 2, 3, 0.0005),
            "fromHook": False,
        },
        {
            "type": "compaction",
            "id": e(10),
            "parentId": e(9),
            "timestamp": iso_at(20),
            "summary": "Again.",
            "firstKeptEntryId": e(4),
            "tokensBefore": 9100,
            "fromHook": False,
        },
        _with_usage(assistant_entry(e(11), e(10), 25, "Done."), _usage(1, 1, 1, 1, 0.00006789)),
        {
            "type": "branch_summary",
            "id": e(12),
            "parentId": e(4),
            "timestamp": iso_at(30),
            "fromId": e(11),
            "summary": "Tried reading.",
            "usage": _usage(0, 0, 0, 0, 0.0000000),
        },
        user_entry(e(13), e(12), 35, "Try again."),
        _with_usage(assistant_entry(e(14), e(13), 40, "Again done."), _usage(0, 0, 0, 0, 0)),
    )


@fixture(
    "totals-missing-fields.jsonl",
    "Usages that lack figures: an assistant `usage` without `cacheWrite`, one whose `cost` has no `total`, a `usage` entry whose figures are strings, a toolResult with `usage: null` and a compaction with `usage: 0` (falsy: not added).",
    'pi 1.6.0 `/session` adds them with JavaScript\'s `+`: input `"73"` and output `"854"` (a string concatenates), cacheRead 4102, cacheWrite NaN (JSON null), total `"738544102NaN"`, cost NaN (null); 1 user, 3 assistant, 1 tool result, 5 messages.',
)
def _totals_missing_fields() -> bytes:
    no_write = _usage(3, 42, 2048, 120, 0.5)
    del no_write["cacheWrite"]
    no_total = _usage(1, 1, 1, 1, 0.1)
    del no_total["cost"]["total"]
    strings = {"input": "3", "output": "4", "cacheRead": 5, "cacheWrite": 6, "cost": {"total": "0.25"}}
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        _with_usage(assistant_entry(e(5), e(4), 30, "No cacheWrite."), no_write),
        _with_usage(assistant_entry(e(6), e(5), 35, "No cost total."), no_total),
        _usage_entry(e(7), e(6), 40, strings),
        message(e(8), e(7), 41, tool_result_msg("toolu_none", "bash", "", 40.5) | {"usage": None}),
        {
            "type": "compaction",
            "id": e(9),
            "parentId": e(8),
            "timestamp": iso_at(42),
            "summary": "s",
            "firstKeptEntryId": e(8),
            "tokensBefore": 1,
            "usage": 0,
        },
    )


@fixture(
    "totals-no-usage.jsonl",
    "An assistant message without `usage` (old or hand-made files): pi 1.6's `/session` reads `usage.input` of undefined and fails.",
    "pi 1.6.0 `getSessionStats` throws `Cannot read properties of undefined (reading 'input')`; the file loads and its context is built as usual.",
)
def _totals_no_usage() -> bytes:
    bare = assistant_entry(e(4), e(3), 15, "I have no usage.")
    del bare["message"]["usage"]
    return pi_lines(fixture_header(), *start(), user_entry(e(3), e(2), 10, "Hello"), bare, *chat(5, e(4), 20, 1))


@fixture(
    "totals-usage-entry-no-cost.jsonl",
    "A `usage` entry whose usage has no `cost`: pi 1.6's `/session` reads `cost.total` of undefined and fails.",
    "pi 1.6.0 `getSessionStats` throws `Cannot read properties of undefined (reading 'total')`.",
)
def _totals_no_cost() -> bytes:
    no_cost = _usage(7, 8, 9, 10, 0)
    del no_cost["cost"]
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), _usage_entry(e(5), e(4), 30, no_cost))


# ---- output ---------------------------------------------------------------------------------

README_HEAD = """# Session fixtures

Small hand-made session files, one behaviour each, for the store and conformance tests.
Generated by `python -m devkit.make_fixtures` (so that BOMs, CRLF, NUL bytes and invalid UTF-8 are
exact): change the script, not the files. Ids are readable 8-hex strings (`e0000003` is the
third entry), timestamps start at 2026-01-05T10:00:00.000Z.

"pi 0.73.1" is what pi's own SessionManager makes of the file (`python -m devkit.make_fixtures --oracle`,
or `tests/oracle`). Files whose name contains `cycle` must never be given to pi: it loops forever
on them.

| file | what it tests | pi 0.73.1 |
|---|---|---|
"""


FIXTURES.extend(CONTEXT_FIXTURES)


def write_all() -> None:
    if OUT.exists():
        for p in OUT.glob("*.jsonl"):
            p.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, data, tests, pi in FIXTURES:
        (OUT / name).write_bytes(data)
        esc = lambda s: s.replace("|", "\\|")  # noqa: E731
        rows.append(f"| `{name}` | {esc(tests)} | {esc(pi)} |")
    bugs = []
    for name, data, case, holds, pi16, pitui in PI16_FIXTURES:
        (OUT / name).write_bytes(data)
        bugs.append(f"| `{name}` | {case} | {esc(holds)} | {esc(pi16)} | {esc(pitui)} |")
    bugs += [
        f"| {names} | {case} | {esc(holds)} | {esc(pi16)} | {esc(pitui)} |"
        for names, case, holds, pi16, pitui in EXISTING
    ]
    bugs += [f"| (no file) | {case} | {esc(why)} | | |" for case, why in NO_FILE]
    bugs.sort(key=lambda row: int(row.split("| B", 1)[1].split(" ", 1)[0]))
    text = README_HEAD + "\n".join(rows) + "\n" + README_PI16 + "\n".join(bugs) + "\n" + README_TAIL
    (OUT / "README.md").write_text(text, encoding="utf-8")


README_PI16 = """
## pi 1.6.0's bugs

One or more files for each case of `reference/pi-1.6.md` §6 (B1–B15) that a file can show, named
after the case; cases that a fixture above already shows point at it. "pi 1.6.0" is what pi
1.6.0's SessionManager does with the file, "pitui" what pitui does with it: the same as pi
where pitui's listing keeps parity with pi's, otherwise without the bug.

| file | case | what the file holds | pi 1.6.0 | pitui |
|---|---|---|---|---|
"""

README_TAIL = """
Notes on reading the tables:

- v1 files get new random ids when pi migrates them, so their ids can only be compared by
  position. pi rewrites a v1/v2 file and overwrites a file it cannot read when it opens it: give
  pi copies only.
- `retainedTail` is read by no released pi (reference pi-1.6.md F6): the two files that carry it
  show that it is carried along and changes nothing.
- The `ctx-*` and `sys-*` files (devkit/fixtures_context.py) show pi 1.6.0's reading rules; their
  notes say what pi 1.6.0 does with them.
- Surprises worth knowing: a torn line joined to a complete entry loses both (and orphans the
  entry's children); a line `null` or a `message: null` entry makes pi throw; duplicate ids and
  duplicated headers make pi's tree list the same node twice; a NBSP before a JSON object makes
  the line unparsable although Python's `str.strip()` would remove it; orjson rejects the lone
  surrogate escapes that JavaScript accepts.
"""


def oracle_report(path: Path) -> str:
    res = open_copy_in_pi(path)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["?"])[0]
        return f"ERROR (exit {res.returncode}): {last[:200]}"
    got = json.loads(res.stdout)
    ctx = got["context"]
    msgs = ", ".join(m["role"] + (f"({m['text'][:20]!r})" if "text" in m else "") for m in ctx["messages"])
    return (
        f"header.version={got['header'].get('version')} header.id={str(got['header'].get('id'))[:8]} entries={len(got['entryIds'])} leaf={got['leafId']}\n"
        f"    branch={got['branch']}\n    roots={got['tree']['roots']} children={got['tree']['children']}\n"
        f"    labels={got['labels']} name={got['name']!r} model={ctx['model']} thinking={ctx['thinkingLevel']}\n"
        f"    context=[{msgs}]"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle", action="store_true", help="print what pi makes of each file (not the cycles)")
    args = ap.parse_args()
    write_all()
    print(f"{len(FIXTURES) + len(PI16_FIXTURES)} fixtures in {OUT.relative_to(ROOT)}")
    if args.oracle:
        for name, *_ in FIXTURES:
            if "cycle" in name:
                print(f"{name}: skipped (pi never returns on a cycle)")
                continue
            print(f"{name}: {oracle_report(OUT / name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
