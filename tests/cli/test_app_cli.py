"""The command line around the app: what `pitui` does with no command, and after the app ends
(print a session's file, or become the resume command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from devkit.builder import linear
from pitui.cli import launch
from pitui.cli import main as cli
from pitui.config import Config, load_config
from pitui.ui.app import AppResult, PituiApp, styles_dir


def test_print_prints_the_chosen_file(capsys) -> None:
    assert launch.finish_app(AppResult("print", "/s/a.jsonl"), Config()) == 0
    assert capsys.readouterr().out == "/s/a.jsonl\n"


def test_resume_runs_the_command_in_the_sessions_folder(tmp_path: Path, monkeypatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = linear(tmp_path / "s.jsonl")
    text = path.read_text().replace('"cwd":"/home/me/proj"', f'"cwd":"{project}"')
    path.write_text(text)
    ran: list[tuple[str, list[str], str]] = []
    monkeypatch.setattr(os, "execv", lambda program, argv: ran.append((program, argv, os.getcwd())))
    monkeypatch.chdir(tmp_path)
    config = Config(resume_command=("true", "--session", "{path}"))
    launch.finish_app(AppResult("resume", str(path)), config)
    assert len(ran) == 1
    program, argv, cwd = ran[0]
    assert os.path.basename(program) == "true"
    assert argv == ["true", "--session", str(path)]
    assert cwd == str(project)


def test_resume_without_pi_says_so_and_prints_the_command(capsys, monkeypatch) -> None:
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("nothing to run"))
    config = Config(resume_command=("pi-not-installed-here", "--session", "{path}"))
    assert launch.finish_app(AppResult("resume", "/s/my session.jsonl"), config) == 1
    out, err = capsys.readouterr()
    assert "pi-not-installed-here is not installed" in err
    assert out == "pi-not-installed-here --session '/s/my session.jsonl'\n"


def test_resume_command_without_placeholder_gets_the_path_appended() -> None:
    assert Config(resume_command=("pi", "-c")).resume_argv("/x.jsonl") == ["pi", "-c", "/x.jsonl"]


def test_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('resume_command = "pi --session {path}"\n[keys]\n"picker.delete" = "ctrl+d,delete"\n')
    config = load_config(str(path))
    assert config.resume_command == ("pi", "--session", "{path}")
    assert config.keys == {"picker.delete": "ctrl+d,delete"}
    assert config.problems == ()
    path.write_text("resume_command = [\n")
    broken = load_config(str(path))
    assert broken.resume_command == ("pi", "--session", "{path}") and "using the defaults" in broken.problems[0]
    path.write_text('resume_command = 3\n[keys]\n"x" = 4\n')
    odd = load_config(str(path))
    assert len(odd.problems) == 2 and odd.keys == {}
    assert load_config(str(tmp_path / "missing.toml")) == Config()


def test_without_a_terminal_the_app_says_so_and_writes_nothing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pitui", "--demo"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    assert proc.returncode == 1
    assert "needs a terminal" in proc.stderr


def test_help_lists_the_app_options_and_the_commands() -> None:
    proc = subprocess.run([sys.executable, "-m", "pitui", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for text in ("--all", "--print", "--demo", "session", "inspect", "trash"):
        assert text in proc.stdout


def test_a_missing_session_is_one_line_before_any_screen(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pitui", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith("nope.jsonl: no such file")


def test_styles_are_where_the_app_looks_for_them() -> None:
    for path in PituiApp.CSS_PATH:
        assert Path(path).is_file()
    assert styles_dir().name == "styles"


async def test_keymap_from_the_config_rebinds_a_key(tmp_path: Path) -> None:
    from pitui.store.catalog import Catalog

    path = linear(tmp_path / "s.jsonl", 4)
    agent = tmp_path / "agent"
    agent.mkdir()
    app = PituiApp(
        cwd=str(tmp_path),
        agent_dir=str(agent),
        open_path=str(path),
        watch=False,
        catalog=Catalog(str(agent), cache_dir=str(tmp_path / "cache")),
        config=Config(keys={"tree.leaf": "f3"}),
    )
    async with app.run_test(size=(100, 30)) as pilot:
        from pitui.ui.screens.session import SessionScreen
        from pitui.ui.widgets.session_tree import SessionTree

        for _ in range(200):
            if isinstance(app.screen, SessionScreen) and app.screen.session is not None:
                break
            await pilot.pause(0.05)
        tree = app.screen.query_one(SessionTree)
        await pilot.press("up", "up")
        assert tree.selected_id == "a0000001"
        await pilot.press("ctrl+g")  # no longer bound
        assert tree.selected_id == "a0000001"
        await pilot.press("f3")
        assert tree.selected_id == "a0000003"


def test_config_summarizer_theme_and_tree_filter(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'summarizer_command = "sum --short"\nsummarizer_timeout = 30\ntheme = "nord"\ntree_filter = "no-tools"\n'
    )
    config = load_config(str(path))
    assert config.summarizer_command == ("sum", "--short")
    assert config.summarizer_timeout == 30.0
    assert (config.theme, config.tree_filter, config.problems) == ("nord", "no-tools", ())
    path.write_text('summarizer_command = "sum \'open"\nsummarizer_timeout = -1\ntree_filter = "odd"\ntheme = 3\n')
    broken = load_config(str(path))
    assert broken.summarizer_command is None
    assert (broken.summarizer_timeout, broken.theme, broken.tree_filter) == (120.0, "textual-dark", "default")
    assert len(broken.problems) == 4
    assert Config().summarizer_command is None


def test_config_pi_summaries(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert load_config(str(tmp_path / "none.toml")).pi_summaries is True
    path.write_text("pi_summaries = false\n")
    assert load_config(str(path)).pi_summaries is False
    path.write_text('pi_summaries = "no"\n')
    broken = load_config(str(path))
    assert broken.pi_summaries is True and "pi_summaries must be true or false" in broken.problems[0]


async def test_config_theme_and_starting_tree_filter_apply(tmp_path: Path) -> None:
    from pitui.store.catalog import Catalog
    from pitui.ui.screens.session import SessionScreen
    from pitui.ui.widgets.session_tree import SessionTree

    path = linear(tmp_path / "s.jsonl", 4)
    agent = tmp_path / "agent"
    agent.mkdir()

    def app_with(config: Config) -> PituiApp:
        return PituiApp(
            cwd=str(tmp_path),
            agent_dir=str(agent),
            open_path=str(path),
            watch=False,
            catalog=Catalog(str(agent), cache_dir=str(tmp_path / "cache")),
            config=config,
        )

    app = app_with(Config(theme="nord", tree_filter="user-only"))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            if isinstance(app.screen, SessionScreen) and app.screen.session is not None:
                break
            await pilot.pause(0.05)
        assert app.theme == "nord"
        tree = app.screen.query_one(SessionTree)
        assert tree.filter_mode == "user-only" and "[user]" in tree.status
    app = app_with(Config(theme="no-such-theme", path="/x/config.toml"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        assert any("no theme named 'no-such-theme'" in n.message for n in app._notifications)


def test_the_app_runs_with_the_cyclic_gc_on(tmp_path: Path, monkeypatch) -> None:
    """The commands pause the cyclic collector; the app, started as ``pitui SESSION`` starts it,
    runs with it on (Textual's nodes, messages and closures make reference cycles)."""
    import gc

    from pitui.ui.screens.session import SessionScreen

    path = linear(tmp_path / "s.jsonl", 4)
    agent = tmp_path / "agent"
    agent.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("PITUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    seen: list[bool] = []
    real_run = PituiApp.run

    def run_headless(self: PituiApp, **_: object) -> object:
        async def look(pilot) -> None:
            for _ in range(200):
                if isinstance(pilot.app.screen, SessionScreen) and pilot.app.screen.session is not None:
                    break
                await pilot.pause(0.05)
            assert isinstance(pilot.app.screen, SessionScreen)
            seen.append(gc.isenabled())
            pilot.app.exit()

        return real_run(self, headless=True, size=(100, 30), auto_pilot=look)

    monkeypatch.setattr(PituiApp, "run", run_headless)
    assert gc.isenabled()
    assert cli.main([str(path)]) == 0
    assert seen == [True]
    assert gc.isenabled()


def test_a_command_runs_with_the_cyclic_gc_paused(monkeypatch) -> None:
    import gc

    from pitui.cli import commands

    seen: list[bool] = []
    monkeypatch.setitem(commands.RUN, "ls", lambda args: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert cli.main(["ls"]) == 0
    assert seen == [False]
    assert gc.isenabled()
