"""``pitui search --entries``, run as a user runs it: the hits printed, the JSON parsed, and
both checked against the messages of the files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from devkit.builder import header, msg, write

PROJ = "--home-me-proj--"


def pitui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd="/",
        timeout=120,
    )


def _agent(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "agent" / "sessions" / PROJ
    folder.mkdir(parents=True)
    write(
        folder / "one.jsonl",
        header(cwd="/home/me/proj", id="sess-one"),
        msg("u0000001", None, "user", "Why does the Flaky test fail?", n=1),
        msg("a0000002", "u0000001", "assistant", "The flaky test races the timer.", n=2),
        msg("u0000003", "a0000002", "user", "thanks", n=3),
    )
    other = tmp_path / "agent" / "sessions" / "--srv-other--"
    other.mkdir()
    write(other / "two.jsonl", header(cwd="/srv/other", id="sess-two"), msg("u0000009", None, "user", "flaky CI", n=9))
    return {"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_json_lists_each_matching_message(tmp_path: Path) -> None:
    env = _agent(tmp_path)
    result = pitui("search", "--entries", '"flaky test"', "--json", "--all", env=env)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert [(h["entryId"], h["role"]) for h in hits] == [("a0000002", "assistant"), ("u0000001", "user")]
    first = hits[0]
    assert first["sessionId"] == "sess-one" and first["path"].endswith("one.jsonl")
    assert first["title"] == "Why does the Flaky test fail?"
    assert first["time"] == "2025-01-01T00:00:02.000Z"
    start, end = first["spans"][0]
    assert first["snippet"][start:end] == "flaky test"


def test_scope_and_text_output(tmp_path: Path) -> None:
    env = _agent(tmp_path)
    here = pitui("search", "--entries", "flaky", env={**env, "PWD": "/home/me/proj"})
    # the current folder is "/", which has no sessions: nothing found, said on stderr
    assert here.returncode == 1 and "No matching entries" in here.stderr
    everywhere = pitui("search", "--entries", "FLAKY", "--all", env=env)
    assert everywhere.returncode == 0, everywhere.stderr
    out = everywhere.stdout
    assert out.count("sess-one") == 2 and out.count("sess-two") == 1
    assert "u0000009  user" in out and "a0000002  assistant" in out


def test_bad_regex_is_an_error(tmp_path: Path) -> None:
    result = pitui("search", "--entries", "re:(", "--all", env=_agent(tmp_path))
    assert result.returncode != 0
    assert "regular expression" in result.stderr
