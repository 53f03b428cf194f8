"""The model's context size (pitui.store.context_size) against pi 1.6.0's own functions: the
tokens pi's footer shows with each entry of a file as the leaf, on every fixture pi can read and
on sessions pi 1.6.0 wrote itself, and ``estimateTokens`` message by message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.store.context_size import context_tokens, estimate_tokens
from pitui.store.reader import Session

# pi's getBranch never ends on a parentId cycle (it runs out of memory): those files are left out.
FIXTURES = sorted(
    p
    for p in Path(__file__).parent.parent.joinpath("fixtures").glob("*.jsonl")
    if not p.name.startswith(("cycle-", "self-parent"))
)


def _compare(path: Path, pi: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
    session = Session.load(str(path))
    wrong = []
    for entry in session.entries:
        if type(entry.id) is not str or entry.id not in pi or "error" in pi[entry.id]:
            continue
        want = pi[entry.id]["tokens"]
        got = context_tokens(session, entry.id)
        if got != want:
            wrong.append((entry.id, want, got))
    return wrong


@pytest.fixture(scope="module")
def pi_fixtures(oracle) -> dict[str, Any]:
    return oracle.context_size(FIXTURES)


def test_fixture_sizes_as_pi_footer_counts_them(pi_fixtures):
    compared = 0
    for path in FIXTURES:
        pi = pi_fixtures[str(path)]
        if "error" in pi:
            continue  # pi cannot open it: nothing to show a size for
        compared += len(pi)
        assert _compare(path, pi) == [], path.name
    assert compared > 200  # the fixtures were read, not skipped


def test_unknown_after_a_compaction_as_pi(pi_fixtures):
    """pi shows '?' after a compaction until a reply: some fixture entries have no size."""
    path = next(p for p in FIXTURES if p.name == "ctx-compaction-system.jsonl")
    pi = pi_fixtures[str(path)]
    session = Session.load(str(path))
    unknown = [e.id for e in session.entries if context_tokens(session, e.id) is None]
    assert unknown and unknown == [k for k, v in pi.items() if v["tokens"] is None]


def test_pi_written_sessions(oracle, pi_written):
    files = [w.file for w in pi_written]
    pi = oracle.context_size(files)
    sizes = 0
    for path in files:
        assert "error" not in pi[str(path)], path.name
        assert _compare(path, pi[str(path)]) == [], path.name
        sizes += sum(1 for v in pi[str(path)].values() if v.get("tokens"))
    assert sizes > 0


MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "héllo 😀 world"},
    {"role": "user", "content": [{"type": "text", "text": "abc"}, {"type": "image", "data": "x", "mimeType": "p"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm…"},
            {"type": "text", "text": "ok"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "ä/b", "n": 1.5, "x": [1, None]}},
        ],
    },
    {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "x" * 41}]},
    {"role": "custom", "customType": "k", "content": "note"},
    {"role": "bashExecution", "command": "ls -la", "output": "a\nb\n"},
    {"role": "branchSummary", "summary": "s" * 9, "fromId": "x"},
    {"role": "compactionSummary", "summary": "", "tokensBefore": 3},
    {
        "role": "system",
        "content": "base",
        "sections": {"a": "12345", "b": ""},
        "toolsAdded": [{"name": "grep", "description": "d", "parameters": {"type": "object"}}],
    },
    {"role": "other", "content": "ignored"},
]


def test_estimate_tokens_as_pi(oracle):
    assert [estimate_tokens(m) for m in MESSAGES] == oracle.estimate_tokens(MESSAGES)
