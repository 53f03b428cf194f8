"""The preview pane (pitui.ui.widgets.preview_pane): what the user reads for a session, untrusted text shown
as text, the error, loading and empty states, and the formatting of ages, sizes, tokens and cost.
No files: the pane is given SessionPreview values built here."""

from __future__ import annotations

import msgspec
import pytest
from helpers.pilot import screen_lines, screen_text
from helpers.preview_app import BASE, HOME, HOUR, NOW, PaneApp

from pitui.store.model import LineProblem
from pitui.store.stats import LabelInfo, ModelUse, SessionPreview
from pitui.ui.format import format_cost, format_size, format_tokens, shorten_home_folder
from pitui.ui.widgets.preview_pane import (
    MAX_LABELS,
    PreviewPane,
)


async def shown(preview: SessionPreview | None, size: tuple[int, int] = (80, 40)) -> list[str]:
    app = PaneApp(preview)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return screen_lines(app)


async def test_the_facts_the_user_reads():
    lines = await shown(BASE)
    text = "\n".join(lines)
    assert lines[0].strip() == "Cache: clear command and --no-cache"
    expected = [
        "Created      2026-03-16 06:00 (3d ago)",
        "Modified     2026-03-19 04:00 (2h ago)",
        "Folder       ~/projects/weatherapp",
        "Messages     49 (5 user, 24 assistant, 20 tool results)",
        "Entries      58",
        "Branches     3 (2 branch points)",
        "Labels       2",
        "Models       anthropic/claude-opus-4-5 (15)",
        "Tokens       185k (↑11k ↓3.5k R163k W7.4k)",
        "Cost         $0.18",
        "Size         55.8 kB",
    ]
    stripped = [line.strip() for line in lines]
    for row in expected:
        assert row in stripped, row
    models = stripped.index("Models       anthropic/claude-opus-4-5 (15)")
    assert lines[models + 1] == lines[models].replace(
        "Models       anthropic/claude-opus-4-5 (15)", "             openai/gpt-5.1-codex (9)"
    )
    assert "Forked from  ~/.pi/agent/sessions/" in text
    assert "First prompt" in text and "`weather now berlin` has been showing 14.2°C" in text
    assert "Last prompt" in text and "try again" in text
    assert [line.strip() for line in lines if line.strip().startswith(("5h ", "3d "))] == [
        "5h  regression test",
        "3d  fix",
    ]


async def test_a_long_fork_path_keeps_its_file_name():
    text = "\n".join(await shown(BASE, size=(50, 40)))
    assert "Forked from  ~/.pi/" in text and "…" in text  # its start and its end, the middle elided
    assert "cb35f.jsonl" in text


async def test_without_name_the_first_prompt_is_the_title_and_one_prompt_is_enough():
    preview = msgspec.structs.replace(BASE, name=None, last_prompt=BASE.first_prompt, labels=(), parent_session=None)
    lines = await shown(preview)
    text = "\n".join(lines)
    assert lines[0].strip().startswith("`weather now berlin`")
    assert "Last prompt" not in text
    assert "Labels" not in text
    assert "Forked from" not in text


async def test_many_labels_are_cut_and_counted():
    labels = tuple(LabelInfo(f"e{i:07d}", f"label {i}", NOW - i * HOUR) for i in range(1, 13))
    text = "\n".join(await shown(msgspec.structs.replace(BASE, labels=labels), size=(80, 60)))
    assert "label 8" in text and "label 9" not in text
    assert f"and {12 - MAX_LABELS} more" in text


async def test_skipped_lines_are_said():
    preview = msgspec.structs.replace(BASE, skipped_lines=3, problems=(LineProblem(BASE.path, 4, "not valid JSON"),))
    text = "\n".join(await shown(preview))
    assert "3 unreadable lines skipped (line 4: not valid JSON)" in text


async def test_untrusted_text_is_shown_as_text():
    hostile = "[bold red]x[/] \x1b[31mred\x1b[0m \x07bell\u202etxt.exe [@click=app.quit]go[/]"
    preview = msgspec.structs.replace(
        BASE,
        name=hostile,
        first_prompt="first [link=http://e.vil]click[/link]\x1b]8;;http://e.vil\x07",
        last_prompt="last\rline\x1b[2J",
        cwd="/home/user/[dim]proj\x1b[0m",
        labels=(LabelInfo("e1", "[reverse]label\x1b[5m", NOW),),
        models=(ModelUse("[b]prov", "model\x1b[1m", 1),),
        roles={"user": 1, "[i]odd\x1b": 2},
    )
    app = PaneApp(preview)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        strips = app.screen._compositor.render_strips()
        text = "\n".join(strip.text for strip in strips)
        assert "[bold red]x[/]" in text
        assert "[@click=app.quit]go[/]" in text
        assert "first [link=http://e.vil]click[/link]" in text
        assert "~/[dim]proj" in text
        assert "[reverse]label" in text
        assert "[b]prov/model" in text
        assert "[i]odd" in text
        for strip in strips:
            for segment in strip:
                assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in segment.text), segment
                assert segment.style is None or segment.style.link is None


async def test_states_empty_loading_error_and_back():
    app = PaneApp()
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(PreviewPane)
        await pilot.pause()
        assert "No session selected." in screen_text(app)
        pane.show_loading()
        await pilot.pause()
        assert "Reading the session…" in screen_text(app)
        assert "Created" not in screen_text(app)
        pane.show_error("The session file no longer exists.")
        await pilot.pause()
        assert "The session file no longer exists." in screen_text(app)
        assert pane.has_class("-error") and pane.preview is None
        pane.show(BASE, now_ms=NOW)
        await pilot.pause()
        text = screen_text(app)
        assert "no longer exists" not in text and "Created" in text
        assert not pane.has_class("-error") and pane.preview is BASE
        pane.show(None, now_ms=NOW)
        await pilot.pause()
        assert "No session selected." in screen_text(app) and "Created" not in screen_text(app)


async def test_an_error_message_is_text_too():
    app = PaneApp()
    async with app.run_test(size=(80, 10)) as pilot:
        app.query_one(PreviewPane).show_error("cannot read [b]x[/b]\x1b[31m")
        await pilot.pause()
        assert "cannot read [b]x[/b]" in screen_text(app)


# -- formatting -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 kB"),
        (44_937, "44.9 kB"),
        (999_949, "999.9 kB"),
        (999_950, "1.0 MB"),
        (1_234_567, "1.2 MB"),
        (107_514_122, "107.5 MB"),
        (3 * 10**9, "3.0 GB"),
    ],
)
def test_sizes(size, expected):
    assert format_size(size) == expected


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1.0k"),
        (4_500, "4.5k"),
        (12_345, "12k"),
        (999_499, "999k"),
        (1_200_000, "1.2M"),
        (34_000_000, "34M"),
        (999_000_000, "999M"),
        (1_500_000_000, "1.5B"),
        (587_806_000_000, "588B"),
    ],
)
def test_tokens_as_pi_shows_them(count, expected):
    assert format_tokens(count) == expected


@pytest.mark.parametrize(
    ("cost", "expected"),
    [
        (0, "$0.00"),
        (0.004, "<$0.01"),
        (0.005, "$0.01"),
        (0.4249, "$0.42"),
        (1234.5, "$1,234.50"),
    ],
)
def test_costs(cost, expected):
    assert format_cost(cost) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/home/user", "~"),
        ("/home/user/p", "~/p"),
        ("/home/username/p", "/home/username/p"),
        ("/srv/x", "/srv/x"),
    ],
)
def test_home_is_written_as_tilde(path, expected):
    assert shorten_home_folder(path, HOME) == expected
    assert shorten_home_folder(path, HOME + "/") == expected
