"""Comparing pitui with pi 1.6.0: the files compared, ``pitui inspect --json`` run as a user runs
it, pi's view of each file and the comparison rules.

Comparison rules: the whole JSON must be equal (context digests and projection included), except
that ids of v1 files (pi gives their entries new random ids when it migrates them) are compared
by position, and ``piVersion`` (the oracle's) and ``pi`` (pitui's: where pi 1.6.0 fails on the
file) are not compared as such. Where pi fails on a file pitui reads, pitui's ``pi`` list must
name pi's error; where pi reads it, the list must be empty. The one other expected difference is
an empty file, which pi fills with a fresh header and pitui does not read.
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

if TYPE_CHECKING:
    from devkit.oracle import Oracle

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
DEMO = REPO / "pitui" / "demo" / "sessions"
PITUI_TIMEOUT = 120
NOT_A_SESSION = "not a pi session"  # the 0.73.1 oracle's error for a file pi would overwrite
NOT_VALID = "Session file is not a valid pi session: "  # pi 1.6.0's

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
    if isinstance(report.get("projection"), list):
        out["projection"] = [
            [m(row[0]), *row[1:]] if isinstance(row, list) and row else row for row in report["projection"]
        ]
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


# Keys one side prints and the other does not compare: the oracle's pi version, pitui's verdicts.
ORACLE_ONLY = ("piVersion",)
PITUI_ONLY = ("pi",)


def compare(ours: dict[str, Any], theirs: dict[str, Any], data: bytes) -> str | None:
    """pitui's report against pi's for one file (``data``: the original bytes). A key only
    pi 1.6.0 prints (``projection``, ``stats``) is compared only when the oracle printed it."""
    ours = {k: v for k, v in ours.items() if k not in PITUI_ONLY and (k in theirs or k not in ("projection", "stats"))}
    theirs = {k: v for k, v in theirs.items() if k not in ORACLE_ONLY and (k in ours or k != "stats")}
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
    return first_difference(ours, theirs)


def pi_error(pi: dict[str, Any]) -> str | None:
    """pi's error message when it could not load the file (either oracle's form), else None."""
    if "error" not in pi or "header" in pi:
        return None
    error = pi["error"]
    return str(error.get("message")) if isinstance(error, dict) else str(error)


def pi_refuses(message: str) -> bool:
    """pi says the file is no session (0.73.1's oracle would overwrite it; 1.6.0 refuses it)."""
    return message.startswith(NOT_A_SESSION) or message.startswith(NOT_VALID)


def pi_views(oracle: Oracle, paths: Iterable[Path]) -> dict[Path, Any]:
    """pi's view of every file, in one node process."""
    paths = list(paths)
    found = oracle.open_many(paths)
    return {p: found[str(p)] for p in paths}


def _verdict_names(error: str, verdicts: list[Any]) -> bool:
    for verdict in verdicts:
        wanted = (verdict.get("error") or {}).get("message") if isinstance(verdict, dict) else None
        if not isinstance(wanted, str):
            continue
        if wanted.startswith(NOT_VALID) and error.startswith(NOT_VALID):
            return True  # pi names the copy the oracle gave it
        if wanted in error:
            return True
    return False


def check_against_pi(path: Path, mine: Inspected, pi: dict[str, Any]) -> str | None:
    """What is wrong with pitui's report on ``path``, or None."""
    data = path.read_bytes()
    error = pi_error(pi)
    if error is not None:
        if mine.report is None:
            return None if pi_refuses(error) else f"pi fails ({error}) and pitui inspect fails too: {mine.error}"
        verdicts = mine.report.get("pi") or []
        if not _verdict_names(error, verdicts):
            return f"pi fails with {error!r} but pitui's verdicts say {verdicts}"
        return None
    if mine.report is None:
        if not data:
            return None  # an empty file: pi writes a header into it, pitui reads nothing
        return f"pitui inspect failed where pi loads the file: {mine.error}"
    if mine.report.get("pi"):
        return f"pi loads the file but pitui says it fails: {mine.report['pi']}"
    return compare(mine.report, pi, data)


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
