"""The summarizer command: text in, summary out, and every way it can fail says why."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from pitui.store.summarize import SummarizerCancelled, SummarizerError, run_summarizer

PY = sys.executable


def test_the_branch_goes_in_and_the_summary_comes_out() -> None:
    script = "import sys; text = sys.stdin.read(); print('  summary of', len(text), 'chars  ')"
    assert run_summarizer([PY, "-c", script], "x" * 300_000, timeout=30) == "summary of 300000 chars"


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("import sys; sys.stderr.write('no API key\\n'); sys.exit(3)", "failed (exit 3): no API key"),
        ("pass", "printed no summary"),
        # pi's message without a model ends with indented paths to its docs: the sentence is said.
        (
            "import sys; sys.stderr.write('No API key found for the selected model.\\n\\nUse /login to log in."
            " See:\\n  /pi/docs/providers.md\\n  /pi/docs/models.md\\n'); sys.exit(1)",
            "failed (exit 1): Use /login to log in. See:",
        ),
    ],
)
def test_failures_say_why(script: str, message: str) -> None:
    with pytest.raises(SummarizerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_summarizer([PY, "-c", script], "branch", timeout=30)


def test_a_missing_command_says_so() -> None:
    with pytest.raises(SummarizerError, match="no-such-summarizer: command not found"):
        run_summarizer(["no-such-summarizer"], "branch", timeout=5)


def test_a_slow_command_is_stopped_with_what_it_started(tmp_path) -> None:
    marker = tmp_path / "child-alive"
    # A shell that starts a child: stopping must reach the child too.
    script = f"sleep 30 & echo $! > {marker}; wait"
    with pytest.raises(SummarizerError, match=r"did not finish within 0\.5 s"):
        run_summarizer(["sh", "-c", script], "", timeout=0.5)
    pid = int(marker.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split()[2] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the summarizer's child kept running")


def test_cancel_stops_it() -> None:
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    with pytest.raises(SummarizerCancelled):
        run_summarizer(["sleep", "30"], "", timeout=60, cancelled=stop.is_set)
