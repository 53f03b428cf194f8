"""The layout rules a reader relies on: small modules, and nothing tied to one machine."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 700  # a module in pitui/ or devkit/ holds one job; past this it holds two
MAX_TEST_MODULE_LINES = 800
# The one top-level folder of development-only code, next to what the package and its docs need.
TOP_LEVEL = {".ci", ".gitignore", ".gitattributes", "README.md", "pyproject.toml"} | {
    "pitui",
    "tests",
    "styles",
    "screenshots",
    "devkit",
}


def tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", *patterns], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / name for name in out.stdout.decode().split("\0") if name]


def too_long(paths: list[Path], limit: int) -> list[str]:
    lengths = {path.relative_to(ROOT): len(path.read_text().splitlines()) for path in paths}
    return [f"{path}: {lines} lines" for path, lines in sorted(lengths.items()) if lines > limit]


@pytest.fixture(scope="module", autouse=True)
def in_a_checkout() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")


def test_no_package_module_is_over_the_limit() -> None:
    assert too_long(tracked("pitui/*.py"), MAX_MODULE_LINES) == []


def test_no_development_module_is_over_the_limit() -> None:
    assert too_long(tracked("devkit/*.py"), MAX_MODULE_LINES) == []


def test_no_test_module_is_over_the_limit() -> None:
    assert too_long(tracked("tests/*.py"), MAX_TEST_MODULE_LINES) == []


def test_the_top_level_holds_the_package_its_tests_and_one_development_folder() -> None:
    tops = {path.relative_to(ROOT).parts[0] for path in tracked()}
    assert tops <= TOP_LEVEL, sorted(tops - TOP_LEVEL)


def test_no_file_names_a_path_of_one_machine() -> None:
    # This machine keeps its checkouts under a folder named work: no path in the repository names
    # one, made up or not, so that none can be mistaken for a path of this machine.
    machine_path = re.compile("/" + "work/")  # spelt in two, so this line does not match
    found = []
    for path in tracked("*.py", "*.md", "*.mjs", "*.toml", "*.tcss", ".ci/*"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if machine_path.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
