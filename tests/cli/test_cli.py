"""The command line, run as a user runs it: a separate process, its output, its exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from devkit.builder import entry, header, linear, msg, write
from pitui.store.reader import Session

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def pitui(*args: str, env: dict[str, str] | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=120,
    )


@pytest.fixture
def agent(tmp_path: Path) -> dict[str, str]:
    """An agent folder with one project's sessions, and the environment that points pi at it."""
    folder = tmp_path / "agent" / "sessions" / "--home-me-proj--"
    folder.mkdir(parents=True)
    return {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}


def test_inspect_json_has_the_oracle_schema(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    result = pitui("inspect", str(path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {
        "header",
        "entryIds",
        "leafId",
        "branch",
        "tree",
        "labels",
        "name",
        "context",
        "projection",
        "pi",
        "stats",
    }
    assert report["leafId"] == "a0000003"
    assert report["context"]["messages"][0] == {"role": "user", "text": "text 0"}
    assert report["context"]["messages"][1] == {"role": "assistant", "blocks": ["text"], "textLen": 6}
    assert report["projection"] == [["a0000000", 1], ["a0000001", 1], ["a0000002", 1], ["a0000003", 1]]
    assert report["pi"] == [], "pi 1.6.0 reads it as pitui does"


def test_a_session_read_before_is_reopened_from_its_index(tmp_path: Path):
    """The commands keep the app's session indexes: the first read of a session of 1 MB or
    more indexes it, the next ones restore it (and read only what was appended), and what they
    print is what a read of the whole file prints."""
    path = linear(tmp_path / "s.jsonl", count=2_000)
    more = [msg(f"b{i:07d}", f"b{i - 1:07d}" if i else "a0001999", text="x" * 600, n=i) for i in range(1_500)]
    with path.open("ab") as f:  # over 1 MB: indexed
        f.write(b"".join(orjson.dumps(m) + b"\n" for m in more))
    assert path.stat().st_size > 1 << 20
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}

    def fresh() -> dict[str, str]:  # an empty cache: the file is read whole
        return {"XDG_CACHE_HOME": tempfile.mkdtemp(dir=tmp_path)}

    first = pitui("inspect", str(path), "--json", env=cache)
    assert first.returncode == 0, first.stderr
    # written by a process of its own, which the command does not wait for
    indexes = tmp_path / "cache" / "pitui" / "session-index"
    assert _appears(lambda: len(list(indexes.glob("*.idx"))) == 1)
    again = pitui("inspect", str(path), "--json", env=cache)
    assert again.stdout == first.stdout
    assert pitui("inspect", str(path), env=cache).stdout == pitui("inspect", str(path), env=fresh()).stdout

    with path.open("ab") as f:  # pi appends to the session: only that is read
        f.write(orjson.dumps(entry("label", "c0000000", "b0001499", 2, targetId="a0000001", label="here")) + b"\n")
    grown = pitui("inspect", str(path), "--json", env=cache)
    assert grown.stdout == pitui("inspect", str(path), "--json", env=fresh()).stdout
    assert json.loads(grown.stdout)["labels"] == {"a0000001": "here"}


def _appears(check: Callable[[], bool], seconds: float = 60) -> bool:
    """Whether ``check()`` comes true within ``seconds`` (a wait, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_inspect_shows_pi_session_totals() -> None:
    path = FIXTURES / "totals-every-source.jsonl"
    report = json.loads(pitui("inspect", str(path), "--json").stdout)
    assert report["stats"] == {
        "userMessages": 2,
        "assistantMessages": 3,
        "toolCalls": 1,
        "toolResults": 2,
        "totalMessages": 8,
        "tokens": {"input": 1111, "output": 2222, "cacheRead": 3333, "cacheWrite": 4444, "total": 11110},
        "cost": 1.23456789,
    }
    text = pitui("inspect", str(path)).stdout
    assert "messages  8 (user 2, assistant 3); tools 1 calls, 2 results" in text
    assert "tokens    11,110 (input 8,888: cached 3,333, uncached 5,555; output 2,222)  cost $1.235" in text
    assert "note" not in text


def test_inspect_says_when_pi_cannot_total_a_file() -> None:
    path = FIXTURES / "totals-no-usage.jsonl"
    report = json.loads(pitui("inspect", str(path), "--json").stdout)
    assert report["stats"] == {"error": "Cannot read properties of undefined (reading 'input')"}
    text = pitui("inspect", str(path)).stdout
    assert "pi 1.6's /session fails on this file (Cannot read properties of undefined (reading 'input'))" in text
    assert "assistant 2)" in text


def test_inspect_reports_skipped_lines_on_stderr(tmp_path: Path):
    path = write(tmp_path / "s.jsonl", header(), msg("a", None), raw=b"oops\n")
    result = pitui("inspect", str(path))
    assert result.returncode == 0
    assert f"pitui: {path}:3: skipped: not valid JSON" in result.stderr
    assert "entries   1" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inspect", "/nonexistent/x.jsonl"], "no such file"),
        (["label", "{file}", "zzzz", "x"], "no entry 'zzzz'"),
        (["branch", "{file}", "nope"], "no entry 'nope'"),
        (["fork", "{foreign}", "a"], "not a pi session header"),
        (["inspect", "{foreign}"], "not a pi session header"),
        (["rename", "{empty}", "x"], "empty file"),
        (["inspect", "no-such-prefix"], "no session found matching 'no-such-prefix'"),
        (["context", "omit", "{file}", "zzzz"], "no entry 'zzzz'"),
        (["context", "replace", "{file}", "a0000001"], "replace needs the note: --note TEXT or --from-file FILE"),
        (["context", "omit", "{file}", "a0000001", "--note", "x"], "omit takes no note"),
        (["context", "restore", "{file}", "a0000001"], "is in the context as written: nothing to restore"),
        (["context", "replace", "{file}", "a0000001", "--from-file", "/nonexistent/note"], "No such file"),
    ],
)
def test_errors_are_one_line_nonzero_and_write_nothing(tmp_path: Path, agent, args, message):
    file = linear(tmp_path / "s.jsonl")
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_bytes(b'{"kind":"header","version":4}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    before = {p: p.read_bytes() for p in (file, foreign, empty)}
    names = {"file": str(file), "foreign": str(foreign), "empty": str(empty)}
    result = pitui(*[a.format(**names) for a in args], env=agent)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("pitui: ")
    assert message in result.stderr
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(os.listdir(tmp_path)) == sorted(["s.jsonl", "foreign.jsonl", "empty.jsonl", "agent"])


def test_a_session_named_by_id_prefix(tmp_path: Path, agent):
    folder = Path(agent["PI_CODING_AGENT_DIR"]) / "sessions" / "--home-me-proj--"
    path = write(
        folder / "2025-01-01T00-00-00-000Z_11111111-2222-4333-8444-555555555555.jsonl",
        header(),
        msg("a", None),
        msg("b", "a", "assistant", n=1),
    )
    result = pitui("label", "1111", "a", "first", env=agent, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert Session.load(str(path)).labels == {"a": "first"}


def test_label_rename_branch_fork_clone_print_what_they_made(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a", None, text="question"),
        msg("b", "a", "assistant", n=1),
        msg("c", "b", text="follow-up", n=2),
        msg("d", "c", "assistant", n=3),
    )
    label = pitui("label", str(path), "b", "answer")
    assert label.returncode == 0 and len(label.stdout.strip()) == 8
    assert pitui("rename", str(path), "Demo").returncode == 0
    branch = pitui("branch", str(path), "c")
    assert branch.returncode == 0 and "follow-up" in branch.stderr  # the message, to ask again
    session = Session.load(str(path))
    assert session.name == "Demo" and session.labels == {"b": "answer"}
    assert [e.id for e in session.path_to()][:2] == ["a", "b"]
    fork = pitui("fork", str(path), "d")
    clone = pitui("clone", str(path))
    for result in (fork, clone):
        new = Path(result.stdout.strip())
        assert result.returncode == 0 and new.parent == tmp_path and new.exists()
        assert orjson.loads(new.read_bytes().splitlines()[0])["parentSession"] == str(path)


def test_branch_with_summary_and_to_the_leaf(tmp_path: Path):
    path = linear(tmp_path / "s.jsonl")
    result = pitui("branch", str(path), "a0000001", "--summary", "Dead end: the cache was fine.")
    assert result.returncode == 0
    assert Session.load(str(path)).context().messages[-1]["summary"] == "Dead end: the cache was fine."
    before = path.read_bytes()
    leaf = Session.load(str(path)).leaf_id
    again = pitui("branch", str(path), leaf)
    assert again.returncode == 0 and "Already at this point" in again.stderr
    assert path.read_bytes() == before
    # Back to a0000001 without a summary, then forward along the old path: that move leaves
    # only the branch entry behind, no message, so no summary is written (pi's rule).
    assert pitui("branch", str(path), "a0000001").returncode == 0
    forward = pitui("branch", str(path), "a0000003", "--summary", "nothing to summarise")
    assert forward.returncode == 0 and "No summary written" in forward.stderr
    assert Session.load(str(path)).leaf().get("customType") == "pitui.branch"


def test_export_markdown_and_html(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a", None, text="<b>[bold]</b>"),
        msg("b", "a", "assistant", "Done.", n=1),
        entry("label", "l", "b", n=2, targetId="a", label="x"),
    )
    md = pitui("export", str(path))
    assert md.returncode == 0 and "## User" in md.stdout and "<b>[bold]</b>" in md.stdout
    out = tmp_path / "s.html"
    html = pitui("export", str(path), "--format", "html", "--leaf", "a", "-o", str(out))
    assert html.returncode == 0
    page = out.read_text()
    assert "&lt;b&gt;[bold]&lt;/b&gt;" in page and "Done." not in page


def test_output_never_carries_terminal_escapes(tmp_path: Path):
    path = write(tmp_path / "s.jsonl", header(cwd="/x\x1b]0;pwned\x07"), msg("a", None))
    result = pitui("inspect", str(path))
    assert result.returncode == 0 and "\x1b" not in result.stdout and "\x07" not in result.stdout


def test_demo_works_on_a_fresh_copy(tmp_path: Path):
    result = pitui("inspect", "--demo", "--help")
    assert result.returncode == 0
    listing = pitui("ls", "--demo", "--all", "--json", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert listing.returncode == 0, listing.stderr
    sessions = json.loads(listing.stdout)
    assert len(sessions) >= 3
    assert all("/pitui-demo-" in s["path"] for s in sessions)
    packaged = Path(__file__).resolve().parents[2] / "pitui" / "demo"
    assert not any(str(packaged) in s["path"] for s in sessions)


def test_an_ambiguous_id_prefix_is_refused(tmp_path: Path, agent):
    folder = Path(agent["PI_CODING_AGENT_DIR"]) / "sessions" / "--home-me-proj--"
    for suffix in ("1", "2"):
        write(folder / f"s{suffix}.jsonl", header(id=f"abcd000{suffix}-2222-4333-8444-555555555555"), msg("a", None))
    result = pitui("label", "abcd", "a", "x", env=agent, cwd=str(tmp_path))
    assert result.returncode == 1 and "2 sessions match 'abcd'" in result.stderr
    assert pitui("label", "abcd0002", "a", "x", env=agent, cwd=str(tmp_path)).returncode == 0


def test_options_count_before_and_after_the_command(tmp_path: Path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PI_CODING_AGENT_DIR": str(tmp_path / "empty-agent")}
    for args in (["--demo", "ls", "--all", "--json"], ["ls", "--all", "--json", "--demo"]):
        result = pitui(*args, env=env)
        assert result.returncode == 0 and len(json.loads(result.stdout)) >= 3, (args, result.stderr)


def test_fifos_and_folders_are_refused_without_reading(tmp_path: Path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = pitui("inspect", str(fifo))
    assert result.returncode == 1 and "not a regular file" in result.stderr
    assert "is a folder" in pitui("inspect", str(tmp_path) + "/").stderr


def test_a_name_cannot_fake_output_lines_and_errors_carry_no_escapes(tmp_path: Path):
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a", None),
        entry("session_info", "n", "a", n=1, name="x\nfile      /etc/evil"),
    )
    result = pitui("inspect", str(path))
    assert not any(line.startswith("file      /etc/evil") for line in result.stdout.splitlines())
    bad = pitui("label", str(path), "\x1b[2J", "x")
    assert bad.returncode == 1 and "\x1b" not in bad.stderr


def test_a_custom_session_folder_lists_this_project_and_with_all_everything_in_it(tmp_path: Path):
    folder = tmp_path / "flat"
    folder.mkdir()
    write(folder / "mine.jsonl", header(cwd=str(tmp_path)), msg("a", None, text="mine"))
    write(
        folder / "other.jsonl",
        header(cwd="/elsewhere", id="22222222-2222-4333-8444-555555555555"),
        msg("a", None, text="other"),
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    here = pitui("ls", "--json", "--session-dir", str(folder), env=env, cwd=str(tmp_path))
    assert [s["firstMessage"] for s in json.loads(here.stdout)] == ["mine"]
    everything = pitui("ls", "--all", "--json", env={**env, "PI_CODING_AGENT_SESSION_DIR": str(folder)})
    assert sorted(s["firstMessage"] for s in json.loads(everything.stdout)) == ["mine", "other"]


def test_context_omit_replace_restore_print_what_they_wrote(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_bytes((FIXTURES / "linear.jsonl").read_bytes())
    omit = pitui("context", "omit", str(path), "e0000004")  # an assistant calling bash: its result goes too
    assert omit.returncode == 0
    assert omit.stderr.startswith("Omitted assistant message e0000004 and its 1 tool result from the context")
    edits = [orjson.loads(line) for line in path.read_bytes().splitlines()[-2:]]
    assert omit.stdout.split() == [e["id"] for e in edits]
    assert [(e["targetId"], e["replacement"]) for e in edits] == [("e0000004", None), ("e0000005", None)]
    note = tmp_path / "note.md"
    note.write_text("[omitted: the question]\n", encoding="utf-8")
    replace = pitui("context", "replace", str(path), "e0000003", "--from-file", str(note))
    assert replace.returncode == 0 and "Replaced user message e0000003 with a note" in replace.stderr
    assert orjson.loads(path.read_bytes().splitlines()[-1])["replacement"] == {"content": "[omitted: the question]"}
    restore = pitui("context", "restore", str(path), "e000000")  # a prefix of one id only is refused
    assert restore.returncode == 1 and "ambiguous" in restore.stderr
    restore = pitui("context", "restore", str(path), "e0000004")
    assert restore.returncode == 0 and len(restore.stdout.split()) == 2
    context = Session.load(str(path)).context().messages
    assert context[1:] == Session.load(str(FIXTURES / "linear.jsonl")).context().messages[1:]
