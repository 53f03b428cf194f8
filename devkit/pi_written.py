"""Sessions written by pi 1.6 itself, for the tests: ``tests/oracle/pi_written.mjs`` drives pi's
own ``AgentSession`` with pi-ai's scripted faux provider (no network, no model) in scratch
projects, so every entry is exactly what pi writes: tool calls and results, thinking, images,
``!`` runs, errors, model and thinking changes, compactions, tree moves, labels, names, context
edits, usage entries, a fork and a clone.

The answers are fixed; ids, timestamps and tool timings are pi's own and differ on every run.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from devkit.oracle import ORACLE_DIR

SCRIPT = ORACLE_DIR / "pi_written.mjs"
TIMEOUT = 600


class GeneratorError(RuntimeError):
    """pi's run failed: the generator's error output."""


@dataclass(frozen=True)
class Written:
    """One session file pi wrote, the project folder it worked in, and what it was made to do."""

    file: Path
    cwd: str
    story: str


def run_generator(
    out_dir: str | os.PathLike[str],
    *,
    node: str,
    package: str | os.PathLike[str],
    projects: str | os.PathLike[str] | None = None,
) -> list[Written]:
    """Run the generator; every session lands in ``out_dir``, the projects in ``projects`` (a
    new temporary folder if None: the sessions' header cwd names it, so it is left in place)."""
    out = Path(out_dir)
    work = Path(projects) if projects is not None else Path(tempfile.mkdtemp(prefix="pi-written-projects-"))
    with tempfile.TemporaryDirectory(prefix="pi-written-home-") as home:
        env = {
            **os.environ,
            "PI_PKG": os.fspath(package),
            "HOME": home,  # pi reads and writes its settings under the home folder
            "PI_CODING_AGENT_DIR": os.path.join(home, ".pi", "agent"),
            "PI_OFFLINE": "1",  # no tool downloads (grep without ripgrep then fails, as a tool error)
            "PI_TELEMETRY": "0",
        }
        env.pop("PI_CODING_AGENT_SESSION_DIR", None)
        try:
            proc = subprocess.run(
                [node, os.fspath(SCRIPT), os.fspath(out), os.fspath(work)],
                capture_output=True,
                env=env,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise GeneratorError(f"pi_written.mjs took longer than {TIMEOUT}s") from None
    if proc.returncode != 0:
        raise GeneratorError(proc.stderr.decode(errors="replace").strip() or f"exit {proc.returncode}")
    report = json.loads(proc.stdout)
    return [Written(Path(s["file"]), s["cwd"], s["story"]) for s in report["sessions"]]


def write_sessions(
    out_dir: str | os.PathLike[str],
    *,
    node: str,
    package: str | os.PathLike[str],
    projects: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """The session files pi 1.6 writes into ``out_dir`` (see :func:`run_generator`)."""
    return [w.file for w in run_generator(out_dir, node=node, package=package, projects=projects)]
