"""A model's context window, where pitui can know it.

pi's footer shows the context size over ``model.contextWindow``. Built-in models come from
pi-ai's registry, kept as a table in ``context_windows.json`` (made by
``python -m devkit.context_windows`` from the installed ``@earendil-works/pi-ai``); the user's
``models.json`` in pi's agent folder (pi's ``core/model-config.ts``) adds models, with pi's
default window of 128000 when one declares none, and ``modelOverrides`` that change a built-in
model's window. A model neither declares is unknown (None): the view then shows the size alone.
"""

from __future__ import annotations

import functools
import json
import os
import re
from importlib import resources
from typing import Any

from pitui.store.paths import agent_dir

__all__ = ["DEFAULT_WINDOW", "context_window", "user_windows"]

# ModelDefinitionSchema's default contextWindow for a model models.json adds.
DEFAULT_WINDOW = 128000

_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)


@functools.cache
def _builtin() -> dict[str, dict[str, int]]:
    text = resources.files("pitui.store").joinpath("context_windows.json").read_text(encoding="utf-8")
    table: dict[str, dict[str, int]] = json.loads(text)["windows"]
    return table


def _window(value: Any) -> int | float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return value if ok else None


def user_windows(path: str) -> dict[str, dict[str, int | float]]:
    """provider -> model id -> window from a ``models.json`` (comments allowed, as pi strips
    them); nothing when the file is missing or unreadable."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
        data = json.loads(_COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else "", text))
    except (OSError, ValueError):
        return {}
    providers = data.get("providers") if type(data) is dict else None
    out: dict[str, dict[str, int | float]] = {}
    for provider, config in providers.items() if type(providers) is dict else ():
        if type(config) is not dict:
            continue
        models: dict[str, int | float] = {}
        for model in config.get("models") or ():
            if type(model) is dict and type(model.get("id")) is str:
                declared = model.get("contextWindow")
                models[model["id"]] = DEFAULT_WINDOW if declared is None else _window(declared) or DEFAULT_WINDOW
        overrides = config.get("modelOverrides")
        for model_id, override in overrides.items() if type(overrides) is dict else ():
            window = _window(override.get("contextWindow")) if type(override) is dict else None
            if window is not None:
                models[model_id] = window
        if models:
            out[provider] = models
    return out


def context_window(provider: Any, model_id: Any, agent: str | None = None) -> int | float | None:
    """The context window of ``provider``/``model_id``: the user's ``models.json`` first, then
    pi-ai's built-in table; None when neither knows the model."""
    if type(provider) is not str or type(model_id) is not str:
        return None
    user = user_windows(os.path.join(agent if agent is not None else agent_dir(), "models.json"))
    window = user.get(provider, {}).get(model_id)
    if window is not None:
        return window
    return _builtin().get(provider, {}).get(model_id)
