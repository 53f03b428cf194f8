"""The six scripted demo sessions, one module each, and what they share: the projects' paths,
the files under ``devkit/make_demo/projects/`` and the start of every new session."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

from devkit.simulator import Session
from pitui.store.paths import encode_cwd

PROJECTS = Path(__file__).resolve().parents[1] / "projects"
# pi 1.6.0's first system message (sections, tools), as its AgentSession records it.
PI16_SYSTEM = json.loads((Path(__file__).resolve().parents[1] / "pi16_system.json").read_text())
WEATHERAPP_CWD = "/home/user/projects/weatherapp"
SHORTLINKS_CWD = "/home/user/projects/shortlinks"


def data(folder: str, name: str) -> str:
    """``projects/<folder>/<name>`` byte for byte (no newline translation): a file written in a
    session, a tool's output, an edit's old or new text. A file without a final newline is a
    text without one."""
    return (PROJECTS / folder / name).read_bytes().decode()


def project(cwd: str) -> dict[str, str]:
    """The project in ``cwd`` as a session starts on it: ``projects/<last part of cwd>/``, as
    relative path → text."""
    root = PROJECTS / posixpath.basename(cwd)
    return {p.relative_to(root).as_posix(): p.read_bytes().decode() for p in sorted(root.rglob("*")) if p.is_file()}


def rel_path(s: Session) -> str:
    """Where the session's file goes under the agent folder: ``sessions/<encoded cwd>/<file>``."""
    return f"sessions/{encode_cwd(s.cwd)}/{s.file_name()}"


def scripted_session(
    seed: int, cwd: str, start: str, model: str, thinking: str, files: dict[str, str] | None = None
) -> Session:
    """A new session as pi 1.6 starts one: the header, then the model (``provider/model-id``) and
    the thinking level, and the system message before the first prompt. ``files``: the project
    as an earlier session left it (default: as it starts)."""
    s = Session(
        seed=seed, cwd=cwd, start=start, files=dict(project(cwd) if files is None else files), system=PI16_SYSTEM
    )
    provider, model_id = model.split("/", 1)
    s.model_change(provider, model_id)
    s.thinking_level(thinking)
    return s
