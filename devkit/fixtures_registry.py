"""What every fixture module shares: the row a fixture makes for the README table, and the
decorator that writes a fixture's bytes into its module's list (in the order they are defined,
which is the order of the table)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fixture = tuple[str, bytes, str, str]  # (file, bytes, what it tests, pi 0.73.1 notes)


def registrar(into: list[Fixture]) -> Callable[..., Callable[[Callable[[], bytes]], Any]]:
    """``fixture = registrar(LIST)``; ``@fixture(name, tests, pi)`` over a function returning the
    file's bytes appends the row to LIST."""

    def fixture(name: str, tests: str, pi: str = "") -> Callable[[Callable[[], bytes]], Any]:
        def deco(fn: Callable[[], bytes]) -> Any:
            into.append((name, fn(), tests, pi))
            return fn

        return deco

    return fixture
