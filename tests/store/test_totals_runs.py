"""The totals of a loaded session, counted a run of entries at a time from what the line index
kept (pitui.store.totals.session_stats), are those pi's rules give entry by entry on the parsed
lines (``entries_stats``), for any mix of entries and figures, read whole or reopened from the
session's index."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from devkit.builder import header
from pitui.store import totals
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
    raw = data.splitlines()[1:]
    want = entries_stats([parse_line(line) for line in raw])
    same(session_stats(Session.load(str(path)).entries), want)
    # Counted a slice of entries at a time (a slice boundary anywhere), the same totals.
    with mock.patch.object(totals, "_SLICE", 3):
        same(session_stats(Session.load(str(path)).entries), want)
    # The index written after the totals were counted holds them; a reopen starts from them.
    cache = IndexCache(str(folder / "index"), min_bytes=0, deferred=True)
    same(Session.load(str(path), index=cache).stats(), want)
    cache.write_pending()
    reopened = Session.load(str(path), index=cache)
    assert cache.last == "hit"
    held = reopened.totals.counter_for(reopened.entries, len(reopened.entries))
    shown = (want.input, want.output, want.cache_read, want.cache_write, want.cost, *want.exact)
    assert (held is None) == any(type(v) is int and abs(v) >= 2**63 for v in shown)  # (msgpack holds 64 bits)
    same(session_stats(reopened.entries), want)
    same(reopened.stats(), want)
    # Appended to: the count goes on from there, as a whole read of the longer file counts.
    cut = len(raw) // 2
    path.write_bytes(b"\n".join(data.splitlines()[: cut + 1]) + b"\n")
    growing = Session.load(str(path), index=cache)
    growing.stats()
    with open(path, "ab") as out:
        out.write(b"\n".join(raw[cut:]) + b"\n")
    assert growing.refresh() == len(raw) - cut
    same(growing.stats(), want)


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


def test_an_index_written_before_the_totals_were_counted_holds_them(tmp_path: Path) -> None:
    """A command's index is written by a child before the command counts: the writer counts."""
    usage = {"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}
    base = {"timestamp": "2026-01-01T00:00:00Z"}
    objects = [header()]
    for i in range(30):
        role = "assistant" if i % 2 else "user"
        message = {"role": role, "content": [{"type": "text", "text": "t"}]} | ({"usage": usage} if i % 2 else {})
        objects.append(
            {"type": "message", "id": f"{i:08x}", "parentId": f"{i - 1:08x}" if i else None, **base, "message": message}
        )
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(_dumps(o) + b"\n" for o in objects))
    cache = IndexCache(str(tmp_path / "index"), min_bytes=0)
    Session.load(str(path), index=cache)  # written at once, nothing counted yet
    reopened = Session.load(str(path), index=cache)
    held = reopened.totals.counter_for(reopened.entries, len(reopened.entries))
    assert cache.last == "hit" and held is not None
    stats = reopened.stats()
    assert (stats.assistant_messages, stats.user_messages, stats.input, stats.cost) == (15, 15, 45, 3.75)
