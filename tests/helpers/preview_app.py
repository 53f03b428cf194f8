"""The preview pane alone in an app, and the session preview it shows (no files)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from pitui.store.stats import LabelInfo, ModelUse, SessionPreview, Tokens
from pitui.ui.widgets.preview_pane import PreviewPane

HOUR = 3_600_000
DAY = 24 * HOUR
NOW = 1_773_900_000_000.0  # 2026-03-19T06:00:00Z
HOME = "/home/user"

BASE = SessionPreview(
    path="/home/user/.pi/agent/sessions/--home-user-projects-weatherapp--/2026-03-16T09-31-52-640Z_019cf5fc.jsonl",
    size=55_765,
    mtime_ns=0,
    session_id="019cf5fc-d1c0-7faa-9d33-fda9b6dc0914",
    cwd="/home/user/projects/weatherapp",
    name="Cache: clear command and --no-cache",
    parent_session="/home/user/.pi/agent/sessions/--home-user-projects-weatherapp--/"
    "2026-03-16T08-41-17-303Z_019cf5ce-80f7-794c-8c76-db8cd8dcb35f.jsonl",
    created=NOW - 3 * DAY,
    modified=NOW - 2 * HOUR,
    entries=58,
    roles={"assistant": 24, "toolResult": 20, "user": 5},
    leaves=3,
    branch_points=2,
    leaf_id="294435aa",
    labels=(LabelInfo("e0000004", "regression test", NOW - 5 * HOUR), LabelInfo("e0000003", "fix", NOW - 3 * DAY)),
    models=(ModelUse("anthropic", "claude-opus-4-5", 15), ModelUse("openai", "gpt-5.1-codex", 9)),
    tokens=Tokens(input=11_000, output=3_456, cache_read=163_000, cache_write=7_400),
    cost=0.1824,
    first_prompt="`weather now berlin` has been showing 14.2°C since yesterday evening.",
    last_prompt="try again",
    skipped_lines=0,
)


class PaneApp(App[None]):
    def __init__(self, preview: SessionPreview | None = None) -> None:
        super().__init__()
        self.initial = preview

    def compose(self) -> ComposeResult:
        yield PreviewPane(home=HOME)

    def on_mount(self) -> None:
        if self.initial is not None:
            self.query_one(PreviewPane).show(self.initial, now_ms=NOW)
