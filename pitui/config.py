"""pitui's settings: a TOML file under the user's config folder, all of it optional.

    # ~/.config/pitui/config.toml  ($XDG_CONFIG_HOME/pitui/config.toml, or $PITUI_CONFIG)
    resume_command = ["pi", "--session", "{path}"]   # what the resume key runs
    summarizer_command = "llm -s 'Summarize this branch'"  # branch text on stdin, summary on stdout
    summarizer_timeout = 120                         # seconds before the summarizer is stopped
    pi_summaries = true                              # offer summaries made by pi (when installed)
    theme = "textual-dark"                           # any Textual theme name
    tree_filter = "default"                          # default|no-tools|user-only|labeled-only|all
    [keys]                                           # binding id = keys, comma separated
    "picker.delete" = "ctrl+d,delete"

Nothing here imports textual. A file that cannot be read or parsed is reported, and the
defaults are used: a broken config never stops the app.
"""

from __future__ import annotations

import os
import shlex
import tomllib

from msgspec import Struct, field

__all__ = ["DEFAULT_RESUME_COMMAND", "TREE_FILTERS", "Config", "config_path", "load_config"]

DEFAULT_RESUME_COMMAND = ("pi", "--session", "{path}")
DEFAULT_SUMMARIZER_TIMEOUT = 120.0
DEFAULT_THEME = "textual-dark"
TREE_FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")  # pi's treeFilterMode values


class Config(Struct, frozen=True):
    resume_command: tuple[str, ...] = DEFAULT_RESUME_COMMAND
    keys: dict[str, str] = field(default_factory=dict)
    summarizer_command: tuple[str, ...] | None = None  # none: summaries are written by hand
    summarizer_timeout: float = DEFAULT_SUMMARIZER_TIMEOUT
    pi_summaries: bool = True  # offer pi's "Summarize" through the pi on PATH, when no command is set
    theme: str = DEFAULT_THEME
    tree_filter: str = "default"
    path: str | None = None  # the file read, if any
    problems: tuple[str, ...] = ()  # what was wrong with it; shown once at start

    def resume_argv(self, session_path: str) -> list[str]:
        """The resume command for one session: ``{path}`` replaced, else the path appended."""
        if any("{path}" in arg for arg in self.resume_command):
            return [arg.replace("{path}", session_path) for arg in self.resume_command]
        return [*self.resume_command, session_path]


def config_path() -> str:
    explicit = os.environ.get("PITUI_CONFIG")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "pitui", "config.toml")


def load_config(path: str | None = None) -> Config:
    path = path or config_path()
    try:
        with open(path, "rb") as file:
            raw = tomllib.load(file)
    except FileNotFoundError:
        return Config()
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        return Config(path=path, problems=(f"{path}: {error}; using the defaults",))
    problems: list[str] = []
    resume = _command(raw, "resume_command", path, problems) or DEFAULT_RESUME_COMMAND
    summarizer = _command(raw, "summarizer_command", path, problems)
    timeout = raw.get("summarizer_timeout", DEFAULT_SUMMARIZER_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        problems.append(f"{path}: summarizer_timeout must be a number of seconds above 0")
        timeout = DEFAULT_SUMMARIZER_TIMEOUT
    pi_summaries = raw.get("pi_summaries", True)
    if not isinstance(pi_summaries, bool):
        problems.append(f"{path}: pi_summaries must be true or false")
        pi_summaries = True
    theme = raw.get("theme", DEFAULT_THEME)
    if not isinstance(theme, str) or not theme.strip():
        problems.append(f"{path}: theme must be the name of a theme")
        theme = DEFAULT_THEME
    tree_filter = raw.get("tree_filter", "default")
    if tree_filter not in TREE_FILTERS:
        problems.append(f"{path}: tree_filter must be one of {', '.join(TREE_FILTERS)}")
        tree_filter = "default"
    keys: dict[str, str] = {}
    table = raw.get("keys", {})
    if isinstance(table, dict):
        for binding_id, spec in table.items():
            if isinstance(spec, str) and spec.strip():
                keys[str(binding_id)] = spec
            else:
                problems.append(f"{path}: keys.{binding_id} must be a string of keys")
    else:
        problems.append(f"{path}: [keys] must be a table")
    return Config(
        resume_command=resume,
        keys=keys,
        summarizer_command=summarizer,
        summarizer_timeout=float(timeout),
        pi_summaries=pi_summaries,
        theme=theme.strip(),
        tree_filter=tree_filter,
        path=path,
        problems=tuple(problems),
    )


def _command(raw: dict[str, object], key: str, path: str, problems: list[str]) -> tuple[str, ...] | None:
    """A command from the file: a command line (split as a shell would) or a list of arguments."""
    value = raw.get(key)
    if value is None:
        return None
    try:
        if isinstance(value, str) and value.strip():
            return tuple(shlex.split(value))
    except ValueError as error:  # an unclosed quote
        problems.append(f"{path}: {key}: {error}")
        return None
    if isinstance(value, list) and value and all(isinstance(arg, str) for arg in value):
        return tuple(value)
    problems.append(f"{path}: {key} must be a command line or a list of strings")
    return None
