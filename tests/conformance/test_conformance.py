"""pitui against pi itself: what ``pitui inspect --json`` reports must be what pi's own
SessionManager loads (the oracle, ``tests/oracle``), and every file pitui writes must load in pi
with exactly the tree, leaf, labels, name and context that pitui reports for it.

Comparison rules (shared/oracle/README.md): the whole JSON must be equal, except that ids of v1
files (pi gives their entries new random ids when it migrates them) are compared by position in
``entryIds``, and ``context.messages`` is not compared for files with a compaction that carries
``retainedTail`` (pitui follows the newer rule there, pi 0.73.1 the older one).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Oracle

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
DEMO = REPO / "pitui" / "demo" / "sessions"
PITUI_TIMEOUT = 120
NOT_A_SESSION = "not a pi session"  # the oracle's error for a file pi would overwrite

# ----------------------------------------------------------------------------------------------
# which files


def not_comparable(path: Path) -> str | None:
    """Why a fixture cannot be given to pi at all, or None."""
    if "cycle" in path.name:
        return "a parentId cycle: pi 0.73.1 loops forever on it"
    return None


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def _test_id(path: Path) -> str:
    """A short test id: fixtures by name, demo sessions by project and id prefix."""
    if path.is_relative_to(DEMO):
        project = path.parent.name.strip("-").rsplit("-", 1)[-1]
        return f"demo-{project}-{path.stem.rsplit('_', 1)[-1][:13]}"
    return path.name


FIXTURE_FILES = sorted(p for p in FIXTURES.glob("*.jsonl") if not_comparable(p) is None)
DEMO_FILES = sorted(DEMO.glob("**/*.jsonl"))
COMPARED_FILES = FIXTURE_FILES + DEMO_FILES

# ----------------------------------------------------------------------------------------------
# running pitui


@pytest.fixture(scope="module")
def pitui_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment that keeps pitui's caches and pi's agent folder out of the user's home."""
    home = tmp_path_factory.mktemp("home")
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
    }


def run_pitui(env: dict[str, str], *args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitui", *map(os.fspath, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=REPO,
        timeout=PITUI_TIMEOUT,
        check=False,
    )


@dataclass(frozen=True)
class Inspected:
    """``pitui inspect FILE --json``: the report, or why there is none."""

    report: dict[str, Any] | None
    error: str | None


def pitui_inspect(env: dict[str, str], path: Path) -> Inspected:
    try:
        proc = run_pitui(env, "inspect", path, "--json")
    except subprocess.TimeoutExpired:
        return Inspected(None, f"pitui inspect took longer than {PITUI_TIMEOUT}s")
    if proc.returncode != 0:
        return Inspected(None, f"exit {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    try:
        return Inspected(json.loads(proc.stdout), None)
    except ValueError as error:
        return Inspected(None, f"output is not JSON ({error}): {proc.stdout[:300]!r}")


def inspect_all(env: dict[str, str], paths: Iterable[Path]) -> dict[Path, Inspected]:
    paths = list(paths)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(zip(paths, pool.map(lambda p: pitui_inspect(env, p), paths), strict=True))


def inspect_ok(env: dict[str, str], path: Path) -> dict[str, Any]:
    result = pitui_inspect(env, path)
    assert result.report is not None, f"pitui inspect {path.name} --json failed: {result.error}"
    return result.report


# ----------------------------------------------------------------------------------------------
# reading a file the way pi does, for what the comparison needs to know of the original

_JS_SPACE = "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # noqa: E501


def parsed_lines(data: bytes) -> list[Any]:
    """Every line ``JSON.parse`` accepts, in file order (pi's ``trim().split("\\n")``)."""
    out = []
    for line in data.decode("utf-8", errors="replace").strip(_JS_SPACE).split("\n"):
        if not line.strip(_JS_SPACE):
            continue
        try:
            out.append(json.loads(line, parse_constant=_no_constant))
        except (ValueError, RecursionError):
            continue
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _js_number(value: Any) -> float:
    """``Number(value)`` for the values a header's version can hold."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip(_JS_SPACE) or 0)
        except ValueError:
            return math.nan
    return math.nan


def ids_regenerated(data: bytes) -> bool:
    """pi gives every entry a new random id when it migrates a v1 file (``version ?? 1`` < 2)."""
    lines = parsed_lines(data)
    if not lines or not isinstance(lines[0], dict):
        return False
    version = lines[0].get("version")
    return _js_number(1 if version is None else version) < 2


def has_retained_tail(data: bytes) -> bool:
    return any(
        isinstance(e, dict) and e.get("type") == "compaction" and e.get("retainedTail") is not None
        for e in parsed_lines(data)
    )


# ----------------------------------------------------------------------------------------------
# comparing


def _map_ids(report: dict[str, Any], ids: dict[Any, Any]) -> dict[str, Any]:
    """``report`` with its entry ids replaced through ``ids`` wherever ids appear."""

    def m(value: Any) -> Any:
        try:
            return ids.get(value, value)
        except TypeError:  # unhashable: not an id
            return value

    out = dict(report)
    if isinstance(report.get("entryIds"), list):
        out["entryIds"] = [
            [m(row[0]), row[1], m(row[2])] if isinstance(row, list) and len(row) == 3 else row
            for row in report["entryIds"]
        ]
    out["leafId"] = m(report.get("leafId"))
    if isinstance(report.get("branch"), list):
        out["branch"] = [m(i) for i in report["branch"]]
    tree = report.get("tree")
    if isinstance(tree, dict):
        out["tree"] = {
            "roots": [m(i) for i in tree.get("roots", [])],
            "children": {m(k): [m(i) for i in v] for k, v in tree.get("children", {}).items()},
        }
    if isinstance(report.get("labels"), dict):
        out["labels"] = {m(k): v for k, v in report["labels"].items()}
    context = report.get("context")
    if isinstance(context, dict) and isinstance(context.get("messages"), list):
        out["context"] = {
            **context,
            "messages": [
                {**msg, "fromId": m(msg["fromId"])} if isinstance(msg, dict) and "fromId" in msg else msg
                for msg in context["messages"]
            ],
        }
    return out


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_difference(ours: Any, theirs: Any, where: str = "") -> str | None:
    """Where ``ours`` (pitui) first differs from ``theirs`` (pi), compactly, or None.

    JSON values are equal when they have the same kind and value: ``true`` is not ``1``, but
    ``1`` and ``1.0`` are the same number.
    """
    at = where or "(top)"
    if isinstance(theirs, dict) and isinstance(ours, dict):
        for key in theirs:
            if key not in ours:
                return f"{where}.{key}: missing in pitui; pi has {_short(theirs[key])}"
            diff = first_difference(ours[key], theirs[key], f"{where}.{key}")
            if diff:
                return diff
        extra = [k for k in ours if k not in theirs]
        if extra:
            return f"{where}.{extra[0]}: only in pitui: {_short(ours[extra[0]])}"
        return None
    if isinstance(theirs, list) and isinstance(ours, list):
        for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            diff = first_difference(a, b, f"{where}[{i}]")
            if diff:
                return diff
        if len(ours) != len(theirs):
            n = min(len(ours), len(theirs))
            rest = ours[n:] if len(ours) > n else theirs[n:]
            who = "pitui" if len(ours) > n else "pi"
            return (
                f"{at}: pitui has {len(ours)} items, pi {len(theirs)}; "
                f"first extra in {who}: [{n}] {_short(rest[0])}"
            )
        return None
    if _kind(ours) != _kind(theirs) or ours != theirs:
        return f"{at}: pitui {_short(ours)} != pi {_short(theirs)}"
    return None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def compare(ours: dict[str, Any], theirs: dict[str, Any], data: bytes) -> str | None:
    """pitui's report against pi's for one file (``data``: the original bytes)."""
    if ids_regenerated(data):
        ours_rows, their_rows = ours.get("entryIds"), theirs.get("entryIds")
        if isinstance(ours_rows, list) and isinstance(their_rows, list):
            ids = {}
            for a, b in zip(ours_rows, their_rows, strict=False):
                try:
                    ids[a[0]] = b[0]
                except (TypeError, IndexError, KeyError):
                    break
            ours = _map_ids(ours, ids)
    if has_retained_tail(data):
        ours = {**ours, "context": {k: v for k, v in (ours.get("context") or {}).items() if k != "messages"}}
        theirs = {**theirs, "context": {k: v for k, v in theirs["context"].items() if k != "messages"}}
    return first_difference(ours, theirs)


# The part pi 0.73.1 cannot judge: the context of a session whose last compaction on the path
# carries ``retainedTail``. The newer rule (format reference §4.4) is: the compaction summary,
# the retained tail, then the entries after the compaction. pi gives the first and the last
# part when the compaction has no ``firstKeptEntryId`` (it then keeps nothing from before the
# compaction), so a copy of the file without it (the probe) loaded in pi, with the tail put in
# after the summary, is what pitui must show.


def _js_truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, float) and math.isnan(value))


def newer_rule_probe(data: bytes) -> bytes | None:
    """``data`` with ``firstKeptEntryId`` taken out of every compaction that carries a
    ``retainedTail``, other lines untouched; None if there is no such compaction."""
    lines = data.split(b"\n")
    changed = False
    for i, line in enumerate(lines):
        if b"retainedTail" not in line:
            continue
        try:
            entry = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict) and entry.get("type") == "compaction" and _js_truthy(
            entry.get("retainedTail")
        ):
            entry.pop("firstKeptEntryId", None)
            try:
                lines[i] = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
            except UnicodeEncodeError:  # a lone surrogate: leave this file out
                return None
            changed = True
    return b"\n".join(lines) if changed else None


def message_digest(message: Any) -> dict[str, Any]:
    """The oracle's digest of one context message (tests/oracle/pi_session.mjs)."""
    if not isinstance(message, dict):
        return {}
    out = {"role": message["role"]} if "role" in message else {}
    content = message.get("content")
    if isinstance(content, str):
        out["text"] = content
    elif isinstance(content, list):
        out["blocks"] = [b.get("type") if isinstance(b, dict) else None for b in content]
    extra = {
        "compactionSummary": ("summary",),
        "branchSummary": ("summary", "fromId"),
        "custom": ("customType",),
        "toolResult": ("toolCallId",),
        "bashExecution": ("command",),
    }
    for key in extra.get(message.get("role"), ()) if isinstance(message.get("role"), str) else ():
        if key in message:
            out[key] = message[key]
    return out


def newer_rule_messages(data: bytes, pi: dict[str, Any], probe: dict[str, Any] | None) -> list[Any] | None:
    """The context messages by the newer rule, from pi's views of the file and of its probe;
    None when they cannot be told (a tail that is not a list, no probe)."""
    by_id: dict[Any, Any] = {}
    for entry in parsed_lines(data)[1:]:
        if isinstance(entry, dict):
            by_id[entry.get("id")] = entry
    last = None
    for entry_id in pi["branch"]:
        entry = by_id.get(entry_id)
        if isinstance(entry, dict) and entry.get("type") == "compaction":
            last = entry
    if last is None or not _js_truthy(last.get("retainedTail")):
        return pi["context"]["messages"]  # the rules agree
    tail = last["retainedTail"]
    if not isinstance(tail, list) or probe is None or set(probe) == {"error"}:
        return None
    messages = probe["context"]["messages"]
    return [*messages[:1], *map(message_digest, tail), *messages[1:]]


def pi_views(oracle: Oracle, paths: Iterable[Path], scratch: Path) -> dict[Path, tuple[Any, Any]]:
    """pi's view of every file, and of its probe where it has one, in one node process."""
    paths = list(paths)
    probes: dict[Path, Path] = {}
    for i, path in enumerate(paths):
        data = path.read_bytes()
        if has_retained_tail(data) and not ids_regenerated(data):
            probe = newer_rule_probe(data)
            if probe is not None:
                probes[path] = scratch / f"probe-{i}-{path.name}"
                probes[path].write_bytes(probe)
    found = oracle.open_many([*paths, *probes.values()])
    return {p: (found[str(p)], found[str(probes[p])] if p in probes else None) for p in paths}


def check_against_pi(path: Path, mine: Inspected, pi: dict[str, Any], probe: Any = None) -> str | None:
    """What is wrong with pitui's report on ``path``, or None (or a skip, when pi cannot load it)."""
    if set(pi) == {"error"}:
        if pi["error"].startswith(NOT_A_SESSION):
            if mine.report is not None:
                return f"pi cannot load it ({pi['error']}) but pitui inspect reports a session"
            return None
        pytest.skip(f"pi cannot load {path.name}: {pi['error']}")
    if mine.report is None:
        return f"pitui inspect failed where pi loads the file: {mine.error}"
    data = path.read_bytes()
    diff = compare(mine.report, pi, data)
    if diff or not has_retained_tail(data) or ids_regenerated(data):
        return diff
    expected = newer_rule_messages(data, pi, probe)
    if expected is None:
        return None
    ours = (mine.report.get("context") or {}).get("messages")
    diff = first_difference(ours, expected, ".context.messages")
    return diff and f"{diff} (retainedTail: expected by the newer rule, not pi 0.73.1's)"


# ----------------------------------------------------------------------------------------------
# every fixture and demo session


@pytest.fixture(scope="module")
def pi_reports(oracle: Oracle, tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[Any, Any]]:
    return pi_views(oracle, COMPARED_FILES, tmp_path_factory.mktemp("probes"))


@pytest.fixture(scope="module")
def pitui_reports(pitui_env: dict[str, str]) -> dict[Path, Inspected]:
    return inspect_all(pitui_env, COMPARED_FILES)


@pytest.mark.parametrize("path", COMPARED_FILES, ids=_test_id)
def test_inspect_matches_pi(
    path: Path, pi_reports: dict[Path, tuple[Any, Any]], pitui_reports: dict[Path, Inspected]
) -> None:
    diff = check_against_pi(path, pitui_reports[path], *pi_reports[path])
    assert diff is None, f"{_rel(path)}: {diff}"


# ----------------------------------------------------------------------------------------------
# a generated corpus (tests/corpus.py)

CORPUS_SIZES = (1, 2, 3, 4, 6, 9, 14, 22, 35, 55, 90, 150, 250, 400, 700, 1200, 2500)
CORPUS_FILES = 150


def _corpus_module() -> Any:
    if not (REPO / "tests" / "corpus.py").exists():
        pytest.skip("tests/corpus.py is not there yet")
    try:
        module = importlib.import_module("corpus")
    except ModuleNotFoundError:  # tests/ imported as a package
        module = importlib.import_module("tests.corpus")
    if not hasattr(module, "generate_session"):
        pytest.skip("tests/corpus.py has no generate_session yet")
    return module


def test_generated_corpus_matches_pi(oracle: Oracle, pitui_env: dict[str, str], tmp_path: Path) -> None:
    generate_session: Callable[[int, int], bytes] = _corpus_module().generate_session
    files: list[Path] = []
    for seed in range(CORPUS_FILES):
        n = CORPUS_SIZES[seed % len(CORPUS_SIZES)] + seed // len(CORPUS_SIZES)
        files.append(tmp_path / f"corpus-{seed:03d}-{n}.jsonl")
        files[-1].write_bytes(generate_session(seed, n))
    scratch = tmp_path / "probes"
    scratch.mkdir()
    pis = pi_views(oracle, files, scratch)
    mine = inspect_all(pitui_env, files)
    problems, not_loaded = [], []
    for path in files:
        pi, probe = pis[path]
        if set(pi) == {"error"} and not pi["error"].startswith(NOT_A_SESSION):
            not_loaded.append(f"{path.name}: {pi['error']}")
            continue
        diff = check_against_pi(path, mine[path], pi, probe)
        if diff:
            problems.append(f"{path.name}: {diff}")
    assert len(not_loaded) < len(files) // 2, "pi loads few corpus files:\n" + "\n".join(not_loaded)
    shown = "\n".join(problems[:12])
    assert not problems, f"{len(problems)} of {len(files)} generated sessions differ from pi:\n{shown}"


# ----------------------------------------------------------------------------------------------
# unit checks of the comparison itself


def test_first_difference_reports_the_first_differing_field() -> None:
    pi = {"a": [1, 2, {"b": "x"}], "c": True}
    assert first_difference({"a": [1, 2, {"b": "x"}], "c": True}, pi) is None
    assert first_difference({"a": [1, 2, {"b": "y"}], "c": True}, pi) == '.a[2].b: pitui "y" != pi "x"'
    assert first_difference({"a": [1, 2, {"b": "x"}], "c": 1}, pi) == ".c: pitui 1 != pi true"
    assert first_difference({"a": [1, 2], "c": True}, pi).startswith(".a: pitui has 2 items, pi 3")
    assert first_difference({"a": [1.0, 2, {"b": "x"}], "c": True}, pi) is None
    assert first_difference({"c": True}, pi).startswith(".a: missing in pitui")


def test_v1_ids_are_compared_by_position() -> None:
    v1 = b'{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
    pi = {
        "entryIds": [["p1", "message", None], ["p2", "message", "p1"]],
        "leafId": "p2",
        "branch": ["p1", "p2"],
        "tree": {"roots": ["p1"], "children": {"p1": ["p2"]}},
        "labels": {"p1": "x"},
        "context": {"messages": [{"role": "branchSummary", "fromId": "p1"}]},
    }
    ours = json.loads(json.dumps(pi).replace("p1", "q1").replace("p2", "q2"))
    assert compare(ours, pi, v1) is None
    v3 = v1.replace(b'"id"', b'"version":3,"id"')
    assert compare(ours, pi, v3) == '.entryIds[0][0]: pitui "q1" != pi "p1"'
    ours["tree"]["children"] = {"q2": ["q1"]}
    assert compare(ours, pi, v1) == '.tree.children.p1: missing in pitui; pi has ["p2"]'


# ----------------------------------------------------------------------------------------------
# writes: what pitui appends or creates must load in pi exactly as pitui reports it

# The order pi writes the keys of the entries pitui makes (format reference §2.2, §2.4).
PI_KEY_ORDER = {
    "session": ("type", "version", "id", "timestamp", "cwd", "parentSession"),
    "label": ("type", "id", "parentId", "timestamp", "targetId", "label"),
    "session_info": ("type", "id", "parentId", "timestamp", "name"),
    "branch_summary": ("type", "id", "parentId", "timestamp", "fromId", "summary", "details", "fromHook"),
    "custom": ("type", "customType", "data", "id", "parentId", "timestamp"),
}
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ENTRY_ID = re.compile(r"^[0-9a-f]{8}$")
LABEL = "checkpoint ✓ — naïve"
NAME = "  Parser fix ✓ (ü)  "
SUMMARY = "Tried the regex approach; it broke on nested quotes. ✓"


_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def written_as_pi_writes(oracle: Oracle, lines: list[bytes], spelling: list[str]) -> None:
    """Every line is byte for byte what ``JSON.stringify`` makes of it: compact, non-ASCII as
    is, keys in order, numbers as JavaScript prints them (``0.000009``, not ``9e-6``).

    A line that differs only in how a number is spelt is added to ``spelling`` (a known pitui
    bug, reported as an expected failure once the test's other checks have passed)."""
    for number, (line, canonical) in enumerate(zip(lines, oracle.stringify(lines), strict=True), 1):
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
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop",
            "timestamp": 1740823200000 + n * 1000,
        }
        return {"type": "message", "id": i, "parentId": parent, "timestamp": ts(n), "message": msg}

    entries = [
        {"type": "session", "version": 3, "id": "0195a0c4-7b3e-7000-8000-00000000abcd",
         "timestamp": ts(0), "cwd": "/home/me/proj"},
        user("a0000001", None, 1, "Write a parser for the config format"),
        assistant("a0000002", "a0000001", 2, "Here is a first version."),
        user("a0000003", "a0000002", 3, "It fails on quotes"),
        assistant("a0000004", "a0000003", 4, "Fixed with a regex."),
        {"type": "label", "id": "a0000005", "parentId": "a0000004", "timestamp": ts(5),
         "targetId": "a0000003", "label": "quotes"},
        {"type": "custom_message", "customType": "note", "content": "Remember the tests",
         "display": True, "id": "a0000006", "parentId": "a0000005", "timestamp": ts(6)},
        user("a0000007", "a0000006", 7, "Now nested quotes"),
        assistant("a0000008", "a0000007", 8, "Rewritten as a tokenizer."),
        user("b0000001", "a0000002", 9, "Use a parser generator instead"),
        assistant("b0000002", "b0000001", 10, "Here is a grammar."),
        {"type": "session_info", "id": "a0000009", "parentId": "a0000008", "timestamp": ts(11),
         "name": "Config parser"},
        {"type": "label", "id": "a000000a", "parentId": "a0000009", "timestamp": ts(12),
         "targetId": "a0000002", "label": "first draft"},
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
    return len(messages) >= 2


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
    return "synthetic" if source is None else _test_id(source)


@pytest.fixture(scope="module")
def sources_in_pi(oracle: Oracle, tmp_path_factory: pytest.TempPathFactory) -> dict[Path | None, Any]:
    """pi's view of every write source before any write, loaded once."""
    synthetic = tmp_path_factory.mktemp("synthetic") / SYNTHETIC_NAME
    synthetic.write_bytes(_synthetic_session())
    files = {source: synthetic if source is None else source for source in WRITE_SOURCES}
    found = oracle.open_many(files.values())
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


def _same_in_pi_and_pitui(oracle: Oracle, env: dict[str, str], path: Path) -> dict[str, Any]:
    """pi's view of a file pitui wrote, checked equal to what pitui reports; returns pi's view."""
    pi = oracle.open(path)
    diff = compare(inspect_ok(env, path), pi, path.read_bytes())
    assert diff is None, f"pi loads {path.name} differently from what pitui reports: {diff}"
    return pi


def _run_ok(env: dict[str, str], *args: str | os.PathLike[str]) -> str:
    proc = run_pitui(env, *args)
    shown = " ".join(map(str, args))
    assert proc.returncode == 0, f"pitui {shown} failed ({proc.returncode}): {proc.stderr.strip()}"
    return proc.stdout


def _append_and_check(
    oracle: Oracle, env: dict[str, str], before: Before, kind: str, args: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one appending command; the new entry and pi's view after it, both checked."""
    _run_ok(env, args[0], before.path, *args[1:])
    line = _appended_line(before)
    written_as_pi_writes(oracle, [line], before.spelling)
    entry = check_line(line, kind)
    assert entry["id"] not in before.raw, f"the new id {entry['id']} is already in the file"
    after = _same_in_pi_and_pitui(oracle, env, before.path)
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
    "assistant": ("assistant message off the leaf", lambda b: _off_path_first(
        b, [i for i in b.raw if b.kind(i) == "message:assistant" and i != b.pi["leafId"]])),
    "user": ("user message with a parent", lambda b: [
        i for i in b.pi["branch"] if b.kind(i) == "message:user" and b.parent(i) in b.raw]),
    "custom-message": ("custom message with a parent", lambda b: [
        i for i in b.pi["branch"] if b.kind(i) == "custom_message" and b.parent(i) in b.raw]),
    "root-user": ("root user message", lambda b: [
        i for i in b.pi["tree"]["roots"] if b.kind(i) == "message:user" and b.parent(i) is None]),
}


def _off_path_first(before: Before, ids: list[str]) -> list[str]:
    off = [i for i in ids if i not in before.pi["branch"]]
    return off or [i for i in ids if i in before.pi["branch"]]


def _check_branch(
    oracle: Oracle, env: dict[str, str], before: Before, target_kind: str, summary: bool
) -> None:
    what, candidates = BRANCH_TARGETS[target_kind]
    target = before.pick(candidates(before), what)
    leaf = _expected_leaf(before, target)
    if leaf is not None and leaf not in before.raw:
        pytest.skip(f"{target}'s parent is missing: pi cannot branch there")
    if leaf == before.pi["leafId"]:
        pytest.skip("the chosen entry is where the leaf already is")
    args = ["branch", target] + (["--summary", SUMMARY] if summary else [])
    entry, after = _append_and_check(oracle, env, before, "branch_summary" if summary else "custom", args)
    assert entry["parentId"] == leaf, f"parent must be {leaf} (pi's rule for a {before.kind(target)})"
    assert after["branch"] == [*before.path_to(leaf), entry["id"]]
    if summary:
        assert entry["summary"] == SUMMARY
        assert entry["fromId"] == (leaf if leaf is not None else "root"), "fromId as pi writes it"
        assert after["context"]["messages"][-1] == {"role": "branchSummary", "summary": SUMMARY,
                                                    "fromId": entry["fromId"]}
    else:
        assert entry["customType"] == "pitui.branch"
        assert isinstance(entry.get("data"), dict), "data must say where the leaf was"
        assert before.pi["leafId"] in json.dumps(entry["data"]), "data must hold the previous leaf"
        assert after["context"] == _context_at(oracle, before, leaf)


def _context_at(oracle: Oracle, before: Before, leaf: Any) -> dict[str, Any]:
    """pi's context with the leaf at ``leaf``: the original file plus one label entry hanging
    there (labels are not in the context), loaded by pi."""
    if leaf is None:
        return {"model": None, "thinkingLevel": "off", "messages": []}
    probe = before.path.with_name("probe-" + before.path.name)
    line = {"type": "label", "id": "ffff0000", "parentId": leaf, "timestamp": "2099-01-01T00:00:00.000Z",
            "targetId": leaf, "label": "probe"}
    sep = b"" if before.data.endswith(b"\n") else b"\n"
    probe.write_bytes(before.data + sep + json.dumps(line).encode() + b"\n")
    try:
        return oracle.open(probe)["context"]
    finally:
        probe.unlink()


def _check_label(oracle: Oracle, env: dict[str, str], before: Before, clear: bool) -> None:
    labelled = [i for i in before.pi["labels"] if i in before.raw]
    if clear and labelled:
        target = labelled[0]
    else:
        target = before.pick([i for i in before.pi["branch"] if before.kind(i) != "label"], "entry to label")
    if clear and not labelled:  # label it first, then clear that
        first, _ = _append_and_check(oracle, env, before, "label", ["label", target, LABEL])
        before = Before(before.path, before.path.read_bytes(), oracle.open(before.path),
                        {**before.raw, first["id"]: first}, before.spelling)
    args = ["label", target] if clear else ["label", target, LABEL]
    entry, after = _append_and_check(oracle, env, before, "label", args)
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


def _check_rename(oracle: Oracle, env: dict[str, str], before: Before) -> None:
    entry, after = _append_and_check(oracle, env, before, "session_info", ["rename", NAME])
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
    oracle: Oracle, env: dict[str, str], before: Before, args: list[str], leaf: str
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
    written_as_pi_writes(oracle, lines[:-1], before.spelling)
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

    after = _same_in_pi_and_pitui(oracle, env, new)
    assert after["labels"] == dict(labels)
    assert after["context"] == _context_at(oracle, before, leaf)
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


@pytest.mark.parametrize("source", WRITE_SOURCES, ids=_source_id)
@pytest.mark.parametrize("write", WRITES)
def test_write_loads_in_pi_as_pitui_reports(
    write: str,
    source: Path | None,
    oracle: Oracle,
    sources_in_pi: dict[Path | None, Any],
    pitui_env: dict[str, str],
    tmp_path: Path,
) -> None:
    before = _load_before(source, sources_in_pi[source], tmp_path / "sessions")
    if write in ("label", "label-clear"):
        _check_label(oracle, pitui_env, before, clear=write == "label-clear")
    elif write == "rename":
        _check_rename(oracle, pitui_env, before)
    elif write.startswith("branch"):
        summary = write.startswith("branch-summary")
        target_kind = write.removeprefix("branch-summary" if summary else "branch").lstrip("-") or "assistant"
        _check_branch(oracle, pitui_env, before, target_kind, summary)
    elif write == "fork":
        leaf = before.pi["leafId"]
        candidates = [i for i in before.pi["branch"] if before.kind(i) == "message:assistant" and i != leaf]
        target = before.pick(candidates, "assistant message before the leaf")
        _check_new_session(oracle, pitui_env, before, ["fork", target], target)
    elif write == "clone":
        after = _check_new_session(oracle, pitui_env, before, ["clone"], before.pi["leafId"])
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
    p for p in FIXTURE_FILES if (lines := parsed_lines(p.read_bytes())) and isinstance(lines[0], dict)
    and lines[0].get("type") == "session" and _js_number(lines[0].get("version", 1) or 1) < 3
]
_QUOTED_ID = re.compile(rb'"([0-9a-f]{8})"')


@pytest.mark.parametrize("source", OLD_VERSION_FIXTURES, ids=_test_id)
def test_write_to_old_version_rewrites_it_as_pi_does(
    source: Path, oracle: Oracle, pitui_env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    before_pi = oracle.open(path)
    pi_lines = oracle.rewrite(path).split(b"\n")
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
    written_as_pi_writes(oracle, [appended], spelling)
    entry = check_line(appended, "session_info")
    last_entry = json.loads(lines[-2]) if len(lines) > 2 else None  # pitui's own ids
    assert entry["parentId"] == (last_entry["id"] if last_entry else None), "parent = the last entry"
    assert entry["name"] == NAME.strip()
    after = _same_in_pi_and_pitui(oracle, pitui_env, path)
    assert [row[1] for row in after["entryIds"]] == [row[1] for row in before_pi["entryIds"]] + ["session_info"]
    assert after["context"] == before_pi["context"]
    assert not spelling, f"numbers not spelt as JSON.stringify spells them: {spelling[0]}"
