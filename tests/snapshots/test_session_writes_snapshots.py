"""What the branch dialogs of the session view look like: the summary question (without pi, and
with a ``pi`` on PATH) and the editor (SVG snapshots)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.apps import SIZE, demo_file, opened, view_app
from helpers.pilot import until
from textual.pilot import Pilot

from pitui.ui.screens.dialogs import BranchDialog, SummaryEditor


@pytest.mark.parametrize(
    ("steps", "pi"),
    [(("enter", "down"), False), (("enter", "down", "enter"), False), (("enter", "down"), True)],
    ids=["question", "editor", "question-with-pi"],
)
def test_branch_dialog_snapshots(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: tuple[str, ...], pi: bool
) -> None:
    path = demo_file(tmp_path)
    bin_dir = tmp_path / "bin"  # PATH: a pi there or none at all
    bin_dir.mkdir()
    if pi:
        (bin_dir / "pi").write_text(f"#!{sys.executable}\n")
        (bin_dir / "pi").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))

    async def run_before(pilot: Pilot[Any]) -> None:
        await opened(pilot)
        # The header's usage is counted in a thread: the screen is laid out once it is shown.
        await until(
            pilot, lambda: not [w for w in pilot.app.workers if w.group == "session-usage" and not w.is_finished]
        )
        await pilot.pause()
        await pilot.press(*["up"] * 6)
        for key in steps:
            await pilot.press(key)
            await pilot.pause(0.1)
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog | SummaryEditor))
        await pilot.pause()

    assert snap_compare(view_app(path, tmp_path), terminal_size=SIZE, run_before=run_before)
