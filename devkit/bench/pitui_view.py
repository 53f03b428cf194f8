"""pitui's session view as a user starts it: ``pitui FILE`` in tmux, from launch to the first
screen that shows the session (the tree's position and the conversation's message count), the
same way ``pi_view.py`` times ``pi --session``.

Cold: every launch with a new empty cache (the session never opened before). Reopened: one
untimed launch writes the session's index, then every timed launch finds it. Used by
``view_bench.py``; see devkit/bench/README.md.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from devkit.bench.tmux import PaneGone, Tmux, tree_cpu

# The tree's status line says "(row/rows)" and the pane's title "· N messages" once the first
# screen is drawn; before, the status says "Reading the session…".
_POSITION = re.compile(r"\(\d[\d,]*/\d[\d,]*\)")
_MESSAGES = re.compile(r"· [\d,]+ messages? ─")


def _ready(screen: str) -> bool:
    if "Cannot read this session" in screen:
        raise PaneGone(f"pitui cannot read the session:\n{screen}")
    return bool(_POSITION.search(screen)) and bool(_MESSAGES.search(screen))


def measure(
    argv: list[str],
    big: Path,
    runs: int,
    root: Path,
    *,
    reopen: bool,
    env: dict[str, str],
    size: tuple[int, int] = (120, 40),
    timeout: float = 120,
) -> dict:
    """``runs`` timed launches of ``argv + [big]`` (``argv``: how pitui is started)."""
    work = Path(tempfile.mkdtemp(prefix="pitui-view-", dir=root))
    try:
        env = {k: v for k, v in env.items() if k not in ("TMUX", "TMUX_PANE")}
        env["HOME"] = str(work)  # no user config: the defaults, as a new user has them
        tmux = Tmux(size[0], size[1], env)
        times: list[float] = []
        cpus: list[float] = []
        errors: list[str] = []
        try:
            # The first launch, untimed: pitui's modules into the page cache (and, reopened,
            # the session's index into the cache).
            for i in range(runs + 1):
                cache = work / ("cache" if reopen else f"cache-{i}")
                name, start = tmux.launch(work, [*argv, str(big)], {**env, "XDG_CACHE_HOME": str(cache)})
                try:
                    pid = tmux.pane_pid(name)
                    elapsed, _ = tmux.wait_for(name, _ready, start, 0.005, timeout)
                    pid = pid or tmux.pane_pid(name)
                    cpu = tree_cpu(pid) if pid else None
                    if i:
                        times.append(elapsed)
                        if cpu is not None:
                            cpus.append(cpu)
                except (TimeoutError, PaneGone) as error:
                    errors.append(str(error).strip().splitlines()[0])
                finally:
                    # (the index is written right after the first screen: given time to be)
                    time.sleep(2.0 if reopen and not i else 0)
                    tmux.end(name, ("C-q",))
                    time.sleep(0.3)
        finally:
            tmux.close()
        out: dict = {
            "wall_s": round(statistics.median(times), 3) if times else None,
            "runs_s": [round(t, 3) for t in times],
            "cpu_s": round(statistics.median(cpus), 3) if cpus else None,
            "command": " ".join([*(os.path.basename(a) for a in argv[:1]), *argv[1:], "FILE"]),
        }
        if errors:
            out["errors"] = errors
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)
