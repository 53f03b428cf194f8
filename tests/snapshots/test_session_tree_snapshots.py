"""What the session tree looks like: every filter mode, folded branches with label times, and a
search, on the demo's sessions (SVG snapshots)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.tree_app import BRANCHY, SHORTLINKS, make

from pitui.store.reader import Session
from pitui.store.tree import FILTERS


@pytest.mark.parametrize("mode", FILTERS)
def test_snapshot_filter_modes(snap_compare: Any, mode: str) -> None:
    app = make(Session.load(str(BRANCHY)), filter_mode=mode)
    assert snap_compare(app, terminal_size=(100, 30))


def test_snapshot_folded_with_label_times(snap_compare: Any) -> None:
    app = make(Session.load(str(BRANCHY)))
    assert snap_compare(app, terminal_size=(100, 30), press=["ctrl+left", "ctrl+left", "T"])


def test_snapshot_search(snap_compare: Any) -> None:
    path = SHORTLINKS / "2026-03-18T10-02-44-871Z_019d0065-cd07-7f5b-b7cc-9d5805002635.jsonl"
    app = make(Session.load(str(path)), filter_mode="no-tools")
    assert snap_compare(app, terminal_size=(100, 24), press=["s", "l", "u", "g"])
