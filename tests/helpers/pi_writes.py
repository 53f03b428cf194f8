"""The same write made by pi's own SessionManager (``tests/oracle/pi_write.mjs``), and the
lines of both made comparable."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitui.store.canonical import inspect_session
from pitui.store.jsonl import dumps
from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle

WRITE_SCRIPT = Path(__file__).resolve().parents[1] / "oracle" / "pi_write.mjs"


def pi_write(oracle: Oracle, *args: str | os.PathLike[str]) -> list[bytes]:
    """The lines pi's own SessionManager writes for one write (``pi_write.mjs``)."""
    proc = subprocess.run(
        [oracle.node, str(WRITE_SCRIPT), *map(os.fspath, args)],
        capture_output=True,
        env={**os.environ, "PI_PKG": str(oracle.package)},
        timeout=120,
        check=False,
    )
    out = json.loads(proc.stdout or b"{}")
    assert "lines" in out, f"pi could not make the write {args}: {out.get('error') or proc.stderr.decode()}"
    return [line.encode() for line in out["lines"]]


def pitui_view(path: Path) -> dict[str, Any]:
    """``pitui inspect --json`` of a file, in process."""
    report: dict[str, Any] = json.loads(dumps(inspect_session(Session.load(str(path))), prepared=True))
    return report


def normalised(lines: list[bytes], source_ids: set[str], copy: bool) -> list[list[tuple[str, Any]]]:
    """Lines as (key, value) lists, in their order, with what each run makes anew replaced by
    placeholders: ids not in the source (numbered as they first appear), the time of a new
    entry (in a ``copy``, a re-made label keeps its label's time, which is compared), the
    header's id, time and ``parentSession`` (a copy's path), and the ``details`` pitui records
    for its summaries."""
    new: dict[str, str] = {}
    out = []
    for line in lines:
        entry = json.loads(line)
        if entry.get("type") == "session":
            entry.update({k: f"<{k}>" for k in ("id", "timestamp", "parentSession") if k in entry})
        else:
            for key in ("id", "parentId"):
                value = entry.get(key)
                if isinstance(value, str) and value not in source_ids:
                    entry[key] = new.setdefault(value, f"<new {len(new)}>")
            if entry.get("id", "").startswith("<new") and not (copy and entry.get("type") == "label"):
                entry["timestamp"] = "<now>"
            if entry.get("type") == "branch_summary":
                entry.pop("details", None)
        out.append(list(entry.items()))
    return out
