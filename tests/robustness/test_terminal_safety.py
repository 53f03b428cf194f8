"""Session text is untrusted: escape sequences (OSC 52 clipboard writes, title changes, screen
clears), control characters, bidi overrides and Textual ``[markup]`` show as text in every
widget, every dialog, every command's output and every export; none reaches the terminal as
what it would do there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.apps import SIZE, opened, picker_app, view_app
from helpers.pilot import settle, until
from textual.pilot import Pilot

from devkit.builder import assistant, call, entry, header, msg, result, write
from pitui.store.paths import default_session_dir
from pitui.ui.screens.dialogs import BranchDialog, LabelDialog, SummaryEditor
from pitui.ui.widgets.preview_pane import PreviewPane

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
C1 = "\x9b31m"
BIDI = "\u202egnp.exe\u202c"
MARKUP = "[bold red]markup[/] [link=file:///etc/passwd]link[/link]"
HOSTILE = f"before {OSC52}{TITLE}{CLEAR}{C1} {BIDI} {MARKUP} bell\x07back\x08 after"
FORBIDDEN = ["\x1b", "\x07", "\x08", "\x9b", "\u202e", "\u202c"]
CWD = "/home/me/hostile-project"


def hostile_session(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bash = msg("x1", "r1", "bashExecution", n=5)
    bash["message"] = {
        "role": "bashExecution",
        "command": f"echo {HOSTILE}",
        "output": HOSTILE,
        "exitCode": 1,
        "cancelled": False,
        "truncated": False,
        "timestamp": 5,
    }
    return write(
        folder / "2025-01-01T00-00-00-000Z_11111111-2222-4333-8444-555555555555.jsonl",
        header(cwd=CWD),
        msg("u1", None, "user", HOSTILE, n=1),
        assistant("a1", "u1", 2, call("c1", "bash", command=HOSTILE), text=HOSTILE),
        result("r1", "a1", 3, "c1", "bash", HOSTILE, error=True),
        bash,
        entry("custom_message", "m1", "x1", 6, customType="ext", content=HOSTILE, display=True),
        entry("branch_summary", "b1", "m1", 7, fromId="m1", summary=HOSTILE),
        entry("label", "l1", "b1", 8, targetId="a1", label=f"lab {TITLE}{MARKUP}"),
        entry("session_info", "s1", "l1", 9, name=f"name {OSC52}{MARKUP}"),
        msg("u2", "s1", "user", HOSTILE, n=10),
        assistant("a2", "u2", 11, text=HOSTILE, stop="stop"),
    )


def assert_shown_as_text(svg: str) -> None:
    """The screen holds none of the sequences, and the markup as the literal text it is (a
    line may wrap inside it, so the brackets are looked for apart)."""
    for char in FORBIDDEN:
        assert char not in svg, f"{char!r} reached the screen"
    assert "[bold&#160;red]" in svg and "markup" in svg and "[/" in svg


async def shows_text(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    assert_shown_as_text(pilot.app.export_screenshot())


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    agent_dir = tmp_path / "agent"
    hostile_session(Path(default_session_dir(CWD, str(agent_dir))))
    return agent_dir


def session_file(agent: Path) -> Path:
    return next(Path(default_session_dir(CWD, str(agent))).glob("*.jsonl"))


async def test_the_picker_and_its_preview(tmp_path: Path, agent: Path) -> None:
    async with picker_app(agent, CWD, tmp_path).run_test(size=(160, 40)) as pilot:
        await until(
            pilot, lambda: pilot.app.screen.query(PreviewPane) and "First&#160;prompt" in pilot.app.export_screenshot()
        )
        await shows_text(pilot)
        await pilot.press(*"markup")  # a search: the snippet of the match
        await settle(pilot)
        await shows_text(pilot)


async def test_the_session_view_its_dialogs_status_and_notes(tmp_path: Path, agent: Path) -> None:
    path = session_file(agent)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await shows_text(pilot)  # header, tree, conversation
        for entry_id in ("a1", "r1", "x1", "m1", "b1"):
            screen.query_one("SessionTree").select(entry_id)
            await pilot.pause(0.1)
            await shows_text(pilot)
        # The label dialog shows the entry; the status line the label written.
        screen.query_one("SessionTree").select("a1")
        await pilot.press("L")
        await until(pilot, lambda: isinstance(pilot.app.screen, LabelDialog))
        await shows_text(pilot)
        pilot.app.screen.query_one("#label-input").value = HOSTILE
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                pilot.app.screen is screen and "wrote label entry" in str(screen.query_one("#session-status").render())
            ),
        )
        await shows_text(pilot)
        # The branch question and the digest in the editor: the branch left holds every kind.
        screen.query_one("SessionTree").select("a1")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog))
        await shows_text(pilot)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SummaryEditor))
        await shows_text(pilot)
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: (
                pilot.app.screen is screen and "branch summary" in str(screen.query_one("#session-status").render())
            ),
        )
        await shows_text(pilot)
        # A user message chosen: its text is copied and shown in a note.
        screen.query_one("SessionTree").select("u2")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog))
        await pilot.press("enter")
        await until(pilot, lambda: pilot.app.screen is screen and pilot.app.clipboard == HOSTILE)
        await pilot.pause(0.3)
        await shows_text(pilot)


def run_cli(*args: str, env_home: Path) -> str:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(env_home)}
    done = subprocess.run(
        [sys.executable, "-m", "pitui", *args], capture_output=True, env=env, check=False, cwd=str(env_home)
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode() + done.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ("ls", "--all"),
        ("inspect", "{file}"),
        ("search", "markup", "--all"),
        ("export", "{file}"),
        ("export", "{file}", "--format", "html"),
    ],
)
def test_every_command_and_export(agent: Path, args: tuple[str, ...]) -> None:
    path = session_file(agent)
    out = run_cli(*(a.replace("{file}", str(path)) for a in args), env_home=agent)
    for char in FORBIDDEN:
        assert char not in out, f"{char!r} in the output of {args}"
    assert "markup" in out


def test_an_export_written_to_a_file_shows_the_sequences_as_symbols(agent: Path, tmp_path: Path) -> None:
    path = session_file(agent)
    for fmt in ("md", "html"):
        out = tmp_path / f"export.{fmt}"
        run_cli("export", str(path), "--format", fmt, "-o", str(out), env_home=agent)
        text = out.read_text()
        assert not any(char in text for char in FORBIDDEN)
        assert "␛]52;c;cHduZWQ=␇" in text  # seen, not run, when the file is printed
