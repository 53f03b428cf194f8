# ruff: noqa: E501  (fixture text is data)
"""The fixtures of the session format as pi 0.73.1 reads it: a linear session, branches,
labels, compactions, branch summaries, custom entries, session names, v1 and v2 files and their
migration. :mod:`devkit.make_fixtures` writes them first in the table.
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    FIXTURE_CWD,
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
from devkit.fixtures_registry import Fixture, registrar
from devkit.pijson import dumps

FORMAT_FIXTURES: list[Fixture] = []
fixture = registrar(FORMAT_FIXTURES)


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
