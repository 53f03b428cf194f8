"""Every file pitui writes must load in pi's own SessionManager with exactly the tree, leaf,
labels, name and context that pitui reports for it, each line spelt as ``JSON.stringify`` spells
it; writing to a v1 or v2 file rewrites it as v3 first, as pi does."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import (
    DEMO_FILES,
    FIXTURE_FILES,
    compare,
    file_id,
    ids_regenerated,
    inspect_ok,
    js_number,
    not_comparable,
    parsed_lines,
    run_pitui,
    with_leaf_at,
)

from pitui.store.canonical import inspect_session
from pitui.store.jsonl import dumps
from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle


# ----------------------------------------------------------------------------------------------
# writes: what pitui appends or creates must load in pi exactly as pitui reports it

# The order pi writes the keys of the entries pitui makes (format reference §2.2, §2.4).
PI_KEY_ORDER = {
    "session": ("type", "version", "id", "timestamp", "cwd", "parentSession"),
    "label": ("type", "id", "parentId", "timestamp", "targetId", "label"),
    "session_info": ("type", "id", "parentId", "timestamp", "name"),
    "branch_summary": ("type", "id", "parentId", "timestamp", "fromId", "summary", "details", "usage", "fromHook"),
    "custom": ("type", "customType", "data", "id", "parentId", "timestamp"),
}
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ENTRY_ID = re.compile(r"^[0-9a-f]{8}$")
LABEL = "checkpoint ✓ — naïve"
NAME = "  Parser fix ✓ (ü)  "
SUMMARY = "Tried the regex approach; it broke on nested quotes. ✓"


_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def written_as_pi_writes(oracle_073: Oracle, lines: list[bytes], spelling: list[str]) -> None:
    """Every line is byte for byte what ``JSON.stringify`` makes of it: compact, non-ASCII as
    is, keys in order, numbers as JavaScript prints them (``0.000009``, not ``9e-6``).

    A line that differs only in how a number is spelt is added to ``spelling`` (a known pitui
    bug, reported as an expected failure once the test's other checks have passed)."""
    for number, (line, canonical) in enumerate(zip(lines, oracle_073.stringify(lines), strict=True), 1):
        if line == canonical:
            continue
        diff = _byte_diff(line, canonical)
        if (
            canonical is not None
            and _NUMBER.sub(b"#", line) == _NUMBER.sub(b"#", canonical)
            and json.loads(line) == json.loads(canonical)
        ):
            spelling.append(f"line {number} {diff}")
            continue
        raise AssertionError(f"line {number} is not written as pi writes it: {diff}")


def _byte_diff(ours: bytes, theirs: bytes | None) -> str:
    if theirs is None:
        return f"not JSON: {ours[:200]!r}"
    pairs = enumerate(zip(ours, theirs, strict=False))
    at = next((i for i, (a, b) in pairs if a != b), min(len(ours), len(theirs)))
    start = max(0, at - 60)
    return f"at byte {at}: pitui …{ours[start : at + 40]!r}… pi …{theirs[start : at + 40]!r}…"


def check_line(line: bytes, kind: str) -> dict[str, Any]:
    """A line for an entry of ``kind`` with pi's keys, in pi's order (the bytes are checked by
    :func:`written_as_pi_writes`)."""
    text = line.decode("utf-8")
    entry = json.loads(text)
    assert isinstance(entry, dict) and entry.get("type") == kind, f"expected a {kind} entry: {text}"
    order = PI_KEY_ORDER[kind]
    assert set(entry) <= set(order), f"keys pi does not write for {kind}: {set(entry) - set(order)}"
    assert list(entry) == [k for k in order if k in entry], f"keys not in pi's order {order}: {text}"
    assert ISO_MS.match(entry["timestamp"]), f"timestamp not ISO UTC with ms: {entry['timestamp']}"
    if kind != "session":
        assert ENTRY_ID.match(entry["id"]), f"id is not 8 hex characters: {entry['id']}"
    return entry


# A small v3 session with what the sources on disk may lack: a root user message, a side
# branch, a custom message, labels (one whose label entry a later entry hangs from) and a name.
def _synthetic_session() -> bytes:
    def ts(n: int) -> str:
        return f"2025-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z"

    def user(i: str, parent: str | None, n: int, text: str) -> dict[str, Any]:
        msg = {"role": "user", "content": text, "timestamp": 1740823200000 + n * 1000}
        return {"type": "message", "id": i, "parentId": parent, "timestamp": ts(n), "message": msg}

    def assistant(i: str, parent: str, n: int, text: str) -> dict[str, Any]:
        msg = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input": 10,
                "output": 5,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 15,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "stop",
            "timestamp": 1740823200000 + n * 1000,
        }
        return {"type": "message", "id": i, "parentId": parent, "timestamp": ts(n), "message": msg}

    entries = [
        {
            "type": "session",
            "version": 3,
            "id": "0195a0c4-7b3e-7000-8000-00000000abcd",
            "timestamp": ts(0),
            "cwd": "/home/me/proj",
        },
        user("a0000001", None, 1, "Write a parser for the config format"),
        assistant("a0000002", "a0000001", 2, "Here is a first version."),
        user("a0000003", "a0000002", 3, "It fails on quotes"),
        assistant("a0000004", "a0000003", 4, "Fixed with a regex."),
        {
            "type": "label",
            "id": "a0000005",
            "parentId": "a0000004",
            "timestamp": ts(5),
            "targetId": "a0000003",
            "label": "quotes",
        },
        {
            "type": "custom_message",
            "customType": "note",
            "content": "Remember the tests",
            "display": True,
            "id": "a0000006",
            "parentId": "a0000005",
            "timestamp": ts(6),
        },
        user("a0000007", "a0000006", 7, "Now nested quotes"),
        assistant("a0000008", "a0000007", 8, "Rewritten as a tokenizer."),
        user("b0000001", "a0000002", 9, "Use a parser generator instead"),
        assistant("b0000002", "b0000001", 10, "Here is a grammar."),
        {
            "type": "session_info",
            "id": "a0000009",
            "parentId": "a0000008",
            "timestamp": ts(11),
            "name": "Config parser",
        },
        {
            "type": "label",
            "id": "a000000a",
            "parentId": "a0000009",
            "timestamp": ts(12),
            "targetId": "a0000002",
            "label": "first draft",
        },
    ]
    lines = (json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in entries)
    return "".join(lines).encode()


def _is_v3_source(path: Path) -> bool:
    """A session pitui appends to as is (older files are rewritten first: not what is tested)."""
    if not_comparable(path):
        return False
    lines = parsed_lines(path.read_bytes())
    header = lines[0] if lines else None
    if not isinstance(header, dict) or header.get("type") != "session" or header.get("version") != 3:
        return False
    messages = [e for e in lines[1:] if isinstance(e, dict) and e.get("type") == "message"]
    # pi 0.73.1 knows neither context edits nor a compaction's system-message checkpoint: its
    # context of such a file is not pi 1.6's (test_pi16_writes.py writes to those in both pis).
    pi16_context = any(
        isinstance(e, dict) and (e.get("type") == "context_edit" or "systemMessage" in e) for e in lines[1:]
    )
    return len(messages) >= 2 and not pi16_context


# Fixtures that make an append interesting: labels already set, a torn last line (the append
# must start a new line), CRLF endings, custom messages, an orphan, duplicate ids, a retainedTail.
WRITE_FIXTURES = (
    "labels",
    "torn-last-line",
    "crlf",
    "custom",
    "orphan",
    "duplicate-ids",
    "compaction-retained-tail",
)
WRITE_SOURCES: list[Path | None] = [
    None,  # the synthetic session
    *[p for p in DEMO_FILES if _is_v3_source(p)][::3],
    *[p for p in FIXTURE_FILES if p.stem in WRITE_FIXTURES and _is_v3_source(p)],
]
SYNTHETIC_NAME = "2025-03-01T10-00-00-000Z_0195a0c4-7b3e-7000-8000-00000000abcd.jsonl"


def _source_id(source: Path | None) -> str:
    return "synthetic" if source is None else file_id(source)


@pytest.fixture(scope="module")
def sources_in_pi(oracle_073: Oracle, tmp_path_factory: pytest.TempPathFactory) -> dict[Path | None, Any]:
    """pi's view of every write source before any write, loaded once."""
    synthetic = tmp_path_factory.mktemp("synthetic") / SYNTHETIC_NAME
    synthetic.write_bytes(_synthetic_session())
    files = {source: synthetic if source is None else source for source in WRITE_SOURCES}
    found = oracle_073.open_many(files.values())
    return {source: found[str(path)] for source, path in files.items()}


@dataclass
class Before:
    """A session before a write: its bytes, pi's view of it, and its entries by id."""

    path: Path
    data: bytes
    pi: dict[str, Any]
    raw: dict[str, dict[str, Any]]
    spelling: list[str] = field(default_factory=list)  # lines that spell a number unlike pi

    def kind(self, entry_id: str) -> str:
        e = self.raw.get(entry_id, {})
        if e.get("type") == "message":
            msg = e.get("message")
            return f"message:{msg.get('role') if isinstance(msg, dict) else None}"
        return str(e.get("type"))

    def parent(self, entry_id: str) -> Any:
        parents = {row[0]: row[2] for row in self.pi["entryIds"]}
        return parents.get(entry_id)

    def path_to(self, entry_id: Any) -> list[str]:
        parents = {row[0]: row[2] for row in self.pi["entryIds"]}
        out: list[str] = []
        while entry_id is not None and entry_id in parents and entry_id not in out[-1:]:
            out.append(entry_id)
            entry_id = parents[entry_id]
            if len(out) > len(parents):
                raise AssertionError("a parentId cycle in a write source")
        return out[::-1]

    def pick(self, ids: list[str], what: str) -> str:
        if not ids:
            pytest.skip(f"no {what} in this session")
        return ids[len(ids) // 2]


def _branch_target(before: Before, target_kind: str) -> tuple[str | None, str | None]:
    """The entry a branch of ``target_kind`` goes to, or why the session has none."""
    what, candidates = BRANCH_TARGETS[target_kind]
    ids = candidates(before)
    if not ids:
        return None, f"no {what} in this session"
    target = ids[len(ids) // 2]
    leaf = _expected_leaf(before, target)
    if leaf is not None and leaf not in before.raw:
        return None, f"{target}'s parent is missing: pi cannot branch there"
    if leaf == before.pi["leafId"]:
        return None, "the chosen entry is where the leaf already is"
    return target, None


def _branch_kind(write: str) -> tuple[str, bool]:
    """``branch-summary-user`` → (``user``, True): the target's kind, and whether it has a summary."""
    summary = write.startswith("branch-summary")
    return write.removeprefix("branch-summary" if summary else "branch").lstrip("-") or "assistant", summary


def _fork_candidates(before: Before) -> list[str]:
    leaf = before.pi["leafId"]
    return [i for i in before.pi["branch"] if before.kind(i) == "message:assistant" and i != leaf]


def _label_candidates(before: Before) -> list[str]:
    return [i for i in before.pi["branch"] if before.kind(i) != "label"]


def empty_cell(write: str, before: Before) -> str | None:
    """Why ``write`` has nothing to act on in this session (no entry of the kind it needs), or None."""
    if write.startswith("branch"):
        return _branch_target(before, _branch_kind(write)[0])[1]
    if write == "fork" and not _fork_candidates(before):
        return "no assistant message before the leaf in this session"
    if write in ("label", "label-clear") and not _label_candidates(before):
        return "no entry to label in this session"
    return None


def _load_before(source: Path | None, pi: dict[str, Any], folder: Path) -> Before:
    """A copy of ``source`` in ``folder``, with pi's view of it (``pi``)."""
    if set(pi) == {"error"}:
        pytest.skip(f"pi cannot load {_source_id(source)}: {pi['error']}")
    folder.mkdir(parents=True, exist_ok=True)
    if source is None:
        path = folder / SYNTHETIC_NAME
        path.write_bytes(_synthetic_session())
    else:
        path = folder / source.name
        shutil.copyfile(source, path)
    data = path.read_bytes()
    raw = {e["id"]: e for e in parsed_lines(data)[1:] if isinstance(e, dict) and isinstance(e.get("id"), str)}
    return Before(path, data, pi, raw)


def _appended_line(before: Before) -> bytes:
    after = before.path.read_bytes()
    assert after.startswith(before.data), "the old bytes of the file are not an unchanged prefix"
    new = after[len(before.data) :]
    if before.data and not before.data.endswith(b"\n"):
        assert new.startswith(b"\n"), "append after a torn last line must start with a newline"
        new = new[1:]
    assert new.endswith(b"\n") and new.count(b"\n") == 1, f"not exactly one new line: {new[:300]!r}"
    return new[:-1]


def _same_in_pi_and_pitui(oracle_073: Oracle, env: dict[str, str], path: Path) -> dict[str, Any]:
    """pi's view of a file pitui wrote, checked equal to what pitui reports; returns pi's view."""
    pi = oracle_073.open(path)
    diff = compare(inspect_ok(env, path), pi, path.read_bytes())
    assert diff is None, f"pi loads {path.name} differently from what pitui reports: {diff}"
    return pi


def _run_ok(env: dict[str, str], *args: str | os.PathLike[str]) -> str:
    proc = run_pitui(env, *args)
    shown = " ".join(map(str, args))
    assert proc.returncode == 0, f"pitui {shown} failed ({proc.returncode}): {proc.stderr.strip()}"
    return proc.stdout


def _append_and_check(
    oracle_073: Oracle, env: dict[str, str], before: Before, kind: str, args: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one appending command; the new entry and pi's view after it, both checked."""
    _run_ok(env, args[0], before.path, *args[1:])
    line = _appended_line(before)
    written_as_pi_writes(oracle_073, [line], before.spelling)
    entry = check_line(line, kind)
    assert entry["id"] not in before.raw, f"the new id {entry['id']} is already in the file"
    after = _same_in_pi_and_pitui(oracle_073, env, before.path)
    assert after["entryIds"] == [*before.pi["entryIds"], [entry["id"], kind, entry["parentId"]]]
    assert after["leafId"] == entry["id"], "the new entry must be the leaf on reload"
    assert after["header"] == before.pi["header"]
    return entry, after


def _expected_leaf(before: Before, target: str) -> Any:
    """pi's rule for /tree: a user or custom message puts the leaf on its parent."""
    if before.kind(target) in ("message:user", "custom_message"):
        return before.parent(target)
    return target


BRANCH_TARGETS: dict[str, tuple[str, Callable[[Before], list[str]]]] = {
    # off the current path if the session has side branches, else on it, never the leaf
    "assistant": (
        "assistant message off the leaf",
        lambda b: _off_path_first(b, [i for i in b.raw if b.kind(i) == "message:assistant" and i != b.pi["leafId"]]),
    ),
    "user": (
        "user message with a parent",
        lambda b: [i for i in b.pi["branch"] if b.kind(i) == "message:user" and b.parent(i) in b.raw],
    ),
    "custom-message": (
        "custom message with a parent",
        lambda b: [i for i in b.pi["branch"] if b.kind(i) == "custom_message" and b.parent(i) in b.raw],
    ),
    "root-user": (
        "root user message",
        lambda b: [i for i in b.pi["tree"]["roots"] if b.kind(i) == "message:user" and b.parent(i) is None],
    ),
}


def _off_path_first(before: Before, ids: list[str]) -> list[str]:
    off = [i for i in ids if i not in before.pi["branch"]]
    return off or [i for i in ids if i in before.pi["branch"]]


def _check_branch(oracle_073: Oracle, env: dict[str, str], before: Before, target_kind: str, summary: bool) -> None:
    target, empty = _branch_target(before, target_kind)
    if target is None:  # pitui's view had the entry (the cell was collected), pi's has not
        pytest.skip(f"in pi's view: {empty}")
    leaf = _expected_leaf(before, target)
    args = ["branch", target] + (["--summary", SUMMARY] if summary else [])
    entry, after = _append_and_check(oracle_073, env, before, "branch_summary" if summary else "custom", args)
    assert entry["parentId"] == leaf, f"parent must be {leaf} (pi's rule for a {before.kind(target)})"
    assert after["branch"] == [*before.path_to(leaf), entry["id"]]
    if summary:
        assert entry["summary"] == SUMMARY
        left = before.pi["leafId"]
        assert entry["fromId"] == (left if left is not None else "root"), "fromId: the leaf left, as pi 1.6 writes it"
        assert after["context"]["messages"][-1] == {
            "role": "branchSummary",
            "summary": SUMMARY,
            "fromId": entry["fromId"],
        }
    else:
        assert entry["customType"] == "pitui.branch"
        assert isinstance(entry.get("data"), dict), "data must say where the leaf was"
        assert before.pi["leafId"] in json.dumps(entry["data"]), "data must hold the previous leaf"
        assert after["context"] == _context_at(oracle_073, before, leaf)


def _context_at(oracle_073: Oracle, before: Before, leaf: Any) -> dict[str, Any]:
    """pi's context with the leaf at ``leaf``: the original file plus one label entry hanging
    there (labels are not in the context), loaded by pi."""
    if leaf is None:
        return {"model": None, "thinkingLevel": "off", "messages": []}
    probe = before.path.with_name("probe-" + before.path.name)
    probe.write_bytes(with_leaf_at(before.data, leaf))
    try:
        return oracle_073.open(probe)["context"]
    finally:
        probe.unlink()


def _check_label(oracle_073: Oracle, env: dict[str, str], before: Before, clear: bool) -> None:
    labelled = [i for i in before.pi["labels"] if i in before.raw]
    target = labelled[0] if clear and labelled else before.pick(_label_candidates(before), "entry to label")
    if clear and not labelled:  # label it first, then clear that
        first, _ = _append_and_check(oracle_073, env, before, "label", ["label", target, LABEL])
        before = Before(
            before.path,
            before.path.read_bytes(),
            oracle_073.open(before.path),
            {**before.raw, first["id"]: first},
            before.spelling,
        )
    args = ["label", target] if clear else ["label", target, LABEL]
    entry, after = _append_and_check(oracle_073, env, before, "label", args)
    assert entry["parentId"] == before.pi["leafId"], "a label entry's parent is the current leaf"
    assert entry["targetId"] == target
    expected = dict(before.pi["labels"])
    if clear:
        assert "label" not in entry, "pi leaves the label key out when clearing"
        expected.pop(target, None)
    else:
        assert entry["label"] == LABEL
        expected[target] = LABEL
    assert after["labels"] == expected
    assert after["branch"] == [*before.pi["branch"], entry["id"]]
    assert after["context"] == before.pi["context"], "a label changes nothing in the context"


def _check_rename(oracle_073: Oracle, env: dict[str, str], before: Before) -> None:
    entry, after = _append_and_check(oracle_073, env, before, "session_info", ["rename", NAME])
    assert entry["parentId"] == before.pi["leafId"]
    assert entry["name"] == NAME.strip(), "pi writes the name trimmed"
    assert after["name"] == NAME.strip()
    assert after["context"] == before.pi["context"]
    assert after["labels"] == before.pi["labels"]


def _label_order(before: Before) -> list[tuple[str, str]]:
    """pi's labelsById in insertion order: (target, label) as a fork re-adds them."""
    labels: dict[str, str] = {}
    for e in parsed_lines(before.data)[1:]:
        if isinstance(e, dict) and e.get("type") == "label":
            if e.get("label"):
                labels[e.get("targetId")] = e["label"]  # a re-set keeps its place, as in a Map
            else:
                labels.pop(e.get("targetId"), None)
    return list(labels.items())


def _check_new_session(
    oracle_073: Oracle, env: dict[str, str], before: Before, args: list[str], leaf: str
) -> dict[str, Any]:
    out = _run_ok(env, args[0], before.path, *args[1:])
    printed = [line for line in out.splitlines() if line.strip()]
    assert printed, f"pitui {args[0]} printed no path"
    new = Path(printed[-1].strip())
    assert new.is_file(), f"pitui {args[0]} printed {new}, which is not a file"
    assert new.parent.resolve() == before.path.parent.resolve(), "the new session goes in the same folder"
    assert new.resolve() != before.path.resolve()
    assert before.path.read_bytes() == before.data, "the source session must not change"

    lines = new.read_bytes().split(b"\n")
    assert lines[-1] == b"", "the new file must end with a newline"
    written_as_pi_writes(oracle_073, lines[:-1], before.spelling)
    header = check_line(lines[0], "session")
    assert header["version"] == 3
    assert Path(header["parentSession"]).resolve() == before.path.resolve(), "parentSession = the source"
    assert header["cwd"] == before.pi["header"]["cwd"]
    assert header["id"] != before.pi["header"]["id"]
    assert new.name == f"{re.sub(r'[:.]', '-', header['timestamp'])}_{header['id']}.jsonl", "pi's file name"

    entries = [json.loads(line) for line in lines[1:-1]]
    path_ids = [i for i in before.path_to(leaf) if before.kind(i) != "label"]
    kept = [e for e in entries if e.get("type") != "label"]
    assert [e["id"] for e in kept] == path_ids, "the new file holds the path to the entry, labels left out"
    for e in kept:  # the entries themselves are unchanged, bar the re-chained parent
        original = {k: v for k, v in before.raw[e["id"]].items() if k != "parentId"}
        assert {k: v for k, v in e.items() if k != "parentId"} == original
    previous = None
    for line, e in zip(lines[1:-1], entries, strict=True):  # one chain: no orphans
        assert e["parentId"] == previous, f"entry {e['id']} is not chained to {previous}"
        previous = e["id"]
        if e.get("type") == "label":
            check_line(line, "label")
    labels = [(e["targetId"], e["label"]) for e in entries if e.get("type") == "label"]
    assert entries[: len(kept)] == kept, "label entries come after the path"
    assert labels == [(t, label) for t, label in _label_order(before) if t in path_ids]

    after = _same_in_pi_and_pitui(oracle_073, env, new)
    assert after["labels"] == dict(labels)
    assert after["context"] == _context_at(oracle_073, before, leaf)
    return after


WRITES = (
    "label",
    "label-clear",
    "rename",
    "branch",
    "branch-user",
    "branch-custom-message",
    "branch-root-user",
    "branch-summary",
    "branch-summary-user",
    "branch-summary-root-user",
    "fork",
    "clone",
)


def _pitui_before(source: Path | None) -> Before:
    """A source as pitui reads it (``pitui inspect --json``'s schema, which is pi's: the tests
    in test_conformance.py check they agree), to know at collection time what each session has."""
    data = _synthetic_session() if source is None else source.read_bytes()
    report = json.loads(dumps(inspect_session(Session.from_bytes(data)), prepared=True))
    raw = {e["id"]: e for e in parsed_lines(data)[1:] if isinstance(e, dict) and isinstance(e.get("id"), str)}
    return Before(Path(SYNTHETIC_NAME) if source is None else source, data, report, raw)


def write_cells() -> list[Any]:
    """Every (write, source) pair whose session has what the write needs; the pairs left out
    would only skip. Sources pi cannot load stay in: they skip, saying so."""
    cells = []
    for source in WRITE_SOURCES:
        before = _pitui_before(source)
        cells += [
            pytest.param(write, source, id=f"{write}-{_source_id(source)}")
            for write in WRITES
            if empty_cell(write, before) is None
        ]
    return cells


@pytest.mark.parametrize(("write", "source"), write_cells())
def test_write_loads_in_pi_as_pitui_reports(
    write: str,
    source: Path | None,
    oracle_073: Oracle,
    sources_in_pi: dict[Path | None, Any],
    pitui_env: dict[str, str],
    tmp_path: Path,
) -> None:
    before = _load_before(source, sources_in_pi[source], tmp_path / "sessions")
    if write in ("label", "label-clear"):
        _check_label(oracle_073, pitui_env, before, clear=write == "label-clear")
    elif write == "rename":
        _check_rename(oracle_073, pitui_env, before)
    elif write.startswith("branch"):
        _check_branch(oracle_073, pitui_env, before, *_branch_kind(write))
    elif write == "fork":
        target = before.pick(_fork_candidates(before), "assistant message before the leaf")
        _check_new_session(oracle_073, pitui_env, before, ["fork", target], target)
    elif write == "clone":
        after = _check_new_session(oracle_073, pitui_env, before, ["clone"], before.pi["leafId"])
        assert after["context"] == before.pi["context"], "a clone has the source's context"
    else:  # pragma: no cover
        raise AssertionError(write)
    assert not before.spelling, f"numbers not spelt as JSON.stringify spells them: {before.spelling[0]}"


# ----------------------------------------------------------------------------------------------
# writing to a v1 or v2 file: pitui rewrites it as v3, as pi does when it opens one, then appends


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return False
    return True


OLD_VERSION_FIXTURES = [
    p
    for p in FIXTURE_FILES
    if (lines := parsed_lines(p.read_bytes()))
    and isinstance(lines[0], dict)
    and lines[0].get("type") == "session"
    and js_number(lines[0].get("version", 1) or 1) < 3
]
_QUOTED_ID = re.compile(rb'"([0-9a-f]{8})"')


@pytest.mark.parametrize("source", OLD_VERSION_FIXTURES, ids=file_id)
def test_write_to_old_version_rewrites_it_as_pi_does(
    source: Path, oracle_073: Oracle, pitui_env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    before_pi = oracle_073.open(path)
    pi_lines = oracle_073.rewrite(path).split(b"\n")
    assert pi_lines.pop() == b""
    _run_ok(pitui_env, "rename", path, NAME)
    lines = path.read_bytes().split(b"\n")
    assert lines.pop() == b"", "the rewritten file must end with a newline"
    *rewritten, appended = lines
    # pi drops the lines it cannot parse; pitui keeps them, as they were, where they were.
    unreadable = [line for line in source.read_bytes().split(b"\n") if line.strip() and not _is_json(line)]
    assert [line for line in rewritten if not _is_json(line)] == unreadable
    rewritten = [line for line in rewritten if _is_json(line)]
    assert len(rewritten) == len(pi_lines), (
        f"pitui rewrote {len(rewritten)} lines, pi {len(pi_lines)} (pi drops lines it cannot parse)"
    )
    if ids_regenerated(source.read_bytes()):  # new random ids on both sides: map them by position
        ids = {
            json.loads(a)["id"].encode(): json.loads(b)["id"].encode()
            for a, b in zip(rewritten[1:], pi_lines[1:], strict=True)
        }
        rewritten = [_QUOTED_ID.sub(lambda m: b'"' + ids.get(m[1], m[1]) + b'"', line) for line in rewritten]
    spelling: list[str] = []
    for number, (ours, theirs) in enumerate(zip(rewritten, pi_lines, strict=True), 1):
        if ours != theirs:
            diff = _byte_diff(ours, theirs)
            only_numbers = _NUMBER.sub(b"#", ours) == _NUMBER.sub(b"#", theirs) and json.loads(ours) == json.loads(
                theirs
            )
            assert only_numbers, f"line {number} differs from pi's rewrite: {diff}"
            spelling.append(f"line {number} {diff}")
    written_as_pi_writes(oracle_073, [appended], spelling)
    entry = check_line(appended, "session_info")
    last_entry = json.loads(lines[-2]) if len(lines) > 2 else None  # pitui's own ids
    assert entry["parentId"] == (last_entry["id"] if last_entry else None), "parent = the last entry"
    assert entry["name"] == NAME.strip()
    after = _same_in_pi_and_pitui(oracle_073, pitui_env, path)
    assert [row[1] for row in after["entryIds"]] == [row[1] for row in before_pi["entryIds"]] + ["session_info"]
    assert after["context"] == before_pi["context"]
    assert not spelling, f"numbers not spelt as JSON.stringify spells them: {spelling[0]}"
