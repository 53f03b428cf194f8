"""The throwaway home and agent folder the picker benchmark runs both pickers in, over the
generated sessions."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from devkit.bench import generate
from pitui.store.paths import encode_cwd


@dataclass
class Layout:
    """A throwaway home and agent folder over the generated sessions.

    The generated sessions belong to made-up projects (``/home/dev/projects/...``) that do not
    exist here, and pi's "current folder" is the folder of the process's real working directory.
    So the agent folder is a new one: ``sessions/<project>/`` folders holding symbolic links to
    the generated files, one project's under the encoded name of a real folder (``cwd``), which
    both programs then treat as the current folder. Folders are real (pi's ``listAll`` skips
    linked folders); files are links (both programs follow them, and a fork's ``parentSession``
    still resolves to its parent, so threads are the same as in the generated tree). Whatever pi
    or pitui write (pi creates the current folder's session folder if it is missing; pitui's
    cache) goes here, never into the generated data.
    """

    root: Path
    home: Path
    agent: Path
    cwd: Path
    project: str  # the generated project's cwd
    folder_sessions: int
    all_sessions: int

    @classmethod
    def make(cls, data: generate.Dataset, root: Path, project_folder: str | None) -> Layout:
        src = data.agent_dir / "sessions"
        folders = {
            p.name: sorted(f.name for f in p.iterdir() if f.name.endswith(".jsonl"))
            for p in src.iterdir()
            if p.is_dir()
        }
        if project_folder is None:  # the project with the most sessions (ties: by name)
            project_folder = max(sorted(folders), key=lambda name: len(folders[name]))
        if project_folder not in folders:
            raise SystemExit(f"no project folder {project_folder!r} in {src}")
        home, agent, cwd = root / "home", root / "agent", root / "project"
        for path in (home, agent / "sessions", cwd):
            path.mkdir(parents=True)
        for name, files in folders.items():
            target = agent / "sessions" / (encode_cwd(str(cwd.resolve())) if name == project_folder else name)
            target.mkdir()
            for file in files:
                os.symlink(src / name / file, target / file)
        project = _header_cwd(src / project_folder / folders[project_folder][0])
        return cls(
            root,
            home,
            agent,
            cwd.resolve(),
            project,
            len(folders[project_folder]),
            sum(len(f) for f in folders.values()),
        )

    def env(self, base: dict[str, str], cache: Path | None = None) -> dict[str, str]:
        env = dict(base)
        for name in ("PI_CODING_AGENT_SESSION_DIR", "PITUI_CONFIG", "NO_COLOR", "TMUX", "TMUX_PANE"):
            env.pop(name, None)
        env.update(
            {
                "HOME": str(self.home),
                "PI_CODING_AGENT_DIR": str(self.agent),
                "XDG_CONFIG_HOME": str(self.home / ".config"),
                "XDG_DATA_HOME": str(self.home / ".local" / "share"),
                "XDG_STATE_HOME": str(self.home / ".local" / "state"),
                "XDG_CACHE_HOME": str(cache or self.home / ".cache"),
                # pi: no version check, no network; the picker needs no model nor key.
                "PI_OFFLINE": "1",
                "PI_SKIP_VERSION_CHECK": "1",
                "LANG": env.get("LANG") if "UTF-8" in env.get("LANG", "").upper() else "C.UTF-8",
            }
        )
        env.pop("LC_ALL", None)
        return env


def _header_cwd(path: Path) -> str:
    import json

    with path.open("rb") as f:
        return json.loads(f.readline()).get("cwd", "")


def warm_page_cache(data: generate.Dataset) -> None:
    """Read every session once, so that neither side pays for the first read from disk."""
    for path in data.agent_dir.glob("sessions/*/*.jsonl"):
        with path.open("rb") as f:
            while f.read(1 << 22):
                pass
