"""Context surgery as pi 1.6.0 writes and reads it, and as pi 0.73.1 still loads it.

Each edit (omit, replace, restore after an omit, restore after a replace) on each kind of entry
pi lets one edit (user, assistant with and without tool calls, tool result, custom message) is
made with ``pitui context`` on a copy of a fixture or of a session pi 1.6.0 wrote itself, then:

- the lines appended are the ones pi's own ``appendContextEdit`` appends for the same calls
  (``tests/oracle/pi_write.mjs``), bar the new ids and times;
- pi 1.6.0 loads the file with exactly the targets' messages omitted or replaced, every other
  entry's messages as they were, and the same tree, leaf and path pitui reports;
- pi 0.73.1, which does not know ``context_edit``, loads it with its context unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import FIXTURES, run_pitui
from helpers.pi_writes import normalised, pi_write, pitui_view

from pitui.store.canonical import message_digest
from pitui.store.context import context_messages
from pitui.store.jsonl import dumps
from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle
    from devkit.pi_written import Written

NOTE = "[omitted: a note ✓]"
SOURCES = ("linear", "custom", "write-pi16", "ctx-edit-replace")
KINDS = ("user", "assistant-calls", "assistant", "toolResult", "custom_message")
OPS = ("omit", "replace", "omit-restore", "replace-restore")


def _kind(entry: Any) -> str | None:
    if entry.type == "custom_message":
        return "custom_message"
    if entry.type != "message" or entry.role not in ("user", "assistant", "toolResult"):
        return None
    if entry.role == "assistant":
        content = entry.message.get("content")
        calls = isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "toolCall" for b in content)
        return "assistant-calls" if calls else "assistant"
    return str(entry.role)


def target_of(path: Path, kind: str) -> str:
    """The last entry of ``kind`` the model sees at the leaf (one an edit omits still counts)."""
    session = Session.load(str(path))
    found = [e.id for e in session.context_entries() if _kind(e) == kind]
    if not found:
        pytest.skip(f"no {kind} in the context of {path.name}")
    return str(found[-1])


def pi_messages(view: dict[str, Any]) -> dict[str, list[Any]]:
    """pi's context, message by message, by the entry each came from (the projection's counts)."""
    messages = iter(view["context"]["messages"])
    return {entry_id: [next(messages) for _ in range(count)] for entry_id, count in view["projection"]}


def edit(path: Path, env: dict[str, str], op: str, target: str) -> list[bytes]:
    """``pitui context`` on ``path``: the lines it appended."""
    before = path.read_bytes()
    extra = ["--note", NOTE] if op == "replace" else []
    proc = run_pitui(env, "context", op, path, target, *extra)
    assert proc.returncode == 0, f"pitui context {op} failed: {proc.stderr}"
    after = path.read_bytes()
    assert after.startswith(before), "the file's old bytes must stay an unchanged prefix"
    lines = after[len(before) :].split(b"\n")[:-1]
    assert proc.stdout.split() == [json.loads(line)["id"] for line in lines], "it prints the entries it wrote"
    return lines


def pi_same_write(oracle: Oracle, pristine: Path, lines: list[bytes], op: str) -> list[bytes]:
    """The same edits made by pi's ``appendContextEdit`` on the file as it was (a replace's
    note given as the string, so that pi makes its own text block of it)."""
    calls = []
    for i, line in enumerate(lines):
        entry = json.loads(line)
        replacement = {"content": NOTE} if op == "replace" and i == 0 else entry["replacement"]
        calls.append((entry["targetId"], json.dumps(replacement, ensure_ascii=False)))
    first, *more = calls
    return pi_write(oracle, "context-edit", pristine, first[0], first[1], *(f"{t}={r}" for t, r in more))


def _ids(path: Path) -> set[str]:
    return {e.id for e in Session.load(str(path)).entries if isinstance(e.id, str)}


def _made_as_pi_makes_it(work: Path, env: dict[str, str], op: str, target: str, oracle: Oracle) -> list[bytes]:
    """``pitui context op`` on ``work``, held against pi's own edits on the file as it was."""
    before = work.with_name(f"before-{op}-{work.name}")
    shutil.copyfile(work, before)
    lines = edit(work, env, op, target)
    ids = _ids(before)
    assert normalised(lines, ids, False) == normalised(pi_same_write(oracle, before, lines, op), ids, False)
    return lines


def projected(path: Path, entry_id: str, note: bool) -> list[Any]:
    """An entry's messages as written, or replaced by :data:`NOTE` (``note``), as pi projects
    them (in the oracle's digest)."""
    session = Session.load(str(path))
    out = []
    for message in context_messages(session.by_id[entry_id]):
        if note:
            text: Any = NOTE if message["role"] in ("user", "custom") else [{"type": "text", "text": NOTE}]
            message = {**message, "content": text}
        out.append(json.loads(dumps(message_digest(message), prepared=True)))
    return out


def check(
    work: Path, target: str, op: str, oracle: Oracle, oracle_073: Oracle, env: dict[str, str]
) -> list[dict[str, Any]]:
    """Make ``op`` on ``target`` of ``work`` and hold the file against both pis; the first
    action's edits."""
    pristine = work.with_name("pristine-" + work.name)
    shutil.copyfile(work, pristine)
    first, _, restore = op.partition("-")
    edits = [json.loads(line) for line in _made_as_pi_makes_it(work, env, first, target, oracle)]
    written = [e["id"] for e in edits]
    if restore:
        written += [json.loads(line)["id"] for line in _made_as_pi_makes_it(work, env, restore, target, oracle)]
    views = oracle.open_many([pristine, work])
    before, after = views[str(pristine)], views[str(work)]
    assert "error" not in after, f"pi 1.6.0 cannot load the edited file: {after}"
    mine = pitui_view(work)
    for field in ("entryIds", "leafId", "branch", "tree", "labels", "name"):
        assert after[field] == mine[field], f"pi reads {field} unlike pitui"
    assert after["leafId"] == written[-1], "each edit is appended on the leaf"
    assert after["branch"][-len(written) :] == written, "one after the other"
    targets = {e["targetId"] for e in edits}
    assert target in targets
    expected = pi_messages(before)
    for entry_id in targets:  # a restore shows each as written, whatever edit was in force before
        if restore:
            expected[entry_id] = projected(pristine, entry_id, note=False)
        elif first == "omit" or entry_id != target:
            expected[entry_id] = []
        else:
            expected[entry_id] = projected(pristine, entry_id, note=True)
    now = {k: v for k, v in pi_messages(after).items() if k not in written}
    assert all(not v for k, v in pi_messages(after).items() if k in written), "an edit gives no message"
    assert now == expected, "exactly the targets change"
    assert mine["context"] == after["context"], "pitui projects the edited file as pi does"
    old_pi = oracle_073.open_many([pristine, work])
    assert "error" not in old_pi[str(work)], f"pi 0.73.1 cannot load the edited file: {old_pi[str(work)]}"
    assert old_pi[str(work)]["context"] == old_pi[str(pristine)]["context"], "pi 0.73.1 ignores the edits"
    return edits


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SOURCES)
def test_surgery_on_fixtures_is_pis(
    name: str, kind: str, op: str, oracle: Oracle, oracle_073: Oracle, pitui_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / f"{name}.jsonl"
    shutil.copyfile(FIXTURES / f"{name}.jsonl", work)
    target = target_of(work, kind)
    if name == "ctx-edit-replace" and kind == "toolResult" and op.endswith("restore"):
        # Its call is replaced by a note here: a restored result would answer no call.
        edit(work, pitui_env, op.partition("-")[0], target)
        data = work.read_bytes()
        proc = run_pitui(pitui_env, "context", "restore", work, target)
        assert proc.returncode == 1 and "out of the context: restore it first" in proc.stderr
        assert work.read_bytes() == data, "a refused edit writes nothing"
        return
    edits = check(work, target, op, oracle, oracle_073, pitui_env)
    if kind == "assistant-calls" and op in ("omit", "replace"):
        assert len(edits) > 1, "its tool results are omitted with it"
        assert all(e["replacement"] is None for e in edits[1:])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", ("user", "assistant-calls", "toolResult"))
def test_surgery_on_sessions_pi_wrote(
    kind: str,
    op: str,
    pi_written: list[Written],
    oracle: Oracle,
    oracle_073: Oracle,
    pitui_env: dict[str, str],
    tmp_path: Path,
) -> None:
    stories = {w.story: w for w in pi_written}
    work = tmp_path / "tools.jsonl"
    shutil.copyfile(stories["tools"].file, work)
    check(work, target_of(work, kind), op, oracle, oracle_073, pitui_env)
