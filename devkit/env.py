"""Where things are for the benchmarks and generators: the repository, pi's npm package, and the
versions of the tools a measurement ran with."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PI_PKG_NAME = "@mariozechner/pi-coding-agent"


def pi_package() -> Path:
    """pi's npm package, found as devkit/bench/pi_bench.mjs finds it: ``$PI_PKG``, else the
    repository's ``tests/oracle/node_modules`` (where CI installs it)."""
    candidates = [
        os.environ.get("PI_PKG"),
        REPO / "tests" / "oracle" / "node_modules" / PI_PKG_NAME,
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / "dist" / "cli.js").is_file():
            return Path(candidate)
    raise SystemExit(f"{PI_PKG_NAME} not found (looked in {', '.join(map(str, filter(None, candidates)))}); set PI_PKG")


def _out(cmd: list[str]) -> str | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def tool_versions(*, tmux: bool = False, pi_pkg: Path | None = None, dirty_paths: tuple[str, ...] = ("pitui",)) -> dict:
    """Python, node (and tmux, and pi's package version, when asked), the CPU count, and the
    commit measured: uncommitted changes under ``dirty_paths`` are part of what was measured."""
    versions: dict = {"python": platform.python_version(), "node": _out(["node", "--version"])}
    if tmux:
        versions["tmux"] = _out(["tmux", "-V"])
    if pi_pkg is not None:
        versions["pi"] = json.loads((pi_pkg / "package.json").read_text()).get("version")
    versions["cpus"] = os.cpu_count()
    versions["pitui_commit"] = _out(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    versions["pitui_dirty"] = bool(_out(["git", "-C", str(REPO), "status", "--porcelain", "--", *dirty_paths]))
    return versions
