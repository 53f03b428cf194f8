"""Where pi keeps its sessions, resolved exactly as pi resolves it.

pi 1.6 names a project's session folder after the *resolved* cwd (``getDefaultSessionDirPath``:
``resolvePath`` of the cwd and of the agent folder, then ``/``, ``\\`` and ``:`` made ``-``).
``resolvePath`` (``utils/paths.js``) is ``normalizePath`` (``~`` and ``~/`` expanded, ``file://``
URLs made paths) then Node's ``path.resolve`` against the process's cwd: lexical only, no link
is followed and the disk is not looked at. This is the POSIX form of those rules (pi on Windows
keeps drive letters and also expands ``~\\``).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from urllib.parse import unquote, urlsplit

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"


def expand_tilde(path: str) -> str:
    """pi's ``expandTildePath``: only ``~`` and ``~/...`` are expanded."""
    if path == "~":
        return str(Path.home())
    if path.startswith("~/"):
        return str(Path.home()) + path[1:]
    return path


def node_resolve(*paths: str) -> str:
    """Node's ``path.posix.resolve(...paths)``: from the right, segments up to the first absolute
    one (else the process's cwd in front), then ``//`` collapsed, ``.`` dropped, ``..`` taken
    back (never above ``/``), no trailing ``/``. Lexical: the disk is not looked at."""
    joined = ""
    for path in reversed(paths):
        if not path:
            continue
        joined = f"{path}/{joined}" if joined else path
        if path.startswith("/"):
            break
    else:
        joined = f"{os.getcwd()}/{joined}" if joined else os.getcwd()
    parts: list[str] = []
    for part in joined.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _file_url_path(url: str) -> str | None:
    """Node's ``fileURLToPath(url)`` on POSIX, or None where it throws (a host other than
    ``localhost``, an encoded ``/``, a percent sequence that is not UTF-8). Dot segments are
    left to :func:`node_resolve`, which resolves them as the URL parser would (``%2e`` too: it
    is decoded first, and an encoded ``/`` is refused, so the segments are the same)."""
    try:
        split = urlsplit(url.replace("\\", "/"))  # the URL parser reads \ as / in file: URLs
        if (split.hostname or "") not in ("", "localhost"):
            return None
        if "%2f" in split.path.lower() or _BAD_PERCENT.search(split.path):
            return None  # decodeURIComponent throws on a % not followed by two hex digits
        return unquote(split.path or "/", errors="strict")
    except (ValueError, UnicodeDecodeError):
        return None


def normalize_path(text: str) -> str:
    """pi's ``normalizePath`` (also its ``expandTildePath``): ``~`` is the home folder, ``~/x``
    is ``x`` in it, a ``file://`` URL is its path; anything else is left as it is. Where pi
    would throw on a URL, the text is kept as a path."""
    if text == "~":
        return str(Path.home())
    if text.startswith("~/"):
        return node_resolve(f"{Path.home()}/{text[2:]}")  # path.join(home, rest): "~//x" is in home
    if text.startswith("file://"):
        path = _file_url_path(text)
        if path is not None:
            return path
    return text


def resolve_path(text: str, base: str | None = None) -> str:
    """pi's ``resolvePath(text, base = process.cwd())``: :func:`normalize_path`, then
    :func:`node_resolve` (a relative path against ``base``, itself normalised)."""
    normalized = normalize_path(text)
    if normalized.startswith("/"):
        return node_resolve(normalized)
    return node_resolve(normalize_path(os.getcwd() if base is None else base), normalized)


def agent_dir() -> str:
    """``$PI_CODING_AGENT_DIR`` (pi's ``expandTildePath``: ``~`` expanded, a URL made a path),
    else ``~/.pi/agent``."""
    env = os.environ.get(AGENT_DIR_ENV)
    if env:
        return normalize_path(env)
    return os.path.join(str(Path.home()), ".pi", "agent")


def cache_dir_default() -> str:
    """pitui's cache folder: ``$XDG_CACHE_HOME/pitui``, else ``~/.cache/pitui``."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pitui")


def sessions_root(agent: str | None = None) -> str:
    return os.path.join(agent or agent_dir(), "sessions")


def encode_cwd(cwd: str) -> str:
    """The folder name pi uses for a working directory (``--home-me-proj--``)."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def default_session_dir(cwd: str, agent: str | None = None) -> str:
    """``<agent>/sessions/<encoded cwd>``, both resolved first (pi's ``getDefaultSessionDirPath``):
    ``/home/me/proj/``, ``/home/me/./proj`` and ``~/proj`` (HOME ``/home/me``) are all
    ``--home-me-proj--``. Unlike pi, computing it creates nothing."""
    return os.path.join(resolve_path(agent or agent_dir()), "sessions", encode_cwd(resolve_path(cwd)))


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


def shorten_home_path(path: str, home: str) -> str:
    """pi 1.6's ``shortenHomePath`` (``utils/paths.js``): an absolute ``path`` that is ``home``
    or inside it (compared as ``path.resolve`` gives them, case-folded on Windows) becomes
    ``~`` or ``~/`` and the path relative to home; anything else is returned as it is
    (``/home/me2/x`` with home ``/home/me`` too: pi 0.73.1 wrote it ``~2/x``)."""
    if not home or not os.path.isabs(path):
        return path
    key, home_key = _comparison_key(path), _comparison_key(home)
    if key != home_key and not key.startswith(home_key if home_key.endswith(os.sep) else home_key + os.sep):
        return path
    relative = os.path.relpath(_resolved(path), _resolved(home))
    return "~" if relative == os.curdir else "~" + os.sep + relative


def _resolved(path: str) -> str:
    """``path.resolve`` of an absolute path: normalised, and a leading ``//`` is one ``/``."""
    resolved = os.path.normpath(path)
    return os.sep + resolved.lstrip(os.sep) if resolved.startswith(os.sep * 2) else resolved


def _comparison_key(path: str) -> str:
    """pi's ``getPathComparisonKey`` (without the real path: these are paths as stored)."""
    return os.path.normcase(_resolved(os.path.abspath(path)))
