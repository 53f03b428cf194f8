"""The app's ``@work``: Textual's, with the method's name as the worker's description.

Given no description, Textual describes a worker by the ``repr`` of every argument it was
called with, on the UI thread, at each call. The conversation pane's path worker is handed the
items already shown, hundreds of dataclasses: that repr took about 35 ms of the UI thread each
time the highlighted row settled in a 100,000-entry session. Every screen takes ``work`` from
here (``tests/ui/test_worker_descriptions.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work as textual_work

__all__ = ["work"]


def work(*, description: str | None = None, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``textual.work(**options)``, described by ``description`` or else the method's name."""

    def decorator(method: Callable[..., Any]) -> Any:
        return textual_work(description=description or method.__name__, **options)(method)

    return decorator
