"""Every ``@work`` worker of the app has a description of its own.

Without one, Textual describes a worker by the ``repr`` of every argument it was called with,
on the UI thread, at each call: for the conversation pane's path worker (the items already
shown, hundreds of dataclasses) that was 35 ms of each cursor step in a 100,000-entry session.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pitui

PACKAGE = Path(pitui.__file__).parent


def _work_decorators() -> list[tuple[str, int, ast.Call]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    if (
                        isinstance(decorator, ast.Call)
                        and isinstance(decorator.func, ast.Name)
                        and decorator.func.id == "work"
                    ):
                        found.append((f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}", node.lineno, decorator))
    return found


def test_the_app_has_workers() -> None:
    assert len(_work_decorators()) >= 20


def test_every_work_decorator_names_its_description() -> None:
    missing = [where for where, _, call in _work_decorators() if not any(k.arg == "description" for k in call.keywords)]
    assert missing == []
