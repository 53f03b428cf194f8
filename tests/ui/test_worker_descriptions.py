"""The app's workers are described by name, never by the ``repr`` of their arguments.

Given no description, Textual's ``@work`` describes a worker by the ``repr`` of every argument,
on the UI thread, at each call: for the conversation pane's path worker (the items already
shown, hundreds of dataclasses) that was 35 ms each time the highlighted row settled in a
100,000-entry session. The screens take ``work`` from ``pitui.ui.workers``, which names them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App

import pitui
from pitui.ui.workers import work

PACKAGE = Path(pitui.__file__).parent


class _Costly:
    reprs = 0

    def __repr__(self) -> str:
        _Costly.reprs += 1
        return "costly"


class _Host(App[None]):
    @work(thread=True, group="test")
    def crunch(self, argument: object) -> int:
        return 1

    @work(thread=True, description="a named job")
    def named(self, argument: object) -> int:
        return 2


async def test_a_worker_is_described_by_its_name_and_its_arguments_are_not_repr_d() -> None:
    app = _Host()
    async with app.run_test():
        first = app.crunch(_Costly())
        second = app.named(_Costly())
        await app.workers.wait_for_complete()
    assert (first.description, second.description) == ("crunch", "a named job")
    assert (first.result, second.result) == (1, 2)
    assert _Costly.reprs == 0


def test_no_module_takes_textuals_work_but_pitui_ui_workers() -> None:
    takers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "textual"
                and any(alias.name == "work" for alias in node.names)
            ):
                takers.append(str(path.relative_to(PACKAGE)))
    assert takers == ["ui/workers.py"]
