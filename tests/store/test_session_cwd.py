"""A session whose folder no longer exists: which ones, pi 1.6's words, and the fork into the
current folder, each held against pi 1.6.0's own ``core/session-cwd.js`` and ``forkFrom``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import orjson

from pitui.store.reader import Session
from pitui.store.session_cwd import fork_folder, fork_into, missing_cwd, missing_cwds

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "write-pi16.jsonl"

# pi's own functions on a copy: the issue and options for a fallback cwd, and forkFrom into it.
PI_SCRIPT = """
import { pathToFileURL } from "node:url";
import path from "node:path";
const [pkg, file, fallback, forkDir] = process.argv.slice(1);
const load = (p) => import(pathToFileURL(path.join(pkg, "dist", "core", p)).href);
const { SessionManager } = await load("session-manager.js");
const cwd = await load("session-cwd.js");
const issue = cwd.getMissingSessionCwdIssue(SessionManager.open(file, path.dirname(file)), fallback);
const out = { issue: issue ?? null };
if (issue) {
  out.prompt = cwd.formatMissingSessionCwdPrompt(issue);
  out.options = cwd.getMissingSessionCwdOptions(issue).map((o) => [o.label, o.value ?? null]);
  const fork = SessionManager.forkFrom(file, fallback, forkDir);
  out.fork = { file: fork.getSessionFile(), id: fork.getSessionId(), cwd: fork.getCwd() };
}
process.stdout.write(JSON.stringify(out));
"""


def _pi(oracle: Any, file: Path, fallback: str, fork_dir: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [oracle.node, "--input-type=module", "-e", PI_SCRIPT, str(oracle.package), str(file), fallback, str(fork_dir)],
        capture_output=True,
        check=True,
        timeout=60,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _session_in(tmp_path: Path, name: str, cwd: str) -> Path:
    lines = FIXTURE.read_bytes().splitlines()
    header = orjson.loads(lines[0]) | {"cwd": cwd}
    path = tmp_path / name / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    return path


def test_a_folder_that_exists_is_not_missing(tmp_path: Path) -> None:
    here = tmp_path / "project"
    here.mkdir()
    assert missing_cwd("s.jsonl", str(here), str(tmp_path)) is None
    assert missing_cwd("s.jsonl", "", str(tmp_path)) is None, "no cwd: pi opens it in the current folder"
    assert missing_cwd("s.jsonl", None, str(tmp_path)) is None


def test_a_removed_folder_is_missing_and_said_as_pi_says_it(tmp_path: Path, oracle: Any) -> None:
    gone = str(tmp_path / "removed" / "project")
    here = tmp_path / "here"
    here.mkdir()
    path = _session_in(tmp_path, "sessions", gone + "/")  # pi holds the cwd resolved
    theirs = _pi(oracle, path, str(here), tmp_path / "pi-fork")
    issue = missing_cwd(str(path), gone + "/", str(here))
    assert issue is not None
    assert theirs["issue"] == {"sessionFile": str(path), "sessionCwd": issue.session_cwd, "fallbackCwd": str(here)}
    assert issue.prompt == theirs["prompt"] == f"Session cwd does not exist: {gone}"
    assert [list(option) for option in issue.options()] == theirs["options"]
    assert issue.options()[1][0] == f"Fork into {here} (new session ID, original kept)"


def test_a_listing_looks_once_per_folder(tmp_path: Path, monkeypatch: Any) -> None:
    real = tmp_path / "real"
    real.mkdir()
    looked: list[str] = []
    isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: looked.append(p) or isdir(p))
    gone = str(tmp_path / "gone")
    cwds = [str(real), gone, str(real), gone, "", None, str(real)]
    assert missing_cwds(cwds) == {gone}
    assert sorted(looked) == sorted([str(real), gone])


def test_the_fork_is_pis_fork_into_the_current_folder(tmp_path: Path, oracle: Any, oracle_073: Any) -> None:
    gone = str(tmp_path / "removed")
    here = tmp_path / "here"
    here.mkdir()
    path = _session_in(tmp_path, "sessions", gone)
    before = path.read_bytes()
    theirs = _pi(oracle, path, str(here), tmp_path / "pi-fork")["fork"]
    issue = missing_cwd(str(path), gone, str(here))
    assert issue is not None
    folder = tmp_path / "pitui-fork"
    forked = fork_into(issue, str(folder))
    assert path.read_bytes() == before, "the original is not written"
    assert os.path.dirname(forked.path) == str(folder) and forked.cwd == theirs["cwd"] == str(here)
    assert forked.status == f"Forked into new session {forked.session_id} in {here}"
    mine_header, *mine = Path(forked.path).read_bytes().splitlines()
    pi_header, *pis = Path(theirs["file"]).read_bytes().splitlines()
    assert mine == pis, "every entry copied as pi copies it"
    ours, pi_says = orjson.loads(mine_header), orjson.loads(pi_header)
    assert list(ours) == list(pi_says) and ours["id"] == forked.session_id
    assert {k: v for k, v in ours.items() if k not in ("id", "timestamp")} == {
        k: v for k, v in pi_says.items() if k not in ("id", "timestamp")
    }
    for pi in (oracle, oracle_073):
        loaded = pi.open(forked.path)
        assert loaded["header"]["cwd"] == str(here) and loaded["leafId"] == Session.load(str(path)).leaf_id


def test_the_fork_goes_where_pi_keeps_the_current_folders_sessions(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert fork_folder("/home/me/proj") == str(tmp_path / "agent" / "sessions" / "--home-me-proj--")
    assert fork_folder("/home/me/proj", agent=str(tmp_path / "a2")) == str(tmp_path / "a2/sessions/--home-me-proj--")
    assert fork_folder("/home/me/proj", str(tmp_path / "flat")) == str(tmp_path / "flat")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "env"))
    assert fork_folder("/home/me/proj", agent=str(tmp_path / "a2")) == str(tmp_path / "env")
