"""The conformance tests' environment for pitui's own processes, and sessions pi 1.6 wrote."""

from __future__ import annotations

import os

import pytest

from devkit.oracle import Oracle, in_ci
from devkit.pi_written import GeneratorError, Written, run_generator


@pytest.fixture(scope="module")
def pitui_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment that keeps pitui's caches and pi's agent folder out of the user's home."""
    home = tmp_path_factory.mktemp("home")
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
    }


@pytest.fixture(scope="session")
def pi_written(oracle: Oracle, node22: str, tmp_path_factory: pytest.TempPathFactory) -> list[Written]:
    """Sessions pi 1.6.0 wrote itself (``devkit.pi_written``), all in one folder, once per run.

    Skips when Node 22 or pi 1.6.0 cannot be had (through the ``node22`` and ``oracle``
    fixtures), except in CI, where that and a failing run of pi are failures."""
    base = tmp_path_factory.mktemp("pi-written")
    try:
        return run_generator(base / "sessions", node=node22, package=oracle.package, projects=base / "projects")
    except GeneratorError as error:
        if in_ci():
            pytest.fail(f"pi 1.6.0 could not write its sessions: {error}", pytrace=False)
        pytest.skip(f"pi 1.6.0 could not write its sessions: {error}")
