"""Pilot tests run with the snapshot tests' deterministic settings (devkit.deterministic), their
home folder an empty one of this run, since they trash files."""

from helpers.steady import empty_home, steady_with_home  # noqa: F401  (fixtures, one autouse)
