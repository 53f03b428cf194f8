"""Locating and running pi's own SessionManager, the oracle of the tests and the generators.

The oracle is pi's SessionManager (npm package ``@mariozechner/pi-coding-agent``, pinned in
``tests/oracle/package.json``) run by ``tests/oracle/pi_session.mjs``, and its /tree navigator
by ``tests/oracle/pi_tree.mjs``. It is found through ``$PI_PKG`` (the package folder), else in
``tests/oracle/node_modules``, else installed there with npm once per process.
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
PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
MIN_NODE = (20, 6)  # the package's "engines"
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
        if proc.returncode != 0:
            error = proc.stderr.decode(errors="replace").strip()
            raise OracleError(error or f"oracle {args[0]} exited with {proc.returncode}")
        return proc.stdout

    def open(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The session as pi loads it (the schema of ``pitui inspect --json``).

        Raises :class:`OracleError` when pi cannot load it (no valid header, a parentId cycle
        on the leaf's path, pi throwing).
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
        """``SessionManager.list()`` of a copy of one folder (paths point at the original)."""
        args = ["list", os.fspath(directory)] + ([cwd] if cwd is not None else [])
        return json.loads(self._run(args))

    def tree(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """pi's /tree navigator as text (``tests/oracle/pi_tree.mjs``, which documents the
        requests), one answer per request, in one node process; times in UTC."""
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
    """Install the pinned package into tests/oracle; the reason it failed, or None."""
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
def locate_oracle() -> Oracle | str:
    """The oracle, or why there is none. Installs the package at most once per run."""
    node = shutil.which("node")
    if node is None:
        return "Node.js is not installed: the pi oracle needs node >= 20.6"
    version = _node_version(node)
    if version is None or version < MIN_NODE:
        return f"the pi oracle needs node >= 20.6, found {version}"
    if os.environ.get("PI_PKG"):
        package = Path(os.environ["PI_PKG"])
        if not _usable(package):
            return f"PI_PKG={package} is not the {PI_PACKAGE} package folder"
    else:
        package = ORACLE_DIR / "node_modules" / PI_PACKAGE
        if not _usable(package) or _package_version(package) != PI_VERSION:
            reason = _npm_install()
            if reason is not None:
                return reason
            if not _usable(package):
                return f"npm install --prefix tests/oracle did not install {PI_PACKAGE}"
    found = _package_version(package)
    if found != PI_VERSION:
        return f"{package} is {PI_PACKAGE} {found}, the tests need {PI_VERSION}"
    return Oracle(node=node, package=package)


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
