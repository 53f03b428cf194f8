"""Shared test fixtures: the pi oracle, hypothesis profiles, a trash and cache of the run's own.

The oracle is pi's own SessionManager (``devkit.oracle``): ``oracle`` is pi 1.6.0, the reference,
``oracle_073`` pi 0.73.1, found through ``$PI_PKG`` / ``$PI_PKG_073``, else in
``tests/oracle/node_modules``, else installed there with npm once per test run. Without Node.js
or the npm registry the tests that need it are skipped, except in CI (``CI=true``), where they
must run and fail instead.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

from devkit.oracle import PI_073, PI_16, Oracle, in_ci, locate_node22, locate_oracle


def _missing(reason: str) -> NoReturn:
    """Skip the test, or fail it in CI, where every part of the oracle must be there."""
    if in_ci():
        pytest.fail(f"the pi oracle is required in CI: {reason}", pytrace=False)
    pytest.skip(reason=reason)


def _required(found: Oracle | str) -> Oracle:
    return _missing(found) if isinstance(found, str) else found


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    """pi 1.6.0's SessionManager, the reference for reading. Skips (fails in CI) when it cannot
    be had."""
    return _required(locate_oracle(PI_16))


@pytest.fixture(scope="session")
def oracle_073() -> Oracle:
    """pi 0.73.1's SessionManager: what pitui writes must load in it too."""
    return _required(locate_oracle(PI_073))


@pytest.fixture(scope="session")
def node22() -> str:
    """A Node.js >= 22.19, for pi 1.6's AgentSession and CLI."""
    found = locate_node22()
    return found if found is not None else _missing("no Node.js >= 22.19 (npm install --prefix tests/oracle gives one)")


# Property-based tests (hypothesis): "ci", the default, runs enough examples to mean something,
# with a fixed seed (derandomize) so that a failure in CI is the same failure on any machine;
# "dev" is a quick pass while editing (HYPOTHESIS_PROFILE=dev). Tests that call pi's oracle (a
# node process per example) scale their own count down from max_examples.
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the property tests import hypothesis themselves and say it is missing
    pass
else:
    settings.register_profile(
        "ci",
        max_examples=400,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    settings.register_profile("dev", parent=settings.get_profile("ci"), max_examples=40)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """Tests never touch the user's real trash or cache: both live in a folder of this run.

    send2trash reads ``XDG_DATA_HOME`` once, when first imported, so it is set here, before any
    test imports it; tests that check the trash look in ``helpers.trash.trash_dir``.
    """
    base = Path(tempfile.mkdtemp(prefix="pitui-tests-"))
    os.environ["XDG_DATA_HOME"] = str(base / "data")
    os.environ.setdefault("XDG_CACHE_HOME", str(base / "cache"))
    (base / "data").mkdir()
