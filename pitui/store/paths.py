"""Where pi keeps its sessions, resolved exactly as pi resolves it."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"


def expand_tilde(path: str) -> str:
    """pi's ``expandTildePath``: only ``~`` and ``~/...`` are expanded."""
    if path == "~":
        return str(Path.home())
    if path.startswith("~/"):
        return str(Path.home()) + path[1:]
    return path


def agent_dir() -> str:
    """``$PI_CODING_AGENT_DIR`` (with ``~`` expanded), else ``~/.pi/agent``."""
    env = os.environ.get(AGENT_DIR_ENV)
    if env:
        return expand_tilde(env)
    return os.path.join(str(Path.home()), ".pi", "agent")


def sessions_root(agent: str | None = None) -> str:
    return os.path.join(agent or agent_dir(), "sessions")


def encode_cwd(cwd: str) -> str:
    """The folder name pi uses for a working directory (``--home-me-proj--``)."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def default_session_dir(cwd: str, agent: str | None = None) -> str:
    """``<agent>/sessions/<encoded cwd>``. Unlike pi, computing it creates nothing."""
    return os.path.join(sessions_root(agent), encode_cwd(cwd))


def listed_folder(cwd: str, explicit: str | None, agent: str | None, everything: bool) -> str:
    """The folder a listing looks in: this folder's (``everything``: every project's)."""
    folder, custom = session_dir_for(cwd, explicit)
    if custom:
        return folder
    return sessions_root(agent) if everything else default_session_dir(cwd, agent)


def misplaced_agent_dir(agent: str | None = None) -> str | None:
    """A sentence when the agent folder looks like a sessions folder itself (``$PI_CODING_AGENT_DIR``
    set to ``~/.pi/agent/sessions``): it has no ``sessions`` folder but project folders pi would
    keep in one (``--home-me-proj--``). None when nothing looks wrong."""
    agent = agent or agent_dir()
    if os.path.isdir(sessions_root(agent)):
        return None
    try:
        names = os.listdir(agent)
    except OSError:
        return None
    if not any(
        name.startswith("--") and name.endswith("--") and os.path.isdir(os.path.join(agent, name)) for name in names
    ):
        return None
    parent = os.path.dirname(os.path.normpath(agent))
    return (
        f"{agent} looks like a sessions folder, not pi's agent folder: pi looks for sessions in "
        f"{sessions_root(agent)}. Set {AGENT_DIR_ENV} to {parent} instead."
    )


def session_dir_for(cwd: str, explicit: str | None = None) -> tuple[str, bool]:
    """The folder pi uses for ``cwd``: ``--session-dir``, ``$PI_CODING_AGENT_SESSION_DIR``, or the
    encoded cwd. The flag says whether the folder is a custom one (flat, holding any project)."""
    if explicit:
        return expand_tilde(explicit), True
    env = os.environ.get(SESSION_DIR_ENV)
    if env:
        return expand_tilde(env), True
    return default_session_dir(cwd), False


def real_path_cached(path: str, folders: dict[str, str], depth: int = 0) -> str:
    """``os.path.realpath(path, strict=True)``, with each folder's real path worked out once
    (in ``folders``): for the thousands of sessions of a few folders, a look at the file (and,
    for a link, at its target) instead of one at every folder of every path."""
    folder, name = os.path.split(path)
    if depth > 40 or not os.path.isabs(path) or name in ("", ".", "..") or os.path.normpath(path) != path:
        return os.path.realpath(path, strict=True)
    real_folder = folders.get(folder)
    if real_folder is None:
        real_folder = folders[folder] = os.path.realpath(folder, strict=True)
    full = os.path.join(real_folder, name)
    if not stat.S_ISLNK(os.lstat(full).st_mode):
        return full
    # A link: its target, read from the folder it is in (which has no links left in it).
    return real_path_cached(os.path.join(real_folder, os.readlink(full)), folders, depth + 1)
