"""Branch summaries made by pi itself, with no set-up: when ``pi`` is on PATH the branch question
offers pi's "Summarize" and "Summarize with custom prompt". A stand-in ``pi`` first on PATH
records how it was run and what it read, and answers; the summary written is read back by pi
1.6.0 and pi 0.73.1. Cancel, timeout, a configured command (which wins) and turning it off."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.apps import SIZE, opened, static_text, view_app
from helpers.pilot import until
from helpers.sessions import worked_session
from textual.pilot import Pilot
from textual.screen import Screen

from pitui.config import Config
from pitui.store.branch_prompt import SUMMARY_SYSTEM_PROMPT, branch_prompt, finish_summary
from pitui.store.digest import abandoned_entries
from pitui.store.reader import Session
from pitui.ui.screens.dialogs import BranchDialog, InstructionsEditor, SummarizingDialog
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.session_tree import SessionTree

ANSWER = "## Goal\nA changelog entry\n\n## Next Steps\n1. Release"
PI_FLAGS = [
    "--print",
    "--no-session",
    "--no-tools",
    "--no-mcp",
    "--no-context-files",
    "--no-skills",
    "--no-prompt-templates",
    "--system-prompt",
    SUMMARY_SYSTEM_PROMPT,
]


def fake_pi(bin_dir: Path, body: str) -> Path:
    """A ``pi`` that records its argv and stdin in ``bin_dir``, then runs ``body``."""
    bin_dir.mkdir(exist_ok=True)
    pi = bin_dir / "pi"
    pi.write_text(
        f"#!{sys.executable}\n"
        "import json, pathlib, sys\n"
        "here = pathlib.Path(__file__).parent\n"
        "(here / 'argv.json').write_text(json.dumps(sys.argv[1:]))\n"
        "(here / 'stdin.txt').write_text(sys.stdin.read())\n" + body
    )
    pi.chmod(0o755)
    return pi


@pytest.fixture
def pi_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder first on PATH, holding a ``pi`` that answers :data:`ANSWER`."""
    bin_dir = tmp_path / "bin"
    fake_pi(bin_dir, f"print({ANSWER!r})\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir


def app_for(path: Path, tmp_path: Path, config: Config | None = None) -> Any:
    app = view_app(path, tmp_path)
    if config is not None:
        app.config = config
    return app


def status(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    return static_text(screen, "#session-status") if isinstance(screen, SessionScreen) else ""


async def wait_for(pilot: Pilot[Any], screen: type[Screen[Any]]) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, screen))


async def branch_dialog(pilot: Pilot[Any], entry_id: str) -> BranchDialog:
    assert pilot.app.screen.query_one(SessionTree).select(entry_id)
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, BranchDialog)
    return pilot.app.screen  # type: ignore[return-value]


def choice_ids(dialog: BranchDialog) -> list[str | None]:
    choices = dialog.query_one("#branch-choices")
    return [choices.get_option_at_index(i).id for i in range(choices.option_count)]  # type: ignore[attr-defined]


async def choose(pilot: Pilot[Any], option: str) -> None:
    dialog = pilot.app.screen
    assert isinstance(dialog, BranchDialog)
    for _ in range(choice_ids(dialog).index(option)):
        await pilot.press("down")
    await pilot.press("enter")


def last_entry(path: Path) -> dict[str, Any]:
    return orjson.loads(path.read_bytes().splitlines()[-1])


def expected(path: Path, focus: str | None = None) -> tuple[str, str, dict[str, list[str]]]:
    """What pi should read, and the summary and details to be written, leaving a4 for a2."""
    session = Session.load(str(path))
    prompt = branch_prompt(abandoned_entries(session, "a4", "a2"), focus)
    assert prompt.text is not None
    return prompt.text, finish_summary(ANSWER, prompt.files), prompt.files.details()


async def test_summarize_runs_pi_and_writes_its_kind_of_summary(
    tmp_path: Path, pi_bin: Path, oracle: Any, oracle_073: Any
) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    prompt, summary, details = expected(path)
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await branch_dialog(pilot, "a2")
        assert choice_ids(dialog) == ["plain", "write", "pi", "pi-focus"]
        await choose(pilot, "pi")
        await until(pilot, lambda: "wrote branch summary" in status(pilot))
    assert json.loads((pi_bin / "argv.json").read_text()) == PI_FLAGS
    assert (pi_bin / "stdin.txt").read_text() == prompt
    assert prompt.startswith("<conversation>\n[User]: Now add a changelog entry\n\n")
    written = last_entry(path)
    assert list(written) == ["type", "id", "parentId", "timestamp", "fromId", "summary", "details"]
    assert (written["parentId"], written["fromId"]) == ("a2", "a4")
    assert written["summary"] == summary
    assert summary.startswith("The user explored a different conversation branch before returning here.\n")
    assert summary.endswith(
        f"{ANSWER}\n\n<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nCHANGELOG.md\n</modified-files>"
    )
    assert written["details"] == details == {"readFiles": ["README.md"], "modifiedFiles": ["CHANGELOG.md"]}
    for pi in (oracle, oracle_073):
        seen = pi.open(path)
        assert seen["leafId"] == written["id"], seen["piVersion"]
        last = seen["context"]["messages"][-1]
        assert (last["role"], last["summary"]) == ("branchSummary", summary), seen["piVersion"]


async def test_summarize_with_custom_prompt_adds_the_focus(tmp_path: Path, pi_bin: Path, oracle: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    prompt, summary, _ = expected(path, "the release notes")
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, "pi-focus")
        await wait_for(pilot, InstructionsEditor)
        assert "Custom summarization instructions" in str(pilot.app.screen.query_one(".dialog-title").render())
        await pilot.press("escape")  # back to the question, nothing run
        await wait_for(pilot, BranchDialog)
        assert not (pi_bin / "argv.json").exists() and path.read_bytes() == before
        await choose(pilot, "pi-focus")
        await wait_for(pilot, InstructionsEditor)
        await pilot.press(*"the release notes")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "wrote branch summary" in status(pilot))
    stdin = (pi_bin / "stdin.txt").read_text()
    assert stdin == prompt and stdin.endswith("\n\nAdditional focus: the release notes")
    assert last_entry(path)["summary"] == summary
    assert oracle.open(path)["context"]["messages"][-1]["summary"] == summary


async def test_a_slow_pi_can_be_cancelled_and_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    fake_pi(bin_dir, "import time\ntime.sleep(60)\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path, Config(summarizer_timeout=60)).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, "pi")
        await wait_for(pilot, SummarizingDialog)
        await until(pilot, lambda: "pi --print" in str(pilot.app.screen.query_one("#summarizing-progress").render()))
        await pilot.press("escape")
        await until(pilot, lambda: "Summarization cancelled: nothing written" in status(pilot))
        pilot.app.config = Config(summarizer_timeout=0.5)
        await branch_dialog(pilot, "a2")
        await choose(pilot, "pi")
        await until(pilot, lambda: "did not finish within 0.5 s" in status(pilot))
    assert path.read_bytes() == before


async def test_a_failing_pi_writes_nothing_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    fake_pi(bin_dir, "sys.stderr.write('No models available\\n')\nsys.exit(1)\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    path = worked_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    async with app_for(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await branch_dialog(pilot, "a2")
        await choose(pilot, "pi")
        await until(pilot, lambda: "No summary" in status(pilot))
        assert "failed (exit 1): No models available" in status(pilot)
    assert path.read_bytes() == before


async def test_a_configured_command_wins_over_pi(tmp_path: Path, pi_bin: Path) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    script = tmp_path / "summarize.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('From the command.')\n")
    config = Config(summarizer_command=(sys.executable, str(script)))
    async with app_for(path, tmp_path, config).run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await branch_dialog(pilot, "a2")
        assert choice_ids(dialog) == ["plain", "write", "command"]
        await choose(pilot, "command")
        await until(pilot, lambda: "wrote branch summary" in status(pilot))
    assert last_entry(path)["summary"].startswith("From the command.")
    assert not (pi_bin / "argv.json").exists()  # pi was never run


async def test_pi_summaries_can_be_turned_off_and_need_pi(tmp_path: Path, pi_bin: Path, monkeypatch: Any) -> None:
    path = worked_session(tmp_path / "s.jsonl")
    async with app_for(path, tmp_path, Config(pi_summaries=False)).run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await branch_dialog(pilot, "a2")
        assert choice_ids(dialog) == ["plain", "write", "command"]
        await pilot.press("escape")
        await wait_for(pilot, SessionScreen)
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no pi anywhere
        pilot.app.config = Config()
        dialog = await branch_dialog(pilot, "a2")
        assert choice_ids(dialog) == ["plain", "write", "command"]
        assert dialog.query_one("#branch-choices").get_option("command").disabled  # type: ignore[attr-defined]
