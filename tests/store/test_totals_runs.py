"""The totals of a loaded session, counted a run of entries at a time from what the line index
kept (pitui.store.totals.session_stats), are those pi's rules give entry by entry on the parsed
lines (``entries_stats``), for any mix of entries and figures, read whole or reopened from the
session's index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from devkit.builder import header
from pitui.store.jsonl import parse_line, prepare
from pitui.store.reader import Session
from pitui.store.session_index import IndexCache
from pitui.store.totals import SessionStats, entries_stats, session_stats

HUGE = 10**400  # an integer literal JSON.parse makes Infinity

PLAIN = st.one_of(st.integers(-5, 10**6), st.floats(0, 10, allow_nan=False))
FIGURES = st.one_of(
    PLAIN,
    st.sampled_from([2**53 + 1, 2**63, HUGE, -HUGE, True, None, "7", [], 1e300]),
)


@st.composite
def usages(draw: Any) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, 0, 7, "x", {}]))
    # Mostly plain numbers (what the line index keeps), else any figure.
    figures = FIGURES if draw(st.integers(0, 3)) == 0 else PLAIN
    usage = {key: draw(figures) for key in ("input", "output", "cacheRead", "cacheWrite")}
    if draw(st.integers(0, 5)):
        usage["cost"] = {"total": draw(figures)}
    return usage


@st.composite
def stats_lines(draw: Any) -> bytes:
    """A session of messages of every role, usage entries, compactions, branch summaries and
    entries pi counts nothing of, with plain and odd figures."""
    objects: list[Any] = [header()]
    for i in range(draw(st.integers(0, 40))):
        base = {"id": f"{i:08x}", "parentId": f"{i - 1:08x}" if i else None, "timestamp": "2026-01-01T00:00:00Z"}
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "toolResult", "system", "usage"]))
        kind = (
            kind if draw(st.integers(0, 7)) else draw(st.sampled_from(["compaction", "branch_summary", "label", "odd"]))
        )
        if kind in ("user", "assistant", "toolResult", "system"):
            message: dict[str, Any] = {"role": kind, "content": [{"type": "text", "text": "t"}]}
            if kind == "assistant" and draw(st.booleans()):
                message["content"].append({"type": "toolCall", "id": "c", "name": "read", "arguments": {}})
            if kind in ("assistant", "toolResult") and draw(st.integers(0, 9)):
                message["usage"] = draw(usages())
            objects.append({"type": "message", **base, "message": message})
        elif kind in ("usage", "compaction", "branch_summary"):
            entry = {"type": kind, **base, "summary": "s"}
            if kind == "usage" or draw(st.booleans()):
                entry["usage"] = draw(usages())
            objects.append(entry)
        elif kind == "odd":
            objects.append({"type": ["usage"], **base, "usage": draw(usages())})
        else:
            objects.append({"type": "label", **base, "targetId": base["parentId"], "label": "l"})
    return b"".join(_dumps(o) + b"\n" for o in objects)


def _dumps(value: Any) -> bytes:
    """JSON with integers of any size (orjson's stop at 64 bits)."""
    import json

    return json.dumps(value).encode()


def same(got: SessionStats, want: SessionStats) -> None:
    """Equal, NaN included: as ``inspect --json`` prints them, and the shown sums as they are."""
    assert orjson.dumps(prepare(got.pi_json())) == orjson.dumps(prepare(want.pi_json()))
    shown = ("input", "output", "cache_read", "cache_write", "cost", "user_messages", "assistant_messages")
    assert [repr(getattr(got, f)) for f in shown] == [repr(getattr(want, f)) for f in shown]
    assert (got.tool_calls, got.tool_results, got.total_messages) == (
        want.tool_calls,
        want.tool_results,
        want.total_messages,
    )


@settings(max_examples=100, deadline=None)
@given(data=stats_lines())
def test_totals_counted_in_runs_are_pi_rules_entry_by_entry(tmp_path_factory, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("totals")
    path = folder / "s.jsonl"
    path.write_bytes(data)
    want = entries_stats([parse_line(raw) for raw in data.splitlines()[1:]])
    same(session_stats(Session.load(str(path)).entries), want)
    cache = IndexCache(str(folder / "index"), min_bytes=0)
    Session.load(str(path), index=cache)
    same(session_stats(Session.load(str(path), index=cache).entries), want)
    assert cache.last == "hit"


def test_a_run_after_a_sum_stopped_being_a_number_adds_figure_by_figure(tmp_path: Path) -> None:
    """A string figure makes pi's sum a string; the messages after it (counted from what the
    index kept) concatenate onto it as JavaScript's + does."""
    base = {"parentId": None, "timestamp": "2026-01-01T00:00:00Z"}
    usage = {"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4, "cost": {"total": 0.5}}
    objects = [
        header(),
        {"type": "usage", "id": "u1", **base, "usage": usage | {"input": "7"}},
        *(
            {"type": "message", "id": f"m{i}", **base, "message": {"role": "assistant", "content": [], "usage": usage}}
            for i in range(3)
        ),
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(_dumps(o) + b"\n" for o in objects))
    stats = session_stats(Session.load(str(path)).entries)
    assert stats.pi_json()["tokens"]["input"] == "07111"  # (0 + "7", then each + concatenates)
    assert stats.pi_json()["tokens"]["output"] == 8
    assert (stats.input, stats.output, stats.assistant_messages) == (3, 8, 3)
