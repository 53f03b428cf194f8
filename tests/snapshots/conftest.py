"""Snapshot tests: deterministic settings for every test (devkit.deterministic), and snapshots
are updated with one Python version only (fonts aside, Rich and Textual render the same there).

After a deliberate change of looks: ``pytest tests/snapshots --snapshot-update``, then look at
the SVGs before committing them.
"""

from __future__ import annotations

import sys

import pytest
from helpers.steady import steady  # noqa: F401  (an autouse fixture)

SNAPSHOT_PYTHON = (3, 11)


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "update_snapshots", False) and sys.version_info[:2] != SNAPSHOT_PYTHON:
        raise pytest.UsageError(
            f"snapshots are updated with Python {'.'.join(map(str, SNAPSHOT_PYTHON))} only, "
            f"this is {sys.version_info.major}.{sys.version_info.minor}"
        )
