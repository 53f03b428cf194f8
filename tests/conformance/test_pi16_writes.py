"""pitui's command-line writes as pi 1.6.0 makes them, loading in pi 1.6.0 and in pi 0.73.1.

Each write (label, clearing a label, rename, branch with and without a summary, fork, clone) is
made by ``pitui`` on a copy of a session, then:

- held against the same write made by pi 1.6.0's own ``SessionManager``
  (``tests/oracle/pi_write.mjs``): the same lines, keys in the same order, bar what each run makes
  new (ids, the time of the write, the header's id and the file's path);
- loaded in both pi versions: the entries, leaf, path, tree, labels and name pitui reports, and
  the context pi builds for the source at the leaf the write moved to (for pi's own view of that
  context, however it builds it; where pitui's reading of the source already agrees with that
  pi, pitui's context too).

The sources include ``write-pi16.jsonl`` (system messages, ``context_edit``s, a compaction with
a ``systemMessage`` checkpoint whose ``firstKeptEntryId`` names a label entry, a retain-none
compaction, a ``usage`` leaf) and v1/v2 files, which pitui migrates before it copies them
(pi 1.6 copies a v1 file's entries without ids: pi-1.6.md B7).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import FIXTURES, run_pitui, with_leaf_at
from helpers.pi_writes import normalised, pi_write, pitui_view

from pitui.store.canonical import inspect_session
from pitui.store.jsonl import dumps
from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle

V3_SOURCES = ("write-pi16", "labels", "branch-summary")
OLD_SOURCES = ("v1", "v2-hook-message")
WRITES = ("label", "label-clear", "rename", "branch", "branch-user", "branch-summary", "fork", "clone")
NAME = "  Loader\r\n rewrite ✓ "  # pi 1.6 turns the line break into one space, then trims
LABEL = "checked ✓"
SUMMARY = "Tried the lexer fix; went back to tomllib."
FIELDS = ("header", "entryIds", "leafId", "branch", "tree", "labels", "name")


@pytest.fixture(scope="module", params=["1.6.0", "0.73.1"])
def pi(request: pytest.FixtureRequest) -> Oracle:
    """Each pi a write must load in."""
    found: Oracle = request.getfixturevalue("oracle" if request.param == "1.6.0" else "oracle_073")
    return found


def _run_ok(env: dict[str, str], *args: str | os.PathLike[str]) -> str:
    proc = run_pitui(env, *args)
    assert proc.returncode == 0, f"pitui {' '.join(map(str, args))} failed: {proc.stderr.strip()}"
    return proc.stdout


class Source:
    """A copy of a fixture to write to, with what pitui reads of it and the entries to act on."""

    def __init__(self, name: str, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{name}.jsonl"
        shutil.copyfile(FIXTURES / f"{name}.jsonl", self.path)
        self.data = self.path.read_bytes()
        self.pristine = folder.parent / "pristine" / self.path.name  # for pi's own write
        self.pristine.parent.mkdir(exist_ok=True)
        self.pristine.write_bytes(self.data)
        self.session = Session.load(str(self.path))
        self.ids = {e.id for e in self.session.entries if isinstance(e.id, str)}
        self.branch = [e for e in self.session.path_to() if isinstance(e.id, str)]

    def kind(self, entry_id: str) -> str:
        e = self.session.by_id[entry_id]
        return f"message:{e.role}" if e.type == "message" else str(e.type)

    def middle(self, ids: list[str], what: str) -> str:
        if not ids:
            pytest.skip(f"no {what} in this session")
        return ids[len(ids) // 2]

    def assistant_target(self) -> str:
        """An assistant message off the path if there is one, else on it, never the leaf."""
        leaf = self.session.leaf_id
        on_path = {e.id for e in self.branch}
        ids = [i for i in self.ids if self.kind(i) == "message:assistant" and i != leaf]
        return self.middle([i for i in ids if i not in on_path] or [i for i in ids if i in on_path], "assistant")

    def user_target(self) -> str:
        return self.middle(
            [e.id for e in self.branch if self.kind(e.id) == "message:user" and e.parent_id in self.ids], "user message"
        )


def _appended(source: Source) -> list[bytes]:
    after = source.path.read_bytes()
    assert after.startswith(source.data), "the file's old bytes must stay an unchanged prefix"
    return after[len(source.data) :].split(b"\n")[:-1]


def _new_file(source: Source, out: str) -> Path:
    new = Path(out.strip().splitlines()[-1])
    assert new.is_file() and new.parent == source.path.parent
    assert source.path.read_bytes() == source.data, "the source must not change"
    return new


def _write(source: Source, write: str, env: dict[str, str]) -> tuple[list[bytes], Any, Path]:
    """Make ``write`` with pitui: the lines written, the leaf it leaves, the file written to."""
    if write == "label":
        target = source.middle([e.id for e in source.branch if e.type != "label"], "entry to label")
        _run_ok(env, "label", source.path, target, LABEL)
        return _appended(source), None, source.path
    if write == "label-clear":
        labelled = sorted(t for t in source.session.labels if t in source.ids)
        target = source.middle(labelled, "label to clear")
        _run_ok(env, "label", source.path, target)
        return _appended(source), None, source.path
    if write == "rename":
        _run_ok(env, "rename", source.path, NAME)
        return _appended(source), None, source.path
    if write in ("branch", "branch-summary", "branch-user"):
        target = source.user_target() if write == "branch-user" else source.assistant_target()
        leaf = source.session.by_id[target].parent_id if write == "branch-user" else target
        extra = ["--summary", SUMMARY] if write == "branch-summary" else []
        _run_ok(env, "branch", source.path, target, *extra)
        return _appended(source), leaf, source.path
    if write == "fork":
        leaf = source.middle(
            [e.id for e in source.branch if e.role in ("user", "assistant") and e.id != source.session.leaf_id],
            "message before the leaf",
        )
        new = _new_file(source, _run_ok(env, "fork", source.path, leaf))
    else:
        leaf = source.session.leaf_id
        new = _new_file(source, _run_ok(env, "clone", source.path))
    return new.read_bytes().split(b"\n")[:-1], leaf, new


def _pi_args(source: Source, write: str, lines: list[bytes], leaf: Any) -> list[str | os.PathLike[str]] | None:
    """The same write as pi's SessionManager makes it on the source as it was (None: pi has
    none, pitui's branch marker)."""
    entry = json.loads(lines[-1]) if lines else {}
    path = source.pristine
    if write in ("label", "label-clear"):
        return ["label", path, entry["targetId"], *([entry["label"]] if "label" in entry else [])]
    if write == "rename":
        return ["name", path, NAME]
    if write == "branch-summary":
        return ["branch-summary", path, leaf if leaf is not None else "root", SUMMARY]
    if write in ("fork", "clone"):
        return ["fork", path, leaf]
    return None


CELLS = [
    pytest.param(write, name, id=f"{write}-{name}")
    for name in V3_SOURCES + OLD_SOURCES
    for write in WRITES
    if name in V3_SOURCES or write in ("fork", "clone")
]


@pytest.mark.parametrize(("write", "name"), [c for c in CELLS if c.values[1] in V3_SOURCES])
def test_write_is_the_one_pi_16_makes(
    write: str, name: str, oracle: Oracle, pitui_env: dict[str, str], tmp_path: Path
) -> None:
    source = Source(name, tmp_path / "sessions")
    lines, leaf, _ = _write(source, write, pitui_env)
    args = _pi_args(source, write, lines, leaf)
    if write == "branch-summary" and json.loads(lines[-1])["type"] == "custom":
        args = None  # the move leaves only bookkeeping behind: pi writes no summary either
    if args is None:
        pytest.skip("pi has no write that moves the leaf without a summary: pitui's pitui.branch entry")
    theirs = pi_write(oracle, *args)
    copy = write in ("fork", "clone")
    assert normalised(lines, source.ids, copy) == normalised(theirs, source.ids, copy)


@pytest.mark.parametrize(("write", "name"), CELLS)
def test_write_loads_in_pi_as_pitui_reports(
    write: str, name: str, pi: Oracle, pitui_env: dict[str, str], tmp_path: Path
) -> None:
    source = Source(name, tmp_path / "sessions")
    lines, leaf, written = _write(source, write, pitui_env)
    new = [json.loads(line) for line in lines]
    if write == "branch-summary" and new[-1]["type"] == "custom":
        write = "branch"  # the move leaves only bookkeeping behind: no summary, as in pi
    # pi's view of the source as it was, of the file written, and of the source with its leaf
    # where the write put it (a v1 file as pi migrates it: its random ids, found by position).
    base, pi_leaf = source.data, leaf
    if name in OLD_SOURCES and leaf is not None:
        base = pi.rewrite(source.pristine)
        position = [e.id for e in source.session.entries].index(leaf)
        pi_leaf = json.loads(base.split(b"\n")[1 + position])["id"]
    probe = tmp_path / "probe" / source.path.name
    probe.parent.mkdir()
    probe.write_bytes(with_leaf_at(base, pi_leaf) if leaf is not None else base)
    views = pi.open_many([source.pristine, written, probe])
    before_pi, after_pi, at_leaf = (views[str(p)] for p in (source.pristine, written, probe))
    assert "error" not in after_pi, f"pi {pi.version} cannot load what pitui wrote: {after_pi}"
    after_pitui = pitui_view(written)
    for field in FIELDS:
        assert after_pi[field] == after_pitui[field], f"pi {pi.version} reads {field} unlike pitui"
    if write in ("label", "label-clear", "rename"):
        assert after_pi["context"] == before_pi["context"], "a label or a name changes no context"
        assert after_pi["leafId"] == new[-1]["id"]
        expected_labels = dict(before_pi["labels"])
        if write == "label":
            expected_labels[new[-1]["targetId"]] = LABEL
        elif write == "label-clear":
            expected_labels.pop(new[-1]["targetId"])
        assert after_pi["labels"] == expected_labels
        if write == "rename":
            assert after_pi["name"] == "Loader  rewrite ✓"
        return
    expected = at_leaf["context"] if leaf is not None else {"model": None, "thinkingLevel": "off", "messages": []}
    mine = context_at_pitui(source.pristine, leaf)
    if write.startswith("branch"):
        assert after_pi["leafId"] == new[-1]["id"] and after_pi["branch"][-2:-1] == ([leaf] if leaf else [])
        if write == "branch-summary":
            summary = {"role": "branchSummary", "summary": SUMMARY, "fromId": source.session.leaf_id}
            expected = {**expected, "messages": [*expected["messages"], summary]}
            mine = {**mine, "messages": [*mine["messages"], summary]}
        else:
            assert new[-1]["customType"] == "pitui.branch"
    else:
        header = new[0]
        assert header["version"] == 3 and header["id"] != before_pi["header"]["id"]
        assert Path(header["parentSession"]) == source.path and header["cwd"] == before_pi["header"]["cwd"]
        assert all(isinstance(e.get("id"), str) for e in new[1:]), "every entry copied has an id"
        if name in OLD_SOURCES:  # pi's view of the source has pi's random ids: compare by kind
            expected = {**expected, "messages": [_no_ids(m) for m in expected["messages"]]}
            theirs = after_pi["context"]
            after_pi = {**after_pi, "context": {**theirs, "messages": list(map(_no_ids, theirs["messages"]))}}
    assert after_pi["context"] == expected, f"pi {pi.version}'s context after the write is not the one at {leaf}"
    assert after_pitui["context"] == mine, "pitui's context after the write is not the one at the leaf"
    if pitui_view(source.pristine)["context"] == before_pi["context"] and name not in OLD_SOURCES:
        assert after_pitui["context"] == after_pi["context"]


def context_at_pitui(path: Path, leaf: Any) -> dict[str, Any]:
    """pitui's context of a session (migrated, if old) with the leaf at ``leaf``."""
    if leaf is None:
        return {"model": None, "thinkingLevel": "off", "messages": []}
    session = Session.load(str(path))
    session.leaf_id = leaf
    context: dict[str, Any] = json.loads(dumps(inspect_session(session), prepared=True))["context"]
    return context


def _no_ids(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "fromId"}
