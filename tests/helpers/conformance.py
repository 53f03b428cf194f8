"""Comparing pitui with pi: the files compared, ``pitui inspect --json`` run as a user runs it,
pi's view of each file (with the newer ``retainedTail`` rule's probe) and the comparison rules.

Comparison rules: the whole JSON must be equal, except that ids of v1
files (pi gives their entries new random ids when it migrates them) are compared by position in
``entryIds``, and ``context.messages`` is not compared for files with a compaction that carries
``retainedTail`` (pitui follows the newer rule there, pi 0.73.1 the older one).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from devkit.oracle import Oracle

REPO = Path(__file__).resolve().parents[2]
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


def rel_path(path: Path) -> str:
    return str(path.relative_to(REPO))


def file_id(path: Path) -> str:
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


def js_number(value: Any) -> float:
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
    return js_number(1 if version is None else version) < 2


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
            return f"{at}: pitui has {len(ours)} items, pi {len(theirs)}; first extra in {who}: [{n}] {_short(rest[0])}"
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


def as_pitui_prints(theirs: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """pi's report without what only the oracle prints (``piVersion``) and without the parts
    of the oracle's schema that ``pitui inspect --json`` does not print yet (``projection``,
    ``stats``, a digest's ``textLen``)."""
    theirs = {k: v for k, v in theirs.items() if k != "piVersion" and (k in ours or k not in ("projection", "stats"))}
    ours_messages = (ours.get("context") or {}).get("messages") or []
    if not any(isinstance(m, dict) and "textLen" in m for m in ours_messages):
        context = theirs.get("context")
        if isinstance(context, dict) and isinstance(context.get("messages"), list):
            messages = [{k: v for k, v in m.items() if k != "textLen"} for m in context["messages"]]
            theirs = {**theirs, "context": {**context, "messages": messages}}
    return theirs


def compare(ours: dict[str, Any], theirs: dict[str, Any], data: bytes) -> str | None:
    """pitui's report against pi's for one file (``data``: the original bytes)."""
    theirs = as_pitui_prints(theirs, ours)
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
        if isinstance(entry, dict) and entry.get("type") == "compaction" and _js_truthy(entry.get("retainedTail")):
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
    pi = as_pitui_prints(pi, mine.report)
    if isinstance(probe, dict) and "error" not in probe:
        probe = as_pitui_prints(probe, mine.report)
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


def with_leaf_at(data: bytes, leaf: str) -> bytes:
    """The file plus a label entry under ``leaf``: pi's leaf is then the label, whose path is
    the path to ``leaf`` (labels add nothing to the context)."""
    line = {
        "type": "label",
        "id": "ffff0000",
        "parentId": leaf,
        "timestamp": "2099-01-01T00:00:00.000Z",
        "targetId": leaf,
        "label": "probe",
    }
    sep = b"" if data.endswith(b"\n") or not data else b"\n"
    return data + sep + json.dumps(line).encode() + b"\n"
