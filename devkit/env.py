"""Where things are for the benchmarks and generators: the repository, each pi's npm package and
the Node 22 that runs it, and the versions of the tools a measurement ran with."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

from devkit.oracle import PI_073, PI_16, locate_node22, locate_oracle

REPO = Path(__file__).resolve().parent.parent
__all__ = ["PI_073", "PI_16", "Pi", "locate_pi", "pi16", "tool_versions"]


@dataclass(frozen=True)
class Pi:
    """One pi, as the benchmarks run it: its npm package and the Node that runs it."""

    version: str
    node: str
    package: Path

    def cli(self) -> list[str]:
        """pi's own command line (``pi``), as its ``bin`` starts it."""
        return [self.node, str(self.package / "dist" / "cli.js")]

    def script(self, path: Path, *args: str) -> list[str]:
        """A script of ours that imports pi's package (it reads ``$PI_PKG``; see :meth:`env`)."""
        return [self.node, str(path), *args]

    def env(self) -> dict[str, str]:
        return {"PI_PKG": str(self.package)}


def _version(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def locate_pi(version: str = PI_16) -> Pi | str:
    """pi ``version`` (:data:`PI_16` or :data:`PI_073`) on Node 22, or why there is none, found
    as the tests find them: the package through ``devkit.oracle.locate_oracle`` (``$PI_PKG``,
    ``$PI_PKG_073``, else ``tests/oracle/node_modules``), Node through ``locate_node22``. Both
    versions run on the same Node, so that what differs between the columns is pi's code."""
    found = locate_oracle(version)
    if isinstance(found, str):
        return found
    node = locate_node22()
    if node is None:
        return "no Node.js >= 22.19 (npm install --prefix tests/oracle gives one)"
    return Pi(version, node, found.package)


def pi16() -> Pi:
    """pi 1.6.0 on Node 22; exits saying why when there is none."""
    found = locate_pi(PI_16)
    if isinstance(found, str):
        raise SystemExit(found)
    return found


def _out(cmd: list[str]) -> str | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def tool_versions(*, tmux: bool = False, pis: tuple[Pi, ...] = (), dirty_paths: tuple[str, ...] = ("pitui",)) -> dict:
    """Python (and tmux, and every pi measured with the Node it ran on), the CPU count, and the
    commit measured: uncommitted changes under ``dirty_paths`` are part of what was measured."""
    versions: dict = {"python": platform.python_version()}
    if tmux:
        versions["tmux"] = _out(["tmux", "-V"])
    for pi in pis:
        versions[f"pi_{pi.version}"] = {
            "pi": _version(pi.package),
            "node": _out([pi.node, "--version"]),
            "package": str(pi.package),
        }
    versions["cpus"] = os.cpu_count()
    versions["pitui_commit"] = _out(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    versions["pitui_dirty"] = bool(_out(["git", "-C", str(REPO), "status", "--porcelain", "--", *dirty_paths]))
    return versions
