"""Where this test run's trash is (tests/conftest.py points ``XDG_DATA_HOME`` into a folder of the run)."""

from __future__ import annotations

import os
from pathlib import Path


def trash_dir() -> Path:
    """The freedesktop trash of this test run."""
    return Path(os.environ["XDG_DATA_HOME"]) / "Trash"
