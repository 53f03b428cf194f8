"""pitui in a real terminal (tmux, 80x24), driven with ``tmux send-keys``: several keys in one
``send-keys`` arrive in one read, as fast typing and SSH batching deliver them. What the tests
look at is what the terminal shows and what the session files hold."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import pitui
from pitui.store.demo import install_demo

# The terminal runs the pitui these tests import (``env -i`` would otherwise drop PYTHONPATH).
PITUI_ROOT = str(Path(pitui.__file__).resolve().parents[1])

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WIDTH, HEIGHT = 80, 24


class Terminal:
    """One tmux session running pitui, with its own server socket."""

    def __init__(self, socket: str, name: str) -> None:
        self.socket, self.name = socket, name

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True, timeout=20
        ).stdout

    def keys(self, *keys: str) -> None:
        """The keys in one ``send-keys``: one write to the terminal."""
        self.tmux("send-keys", "-t", self.name, *keys)

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed {what}; it shows:\n{text}")
            time.sleep(0.1)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the demo sessions: the agent folder."""
    return Path(install_demo(str(tmp_path)).agent_dir)


@pytest.fixture
def terminal(tmp_path: Path, demo: Path) -> Iterator[Callable[..., Terminal]]:
    socket = f"pitui-test-{uuid.uuid4().hex[:8]}"
    started: list[Terminal] = []

    def start(*args: str) -> Terminal:
        env = {
            "PI_CODING_AGENT_DIR": str(demo),
            "HOME": str(tmp_path),
            "TERM": "xterm-256color",
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": PITUI_ROOT,
        }
        command = " ".join(
            [*(f"{key}='{value}'" for key, value in env.items()), "exec", sys.executable, "-m", "pitui", *args]
        )
        term = Terminal(socket, "pitui")
        subprocess.run(
            [
                "tmux",
                "-L",
                socket,
                "new-session",
                "-d",
                "-s",
                "pitui",
                "-x",
                str(WIDTH),
                "-y",
                str(HEIGHT),
                "env",
                "-i",
                "sh",
                "-c",
                command,
            ],
            check=True,
            timeout=20,
            cwd=tmp_path,
        )
        started.append(term)
        return term

    yield start
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=20)


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith((" › ", "   "))]


def test_down_enter_in_one_write_opens_the_second_row(terminal: Callable[..., Terminal]) -> None:
    term = terminal("--all")
    text = term.wait_for(lambda t: "(1/6)" in t, "the picker with six sessions")
    second = _rows(text)[1].strip().split("  ")[0].rstrip("…")
    term.keys("Down", "Enter")
    text = term.wait_for(lambda t: "Tree" in t and second[:30] in t, "the second row's session view")
    assert text.splitlines()[0].strip().startswith(second[:30])


def test_up_ctrl_d_in_one_write_asks_about_the_row_moved_to(terminal: Callable[..., Terminal], demo: Path) -> None:
    term = terminal("--all")
    text = term.wait_for(lambda t: "(1/6)" in t, "the picker with six sessions")
    first = _rows(text)[0].strip().lstrip("› ").split("  ")[0].rstrip("…")
    term.keys("Down", "Down")
    term.wait_for(lambda t: "(3/6)" in t, "the cursor on row 3")
    term.keys("Up", "Up", "C-d")
    text = term.wait_for(lambda t: "Delete session?" in t, "the delete question")
    lines = text.splitlines()
    about = lines[next(n for n, line in enumerate(lines) if "Delete session?" in line) + 1]
    assert about.strip().startswith(first[:30])  # the question names row 1
    files = sorted(demo.rglob("*.jsonl"))
    term.keys("Escape")
    term.wait_for(lambda t: "Delete session?" not in t, "the question gone")
    assert sorted(demo.rglob("*.jsonl")) == files


def test_capitals_typed_in_the_tree_search_are_text(terminal: Callable[..., Terminal], demo: Path) -> None:
    files = sorted(demo.rglob("*.jsonl"))
    before = {path: path.read_bytes() for path in files}
    term = terminal("--all")
    term.wait_for(lambda t: "(1/6)" in t, "the picker")
    term.keys("Enter")
    term.wait_for(lambda t: "Tree" in t and "Everything on the path" in t, "the session view")
    term.keys("-l", "Committed Fix Please Done")
    text = term.wait_for(lambda t: "search: Committed Fix" in t, "the search text")
    time.sleep(0.5)  # the rest of the text: whatever it would have done, it has done by now
    text = term.text()
    assert "Tree" in text and "search: Committed Fix" in text  # still the view: nothing quit or opened
    assert sorted(demo.rglob("*.jsonl")) == files
    assert {path: path.read_bytes() for path in files} == before


def test_the_demo_folder_goes_when_the_terminal_is_closed(tmp_path: Path) -> None:
    """``pitui --demo`` works on a copy in a temporary folder: closing the terminal (SIGHUP to
    the app) removes it, as quitting does."""
    import pty
    import signal

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "TERM": "xterm-256color", "HOME": str(tmp_path)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: pitui in the pseudo-terminal
        os.execve(sys.executable, [sys.executable, "-m", "pitui", "--demo"], env)
    try:
        deadline = time.monotonic() + 20
        while not list(scratch.glob("pitui-demo-*")):
            assert time.monotonic() < deadline, "pitui --demo made no demo folder"
            time.sleep(0.05)
        time.sleep(1.0)  # the app is up and drawing
        os.kill(pid, signal.SIGHUP)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGHUP
    assert list(scratch.glob("pitui-demo-*")) == []


def test_keys_typed_while_a_session_opens_act_in_turn(terminal: Callable[..., Terminal], demo: Path) -> None:
    """Enter opens the session; Up Up L, sent with it, and the label typed right after, act on
    the opened session in turn: the entry two above the leaf gets the label."""
    from pitui.store.reader import Session

    term = terminal("--all")
    term.wait_for(lambda t: "(1/6)" in t, "the picker")
    term.keys("Enter", "Up", "Up", "L")
    term.keys("-l", "mark")
    term.keys("Enter")
    term.wait_for(lambda t: "[mark]" in t, "the label on the tree row")
    labelled = [
        (path, session)
        for path in demo.rglob("*.jsonl")
        if "mark" in (session := Session.load(str(path))).labels.values()
    ]
    assert len(labelled) == 1
    _, session = labelled[0]
    (target,) = [entry for entry, label in session.labels.items() if label == "mark"]
    path_ids = [entry.id for entry in session.path_to()]
    assert path_ids.index(target) < len(path_ids) - 1  # above the leaf, not the leaf itself
