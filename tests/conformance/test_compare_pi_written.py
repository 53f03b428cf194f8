"""Comparing branches of sessions pi 1.6.0 wrote itself: each side holds exactly the entries on
its path below the common one, and its files, commands and totals are what those entries hold."""

from __future__ import annotations

from typing import Any

import orjson

from pitui.store.compare import compare
from pitui.store.reader import Session
from pitui.store.totals import entries_stats


def _leaves(session: Session) -> list[Any]:
    parents = {e.parent_id for e in session.entries}
    return [e.id for e in session.entries if e.id not in parents]


def test_branches_of_pi_written_sessions(pi_written: list[Any]) -> None:
    compared = 0
    for written in pi_written:
        session = Session.load(str(written.file))
        raw = {o.get("id"): o for o in map(orjson.loads, written.file.read_bytes().splitlines()[1:])}
        leaves = _leaves(session)
        for other in leaves[:-1]:
            c = compare(session, other, leaves[-1])
            for side in (c.a, c.b):
                path = session.path_to(side.entry.id)
                below = path[path.index(c.ancestor) + 1 :] if c.ancestor in path else path
                assert [e.id for e in side.entries] == [e.id for e in below]
                calls = [
                    b
                    for e in side.entries
                    if e.type == "message" and e.role == "assistant"
                    for b in raw[e.id]["message"]["content"]
                    if b.get("type") == "toolCall"
                ]
                assert [i.text for i in side.commands] == [
                    b["arguments"]["command"] for b in calls if b["name"] == "bash"
                ]
                touched = {b["arguments"]["path"] for b in calls if b["name"] in ("read", "write", "edit")}
                assert {i.text for i in side.files_read + side.files_changed} >= touched
                assert side.stats == entries_stats([raw[e.id] for e in sorted(side.entries, key=lambda e: e.line)])
            compared += 1
    assert compared, "pi wrote no session with two branches"
