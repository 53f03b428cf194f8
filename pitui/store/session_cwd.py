"""A session whose folder no longer exists (pi 1.6's ``core/session-cwd.js``).

pi 1.6 (since 1.5.2) does not resume such a session where it was made: it asks
``Session cwd does not exist: <cwd>`` and offers to continue in the current folder (asked again
next time), to fork the session into the current folder (a new session id, the original kept),
or to cancel. These are its rules: which sessions are concerned, the words, and the fork.

pi's test is ``existsSync(resolvePath(header cwd))``; an empty cwd never counts (pi then opens the
session in the current folder). pitui also counts a cwd that names something other than a
folder as missing: pi would not ask, and could not start there either.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, Literal

from msgspec import Struct

from pitui.store import paths

__all__ = [
    "Choice",
    "Forked",
    "MissingCwd",
    "fork_folder",
    "fork_into",
    "missing_cwd",
    "missing_cwds",
]

Choice = Literal["continue", "fork"]


class MissingCwd(Struct, frozen=True):
    """pi's ``MissingSessionCwdIssue``: the session, its folder that is gone (resolved, as pi
    holds it), and the folder it would continue in instead (pi's ``fallbackCwd``)."""

    session_file: str
    session_cwd: str
    fallback_cwd: str

    @property
    def prompt(self) -> str:
        """pi's ``formatMissingSessionCwdPrompt``."""
        return f"Session cwd does not exist: {self.session_cwd}"

    def options(self) -> list[tuple[str, Choice | None]]:
        """pi's ``getMissingSessionCwdOptions``: label and choice (None cancels), in pi's order."""
        here = self.fallback_cwd
        return [
            (f"Continue in {here} (asks again next time)", "continue"),
            (f"Fork into {here} (new session ID, original kept)", "fork"),
            ("Cancel", None),
        ]


def _resolved(cwd: Any) -> str | None:
    if not isinstance(cwd, str) or not cwd:
        return None
    try:
        return paths.resolve_path(cwd)
    except (OSError, ValueError):
        return None


def _gone(folder: str) -> bool:
    return not os.path.isdir(folder)


def missing_cwd(session_file: str, cwd: Any, fallback_cwd: str) -> MissingCwd | None:
    """pi's ``getMissingSessionCwdIssue``: the issue when the header's ``cwd`` folder no
    longer exists, else None (also for an empty or absent cwd). One look at the disk."""
    folder = _resolved(cwd)
    if folder is None or not _gone(folder):
        return None
    return MissingCwd(session_file, folder, fallback_cwd)


def missing_cwds(cwds: Iterable[Any]) -> frozenset[str]:
    """Those of the header ``cwds`` (as written in the files) whose folder no longer exists:
    one look at the disk per distinct cwd, for a whole listing."""
    gone: set[str] = set()
    seen: set[str] = set()
    for cwd in cwds:
        if not isinstance(cwd, str) or cwd in seen:
            continue
        seen.add(cwd)
        folder = _resolved(cwd)
        if folder is not None and _gone(folder):
            gone.add(cwd)
    return frozenset(gone)


class Forked(Struct, frozen=True):
    """The session a fork made: its file and id, and the folder it belongs to."""

    path: str
    session_id: str
    cwd: str

    @property
    def status(self) -> str:
        """pi's status line after the fork."""
        return f"Forked into new session {self.session_id} in {self.cwd}"


def fork_folder(cwd: str, session_dir: str | None = None, agent: str | None = None) -> str:
    """Where the fork is written: pi's session folder for ``cwd`` (``--session-dir`` or
    ``$PI_CODING_AGENT_SESSION_DIR`` when set, else ``cwd``'s folder in the agent folder), as
    pi's ``forkFrom(path, cwd, sessionDir)``."""
    folder, custom = paths.session_dir_for(cwd, session_dir)
    return folder if custom else paths.default_session_dir(cwd, agent)


def fork_into(issue: MissingCwd, folder: str) -> Forked:
    """pi's "Fork into <cwd>": the whole session copied into a new file in ``folder`` (see
    :func:`fork_folder`) with pi's ``forkFrom``: a new id, the header's cwd the fallback folder,
    ``parentSession`` the original, which is not written."""
    from pitui.store.write.manager import SessionManager

    manager = SessionManager.fork_from(issue.session_file, issue.fallback_cwd, folder)
    path = manager.get_session_file()
    if path is None:  # pragma: no cover - fork_from always writes its file
        raise OSError("the fork was not written")
    return Forked(path, str(manager.get_session_id()), manager.get_cwd())
