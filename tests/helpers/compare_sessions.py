"""A session with two branches worth comparing (tests of pitui.store.compare and its screen)."""

from __future__ import annotations

from pathlib import Path

from devkit.builder import assistant, call, entry, lines, msg, result
from helpers.sessions import worked_session


def branched(tmp_path: Path) -> Path:
    """The worked session (u1 a1 r1 a2 u2 a3 r2 a4), and from a2 a second branch: a branch
    summary, a prompt, a failing bash call, a model error, a compaction, an answer."""
    path = worked_session(tmp_path / "s.jsonl")
    usage = {"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 1, "cost": {"total": 0.25}}
    other = [
        entry(
            "branch_summary",
            "b1",
            "a2",
            9,
            fromId="a4",
            summary="Tried a changelog.",
            details={"readFiles": ["README.md", "docs/x.md"], "modifiedFiles": ["CHANGELOG.md"]},
        ),
        msg("u3", "b1", "user", "Run the linter instead", n=10),
        assistant(
            "a5",
            "u3",
            11,
            call("c6", "bash", command="ruff check ."),
            call("c7", "read", path="pyproject.toml"),
            usage=usage,
        ),
        result("r3", "a5", 12, "c6", "bash", "E501 line too long", error=True),
        assistant("a6", "r3", 13, stop="error", errorMessage="overloaded", usage=usage),
        entry("compaction", "k1", "a6", 14, summary="Linting.", firstKeptEntryId="u3", tokensBefore=900),
        assistant("a7", "k1", 15, text="The linter found one long line.", stop="stop", usage=usage),
    ]
    with path.open("ab") as handle:
        handle.write(lines(*other))
    return path
