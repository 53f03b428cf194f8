"""A model's context window (pitui.store.model_windows): pi-ai's built-in table and the user's
models.json, as pi's model-config.ts reads it."""

from __future__ import annotations

import pytest

from devkit import context_windows
from devkit.oracle import locate_node22
from pitui.store.model_windows import DEFAULT_WINDOW, context_window


def test_builtin_model(tmp_path):
    assert context_window("anthropic", "claude-sonnet-4-5", agent=str(tmp_path)) == 200_000
    assert context_window("anthropic", "no-such-model", agent=str(tmp_path)) is None
    assert context_window(None, "claude-sonnet-4-5", agent=str(tmp_path)) is None


def test_models_json_adds_and_overrides(tmp_path):
    (tmp_path / "models.json").write_text(
        """{
  // a local server
  "providers": {
    "local": {"models": [{"id": "qwen", "contextWindow": 32768}, {"id": "plain"}]},
    "anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"contextWindow": 1000000}}} /* more */
  }
}"""
    )
    agent = str(tmp_path)
    assert context_window("local", "qwen", agent=agent) == 32768
    assert context_window("local", "plain", agent=agent) == DEFAULT_WINDOW
    assert context_window("anthropic", "claude-sonnet-4-5", agent=agent) == 1_000_000


def test_unreadable_models_json_is_ignored(tmp_path):
    (tmp_path / "models.json").write_text("{not json")
    assert context_window("anthropic", "claude-sonnet-4-5", agent=str(tmp_path)) == 200_000


def test_table_is_pi_ais():
    node = locate_node22()
    if node is None or not context_windows.PI_AI.exists():
        pytest.skip("pi-ai is not installed (npm install --prefix tests/oracle)")
    assert context_windows.TABLE.read_text() == context_windows.render(context_windows.read_pi_ai(node))
