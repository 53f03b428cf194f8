"""Pilot tests run with the snapshot tests' deterministic settings (devkit.deterministic)."""

from helpers.steady import steady  # noqa: F401  (an autouse fixture)
