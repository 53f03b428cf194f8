"""The conformance tests' environment for pitui's own processes."""

from __future__ import annotations

import os

import pytest


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
