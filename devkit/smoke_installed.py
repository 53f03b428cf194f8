"""Smoke test of an installed pitui: run by .ci/run with the python of a fresh virtual environment
that has only the wheel installed, from a folder outside the source tree.

Checks that the package imports from that environment's site-packages, that the commands and
their --help run (as ``pitui`` and as ``python -m pitui``), that the app runs headless on the demo
sessions the way ``pitui --demo`` starts it (the picker lists the demo sessions, Enter opens the
session view with its tree and conversation, the stylesheets shipped in the package are applied),
and that ``pitui --demo`` starts and quits in a real pseudo-terminal. Any failure exits non-zero.

    python devkit/smoke_installed.py        # (with the installed environment's python)
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

CHECKS: list[str] = []
COMMANDS = ("ls", "search", "inspect", "label", "rename", "branch", "fork", "clone", "trash", "export")
DEMO_TITLES = (
    "I want a `--units imperial` option",
    "Cache never expires after reboot",
    "Cache: clear command and --no-cache",
)  # this folder's three demo sessions
SIZE = (120, 36)


class SmokeFailure(Exception):
    pass


def check(ok: Any, what: str, detail: str = "") -> None:
    """Record a check, or stop the smoke test with what failed (and ``detail``: what was seen)."""
    if not ok:
        raise SmokeFailure(f"{what}: {detail}" if detail else what)
    CHECKS.append(what)


def bin_dir() -> Path:
    return Path(sys.executable).parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)


# ------------------------------------------------------------------ the installed package


def check_installed() -> None:
    import pitui
    from pitui.ui.app import STYLE_FILES, styles_dir

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    package = Path(pitui.__file__).resolve().parent
    check(package.is_relative_to(site), f"import pitui resolves inside site-packages ({site})", str(package))
    check(
        not (Path.cwd() / "pyproject.toml").exists() and not (Path.cwd() / "pitui").exists(),
        "the current folder is not a source tree",
    )
    styles = styles_dir().resolve()
    check(styles == package / "styles", "styles_dir() is the installed package's styles folder", str(styles))
    for name in STYLE_FILES:
        check((styles / name).is_file(), f"{name} is installed")
    demo = package / "demo" / "sessions"
    check(len(list(demo.glob("*/*.jsonl"))) == 6, "the six demo sessions are installed")


def check_commands() -> None:
    from importlib.metadata import version

    expected = f"pitui {version('pitui')}\n"
    check(version("pitui") != "unknown", f"package version {version('pitui')}")
    pitui_bin = str(bin_dir() / "pitui")
    for argv in ([pitui_bin], [sys.executable, "-m", "pitui"]):
        shown = " ".join(Path(argv[0]).name if i == 0 else a for i, a in enumerate(argv))
        proc = run(*argv, "--version")
        check(
            proc.returncode == 0 and proc.stdout == expected,
            f"{shown} --version prints {expected.strip()!r}",
            f"exit {proc.returncode}, {proc.stdout!r}, {proc.stderr.strip()!r}",
        )
        for command in ("", *COMMANDS):
            proc = run(*argv, *([command] if command else []), "--help")
            check(
                proc.returncode == 0 and proc.stdout.startswith("usage: pitui") and "examples:" in proc.stdout,
                f"{shown} {command + ' ' if command else ''}--help exits 0 with examples",
                f"exit {proc.returncode}, {proc.stdout[-300:]!r}, {proc.stderr.strip()!r}",
            )
    proc = run(pitui_bin, "ls", "--demo", "--json")
    check(
        proc.returncode == 0 and all(title[:20] in proc.stdout for title in DEMO_TITLES),
        "pitui ls --demo --json lists this folder's demo sessions",
        f"exit {proc.returncode}, {proc.stdout[:300]!r}, {proc.stderr.strip()!r}",
    )
    proc = run(pitui_bin, "search", "--demo", "--entries", '"cache key"', "--all", "--json")
    hits = json.loads(proc.stdout) if proc.returncode == 0 else []
    check(
        bool(hits) and all("cache key" in hit["snippet"].lower() and hit["entryId"] for hit in hits),
        "pitui search --entries lists the demo's messages with the phrase, with their entry ids",
        f"exit {proc.returncode}, {proc.stdout[:300]!r}, {proc.stderr.strip()!r}",
    )
    proc = run(pitui_bin, "usage", "--demo", "--all", "--json")
    total = json.loads(proc.stdout)["total"] if proc.returncode == 0 else {}
    check(
        total.get("sessions") == 6 and total.get("totalTokens", 0) > 0,
        "pitui usage --all --json counts the six demo sessions' tokens",
        f"exit {proc.returncode}, {proc.stdout[-300:]!r}, {proc.stderr.strip()!r}",
    )
    proc = run(pitui_bin, "compare", "--demo", "019cf5ce", "516710ee", "7fc2b26e", "--json")
    compared = json.loads(proc.stdout) if proc.returncode == 0 else {}
    check(
        compared.get("ancestor", {}).get("id") == "06f6dfcd" and compared.get("relation") == "apart",
        "pitui compare --json finds the common entry of two demo branches",
        f"exit {proc.returncode}, {proc.stdout[:300]!r}, {proc.stderr.strip()!r}",
    )


# ------------------------------------------------------------------ the app, headless


def demo_args() -> Any:
    """The arguments ``pitui --demo`` runs the app with, the demo copied as it does it."""
    from pitui.cli import launch
    from pitui.cli import main as cli

    captured: list[Any] = []
    real = launch.run_app
    launch.run_app = lambda args: captured.append(args) or 0  # type: ignore[assignment]
    try:
        status = cli.main(["--demo"])
    finally:
        launch.run_app = real  # type: ignore[assignment]
    check(status == 0 and len(captured) == 1, "pitui --demo parses and copies the demo")
    args = captured[0]
    check("pitui-demo-" in os.environ.get("PI_CODING_AGENT_DIR", ""), "the demo copy is the agent folder")
    return args


def screen_text(app: Any) -> str:
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


async def wait_for(pilot: Any, condition: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if condition():
            check(True, what)
            return
    check(False, what, f"not within {timeout:.0f} s; the screen:\n{screen_text(pilot.app)}")


async def check_app() -> None:
    from pitui.cli import launch
    from pitui.config import load_config
    from pitui.ui.app import STYLE_FILES, PituiApp, styles_dir
    from pitui.ui.screens.picker import PickerScreen
    from pitui.ui.screens.session import SessionScreen

    args = demo_args()
    app = launch.build_app(args, load_config())  # as run_app builds it (run_test needs no terminal)
    check(
        all(Path(path).resolve().parent == styles_dir().resolve() for path in PituiApp.CSS_PATH)
        and len(PituiApp.CSS_PATH) == len(STYLE_FILES),
        "the app's CSS_PATH is the installed styles",
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PickerScreen) and all(title in screen_text(app) for title in DEMO_TITLES),
            "the picker lists this folder's three demo sessions",
        )
        text = screen_text(app)
        check("Resume Session (Current Folder)" in text, "the picker's header is on screen")
        check("(1/3)" in text, "the picker's status counts 1/3")
        # picker.tcss: PickerScreen { padding: 1 1 0 1 }, #picker-preview { width: 42%; border-left: vkey ... }
        padding = app.screen.styles.padding
        check(
            (padding.top, padding.right, padding.bottom, padding.left) == (1, 1, 0, 1),
            "picker.tcss applied: the picker's padding is 1 1 0 1",
            str(padding),
        )
        preview = app.screen.query_one("#picker-preview")
        width = preview.styles.width
        check(
            str(width) in ("42%", "42w") and preview.styles.border_left[0] == "vkey",
            "picker.tcss applied: the preview is 42% wide with a vkey border",
            f"{width}, {preview.styles.border_left}",
        )

        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None,
            "Enter opens the session view of the highlighted session",
        )
        screen = app.screen
        tree = screen.query_one("#tree")
        await wait_for(
            pilot,
            lambda: not tree.loading and "Everything on the path" in screen_text(app),
            "the session view finishes loading",
        )
        text = screen_text(app)
        check("Tree" in text and "Everything on the path" in text, "the tree and conversation panes are on screen")
        # The leaf may be a usage entry pi 1.6 hides: the row shown for it is the one highlighted.
        check(tree.model.at_leaf(), "the tree highlights the session's leaf (or the row shown for it)")
        # The rows' text is made off the UI thread: it may be drawn a frame after the panes.
        await wait_for(
            pilot,
            lambda: "› • assistant: Committed as `9ac41e2`." in screen_text(app),
            "the tree shows the leaf's row on the active path",
        )
        text = screen_text(app)
        check("user: commit" in text and "[bash: git add -A" in text, "the tree shows the rows above the leaf")
        check(
            "Everything on the path · " in text
            and "Committed as 9ac41e2." in text
            and "User" in text
            and "Assistant" in text,
            "the conversation shows the messages up to the leaf",
        )
        # session.tcss: #tree-pane { width: 45%; border: round ... }
        pane = screen.query_one("#tree-pane")
        check(
            pane.styles.border_top[0] == "round" and "╭" in text,
            "session.tcss applied: the tree pane has a round border",
        )
        pane_width = pane.styles.width
        check(str(pane_width) in ("45%", "45w"), "session.tcss applied: the tree pane is 45% wide", str(pane_width))

        await pilot.press("f1")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "F1 opens the list of keys")
        box = app.screen.query_one("#help-box")
        check(box.styles.border_top[0] == "round", "app.tcss applied: the help box has a round border")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "Escape closes the list of keys")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen), "Escape goes back to the picker")
        picker_screen = app.screen
        await pilot.press("ctrl+g")
        await wait_for(
            pilot,
            lambda: "Usage · this folder" in screen_text(app) and "tokens ·" in screen_text(app),
            "Ctrl+G opens the usage screen, its figures counted",
        )
        # textual-plotext, a dependency, draws the plot: its frame and y axis are on screen.
        text = screen_text(app)
        check("┤" in text and "└" in text and "cache read" in text, "the usage plot has axes and a legend")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is picker_screen, "Escape leaves the usage screen")
        await pilot.press("ctrl+f", *'"cache key"')
        await wait_for(
            pilot,
            lambda: "Find entries" in screen_text(app) and " hit" in screen_text(app).splitlines()[-1],
            "Ctrl+F finds the messages with a phrase typed in its search box",
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is picker_screen, "Escape leaves Find entries")
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
    check(app.return_value is None, "Ctrl+Q quits without choosing a session")


# ------------------------------------------------------------------ the app, in a terminal


def check_terminal() -> None:
    """``pitui --demo`` in a pseudo-terminal: the picker draws, Ctrl+Q ends it with status 0."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become pitui
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(SIZE[0]), "LINES": str(SIZE[1])}
        os.execve(str(bin_dir() / "pitui"), ["pitui", "--demo"], env)
    import fcntl

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    output = b""
    deadline = time.monotonic() + 60
    quit_sent = False
    status = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    break
                output += chunk
                if b"\x1b[6n" in chunk:  # a cursor position query: answer it
                    os.write(fd, b"\x1b[1;1R")
            if not quit_sent and b"Cache never expires after reboot" in output:
                time.sleep(0.5)
                os.write(fd, b"\x11")  # Ctrl+Q
                quit_sent = True
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
                break
    finally:
        if status is None:
            for _ in range(50):
                done, code = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = code
                    break
                time.sleep(0.1)
            if status is None:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        os.close(fd)
    check(
        quit_sent, "pitui --demo in a terminal draws the picker with the demo sessions", f"it wrote: {output[-2000:]!r}"
    )
    check(
        status is not None and os.waitstatus_to_exitcode(status) == 0,
        "Ctrl+Q ends pitui --demo with status 0",
        "it did not end: killed"
        if status is None
        else f"status {os.waitstatus_to_exitcode(status)}, it wrote: {output[-2000:]!r}",
    )


def main() -> int:
    scratch = tempfile.mkdtemp(prefix="pitui-smoke-")
    for name, sub in (("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config")):
        os.environ[name] = os.path.join(scratch, sub)
    os.environ.pop("PITUI_CONFIG", None)
    os.environ.pop("PI_CODING_AGENT_SESSION_DIR", None)
    os.environ["PI_CODING_AGENT_DIR"] = os.path.join(scratch, "agent")
    os.chdir(scratch)
    start = time.monotonic()
    try:
        check_installed()
        check_commands()
        asyncio.run(check_app())
        check_terminal()
    except SmokeFailure as failure:
        print(f"smoke: FAILED: {failure}", file=sys.stderr)
        return 1
    except Exception:
        import traceback

        traceback.print_exc()
        print("smoke: FAILED with an exception (above)", file=sys.stderr)
        return 1
    finally:
        os.chdir("/")
        shutil.rmtree(scratch, ignore_errors=True)
    for what in CHECKS:
        if "--help" not in what:
            print(f"smoke: ok  {what.splitlines()[0]}")
    helps = sum("--help" in what for what in CHECKS)
    print(f"smoke: ok  {helps} --help runs exit 0 with examples")
    print(f"smoke: all {len(CHECKS)} checks passed in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
