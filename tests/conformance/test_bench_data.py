"""The benchmark's generated sessions are sessions as pi 1.6.0 writes and reads them: every line
as pi writes it, the system message first in the model's context, the context_edits applied,
the cache-warming usage in pi's /session totals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.bench_session import small_session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    # A seed whose session has each of pi 1.6's entries, after its compaction as well.
    path = tmp_path_factory.mktemp("bench") / "s.jsonl"
    return path, small_session(path, 4)


def test_the_session_holds_what_pi_1_6_writes(session) -> None:
    _, entries = session
    types = [e["type"] for e in entries]
    assert types[:4] == ["session", "model_change", "thinking_level_change", "message"]
    assert entries[3]["message"]["role"] == "system"
    assert [t["name"] for t in entries[3]["message"]["toolsAdded"]] == ["read", "bash", "edit", "write"]
    assert "usage" in types and "context_edit" in types
    (compaction,) = [e for e in entries if e["type"] == "compaction"]
    assert compaction["systemMessage"]["sections"] == entries[3]["message"]["sections"]


def test_every_line_is_as_pi_writes_it(session, oracle) -> None:
    path, _ = session
    lines = path.read_bytes().splitlines()
    assert oracle.stringify(lines) == lines


def test_pi_reads_the_system_message_edits_and_usage(session, oracle) -> None:
    path, entries = session
    pi = oracle.open(path)
    assert pi["piVersion"] == "1.6.0"
    messages = pi["context"]["messages"]
    # After the compaction: its checkpoint of the system message, then its summary.
    assert [m["role"] for m in messages[:2]] == ["system", "compactionSummary"]
    assert messages[0]["toolsAdded"] == ["read", "bash", "edit", "write"]
    # The model's messages by the entry they come from (the projection's counts, in order).
    by_entry: dict[str, list[dict[str, Any]]] = {}
    rest = iter(messages)
    for entry_id, count in pi["projection"]:
        by_entry[entry_id] = [next(rest) for _ in range(count)]
    after = entries[[e["type"] for e in entries].index("compaction") + 1 :]
    edits = {e["targetId"]: e["replacement"] for e in after if e["type"] == "context_edit"}
    omitted = [target for target, replacement in edits.items() if replacement is None]
    replaced = [target for target, replacement in edits.items() if replacement is not None]
    assert omitted and replaced, "the seed gives no edit of each kind after the compaction"
    assert {target: by_entry[target] for target in omitted} == {target: [] for target in omitted}
    shown = {target: [(m["role"], m["textLen"]) for m in by_entry[target]] for target in replaced}
    assert shown == {target: [("toolResult", len("[output elided]"))] for target in replaced}
    warm = [e["usage"] for e in entries if e["type"] == "usage"]
    spent = [e["message"]["usage"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert pi["stats"]["tokens"]["cacheRead"] == sum(u["cacheRead"] for u in warm + spent)
