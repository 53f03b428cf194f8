"""The session view's conversation pane on pi 1.6 sessions, as the user sees it: omitted and
replaced messages marked in place, Ctrl+S for what the model sees, the system prompt folded,
the context size at the entry in the pane's border."""

from __future__ import annotations

from pathlib import Path

from helpers.apps import opened, view_app
from helpers.pilot import screen_text, settle, until

from pitui.ui.widgets.conversation.view import ConversationView

FIXTURES = Path(__file__).parent.parent / "fixtures"


async def test_omitted_message_is_marked_and_ctrl_s_hides_it(tmp_path):
    app = view_app(FIXTURES / "ctx-edit-omit.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(ConversationView)
        await settle(pilot)
        assert "Everything on the path" in str(view.border_title)
        assert "omitted from context by" in screen_text(app)
        assert str(view.border_subtitle).startswith("context ")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "As the model sees it" in str(view.border_title))
        await settle(pilot)
        assert "omitted from context by" not in screen_text(app)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Everything on the path" in str(view.border_title))


async def test_replaced_message_shows_its_original_on_enter(tmp_path):
    app = view_app(FIXTURES / "ctx-edit-replace.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(ConversationView)
        await settle(pilot)
        assert "replaced in context by" in screen_text(app)
        assert "▸ the original message" in screen_text(app)
        view.focus()
        index = next(i for i, item in enumerate(view.items) if type(item).__name__ == "Marked")
        for _ in range(len(view.items)):
            if view.cursor == index:
                break
            await pilot.press("up" if view.cursor > index else "down")
        await pilot.press("enter")
        await until(pilot, lambda: "▾ the original message" in screen_text(app))


async def test_system_prompt_is_a_folded_block(tmp_path):
    app = view_app(FIXTURES / "sys-messages.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(ConversationView)
        view.focus()
        await pilot.press("home")
        await settle(pilot)
        text = screen_text(app)
        assert "⚙ System prompt" in text and "tools:" in text
        assert "▸ the whole prompt" in text
