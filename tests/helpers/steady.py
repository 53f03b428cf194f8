"""The autouse fixtures of the pilot and snapshot tests: devkit.deterministic's settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devkit.deterministic import steady as _steady


@pytest.fixture(autouse=True)
def steady() -> Iterator[None]:
    """UTC local time, a home folder no path is under, no config, no cursor blink, a fixed theme."""
    with _steady():
        yield


@pytest.fixture(scope="session")
def empty_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty home folder of this run (the trash needs one that exists)."""
    home = tmp_path_factory.getbasetemp() / "home"
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture(autouse=True)
def steady_with_home(empty_home: Path) -> Iterator[None]:
    """:func:`steady`, with an empty home folder that exists: pilot tests trash files."""
    with _steady(home=str(empty_home)):
        yield
