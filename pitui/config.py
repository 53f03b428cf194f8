"""pitui's settings: a TOML file under the user's config folder, all of it optional.

    # ~/.config/pitui/config.toml  ($XDG_CONFIG_HOME/pitui/config.toml, or $PITUI_CONFIG)
    resume_command = ["pi", "--session", "{path}"]   # what the resume key runs
    [keys]                                           # binding id = keys, comma separated
    "picker.delete" = "ctrl+d,delete"

Nothing here imports textual. A file that cannot be read or parsed is reported, and the
defaults are used: a broken config never stops the app.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from dataclasses import dataclass, field

__all__ = ["DEFAULT_RESUME_COMMAND", "Config", "config_path", "load_config"]

DEFAULT_RESUME_COMMAND = ("pi", "--session", "{path}")


@dataclass(frozen=True, slots=True)
class Config:
    resume_command: tuple[str, ...] = DEFAULT_RESUME_COMMAND
    keys: dict[str, str] = field(default_factory=dict)
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
    resume: tuple[str, ...] = DEFAULT_RESUME_COMMAND
    value = raw.get("resume_command")
    if isinstance(value, str) and value.strip():
        resume = tuple(shlex.split(value))
    elif isinstance(value, list) and value and all(isinstance(arg, str) for arg in value):
        resume = tuple(value)
    elif value is not None:
        problems.append(f"{path}: resume_command must be a command line or a list of strings")
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
    return Config(resume_command=resume, keys=keys, path=path, problems=tuple(problems))
