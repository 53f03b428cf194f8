"""A session's totals (pitui.store.totals) as pi 1.6's /session gives them, and what pitui shows
where pi's sums stop being numbers. The same files are checked against pi itself in
tests/conformance/test_stats_vs_pi.py; the figures here are the ones pi printed for them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import orjson

from devkit.builder import entry, header, msg, write
from pitui.store.jsonl import prepare
from pitui.store.reader import Session
from pitui.store.stats import session_preview
from pitui.store.totals import SessionStats, entries_stats, session_stats

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def stats_of(name: str) -> SessionStats:
    return session_stats(Session.load(str(FIXTURES / name)).entries)


def as_json(stats: SessionStats) -> dict:
    """The stats as ``pitui inspect --json`` writes them."""
    return json.loads(orjson.dumps(prepare(stats.pi_json())))


def test_every_source_of_usage_counts_on_every_branch() -> None:
    stats = stats_of("totals-every-source.jsonl")
    assert as_json(stats) == {
        "userMessages": 2,
        "assistantMessages": 3,
        "toolCalls": 1,
        "toolResults": 2,
        "totalMessages": 8,
        "tokens": {"input": 1111, "output": 2222, "cacheRead": 3333, "cacheWrite": 4444, "total": 11110},
        "cost": 1.23456789,
    }
    assert (stats.input, stats.output, stats.cache_read, stats.cache_write) == (1111, 2222, 3333, 4444)
    assert stats.total_tokens == 11110
    assert math.isclose(stats.cost, 1.23456789)
    assert stats.error is None


def test_missing_and_string_figures_follow_javascript_and_are_shown_as_zero() -> None:
    stats = stats_of("totals-missing-fields.jsonl")
    got = as_json(stats)
    assert got["tokens"] == {
        "input": "73",
        "output": "854",
        "cacheRead": 4102,
        "cacheWrite": None,
        "total": "738544102NaN",
    }
    assert got["cost"] is None  # NaN
    assert (got["userMessages"], got["assistantMessages"], got["toolResults"], got["totalMessages"]) == (1, 3, 1, 5)
    # Shown: only finite numbers add up; the strings and the missing figures count as 0.
    assert (stats.input, stats.output, stats.cache_read, stats.cache_write) == (7, 85, 4102, 127)
    assert stats.cost == 0.5017034


def test_an_assistant_without_usage_makes_pi_fail_but_pitui_still_adds_the_rest() -> None:
    stats = stats_of("totals-no-usage.jsonl")
    assert as_json(stats) == {"error": "Cannot read properties of undefined (reading 'input')"}
    assert stats.error is not None
    assert (stats.assistant_messages, stats.input, stats.output) == (2, 3, 42)


def test_a_usage_without_cost_makes_pi_fail() -> None:
    stats = stats_of("totals-usage-entry-no-cost.jsonl")
    assert as_json(stats) == {"error": "Cannot read properties of undefined (reading 'total')"}
    assert stats.input == 3, "the usage pi throws on is left out of what is shown"


def test_null_message_null_usage_and_null_blocks() -> None:
    assert entries_stats([{"type": "message", "message": None}]).error == (
        "Cannot read properties of null (reading 'role')"
    )
    assert entries_stats([{"type": "usage", "usage": None}]).error == (
        "Cannot read properties of null (reading 'input')"
    )
    blocks = [None, {"type": "toolCall"}]
    stats = entries_stats([{"type": "message", "message": {"role": "assistant", "content": blocks}}])
    assert stats.error == "Cannot read properties of null (reading 'type')"
    assert stats.tool_calls == 1
    # Values that are not objects have no properties, but reading them does not throw.
    weird = entries_stats([{"type": "message", "message": 5}, 42, "text", {"type": "usage", "usage": {"cost": 7}}])
    assert weird.error is None
    assert as_json(weird)["totalMessages"] == 1
    assert as_json(weird)["tokens"]["input"] is None  # 0 + undefined
    assert (
        entries_stats([{"type": "usage", "usage": 7}]).error == "Cannot read properties of undefined (reading 'total')"
    )


def test_the_preview_and_the_loaded_session_give_the_same_totals(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a1", None, "user", "hi", 1),
        msg(
            "a2",
            "a1",
            "assistant",
            "yes",
            2,
            usage={"input": 5, "output": 6, "cacheRead": 0, "cacheWrite": 1, "cost": {"total": 0.5}},
        ),
        entry(
            "usage",
            "a3",
            "a2",
            3,
            kind="cache_warm",
            provider="p",
            model="m",
            usage={"input": 0, "output": 0, "cacheRead": 100, "cacheWrite": 0, "cost": {"total": 0.01}},
        ),
    )
    preview = session_preview(str(path), use_cache=False)
    stats = session_stats(Session.load(str(path)).entries)
    assert (preview.tokens.input, preview.tokens.cache_read, preview.tokens.total) == (5, 100, 112)
    assert preview.cost == stats.cost == 0.51
    assert preview.totals == stats
