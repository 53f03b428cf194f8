"""pi 1.6.0's own session view: ``pi --session FILE`` in tmux, from launch to the first screen
that shows the session (its conversation and its footer), what a pi user waits for.

The generated session belongs to a made-up project folder, and pi asks what to do when a
session's folder does not exist; so pi opens a copy whose header names a real, empty folder
(the copy differs from the file in that one field). ``HOME`` and ``PI_CODING_AGENT_DIR`` point
into a throwaway folder, ``PI_OFFLINE=1``: pi starts without a model (it says so) and without the
network. Used by ``view_bench.py``; see devkit/bench/README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from devkit.bench.tmux import PaneGone, Tmux, time_launches
from devkit.env import Pi


def _copy_with_cwd(src: Path, dst: Path, cwd: Path) -> str | None:
    """Copy ``src`` to ``dst`` with the header's cwd set to ``cwd``; the session's name."""
    name = None
    with src.open("rb") as f, dst.open("wb") as out:
        header = json.loads(f.readline())
        header["cwd"] = str(cwd)  # key order kept: the line is still pi's
        out.write(json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
        for line in f:
            if b'"type":"session_info"' in line[:40]:
                name = json.loads(line).get("name") or None
            out.write(line)
    return name


def _ready(cwd: Path, name: str | None):
    """pi's footer, under the editor, says ``<cwd> • <name>``, and the token totals under it
    (``↑<input> ↓<output> ...``): drawn once the session is loaded and its messages rendered."""
    footer = f"{cwd} • {name}" if name else str(cwd)

    def ready(screen: str) -> bool:
        if "Session cwd does not exist" in screen:
            raise PaneGone("pi asks about the session's folder")
        lines = screen.splitlines()
        return any(line.startswith(footer) for line in lines) and any(line.startswith("↑") for line in lines)

    return ready


def measure(
    pi: Pi, big: Path, runs: int, root: Path, *, size: tuple[int, int] = (120, 40), timeout: float = 120
) -> dict:
    work = Path(tempfile.mkdtemp(prefix="pi-view-", dir=root))
    try:
        home, agent, project = work / "home", work / "agent", work / "project"
        for folder in (home, agent, project):
            folder.mkdir()
        copy = work / big.name
        name = _copy_with_cwd(big, copy, project.resolve())
        size_before = copy.stat().st_size
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE", "PI_CODING_AGENT_SESSION_DIR")}
        env.update(
            {
                "HOME": str(home),
                "PI_CODING_AGENT_DIR": str(agent),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "PI_OFFLINE": "1",
                "PI_SKIP_VERSION_CHECK": "1",
                "LANG": env.get("LANG") if "UTF-8" in env.get("LANG", "").upper() else "C.UTF-8",
            }
        )
        env.pop("LC_ALL", None)
        tmux = Tmux(size[0], size[1], env)
        try:
            launches = time_launches(
                tmux,
                runs,
                lambda i: tmux.launch(project, [*pi.cli(), "--session", str(copy)], env),
                _ready(project.resolve(), name),
                ("C-d",),
                timeout,
            )
        finally:
            tmux.close()
        out = launches.report("pi --session COPY")
        if copy.stat().st_size != size_before:
            out["pi_wrote_bytes"] = copy.stat().st_size - size_before
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)
