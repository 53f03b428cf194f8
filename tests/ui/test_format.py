"""How the UI writes ages: pi's own short forms (its session list's ``formatAge``)."""

from __future__ import annotations

import math

import pytest

from pitui.ui.format import format_age

NOW = 1_000_000_000_000.0
MIN = 60_000.0
HOUR = 60 * MIN
DAY = 24 * HOUR


@pytest.mark.parametrize(
    ("ago", "shown"),
    [
        (0, "now"),
        (59_999, "now"),
        (MIN, "1m"),
        (59 * MIN, "59m"),
        (HOUR, "1h"),
        (23 * HOUR, "23h"),
        (23.99 * HOUR, "23h"),
        (DAY, "1d"),
        (6 * DAY, "6d"),
        (6.9 * DAY, "6d"),
        (7 * DAY, "1w"),
        (29 * DAY, "4w"),
        (30 * DAY, "1mo"),
        (364 * DAY, "12mo"),
        (365 * DAY, "1y"),
        (800 * DAY, "2y"),
        (-5 * MIN, "now"),
        (-5 * HOUR, "now"),
    ],
)
def test_ages_as_pi_writes_them(ago: float, shown: str) -> None:
    assert format_age(NOW - ago, NOW) == shown


def test_an_unknown_time_is_a_question_mark() -> None:
    assert format_age(None, NOW) == "?"
    assert format_age(math.nan, NOW) == "?"
