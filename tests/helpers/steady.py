"""The autouse fixture of the pilot and snapshot tests: devkit.deterministic's settings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devkit.deterministic import steady as _steady


@pytest.fixture(autouse=True)
def steady() -> Iterator[None]:
    """UTC local time, a fake home folder, no config, no cursor blink, a fixed theme."""
    with _steady():
        yield
