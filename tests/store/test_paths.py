"""Session folder names (pitui.store.paths) from the resolved cwd and agent folder, as pi 1.6's
getDefaultSessionDirPath makes them: its table in reference/pi-1.6.md (F10) and more, checked
against pi itself (the oracle's ``dir``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.store import paths


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and the process's cwd in a temporary folder (pi reads both, and so does the oracle,
    which runs in this process's environment)."""
    home = tmp_path / "home"
    run = tmp_path / "srv" / "w"
    home.mkdir()
    run.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(run)
    return home


def test_the_f10_table(home: Path, tmp_path: Path) -> None:
    agent = str(tmp_path / "agent")
    run = str(tmp_path / "srv" / "w").lstrip("/").replace("/", "-")
    folder = {
        "/home/me/proj": "--home-me-proj--",
        "/home/me/proj/": "--home-me-proj--",
        "//server/share": "--server-share--",
        "/a/./b/../c": "--a-c--",
        "relative/dir": f"--{run}-relative-dir--",
        "~/proj": f"--{str(home).lstrip('/').replace('/', '-')}-proj--",
        "C:\\Users\\me\\proj": f"--{run}-C--Users-me-proj--",  # a relative path on POSIX
    }
    for cwd, name in folder.items():
        assert paths.default_session_dir(cwd, agent) == f"{agent}/sessions/{name}", cwd


def test_resolving_is_lexical_and_the_agent_folder_is_resolved_too(home: Path, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    link = str(tmp_path / "link")
    assert paths.resolve_path(f"{link}/../x") == f"{tmp_path}/x", "'..' is taken back by name, as in Node"
    assert paths.resolve_path(link) == link, "links are not followed"
    assert paths.resolve_path("/..//a/") == "/a"
    assert paths.resolve_path("") == str(tmp_path / "srv" / "w")
    assert paths.resolve_path("x", "~/base") == f"{home}/base/x"
    assert paths.resolve_path("file:///a%20b/./c/") == "/a b/c"
    assert paths.resolve_path("file://localhost/srv") == "/srv"
    assert paths.resolve_path("~x/y") == f"{tmp_path}/srv/w/~x/y", "only ~ and ~/ are the home folder"
    assert paths.default_session_dir("/p", f"{tmp_path}//x/../agent/") == f"{tmp_path}/agent/sessions/--p--"


def test_an_agent_folder_from_the_environment_is_tilde_expanded(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.AGENT_DIR_ENV, "~/elsewhere")
    assert paths.agent_dir() == f"{home}/elsewhere"
    assert paths.default_session_dir("/p") == f"{home}/elsewhere/sessions/--p--"


def test_urls_pi_refuses_are_kept_as_paths(home: Path) -> None:
    # pi throws on these (fileURLToPath); pitui reads them as the relative paths they look like.
    run = Path.cwd()
    assert paths.resolve_path("file://other/x") == f"{run}/file:/other/x"
    for url in ("file:///a%2Fb", "file:///a%zz", "file:///a%ff"):
        assert paths.resolve_path(url) == f"{run}/file:/{url[8:]}", url


CWDS = [
    "/home/me/proj",
    "/home/me/proj/",
    "//server/share",
    "///a//b///",
    "/a/./b/../c",
    "/a/b/.",
    "/..",
    "/../..//x",
    "relative/dir",
    "./x",
    "../up",
    "..",
    ".",
    "",
    "~",
    "~/",
    "~/proj",
    "~//a/../b",
    "~x/y",
    "a/~/b",
    "C:\\Users\\me\\proj",
    "/a\\b:c",
    "/a/:/b",
    "/ä/ö",
    "  /spaces ",
    "file:///home/me/proj",
    "file:///a%20b/c",
    "file://localhost/srv/x/",
    "file:///a/%2e%2e/b",
    "file:///a/./b/..",
    "file:///a/b?q=1#frag",
    "FILE:///x",
    "file:/x",
]


@pytest.mark.parametrize("cwd", CWDS)
def test_the_folder_is_pis(cwd: str, oracle, home: Path, tmp_path: Path) -> None:
    for agent in (str(tmp_path / "agent"), f"{tmp_path}//x/../agent/", "../agent", "~/agent"):
        assert paths.default_session_dir(cwd, agent) == oracle.dir(cwd, agent), agent
