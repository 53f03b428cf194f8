"""What the preview pane looks like for a session with every fact: an SVG snapshot at 64x36."""

from __future__ import annotations

from helpers.preview_app import BASE, PaneApp


def test_snapshot(snap_compare):
    assert snap_compare(PaneApp(BASE), terminal_size=(64, 36))
