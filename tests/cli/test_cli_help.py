"""Every command's --help, with examples that the parser accepts, and the version, through the
``pitui`` entry point and through ``python -m pitui``."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from importlib.metadata import version

import pytest

from pitui.cli import commands, parser
from pitui.cli import main as cli

COMMANDS = list(parser.COMMANDS)


def test_every_command_is_known() -> None:
    assert {"ls", "search", "inspect", "label", "rename", "branch", "fork", "clone", "trash", "export"} <= set(COMMANDS)
    assert set(parser.EXAMPLES) == {"app", "commands", *COMMANDS}
    assert set(commands.RUN) == set(COMMANDS)


@pytest.mark.parametrize(
    "argv", [["--help"], ["--help", "ls"], *([name, "--help"] for name in COMMANDS)], ids=lambda argv: " ".join(argv)
)
def test_help_exits_0_with_examples(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: pitui")
    examples = out.split("\nexamples:\n", 1)[1].splitlines()
    assert 2 <= len(examples) <= 4
    assert all(line.startswith("  pi") for line in examples)


def _example_argv(line: str) -> list[str] | None:
    """The arguments of an example ``pitui ...`` line, without its comment or shell redirections."""
    command = re.split(r"\s{3,}", line.strip())[0]
    words = shlex.split(command)
    for stop in ("|", ">"):
        if stop in words:
            words = words[: words.index(stop)]
    if words[0] != "pitui" or "COMMAND" in words:
        return None
    return words[1:]


@pytest.mark.parametrize("name", list(parser.EXAMPLES))
def test_examples_are_accepted_by_the_parser(name: str) -> None:
    for line in parser.EXAMPLES[name]:
        inner = re.search(r'"\$\((pitui [^)]*)\)"', line)  # pi --session "$(pitui ...)"
        argv = _example_argv(inner.group(1) if inner else line)
        if argv is None:
            continue
        first = parser.first_positional(argv)
        args = parser.parser_for(argv).parse_args(argv)  # exits with status 2 on an example it does not take
        assert getattr(args, "command", None) == (first if first in COMMANDS else None), line


def test_version_matches_the_package(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"pitui {version('pitui')}\n"


def _module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )


def test_python_m_pitui_version_matches_the_package() -> None:
    proc = _module("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"pitui {version('pitui')}\n"


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_python_m_pitui_help_for_every_command(command: str) -> None:
    proc = _module(*([command] if command else []), "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: pitui" + (f" {command}" if command else ""))
    assert "\nexamples:\n" in proc.stdout


def test_python_m_pitui_runs_a_command() -> None:
    proc = _module("ls", "--demo", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[{") and "/pitui-demo-" in proc.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_line_parses_the_same_with_only_its_command_built(name: str) -> None:
    # (parser_for builds the named command's parser alone: the whole one costs a fifth of a warm ls)
    for line in parser.EXAMPLES[name]:
        inner = re.search(r'"\$\((pitui [^)]*)\)"', line)
        argv = _example_argv(inner.group(1) if inner else line)
        if argv is None or parser.first_positional(argv) != name:
            continue
        assert parser.parser_for(argv).parse_args(argv) == parser.build_parser().parse_args(argv), line
    listed = parser.parser_for(["--help", name]).format_help()  # help before the command: every one
    assert all(re.search(rf"^    {re.escape(other)}\b", listed, re.M) for other in COMMANDS)
