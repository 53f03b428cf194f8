"""What pitui says pi 1.6.0 does with a file it fails on (pitui/store/pi_verdict.py); the
conformance tests check each such verdict against pi's own error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pitui.store.pi_verdict import pi_verdicts
from pitui.store.reader import Session

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def _verdicts(name: str) -> list[tuple[str, str | None, str | None]]:
    session = Session.load(str(FIXTURES / name))
    return [(v.at, v.error_name, v.error_message) for v in pi_verdicts(session)]


def test_files_pi_reads_get_no_verdict() -> None:
    for name in ("linear.jsonl", "sys-messages.jsonl", "ctx-edit-omit.jsonl", "null-line.jsonl"):
        assert _verdicts(name) == [], name


def test_a_byte_order_mark_is_no_session_for_pi() -> None:
    path = FIXTURES / "bom.jsonl"
    assert _verdicts("bom.jsonl") == [("open", "Error", f"Session file is not a valid pi session: {path}")]


def test_a_message_entry_without_a_message_breaks_pis_context() -> None:
    assert _verdicts("message-null.jsonl") == [
        ("context", "TypeError", "Cannot read properties of null (reading 'role')")
    ]


def test_an_edit_without_replacement_breaks_pi_only_on_an_editable_target() -> None:
    assert _verdicts("ctx-edit-no-replacement.jsonl") == [
        ("context", "TypeError", "Cannot read properties of undefined (reading 'content')")
    ]
    assert _verdicts("ctx-edit-no-replacement-summary.jsonl") == []


def test_a_name_that_is_not_a_string_breaks_pis_session_name() -> None:
    assert _verdicts("ctx-name-not-string.jsonl") == [("name", "TypeError", "entry.name?.trim is not a function")]


def test_a_cycle_on_the_leafs_path_makes_pi_abort_without_an_error() -> None:
    assert _verdicts("cycle-2.jsonl") == [("context", None, None)]


def _inspect(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pitui", "inspect", str(path)], capture_output=True, text=True, env=env, check=False
    )


def test_inspect_says_what_pi_does() -> None:
    shown = _inspect(FIXTURES / "ctx-edit-no-replacement.jsonl")
    assert shown.returncode == 0
    assert (
        "pi 1.6.0  fails at context: the context_edit e0000005 (line 6) of entry e0000004 has no replacement "
        "(TypeError: Cannot read properties of undefined (reading 'content'))"
    ) in shown.stdout
    assert "pi 1.6.0" not in _inspect(FIXTURES / "linear.jsonl").stdout
    empty = _inspect(FIXTURES / "empty.jsonl")
    assert empty.returncode != 0
    assert "pi 1.6.0 would write a new session header into it" in empty.stderr
