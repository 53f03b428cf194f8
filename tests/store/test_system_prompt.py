"""The system prompt replayed from a path's system messages (pitui.store.system_prompt), against
pi-ai's own getCurrentSystemMessage run on the same messages (tests/oracle/pi_system.mjs), and
what each system message on a path changed, as the session view shows it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from devkit.builder import header, msg, write
from pitui.store.reader import Session
from pitui.store.system_prompt import SystemPrompt, path_system_prompt, replay_system

SCRIPT = Path(__file__).resolve().parent.parent / "oracle" / "pi_system.mjs"
READ = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
BASH = {"name": "bash", "description": "Run a command", "parameters": {"type": "object"}}
GREP = {"name": "grep", "description": "Search", "parameters": {"type": "object"}}


def system(n: int = 1, **fields: Any) -> dict[str, Any]:
    return {"role": "system", "content": "", **fields, "timestamp": 1_700_000_000_000 + n}


USER = {"role": "user", "content": "hi", "timestamp": 1}

CASES: dict[str, list[Any]] = {
    "none": [USER],
    "empty": [],
    "first only": [system(sections={"preamble": "You are pi.", "tools": "<tools/>"}, toolsAdded=[READ, BASH]), USER],
    "patches": [
        system(content="Base.", sections={"preamble": "P", "skills": "S", "cwd": "/x"}, toolsAdded=[READ, BASH]),
        USER,
        system(2, sections={"skills": None, "rules": "R", "preamble": "P2"}, toolsAdded=[GREP]),
        system(3, content=[{"type": "text", "text": "More."}, {"type": "image"}, {"type": "text", "text": "And."}]),
        system(4, toolsRemoved=[{"name": "bash"}], toolsAdded=[{**BASH, "description": "new"}]),
        system(5, toolsRemoved=[{"name": "read"}, {"name": "nothing"}]),
    ],
    "deleted and set again goes last": [
        system(sections={"a": "A", "b": "B"}),
        system(2, sections={"a": None}),
        system(3, sections={"a": "A2", "b": "B2"}),
    ],
    "integer-like names first": [system(sections={"z": "Z", "10": "ten", "2": "two", "01": "zero-one"})],
    "re-added tool keeps its place": [system(toolsAdded=[READ, BASH]), system(2, toolsAdded=[{**READ, "x": 1}])],
    "no timestamp but tools": [{"role": "system", "content": "c", "toolsAdded": [READ]}],
    "no timestamp, no tools": [{"role": "system", "content": "c", "sections": {"a": "A"}}],
    "first timestamp missing": [{"role": "system", "content": "c"}, system(7, content="d")],
    "odd section values": [system(sections={"n": 5, "e": "", "l": ["x", "y"], "o": {"k": 1}})],
    "tools as a string": [system(toolsAdded="ab")],
    "content null": [system(content=None)],
    "tool null": [system(toolsAdded=[None])],
}


@pytest.fixture(scope="module")
def pi_system(oracle) -> dict[str, Any]:
    """pi-ai's answer for every case, in one node process."""
    stdin = "".join(json.dumps(case) + "\n" for case in CASES.values())
    proc = subprocess.run(
        [oracle.node, str(SCRIPT)],
        input=stdin,
        capture_output=True,
        text=True,
        env={"PI_PKG": str(oracle.package), "PATH": ""},
        timeout=120,
        check=False,
    )
    if proc.returncode == 2 and "not found" in proc.stderr:
        pytest.skip(f"the oracle's pi has no pi-ai transcript replay (pi 1.6): {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    return dict(zip(CASES, (json.loads(line) for line in proc.stdout.splitlines()), strict=True))


def as_pi(prompt: SystemPrompt | None) -> Any:
    """pitui's replay in the shape of pi's result."""
    if prompt is None:
        return None
    out: dict[str, Any] = {"role": "system", "content": prompt.content}
    if prompt.sections:
        out["sections"] = prompt.sections
    if prompt.tools:
        out["toolsAdded"] = list(prompt.tools.values())
    out["timestamp"] = prompt.timestamp
    return out


THROWS = {"content null", "tool null"}  # pi-ai throws on these: test_what_pi_throws_on_is_read_as_empty


@pytest.mark.parametrize("case", [c for c in CASES if c not in THROWS])
def test_replay_is_pis(case: str, pi_system: dict[str, Any]) -> None:
    pi = pi_system[case]
    got = replay_system(CASES[case])
    mine = as_pi(got)
    assert json.dumps(mine) == json.dumps(pi["message"]), "same values, same key order"
    assert (got.text if got else "") == pi["text"]


def test_what_pi_throws_on_is_read_as_empty(pi_system: dict[str, Any]) -> None:
    assert pi_system["content null"] == {"error": "Cannot read properties of null (reading 'filter')"}
    assert pi_system["tool null"] == {"error": "Cannot read properties of null (reading 'name')"}
    prompt = replay_system(CASES["content null"])
    assert prompt is not None and prompt.content == ""
    prompt = replay_system(CASES["tool null"])
    assert prompt is not None and prompt.tools == {}


def test_what_each_system_message_on_the_path_changed(tmp_path: Path) -> None:
    first, patch, tools = CASES["patches"][0], CASES["patches"][2], CASES["patches"][4]
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("s1", None, **first),
        msg("u1", "s1", "user", "hi", 1),
        msg("s2", "u1", **patch),
        msg("s3", "s2", **tools),
        msg("x1", "s1", "user", "another branch", 5),
    )
    session = Session.load(str(path))
    on_path = path_system_prompt(session, "s3")
    assert [c.entry_id for c in on_path.changes] == ["s1", "s2", "s3"]
    assert [c.first for c in on_path.changes] == [True, False, False]
    assert on_path.changes[0].lines == [
        "instructions",
        "section preamble",
        "section skills",
        "section cwd",
        "+tool read",
        "+tool bash",
    ]
    assert on_path.changes[1].lines == ["section rules", "section preamble", "-section skills", "+tool grep"]
    assert on_path.changes[2].lines == ["-tool bash", "+tool bash"]
    assert all(c.size > 0 for c in on_path.changes)
    prompt = on_path.prompt
    assert prompt is not None
    assert prompt.sections == {"preamble": "P2", "cwd": "/x", "rules": "R"}
    assert prompt.tool_names == ["read", "grep", "bash"], "a tool removed and added again goes last"
    assert prompt.tools["bash"]["description"] == "new"
    assert prompt.text == "Base.\n\nP2\n\n/x\n\nR"
    # The leaf is on the other branch: only the first system message is on its path.
    at_leaf = path_system_prompt(session)
    assert [c.entry_id for c in at_leaf.changes] == ["s1"]
    assert at_leaf.prompt is not None and at_leaf.prompt.tool_names == ["read", "bash"]
    assert path_system_prompt(session, None).prompt is None


def test_the_path_replay_is_pis_on_a_fixture(pi_system: dict[str, Any], oracle) -> None:
    """The system messages of a fixture's path, replayed by pitui and by pi-ai."""
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "totals-every-source.jsonl"
    session = Session.load(str(fixture))
    messages = [e.message for e in session.path_to() if e.type == "message"]
    proc = subprocess.run(
        [oracle.node, str(SCRIPT)],
        input=json.dumps(messages) + "\n",
        capture_output=True,
        text=True,
        env={"PI_PKG": str(oracle.package), "PATH": ""},
        timeout=120,
        check=True,
    )
    pi = json.loads(proc.stdout)
    got = path_system_prompt(session).prompt
    assert json.dumps(as_pi(got)) == json.dumps(pi["message"])
    assert got is not None and got.text == pi["text"] == "You are pi."
