"""Running a summarizer: the command a user configured, or pi itself (:func:`pi_summary_argv`),
the branch as text in, the summary out.

The command runs in its own process group, so that stopping it (cancel, timeout) also stops
whatever it started (a shell pipeline, a model client). Any failure raises
:class:`SummarizerError` with a sentence for the user; nothing is written then.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence

__all__ = ["SummarizerCancelled", "SummarizerError", "find_pi", "pi_summary_argv", "run_summarizer"]

# The summary is read whole; a runaway command is stopped past this much output.
MAX_OUTPUT = 1 << 20
_POLL = 0.05


def find_pi() -> str | None:
    """The ``pi`` on ``PATH``, as the resume key finds it, or None."""
    return shutil.which("pi")


def pi_summary_argv(pi: str, system_prompt: str) -> list[str]:
    """pi as a one-shot summariser: ``--print`` reads the prompt from stdin (pi prepends piped
    stdin to the first message, and with none given it is the whole prompt), answers with the
    user's default model and settings, and exits. Nothing is saved (``--no-session``), no tool
    can run (``--no-tools``, ``--no-mcp``), and no context file, skill or prompt template adds
    to ``system_prompt``, which replaces the coding prompt as pi's own summaries do.
    Extensions stay on: one may provide the user's model."""
    return [
        pi,
        "--print",
        "--no-session",
        "--no-tools",
        "--no-mcp",
        "--no-context-files",
        "--no-skills",
        "--no-prompt-templates",
        "--system-prompt",
        system_prompt,
    ]


class SummarizerError(RuntimeError):
    """The summarizer did not give a summary; the message says why."""


class SummarizerCancelled(SummarizerError):
    """The user stopped it."""


def run_summarizer(
    argv: Sequence[str],
    text: str,
    *,
    timeout: float,
    cwd: str | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> str:
    """Run ``argv`` with ``text`` on its stdin and return what it printed, stripped.

    Raises :class:`SummarizerError` when it cannot start, fails, prints nothing or runs longer
    than ``timeout`` seconds, and :class:`SummarizerCancelled` once ``cancelled()`` is true.
    """
    if not argv:
        raise SummarizerError("no summarizer command is configured")
    name = argv[0]
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd if cwd and os.path.isdir(cwd) else None,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise SummarizerError(f"{name}: command not found") from None
    except OSError as error:
        raise SummarizerError(f"{name}: cannot run it ({error.strerror or error})") from None
    output: dict[str, bytes] = {}
    # Feeding stdin and reading both pipes from threads: a command that prints before it has
    # read everything must not deadlock against a large branch.
    threads = [
        threading.Thread(target=_feed, args=(process, text.encode()), daemon=True),
        threading.Thread(target=_drain, args=(process.stdout, output, "out"), daemon=True),
        threading.Thread(target=_drain, args=(process.stderr, output, "err"), daemon=True),
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    try:
        while process.poll() is None:
            if cancelled():
                raise SummarizerCancelled("Summarization cancelled: nothing written")
            if time.monotonic() > deadline:
                raise SummarizerError(f"{name} did not finish within {timeout:g} s: stopped, nothing written")
            time.sleep(_POLL)
    except SummarizerError:
        _stop(process)
        raise
    for thread in threads:
        thread.join(timeout=5)
    summary = output.get("out", b"").decode(errors="replace").strip()
    if process.returncode != 0:
        reason = _last_line(output.get("err", b"")) or "no message"
        raise SummarizerError(f"{name} failed (exit {process.returncode}): {reason}")
    if not summary:
        raise SummarizerError(f"{name} printed no summary")
    return summary


def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(data)
    except (BrokenPipeError, OSError):
        pass  # it stopped reading: what it printed still counts
    finally:
        with contextlib.suppress(OSError):
            process.stdin.close()


def _drain(pipe: object, output: dict[str, bytes], key: str) -> None:
    chunks: list[bytes] = []
    size = 0
    read = pipe.read  # type: ignore[attr-defined]
    while chunk := read(65536):
        if size < MAX_OUTPUT:
            chunks.append(chunk)
            size += len(chunk)
    output[key] = b"".join(chunks)[:MAX_OUTPUT]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the command and everything it started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            process.wait(timeout=2)
            return
        except subprocess.TimeoutExpired:
            continue


def _last_line(data: bytes) -> str:
    """The last line of what it wrote to stderr, skipping indented ones (pi ends its "No API
    key found" message with indented paths to its docs)."""
    lines = [line for line in data.decode(errors="replace").splitlines() if line.strip()]
    unindented = [line for line in lines if not line[0].isspace()]
    return (unindented or lines)[-1].strip()[:200] if lines else ""
