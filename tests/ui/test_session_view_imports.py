"""``pitui FILE`` draws the session's first screen without the picker and the listing's catalog
(SQLite, the scan, the search): they are imported when the user goes back to the picker; nor the
dialogs and Textual's TextArea, imported when a write first asks something. A fresh
interpreter, since this one has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pitui

DEMO = Path(pitui.__file__).parent / "demo" / "sessions"

FIRST_SCREEN = r"""
import asyncio, json, sys
from pitui.ui.app import PituiApp

async def main(path):
    app = PituiApp(open_path=path, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(500):
            await pilot.pause(0.01)
            screen = app.screen
            if type(screen).__name__ == "SessionScreen" and screen.session is not None:
                break
        await pilot.pause()
        shown = app.screen.query_one("#conversation").items
        later = ("pitui.store.catalog", "pitui.ui.screens.picker", "sqlite3")
        later += ("pitui.ui.screens.dialogs", "textual.widgets._text_area")
        print(json.dumps({"shown": bool(shown), "loaded": sorted(m for m in later if m in sys.modules)}))

asyncio.run(main(sys.argv[1]))
"""


def test_a_session_opened_directly_imports_no_picker_catalog_or_dialogs(tmp_path: Path) -> None:
    session = sorted(DEMO.glob("*/*.jsonl"))[0]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_SCREEN, str(session)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"shown": True, "loaded": []}
