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
import tempfile
from pathlib import Path

from devkit.bench.tmux import PaneGone, Tmux, time_launches

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

        def launch(i: int) -> tuple[str, float]:
            cache = work / ("cache" if reopen else f"cache-{i}")
            return tmux.launch(work, [*argv, str(big)], {**env, "XDG_CACHE_HOME": str(cache)})

        try:
            # Reopened, the untimed first launch writes the session's index, right after its
            # first screen: given time to.
            launches = time_launches(
                tmux, runs, launch, _ready, ("C-q",), timeout, linger=lambda i: 2.0 if reopen and not i else 0.0
            )
        finally:
            tmux.close()
        return launches.report(" ".join([*(os.path.basename(a) for a in argv[:1]), *argv[1:], "FILE"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
