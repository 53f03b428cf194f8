"""Session files the pilot tests share: a project's folder of small sessions with forks, and a
worked session with tool calls."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from devkit.builder import assistant, call, entry, header, msg, result, write
from pitui.store.paths import default_session_dir

KIT_NOW = 1735689600000.0 + 3 * 3600 * 1000  # three hours after devkit.builder's messages
CWD = "/home/me/proj"


def session(
    folder: Path,
    name: str,
    text: str,
    *,
    n: int = 0,
    title: str | None = None,
    parent: Path | None = None,
    cwd: str = CWD,
    messages: int = 1,
) -> Path:
    """A session file: ``messages`` user messages starting with ``text``, an optional name."""
    folder.mkdir(parents=True, exist_ok=True)
    extra = {"parentSession": str(parent)} if parent else {}
    objects: list[Any] = [header(cwd=cwd, id=f"{name}-0000-4000-8000-000000000000", **extra)]
    previous = None
    for i in range(messages):
        eid = f"{name[:4]}{i:04d}"
        objects.append(msg(eid, previous, "user", text if i == 0 else f"{text} ({i})", n=n + i))
        previous = eid
    if title is not None:
        objects.append(entry("session_info", f"{name[:4]}name", previous, n=n, name=title))
    return write(folder / f"{name}.jsonl", *objects)


def kit_folder(tmp_path: Path) -> tuple[Path, Path]:
    """An agent folder and this project's session folder in it."""
    agent = tmp_path / "agent"
    folder = Path(default_session_dir(CWD, str(agent)))
    folder.mkdir(parents=True)
    return agent, folder


def family(folder: Path) -> dict[str, Path]:
    """A root with two forks, one of them forked again, and an unrelated session."""
    root = session(folder, "root", "Plan the parser", n=60, messages=3)
    a = session(folder, "fork-a", "Try a table-driven parser", n=40, parent=root)
    b = session(folder, "fork-b", "Try a recursive descent parser", n=30, parent=root, title="Recursive descent")
    a1 = session(folder, "fork-a1", "Table parser, second attempt", n=50, parent=a)
    lone = session(folder, "lone", "Unrelated: fix the CI cache", n=20)
    return {"root": root, "a": a, "b": b, "a1": a1, "lone": lone}


def worked_session(path: Path) -> Path:
    """u1 → a1 (reads, edits, runs a failing command) → r1 → a2 → u2 → a3 (writes) → r2 → a4 (leaf)."""
    return write(
        path,
        header(),
        msg("u1", None, "user", "Fix the flaky test in tests/test_io.py", n=1),
        assistant(
            "a1",
            "u1",
            2,
            call("c1", "read", path="src/io.py"),
            call("c2", "edit", path="src/io.py"),
            call("c3", "bash", command="pytest -q tests/test_io.py"),
        ),
        result("r1", "a1", 3, "c3", "bash", "1 failed\nAssertionError: timeout", error=True),
        assistant("a2", "r1", 4, text="The retry loop was off by one.", stop="stop"),
        msg("u2", "a2", "user", "Now add a changelog entry", n=5),
        assistant("a3", "u2", 6, call("c4", "write", path="CHANGELOG.md"), call("c5", "read", path="README.md")),
        result("r2", "a3", 7, "c4", "write", "ok"),
        assistant("a4", "r2", 8, text="Done.", stop="stop"),
    )


def path_name(path: str) -> str:
    """The first part of a demo session's id, from its file name."""
    return Path(path).stem.split("_")[1][:8]


def file_bytes(paths: Iterable[Path]) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in paths}
