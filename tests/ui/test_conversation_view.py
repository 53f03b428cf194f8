"""The conversation pane (pitui.ui.widgets.conversation.view): what the user sees of each kind of message,
every key, folding, thinking, compactions opened, following appended messages, and session text
shown as text. No files: the pane is given items built here."""

from __future__ import annotations

from helpers.conversation_app import EVERY_KIND, OUTPUT, ViewApp, assistant, chat, user
from helpers.pilot import screen_lines as _screen_lines
from rich.segment import Segment
from textual import events
from textual.app import App

from pitui.store.conversation import (
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ImagePart,
    Item,
    OtherMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    UserMessage,
)
from pitui.ui.widgets.conversation.view import ConversationView


def screen_lines(app: App) -> list[str]:
    """The screen as the user sees it, one string per row, without the scrollbar's column."""
    return _screen_lines(app, right_margin=1)


def screen_text(app: App) -> str:
    return "\n".join(screen_lines(app))


def top_line(app: App) -> str:
    return screen_lines(app)[0]


def view_of(app: App) -> ConversationView:
    return app.query_one(ConversationView)


async def test_every_kind_of_message_as_the_user_reads_it() -> None:
    app = ViewApp(EVERY_KIND)
    async with app.run_test(size=(90, 100)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        lines = [line[2:].strip() for line in screen_lines(app)]  # without the cursor gutter
        for expected in [
            "User",
            "Why do cache entries never expire?",
            "[image: image/png, 12.3 kB]",
            "Assistant",
            "▸ Thinking · 2 lines",
            "I'll read the cache module.",
            '⚙ read {"path":"src/cache.py"}',
            "claude-sonnet-4-5 (anthropic) · ↑1.2k ↓345 R20k W512 · 22k tokens · $0.042",
            "↳ read · 20 lines",
            "output line 1",
            "output line 5",
            "… 15 more lines",
            "✗ edit failed · 1 line",
            "oldText not found",
            "$ pytest -q",
            "3 failed, 9 passed",
            "exit 1 · output truncated",
            "◆ todo · not shown by pi",
            "remember the README",
            "⎇ Branch summary",
            "Tried a monotonic clock first; abandoned.",
            "⊟ Compacted 2 entries · 48,210 tokens before",
            "Goal",
            "Fix the cache.",
            "▸ show the 2 replaced entries",
            "developer",
            "be brief",
        ]:
            assert expected in lines, f"{expected!r} not on screen:\n{text}"
        assert "The TTL logic" not in text, "thinking is folded at first"
        assert "output line 6" not in text, "a long output is folded"
        assert "**" not in text and "##" not in text, "assistant text is Markdown"


async def test_show_opens_at_the_end_with_the_cursor_on_the_last_message() -> None:
    app = ViewApp(chat(300))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = view_of(app)
        text = screen_text(app)
        assert "answer 299" in text and "message 0\n" not in text
        assert view.cursor_item is not None and view.cursor_item.entry_id == "m299"
        assert view.following
        assert app.highlighted == [], "show moves the cursor without a Highlighted message"


async def test_show_with_an_anchor_puts_its_message_at_the_top() -> None:
    app = ViewApp(chat(300), anchor="m120")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert top_line(app) == "▌ User"
        assert screen_lines(app)[1] == "▌ message 120"
        assert view_of(app).cursor_item.entry_id == "m120"
        assert not view_of(app).following


async def test_down_and_up_move_between_messages() -> None:
    app = ViewApp(chat(300), anchor="m000")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = view_of(app)
        await pilot.press("down", "down", "j")
        assert view.cursor_item.entry_id == "m003"
        assert app.highlighted == ["m001", "m002", "m003"]
        assert "▌ answer 3" in screen_lines(app)
        await pilot.press("up", "k")
        assert view.cursor_item.entry_id == "m001"
        assert "▌ answer 1" in screen_lines(app)


async def test_down_reaches_a_message_below_the_screen_by_scrolling() -> None:
    app = ViewApp(chat(300), anchor="m000")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        for _ in range(40):
            await pilot.press("down")
        assert view_of(app).cursor_item.entry_id == "m040"
        assert "▌ message 40" in screen_lines(app)
        assert "message 0" not in screen_text(app)


async def test_a_message_taller_than_the_screen_is_scrolled_through_before_the_cursor_moves() -> None:
    long = assistant("a1", "\n\n".join(f"paragraph {n}" for n in range(40)))
    app = ViewApp([user("u0", "question"), long, user("u2", "thanks")], anchor="u0")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = view_of(app)
        await pilot.press("down")
        assert view.cursor_item.entry_id == "a1" and top_line(app) == "▌ Assistant"
        await pilot.press("down")
        assert view.cursor_item.entry_id == "a1", "the rest of the message first"
        assert "paragraph 0" not in screen_text(app)
        for _ in range(20):
            await pilot.press("down")
        assert view.cursor_item.entry_id == "u2"
        assert "▌ thanks" in screen_lines(app)
        await pilot.press("up")
        assert view.cursor_item.entry_id == "a1"
        assert "paragraph 39" in screen_text(app), "going up, a tall message shows its end first"


async def test_page_keys_home_and_end() -> None:
    app = ViewApp(chat(300))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = view_of(app)
        before = screen_text(app)
        await pilot.press("pageup")
        after = screen_text(app)
        assert after != before and "answer 299" not in after
        assert view.cursor_item.entry_id in after.replace("message ", "m").replace("answer ", "m"), (
            "the cursor follows onto the screen"
        )
        await pilot.press("pagedown")
        assert "answer 299" in screen_text(app)
        await pilot.press("home")
        assert screen_lines(app)[:2] == ["▌ User", "▌ message 0"]
        assert view.cursor_item.entry_id == "m000"
        await pilot.press("end")
        assert "answer 299" in screen_text(app) and view.cursor_item.entry_id == "m299"
        assert view.following


async def test_enter_and_space_open_and_fold_a_long_output() -> None:
    app = ViewApp([user("u0", "run it"), ToolResult("t1", "bash", (TextPart(OUTPUT),))])
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        assert "… 15 more lines" in screen_text(app)
        await pilot.press("enter")
        text = screen_text(app)
        assert "output line 20" in text and "more lines" not in text
        await pilot.press("space")
        assert "… 15 more lines" in screen_text(app) and "output line 20" not in screen_text(app)


async def test_long_tool_call_arguments_fold_and_open() -> None:
    content = "\n".join(f"line {n} of the file" for n in range(1, 31))
    app = ViewApp([assistant("a1", ToolCallPart("c1", "write", {"path": "notes.txt", "content": content}))])
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        lines = [line[2:] for line in screen_lines(app)]
        assert lines[1:5] == ["⚙ write", "path: notes.txt", "content:", "line 1 of the file"]
        assert "… 27 more lines" in lines
        await pilot.press("enter")
        assert "line 30 of the file" in screen_text(app)
        await pilot.press("enter")
        assert "line 30 of the file" not in screen_text(app) and "… 27 more lines" in screen_text(app)


async def test_a_huge_message_is_folded_after_its_first_lines() -> None:
    paste = "\n".join(f"pasted {n}" for n in range(1, 1001))
    app = ViewApp([user("u1", paste), assistant("a1", paste)], anchor="u1")
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        assert "pasted 1" in screen_text(app)
        view = view_of(app)
        assert view._blocks[0].height == 1 + 200 + 1 + 1, "title, 200 lines, the fold, a space"
        await pilot.press("enter")
        assert view._blocks[0].height == 1 + 1000 + 1


async def test_the_mouse_wheel_scrolls() -> None:
    app = ViewApp(chat(100))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        before = screen_text(app)
        for _ in range(5):
            await pilot._post_mouse_events([events.MouseScrollUp], ConversationView, offset=(10, 5))
        after = screen_text(app)
        assert after != before and "answer 99" not in after
        assert not view_of(app).following
        for _ in range(10):
            await pilot._post_mouse_events([events.MouseScrollDown], ConversationView, offset=(10, 5))
        assert screen_text(app) == before and view_of(app).following


async def test_a_click_on_a_folded_part_opens_it() -> None:
    app = ViewApp([ToolResult("t1", "bash", (TextPart(OUTPUT),)), user("u1", "next")])
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        row = next(i for i, line in enumerate(screen_lines(app)) if "more lines" in line)
        await pilot.click(ConversationView, offset=(6, row))
        assert "output line 20" in screen_text(app)
        assert view_of(app).cursor_item.entry_id == "t1", "the click moves the cursor there"
        await pilot.click(ConversationView, offset=(6, row))
        assert "output line 20" in screen_text(app), "a click inside an open output leaves it open"
        title = next(i for i, line in enumerate(screen_lines(app)) if "↳ bash" in line)
        await pilot.click(ConversationView, offset=(4, title))
        assert "output line 20" not in screen_text(app), "a click on its title folds it"


async def test_t_shows_and_hides_every_thinking_block() -> None:
    items = [
        assistant("a1", ThinkingPart("first thought"), "one"),
        user("u1", "go on"),
        assistant("a2", ThinkingPart("second thought"), "two"),
    ]
    app = ViewApp(items)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        assert "thought" not in screen_text(app)
        await pilot.press("t")
        text = screen_text(app)
        assert "first thought" in text and "second thought" in text and "▾ Thinking · 1 line" in text
        await pilot.press("t")
        assert "thought" not in screen_text(app)
        await pilot.press("enter")  # one message's thinking alone
        text = screen_text(app)
        assert "second thought" in text and "first thought" not in text


async def test_a_compaction_opens_onto_the_entries_it_replaced() -> None:
    app = ViewApp([EVERY_KIND[7], user("u9", "after")], anchor="k1")
    async with app.run_test(size=(70, 30)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.requested == ["k1"]
        text = screen_text(app)
        assert "▾ the 2 replaced entries" in text
        assert "│ the first question" in text and "│ the first answer" in text
        await pilot.press("enter")
        text = screen_text(app)
        assert "first question" not in text and "▸ show the 2 replaced entries" in text
        await pilot.press("enter")
        assert "│ the first question" in screen_text(app)
        assert app.requested == ["k1"], "asked for once"
        view_of(app).show([EVERY_KIND[7], user("u9", "after"), user("u10", "later")])
        await pilot.pause()
        assert "│ the first question" in screen_text(app), "still open when shown again"
        view_of(app).show([user("u0", "before"), EVERY_KIND[7]])
        await pilot.pause()
        assert app.requested == ["k1", "k1"], "a new block for it asks again"
        assert "│ the first question" in screen_text(app)


async def test_append_follows_only_a_view_at_the_end() -> None:
    app = ViewApp(chat(100))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = view_of(app)
        view.append([user("n1", "new message one")])
        await pilot.pause()
        assert "new message one" in screen_text(app)
        assert view.cursor_item.entry_id == "n1" and view.following
        await pilot.press("home")
        view.append([user("n2", "new message two")])
        await pilot.pause()
        assert screen_lines(app)[1] == "▌ message 0", "a view scrolled back stays where it is"
        assert "new message two" not in screen_text(app)
        await pilot.press("end")
        assert "new message two" in screen_text(app)


async def test_the_end_is_kept_through_a_resize() -> None:
    app = ViewApp(chat(100))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        await pilot.resize_terminal(30, 12)
        await pilot.pause()
        assert "answer 99" in screen_text(app)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert "answer 99" in screen_text(app)


async def test_show_again_keeps_folds_of_the_same_messages() -> None:
    items = [user("u0", "run it"), ToolResult("t1", "bash", (TextPart(OUTPUT),))]
    app = ViewApp(items)
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        view_of(app).show([user("u0", "run it"), ToolResult("t1", "bash", (TextPart(OUTPUT),)), user("u2", "more")])
        await pilot.pause()
        text = screen_text(app)
        assert "output line 20" in text and "more" in text


async def test_an_empty_view() -> None:
    app = ViewApp([])
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await pilot.press("down", "up", "pagedown", "pageup", "home", "end", "enter", "t")
        assert screen_text(app).strip() == "No messages on this path."
        assert view_of(app).cursor_item is None


async def test_a_huge_path_opens_at_its_end_having_rendered_only_what_is_on_screen() -> None:
    app = ViewApp(chat(5000))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = view_of(app)
        assert "answer 4999" in screen_text(app)
        rendered = sum(1 for block in view._blocks if block.measured)
        assert rendered < 30
        await pilot.press("home")
        assert screen_lines(app)[1] == "▌ message 0"
        assert sum(1 for block in view._blocks if block.measured) < 60


def test_bindings_can_be_remapped_by_id() -> None:
    ids = {binding.id for binding in ConversationView.BINDINGS}
    assert ids == {
        f"conversation.{name}"
        for name in ("cursor_up", "cursor_down", "page_up", "page_down", "first", "last", "toggle", "toggle_thinking")
    }


async def test_a_remapped_key() -> None:
    app = ViewApp([assistant("a1", ThinkingPart("a thought"), "one")])
    async with app.run_test(size=(60, 20)) as pilot:
        app.set_keymap({"conversation.toggle_thinking": "x"})
        await pilot.pause()
        await pilot.press("x")
        assert "a thought" in screen_text(app)


# -- untrusted text ----------------------------------------------------------------------------

HOSTILE = "\x1b]52;c;SGVsbG8=\x07 \x1b[31mred\x1b[0m [bold]x[/] [link=http://e.vil]y[/link] \x9b31m \u202eevil"


def _hostile_items() -> list[Item]:
    return [
        UserMessage("u1", (TextPart(HOSTILE),)),
        assistant(
            "a1",
            ThinkingPart(HOSTILE),
            f"# {HOSTILE}\n\n[a link](http://x.y/\x1b[2J) {HOSTILE}",
            ToolCallPart("c1", f"tool{HOSTILE}", {"cmd": HOSTILE}),
            model=HOSTILE,
            provider=HOSTILE,
        ),
        ToolResult("t1", HOSTILE, (TextPart(HOSTILE),), is_error=True),
        BashExecution("b1", HOSTILE, HOSTILE, full_output_path=HOSTILE),
        CustomMessage("c1", HOSTILE, (TextPart(HOSTILE), ImagePart(HOSTILE, 1))),
        BranchSummary("s1", HOSTILE),
        CompactionSummary("k1", HOSTILE, 1, ("x",)),
        OtherMessage("o1", HOSTILE, (TextPart(HOSTILE),)),
    ]


async def test_session_text_is_shown_as_text_never_as_escapes_or_markup() -> None:
    app = ViewApp(_hostile_items())
    async with app.run_test(size=(120, 200)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        view = view_of(app)
        segments: list[Segment] = []
        for y in range(view.size.height):
            segments.extend(view.render_line(y))
        for segment in segments:
            assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in segment.text), repr(segment.text)
            assert "\u202e" not in segment.text
            assert segment.style is None or not segment.style.link, "no hyperlinks from session text"
        text = screen_text(app)
        assert "52;c;SGVsbG8=" not in text and "[31m" not in text, "no debris of an escape sequence"
        assert "␛red␛" in text, "an escape sequence is one visible symbol"
        assert "[bold]x[/]" in text, "markup in session text is text"
        assert "[link=http://e.vil]y[/link]" in text
        assert "\x1b" not in app.export_screenshot()


# -- snapshots ---------------------------------------------------------------------------------
