# ruff: noqa: E501  (fixture text is data)
"""The fixtures of pi 1.6's session totals: the sums of ``/session``
(``AgentSession.getSessionStats``) over every source of usage, and files missing some of it.
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    MISSING,
    assistant_entry,
    chat,
    fixture_header,
    iso_at,
    message,
    ms_at,
    pi_lines,
    start,
    tool_result_msg,
    user_entry,
)
from devkit.builder import entry_id as e
from devkit.fixtures_registry import Fixture, registrar

TOTALS_FIXTURES: list[Fixture] = []
fixture = registrar(TOTALS_FIXTURES)


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


_HUGE = "1" + "0" * 400  # an integer literal no double holds: JSON.parse makes it Infinity


@fixture(
    "totals-odd-numbers.jsonl",
    "Figures JavaScript reads as Infinity: an assistant `usage` whose `input` is a 401-digit integer literal, a `usage` entry whose `cacheRead` is its negative; and an entry whose `type` is an array (no usage, no message).",
    "pi 1.6.0 `/session`: input Infinity and cacheRead -Infinity (JSON null), total NaN (null); cost 0.75; 1 user, 2 assistant, 3 messages.",
)
def _totals_odd_numbers() -> bytes:
    odd = {"type": ["usage"], "id": e(6), "parentId": e(5), "timestamp": iso_at(32), "usage": _usage(1, 1, 1, 1, 1)}
    return (
        pi_lines(
            fixture_header(),
            *start(),
            user_entry(e(3), e(2), 10, "Count."),
            _with_usage(assistant_entry(e(4), e(3), 20, "Counted."), _usage(424242, 5, 6, 7, 0.5)),
            _usage_entry(e(5), e(4), 30, _usage(1, 2, -535353, 4, 0.125)),
            odd,
            _with_usage(assistant_entry(e(7), e(6), 40, "Again."), _usage(1, 2, 3, 4, 0.125)),
        )
        .replace(b"424242", _HUGE.encode())
        .replace(b"-535353", b"-" + _HUGE.encode())
    )
