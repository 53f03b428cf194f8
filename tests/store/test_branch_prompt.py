"""What pitui gives pi to summarise an abandoned branch, and what it writes from pi's answer,
compared with pi 1.6.0's own ``prepareBranchEntries``/``serializeConversation`` and
``generateBranchSummary`` (run with a stand-in model, tests/oracle/pi_branch.mjs) on the same
files: the entries kept, the transcript, the file lists, the shape of the prompt and the summary
pi would store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.sessions import worked_session

from devkit.builder import assistant, call, entry, header, msg, result, write
from pitui.store.branch_prompt import (
    BRANCH_SUMMARY_PREAMBLE,
    NO_CONTENT_SUMMARY,
    SUMMARY_INSTRUCTIONS,
    branch_prompt,
    finish_summary,
    prepare_branch,
    serialize_conversation,
    to_llm,
)
from pitui.store.digest import abandoned_entries, branch_transcript
from pitui.store.reader import Session

REPLY = "## Goal\nFix the flaky test\n\n## Next Steps\n1. Run it again"


def every_kind(path: Path) -> Path:
    """A branch (u2 … leaf) holding each kind of entry pi summarises, and some it leaves out:
    thinking, tool calls, tool results, shell commands (one kept out of the context, one cut
    short), a custom message, an earlier summary with its file lists, a compaction, a system
    message, and context edits that omit and replace entries of the branch."""
    thinking = {"type": "thinking", "thinking": "Maybe the cache is stale.", "thinkingSignature": "sig"}
    return write(
        path,
        header(),
        msg("u1", None, "user", "Start here", n=1),
        assistant("a1", "u1", 2, text="Ready.", stop="stop"),
        msg("u2", "a1", "user", "Fix the flaky test in tests/test_io.py", n=3),
        assistant("a2", "u2", 4, thinking, call("c1", "read", path="src/io.py"), text="Looking."),
        result("r1", "a2", 5, "c1", "read", "def read(): ..."),
        assistant("a3", "r1", 6, call("c2", "edit", path="src/io.py", oldText="a", newText="b")),
        result("r2", "a3", 7, "c2", "edit", "ok"),
        msg(
            "b1",
            "r2",
            "bashExecution",
            n=8,
            command="pytest -q",
            output="1 failed",
            exitCode=1,
            cancelled=False,
            truncated=True,
            fullOutputPath="/tmp/out.txt",
        ),
        msg(
            "b2",
            "b1",
            "bashExecution",
            n=9,
            command="ls",
            output="",
            exitCode=0,
            cancelled=False,
            truncated=False,
            excludeFromContext=True,
        ),
        entry(
            "custom_message", "m1", "b2", n=10, customType="note", content="A reminder from an extension", display=True
        ),
        entry(
            "branch_summary",
            "s1",
            "m1",
            n=11,
            fromId="x9",
            summary="Earlier: tried a cache.",
            details={"readFiles": ["docs/cache.md", "src/io.py"], "modifiedFiles": ["src/cache.py"]},
        ),
        entry(
            "compaction",
            "k1",
            "s1",
            n=12,
            summary="Compacted: the test flakes.",
            firstKeptEntryId="s1",
            tokensBefore=900,
        ),
        msg("y1", "k1", "system", "You are a coding assistant.", n=13),
        assistant("a4", "y1", 14, call("c3", "write", path="NOTES.md"), text="Noted."),
        msg("u3", "a4", "user", "Now say it shorter", n=15),
        entry("context_edit", "e1", "u3", n=16, targetId="a4", replacement=None),
        entry("context_edit", "e2", "e1", n=17, targetId="u3", replacement={"content": "(a request, replaced)"}),
        assistant("a5", "e2", 18, text="Flaky test fixed.", stop="stop"),
    )


def pi_answers(oracle: Any, path: Path, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    answers = oracle.branch_summary_input({"file": str(path), **r} for r in requests)
    for answer in answers:
        assert "error" not in answer, answer
    return answers


@pytest.fixture
def sessions(tmp_path: Path) -> dict[str, Path]:
    return {"every kind": every_kind(tmp_path / "every.jsonl"), "worked": worked_session(tmp_path / "worked.jsonl")}


@pytest.mark.parametrize("name", ["every kind", "worked"])
@pytest.mark.parametrize("budget", [0, 30, 12, 1])
def test_the_branch_is_prepared_as_pi_prepares_it(
    oracle: Any, sessions: dict[str, Path], name: str, budget: int
) -> None:
    path = sessions[name]
    session = Session.load(str(path))
    targets = ["u1", "a1", "r1"] if name == "every kind" else ["u1", "a2"]
    answers = pi_answers(oracle, path, [{"target": t, "budget": budget} for t in targets])
    for target, pi in zip(targets, answers, strict=True):
        left = abandoned_entries(session, session.leaf_id, target)
        assert [e.id for e in left] == pi["entryIds"], target
        prepared = prepare_branch(left, budget)
        assert serialize_conversation(to_llm(prepared.messages)) == pi["transcript"], (target, budget)
        assert prepared.files.details() == {"readFiles": pi["readFiles"], "modifiedFiles": pi["modifiedFiles"]}
        if budget == 0:
            assert branch_transcript(left) == pi["transcript"]


def test_what_the_transcript_holds_and_leaves_out(sessions: dict[str, Path]) -> None:
    session = Session.load(str(sessions["every kind"]))
    text = branch_transcript(abandoned_entries(session, session.leaf_id, "a1"))
    assert text.startswith("[User]: Fix the flaky test in tests/test_io.py\n\n[Assistant]: Looking.\n\n")
    assert '[Assistant tool calls]: edit(path="src/io.py", oldText="a", newText="b")' in text
    assert "Maybe the cache is stale" not in text  # thinking is left out, as pi 1.6 does
    assert "def read()" not in text  # so are tool results
    assert "[Output truncated. Full output: /tmp/out.txt]" in text
    assert "Ran `ls`" not in text  # a !! command stays out of the context
    assert "[User]: The following is a summary of a branch" in text
    assert "Noted." not in text and "NOTES.md" not in text  # omitted by e1
    assert "[User]: (a request, replaced)" in text and "Now say it shorter" not in text
    assert "You are a coding assistant" not in text


@pytest.mark.parametrize("focus", [None, "the failing assertion"])
def test_the_prompt_has_pis_shape_and_the_summary_is_written_as_pi_writes_it(
    oracle: Any, sessions: dict[str, Path], focus: str | None
) -> None:
    path = sessions["every kind"]
    session = Session.load(str(path))
    request: dict[str, Any] = {"target": "a1", "reply": REPLY, "contextWindow": 0}
    if focus:
        request["customInstructions"] = focus
    (pi,) = pi_answers(oracle, path, [request])
    left = abandoned_entries(session, session.leaf_id, "a1")
    prompt = branch_prompt(left, focus)
    assert prompt.text is not None
    # The same conversation, in the same tags, then the instructions (pitui's words).
    conversation = f"<conversation>\n{pi['transcript']}\n</conversation>\n\n"
    assert pi["prompt"].startswith(conversation)
    ours = conversation + SUMMARY_INSTRUCTIONS + (f"\n\nAdditional focus: {focus}" if focus else "")
    assert prompt.text == ours
    for heading in ("## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions", "## Next Steps"):
        assert heading in prompt.text and heading in pi["prompt"]
    assert pi["prompt"].endswith(f"\n\nAdditional focus: {focus}") == bool(focus)
    # What is written: pi's preamble, the answer, the file lists; the same lists as details.
    assert finish_summary(REPLY, prompt.files) == pi["summary"]
    assert prompt.files.details() == pi["details"]
    assert pi["summary"].startswith(BRANCH_SUMMARY_PREAMBLE)
    assert (
        "<read-files>\ndocs/cache.md\n</read-files>\n\n<modified-files>\nsrc/cache.py\nsrc/io.py\n</modified-files>"
        in (pi["summary"])
    )


def test_a_branch_with_no_message_is_not_sent_to_a_model(oracle: Any, tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("u1", None, "user", "hi", n=1),
        entry("label", "l1", "u1", n=2, targetId="u1", label="start"),
        entry("thinking_level_change", "t1", "l1", n=3, thinkingLevel="high"),
    )
    session = Session.load(str(path))
    (pi,) = pi_answers(oracle, path, [{"target": "u1", "reply": REPLY}])
    prompt = branch_prompt(abandoned_entries(session, session.leaf_id, "u1"))
    assert prompt.text is None and pi["prompt"] is None  # pi asked no model
    assert finish_summary(None, prompt.files) == pi["summary"] == NO_CONTENT_SUMMARY
    assert prompt.files.details() == pi["details"] == {"readFiles": [], "modifiedFiles": []}
