#!/usr/bin/env python3
# ruff: noqa: E501  (session text and file contents are data; long lines are kept as they are)
"""Write the demo sessions in pitui/demo/ (deterministic: fixed seeds, fixed timestamps).

    python tools/make_demo.py            # (re)write pitui/demo/sessions/...
    python tools/make_demo.py --check    # also load every file with pi's SessionManager
                                         # (needs PI_PKG, and PI_ORACLE: pi's oracle script)

The files are laid out as under a pi agent folder (``sessions/<encoded cwd>/<ts>_<id>.jsonl``).
Two projects, so the all-projects view has something to show:

weatherapp (/home/user/projects/weatherapp, a Python CLI for Open-Meteo)

1. ``cache`` "Cache never expires after reboot" (claude-opus-4-5, thinking high). A debugging
   session with three branches. The cache stored ``time.monotonic()``; a regression test fails
   (toolResult with isError). Branch A fixes it with ``time.time()``; the user goes back in /tree
   with a summary (``branch_summary`` parented at the assistant's options message). Branch B asks
   for a migration and is interrupted (stopReason ``aborted``); the user edits that prompt
   (navigation without summary, nothing written) and branch C stores ISO UTC timestamps. Labels:
   ``repro`` set on the failing test result and later changed to ``regression test``; ``fix-v1`` set
   on branch A's edit and cleared after going back; ``fix`` set on branch C's edit. Session name
   set with ``session_info``. The leaf (last line) is on branch C. Tools: read, grep, write, edit
   (with diff details), bash.
2. ``units`` "--units imperial" (claude-sonnet-4-5, thinking medium). A long linear session: a new
   option across three files, a failing test and its fix; ``!`` commands (bashExecution), one of
   them ``!!`` (excludeFromContext); a user message with an image block (a tiny PNG "screenshot");
   a manual compaction with ``firstKeptEntryId`` (v0.58-style, no retainedTail), then more work
   after it.
3. ``fork`` "Cache: clear command and --no-cache" (fork of 1). Header ``parentSession`` points at
   session 1 (``/DEMO_AGENT_DIR/...``, see pitui/demo/README.md). Made like pi's /fork on the "Commit
   it." message: the path of branch C without label entries, re-linked (no orphans), then the two
   labels still set on that path as a chain with their original timestamps. It then switches to
   openai/gpt-5.1-codex (model_change, thinking_level_change mid-session; toolCall ids of the
   ``call_...|fc_...`` form), has a failing test (isError), switches back to claude-opus-4-5, and
   gets an ``error`` stopReason with an Anthropic 529 errorMessage before the commit succeeds.

shortlinks (/home/user/projects/shortlinks, a small Flask link shortener)

4. ``slugs`` "Non-ASCII slugs -> 400" (claude-sonnet-4-5, thinking low). A 500 on non-ASCII
   slugs. A ``custom_message`` from an extension (git-context, string content, displayed) after
   the first prompt, and later one with block content that is not displayed; ``custom`` entries
   (an extension's todo state). A first approach (percent-encoding) is abandoned with a
   ``branch_summary``; an assistant turn with two parallel tool calls; a compaction in the newer
   format carrying ``retainedTail`` (copies of the kept messages, and also ``firstKeptEntryId``
   and ``usage``, so pi 0.73 and the newer rule give the same context); session name set at the end.
5. ``ratelimit`` "Docs: rate limiting" (claude-sonnet-4-5, thinking off then low). Short and linear:
   an explanation, an ``error`` stopReason (529 overloaded, empty content, zero usage) followed by
   a thinking level change and a retry, a ``write`` of a docs file; the session name set and later
   renamed.
6. ``docker`` (claude-opus-4-5, thinking medium). A Dockerfile and compose file; ``docker compose
   build`` fails (isError) because the daemon is down, the user starts it with a ``!`` command, and
   ``!!`` looks at logs. A session name set and then cleared with ``""``, so it lists unnamed.

Every file: header ``{"type":"session","version":3,"id":<uuidv7>,"timestamp","cwd"}``, then a
``model_change`` root and a ``thinking_level_change`` before the first user message (except the
fork, which starts with the copied path), entries written with pi's key order, 8-hex ids, ISO
timestamps with milliseconds; message timestamps in Unix ms; usage with tokens and cost.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_projects import SHORTLINKS, SHORTLINKS_CWD, WEATHERAPP, WEATHERAPP_CWD
from _sessionkit import (
    Session,
    bash,
    edit,
    fork,
    grep,
    pytest_quiet,
    read,
    tiny_png,
    write,
)

from devkit.oracle import pi_oracle

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "pitui" / "demo"
AGENT_PLACEHOLDER = "/DEMO_AGENT_DIR"


def encode_cwd(cwd: str) -> str:
    import re

    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def rel_path(s: Session) -> str:
    return f"sessions/{encode_cwd(s.cwd)}/{s.file_name()}"


# ==================================================================================================
# 1. weatherapp: cache never expires after reboot (three branches, labels)


def session_cache() -> tuple[Session, dict]:
    s = Session(seed=101, cwd=WEATHERAPP_CWD, start="2026-03-16T08:41:17.303Z", files=dict(WEATHERAPP))
    s.model_change("anthropic", "claude-opus-4-5")
    s.thinking_level("high")
    s.user(
        "`weather now berlin` has been showing 14.2°C since yesterday evening, even though the cache TTL "
        "is 10 minutes. Deleting ~/.cache/weatherapp fixes it for a while. Can you find out why the "
        "cache entries never expire?",
        think=(20, 40),
    )
    s.step(
        "I'll start with the cache module.",
        thinking="The user says cached entries never expire. The TTL logic is in the cache module; "
        "let me read it before guessing.",
        tools=[read("src/weatherapp/cache.py")],
    )
    s.step(
        thinking='get() computes `time.monotonic() - entry["fetched_at"]` and put() stores '
        "`time.monotonic()` in the JSON file. The monotonic clock has an arbitrary reference point; "
        "on Linux it is CLOCK_MONOTONIC, which starts at boot. Within one boot that works across "
        "processes, but after a reboot monotonic() is small again, so now - fetched_at is hugely "
        "negative and never exceeds the TTL. That fits 'since yesterday evening' if the machine was "
        "rebooted. Let me check nothing else reads fetched_at.",
        tools=[grep("monotonic|fetched_at", path="src")],
    )
    test_v1 = '''"""Cache entries must expire even when the machine rebooted in between."""

import time

from weatherapp import cache


def test_entry_expires_after_reboot(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    # Written late in a long uptime...
    monkeypatch.setattr(time, "monotonic", lambda: 86_400.0)
    monkeypatch.setattr(time, "time", lambda: 1_773_600_000.0)
    cache.put("now:52.52,13.41", {"temperature_2m": 14.2})
    # ...and read back twelve hours later, two minutes after a reboot.
    monkeypatch.setattr(time, "monotonic", lambda: 120.0)
    monkeypatch.setattr(time, "time", lambda: 1_773_643_200.0)
    assert cache.get("now:52.52,13.41", ttl=600) is None
'''
    s.step(
        "Found a likely cause: the cache stores `time.monotonic()` as `fetched_at`. The monotonic "
        "clock counts from an arbitrary point — on Linux, the last boot. After a reboot it starts "
        "near zero again, so `time.monotonic() - fetched_at` is negative and never exceeds the TTL.\n\n"
        "Let me prove it with a test that simulates a reboot between `put()` and `get()`.",
        tools=[write("tests/test_cache_reboot.py", test_v1)],
    )
    failing = s.step(
        tools=[
            bash(
                "uv run pytest tests/test_cache_reboot.py -q",
                pytest_quiet("F", "")[:-1]
                + """
=================================== FAILURES ===================================
_______________________ test_entry_expires_after_reboot ________________________

tmp_path = PosixPath('/tmp/pytest-of-user/pytest-41/test_entry_expires_after_rebo0')
monkeypatch = <_pytest.monkeypatch.MonkeyPatch object at 0x7f3a1c2b5e50>

    def test_entry_expires_after_reboot(tmp_path, monkeypatch):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        # Written late in a long uptime...
        monkeypatch.setattr(time, "monotonic", lambda: 86_400.0)
        monkeypatch.setattr(time, "time", lambda: 1_773_600_000.0)
        cache.put("now:52.52,13.41", {"temperature_2m": 14.2})
        # ...and read back twelve hours later, two minutes after a reboot.
        monkeypatch.setattr(time, "monotonic", lambda: 120.0)
        monkeypatch.setattr(time, "time", lambda: 1_773_643_200.0)
>       assert cache.get("now:52.52,13.41", ttl=600) is None
E       AssertionError: assert {'temperature_2m': 14.2} is None
E        +  where {'temperature_2m': 14.2} = <function get at 0x7f3a1c3e1d00>('now:52.52,13.41', ttl=600)
E        +    where <function get at 0x7f3a1c3e1d00> = cache.get

tests/test_cache_reboot.py:17: AssertionError
=========================== short test summary info ============================
FAILED tests/test_cache_reboot.py::test_entry_expires_after_reboot - AssertionError: assert {'temperature_2m': 14.2} is None
1 failed in 0.08s""",
                exit_code=1,
                duration=1.9,
            )
        ]
    )[0]
    options = s.say(
        "Reproduced: an entry written at uptime 24 h is still returned two minutes after a reboot, "
        "twelve hours later.\n\n"
        "Two ways to fix it:\n\n"
        "1. **Store wall-clock time** (`time.time()`) in both `put()` and `get()`. A two-line change. "
        "Old entries hold small monotonic values, so they look decades old and expire on the next "
        "read — no cleanup needed.\n"
        '2. **Store an ISO-8601 UTC timestamp** (`"2026-03-16T08:45:00+00:00"`). A bit more code, '
        "but the cache files become readable with `cat`, and we can explicitly treat the old float "
        "format and timestamps in the future (clock set back) as expired.\n\n"
        "Which one do you prefer?",
        thinking="The test fails as expected. Options: time.time() (simple) or an ISO timestamp "
        "(readable, lets us reject future timestamps). Let the user choose.",
    )
    s.session_info("Cache never expires after reboot")
    s.label(failing, "repro")

    # Branch A: time.time()
    s.user("Go with 1, smallest change.", think=(15, 30))
    fix_v1 = s.step(
        thinking="Replace both uses of time.monotonic() with time.time().",
        tools=[
            edit(
                "src/weatherapp/cache.py",
                (
                    '    if time.monotonic() - entry["fetched_at"] > ttl:',
                    '    if time.time() - entry["fetched_at"] > ttl:',
                ),
                (
                    '    entry = {"fetched_at": time.monotonic(), "data": data}',
                    '    entry = {"fetched_at": time.time(), "data": data}',
                ),
            )
        ],
    )[0]
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 10, "10 passed in 0.31s"), duration=2.2)])
    s.say(
        "All 10 tests pass. `get()` and `put()` now both use `time.time()`. Existing cache files "
        "still hold monotonic values (numbers like `86400.0`), so they look ~56 years old and "
        "expire on the next read."
    )
    s.label(fix_v1, "fix-v1")

    # Back to the options, with a summary of branch A.
    s.branch_summary(
        options,
        "## Goal\nFix cache entries in `src/weatherapp/cache.py` never expiring after a reboot.\n\n"
        "## Constraints & Preferences\n- User first chose the smallest change (option 1).\n\n"
        "## Progress\n### Done\n- [x] Replaced `time.monotonic()` with `time.time()` in `get()` and "
        "`put()`; all 10 tests passed.\n\n### In Progress\n- (none)\n\n### Blocked\n- (none)\n\n"
        "## Key Decisions\n- **Wall-clock time**: two-line fix; old entries expire on their own.\n\n"
        "## Next Steps\n1. (abandoned) The user went back to choose between the two options again.\n\n"
        "## Critical Context\n- The `time.time()` edit is still in the working tree.",
    )
    s.label(fix_v1, None)

    # Branch B: with a migration, interrupted.
    b_prompt = s.user(
        "Let's do option 2 after all. Also write a small script that migrates the existing cache "
        "files to the new format.",
        think=(25, 50),
    )
    s.assistant(
        "Plan:\n\n1. Store `fetched_at` as an ISO-8601 UTC string in `put()` and parse it in `get()`.\n"
        "2. Add `scripts/migrate_cache.py`, which walks `~/.cache/weatherapp/*.json` and rewr",
        thinking="Option 2 plus a migration. The migration can't convert monotonic values to wall "
        "time reliably (the boot time is unknown), so it would have to",
        stop="aborted",
        error="Request was aborted.",
    )
    s.goto(s.by_id[b_prompt]["parentId"])  # edit the prompt: /tree on the user message

    # Branch C: ISO timestamps, old format counts as expired.
    s.user(
        "Let's do option 2 after all. No migration: entries in the old float format just count as "
        "expired, it's only a cache.",
        think=(20, 35),
    )
    s.step(
        "The working tree still has the `time.time()` change from before; I'll re-read the file and replace that.",
        thinking="Files are not reverted when navigating the session tree, so cache.py still has "
        "time.time(). Re-read it to edit against the current content.",
        tools=[read("src/weatherapp/cache.py")],
    )
    fix = s.step(
        thinking="Use datetime.now(timezone.utc) behind a _now() helper so tests can patch it. "
        "Parse with datetime.fromisoformat; anything that isn't a string (old float format) or "
        "can't be parsed is expired, and so is an age < 0 (timestamp in the future).",
        tools=[
            edit(
                "src/weatherapp/cache.py",
                (
                    "import time\nfrom pathlib import Path\n",
                    "from datetime import datetime, timezone\nfrom pathlib import Path\n",
                ),
                (
                    """def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    if time.time() - entry["fetched_at"] > ttl:
        return None
    return entry["data"]""",
                    '''def _now() -> datetime:
    return datetime.now(timezone.utc)


def _age(fetched_at: object) -> float | None:
    """Seconds since ``fetched_at`` (an ISO-8601 string); None if unusable."""
    if not isinstance(fetched_at, str):
        return None  # the old float format (time.monotonic()) counts as expired
    try:
        then = datetime.fromisoformat(fetched_at)
    except ValueError:
        return None
    if then.tzinfo is None:
        return None
    return (_now() - then).total_seconds()


def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    age = _age(entry.get("fetched_at"))
    if age is None or age < 0 or age > ttl:
        return None
    return entry["data"]''',
                ),
                (
                    '    entry = {"fetched_at": time.time(), "data": data}',
                    '    entry = {"fetched_at": _now().isoformat(), "data": data}',
                ),
            )
        ],
    )[0]
    test_v2 = '''"""Cache entries must expire even when the clock or the machine misbehaves."""

import json
from datetime import datetime, timedelta, timezone

from weatherapp import cache

T0 = datetime(2026, 3, 16, 8, 0, tzinfo=timezone.utc)


def at(monkeypatch, when):
    monkeypatch.setattr(cache, "_now", lambda: when)


def test_fresh_entry_is_returned(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0)
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0 + timedelta(minutes=9))
    assert cache.get("k", ttl=600) == {"t": 14.2}


def test_entry_expires(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0)
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0 + timedelta(hours=12))
    assert cache.get("k", ttl=600) is None


def test_old_float_format_is_expired(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache._key_path("k").parent.mkdir(parents=True)
    cache._key_path("k").write_text(json.dumps({"fetched_at": 86400.0, "data": {"t": 1}}))
    assert cache.get("k") is None


def test_future_timestamp_is_expired(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0 + timedelta(days=1))
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0)  # clock set back
    assert cache.get("k") is None
'''
    s.step(
        "Now the test: `time` is no longer used, so it patches `cache._now` instead, and covers the "
        "old format and a clock that was set back.",
        tools=[write("tests/test_cache_reboot.py", test_v2)],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 13, "13 passed in 0.29s"), duration=2.1)])
    s.step(
        tools=[
            bash(
                'uv run weather now berlin && cat "$(ls -t ~/.cache/weatherapp/*.json | head -1)"',
                "Berlin: 6.8°C, wind 14.0 km/h, overcast\n"
                '{"fetched_at": "2026-03-16T09:04:41.518342+00:00", "data": {"latitude": 52.52, '
                '"longitude": 13.419998, "generationtime_ms": 0.0531673431396484, "utc_offset_seconds": 0, '
                '"timezone": "GMT", "current": {"time": "2026-03-16T09:00", "interval": 900, '
                '"temperature_2m": 6.8, "wind_speed_10m": 14.0, "weather_code": 3}}}',
                duration=0.9,
            )
        ]
    )
    s.say(
        "Done:\n\n"
        "- `put()` stores `fetched_at` as an ISO-8601 UTC string (see the cache file above — it's "
        "readable now).\n"
        "- `get()` treats an entry as expired if `fetched_at` is missing, not a string (the old "
        "monotonic floats), unparsable, naive, in the future, or older than the TTL.\n"
        "- `tests/test_cache_reboot.py` covers a fresh entry, expiry, the old format and a clock set "
        "back. 13 tests pass.\n\n"
        "The `time.time()` change from the first attempt is gone (it was replaced by this edit)."
    )
    s.label(fix, "fix")
    s.label(failing, "regression test")
    commit_prompt = s.user("Looks good. Commit it.", think=(30, 60))
    s.step(
        tools=[
            bash(
                "git add -A && git commit -q -m 'cache: store fetched_at as an ISO-8601 UTC timestamp' "
                "-m 'time.monotonic() restarts at boot, so entries written before a reboot never expired.' "
                "&& git log --oneline -1",
                "4f2c9a1 cache: store fetched_at as an ISO-8601 UTC timestamp",
                duration=0.3,
            )
        ]
    )
    s.say("Committed as `4f2c9a1`.")
    expect = {
        "branch_points": 2,
        "labels": {failing: "regression test", fix: "fix"},
        "name": "Cache never expires after reboot",
    }
    s.commit_prompt = commit_prompt  # for the fork
    return s, expect


# ==================================================================================================
# 3. weatherapp: fork of session 1


def session_fork(parent: Session) -> tuple[Session, dict]:
    prompt = parent.by_id[parent.commit_prompt]
    s = fork(
        parent,
        prompt["parentId"],
        seed=103,
        start="2026-03-16T09:31:52.640Z",
        parent_session=f"{AGENT_PLACEHOLDER}/{rel_path(parent)}",
    )
    s.model_change("openai", "gpt-5.1-codex")
    s.thinking_level("medium")
    s.user(
        "Before committing: add a `weather cache clear` subcommand and a global `--no-cache` flag "
        "that bypasses the cache for one call.",
        think=(20, 40),
    )
    s.step(
        thinking="Need to see how cli.py dispatches commands and where api.py reads the cache.",
        tools=[read("src/weatherapp/cli.py"), read("src/weatherapp/api.py")],
    )
    s.step(
        "Adding `cache.clear()` first, returning how many files it removed.",
        thinking="clear() deletes *.json in cache_dir(); return the count for the CLI message.",
        tools=[
            edit(
                "src/weatherapp/cache.py",
                (
                    """def put(key: str, data: dict) -> None:""",
                    '''def clear() -> int:
    """Delete every cached response; return how many were removed."""
    removed = 0
    for path in cache_dir().glob("*.json"):
        path.unlink(missing_ok=True)
        removed += 1
    return removed


def put(key: str, data: dict) -> None:''',
                ),
            )
        ],
    )
    s.step(
        "Threading a `use_cache` switch through the API functions.",
        tools=[
            edit(
                "src/weatherapp/api.py",
                (
                    "class CityNotFound(Exception):\n    pass\n",
                    "class CityNotFound(Exception):\n    pass\n\n\n"
                    "use_cache = True  # set to False by the CLI's --no-cache\n\n\n"
                    "def _cached(key: str, ttl: int | None = None) -> dict | None:\n"
                    "    if not use_cache:\n        return None\n"
                    "    return cache.get(key) if ttl is None else cache.get(key, ttl=ttl)\n",
                ),
                ("    hit = cache.get(key, ttl=30 * 24 * 3600)\n", "    hit = _cached(key, ttl=30 * 24 * 3600)\n"),
                ("    data = cache.get(key)\n", "    data = _cached(key)\n"),
                ("    data = cache.get(key, ttl=3 * 3600)\n", "    data = _cached(key, ttl=3 * 3600)\n"),
            )
        ],
    )
    s.step(
        tools=[
            edit(
                "src/weatherapp/cli.py",
                ("from . import api, format\n", "from . import api, cache, format\n"),
                (
                    '    sub = parser.add_subparsers(dest="command", required=True)\n',
                    '    parser.add_argument("--no-cache", action="store_true", help="bypass the response cache")\n'
                    '    sub = parser.add_subparsers(dest="command", required=True)\n',
                ),
                (
                    '    fc.add_argument("--days", type=int, default=3)\n    return parser\n',
                    '    fc.add_argument("--days", type=int, default=3)\n\n'
                    '    cc = sub.add_parser("cache", help="manage the response cache")\n'
                    '    cc.add_argument("action", choices=["clear"])\n    return parser\n',
                ),
                (
                    '    args = build_parser().parse_args(argv)\n    try:\n        if args.command == "now":\n',
                    "    args = build_parser().parse_args(argv)\n"
                    "    api.use_cache = not args.no_cache\n"
                    '    if args.command == "cache":\n'
                    "        n = cache.clear()\n"
                    "        print(f\"Removed {n} cached response{'' if n == 1 else 's'}\")\n"
                    "        return 0\n    try:\n"
                    '        if args.command == "now":\n',
                ),
            )
        ],
    )
    test = """from weatherapp import api, cache, cli


def test_cache_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for key in ("a", "b", "c"):
        cache.put(key, {})
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == "Removed 3 cached responses\\n"
    assert cache.get("a") is None


def test_no_cache_flag(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("now:52.52,13.41", {"current": {}})
    seen = []
    monkeypatch.setattr(api, "current", lambda city: seen.append(api.use_cache) or {
        "name": "Berlin", "temperature_2m": 1.0, "wind_speed_10m": 2.0, "weather_code": 0})
    cli.main(["--no-cache", "now", "berlin"])
    assert seen == [False]


def test_cache_clear_singular(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("a", {})
    cli.main(["cache", "clear"])
    assert capsys.readouterr().out == "Removed 1 cached response(s)\\n"
"""
    s.step(tools=[write("tests/test_cli_cache.py", test)])
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("." * 16 + "F", "")[:-1]
                + """
=================================== FAILURES ===================================
__________________________ test_cache_clear_singular ___________________________

tmp_path = PosixPath('/tmp/pytest-of-user/pytest-44/test_cache_clear_singular0')
monkeypatch = <_pytest.monkeypatch.MonkeyPatch object at 0x7f02d9a1c610>
capsys = <_pytest.capture.CaptureFixture object at 0x7f02d9a1c1d0>

    def test_cache_clear_singular(tmp_path, monkeypatch, capsys):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        cache.put("a", {})
        cli.main(["cache", "clear"])
>       assert capsys.readouterr().out == "Removed 1 cached response(s)\\n"
E       AssertionError: assert 'Removed 1 cached response\\n' == 'Removed 1 cached response(s)\\n'
E         - Removed 1 cached response(s)
E         ?                          ---
E         + Removed 1 cached response

tests/test_cli_cache.py:28: AssertionError
=========================== short test summary info ============================
FAILED tests/test_cli_cache.py::test_cache_clear_singular - AssertionError: assert 'Removed 1 cached response\\n' == 'Removed 1 cached response(s)\\n'
1 failed, 16 passed in 0.34s""",
                exit_code=1,
                duration=2.4,
            )
        ]
    )
    s.step(
        "The test's expectation was wrong — the CLI pluralises properly. Fixing the test.",
        tools=[
            edit(
                "tests/test_cli_cache.py",
                (
                    '    assert capsys.readouterr().out == "Removed 1 cached response(s)\\n"',
                    '    assert capsys.readouterr().out == "Removed 1 cached response\\n"',
                ),
            )
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 17, "17 passed in 0.33s"), duration=2.3)])
    s.say(
        "Added:\n\n- `weather cache clear` → `cache.clear()`, prints `Removed N cached response(s)` "
        "with correct pluralisation.\n- `--no-cache` (before the subcommand: `weather --no-cache now "
        "berlin`) sets `api.use_cache = False`, so reads skip the cache; fresh responses are still "
        "written.\n- `tests/test_cli_cache.py` with three tests. 17 tests pass."
    )
    s.model_change("anthropic", "claude-opus-4-5")
    s.user(
        "Commit this. The cache fix itself is already committed (4f2c9a1), I did that in the original session.",
        think=(25, 50),
    )
    s.assistant(
        stop="error",
        error='529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}',
        zero_usage=True,
    )
    s.user("try again", think=(10, 30))
    s.step(
        thinking="Check that only the new command's changes are uncommitted.",
        tools=[
            bash(
                "git status --short && git log --oneline -1",
                " M src/weatherapp/api.py\n M src/weatherapp/cache.py\n M src/weatherapp/cli.py\n"
                "?? tests/test_cli_cache.py\n4f2c9a1 cache: store fetched_at as an ISO-8601 UTC timestamp",
                duration=0.1,
            )
        ],
    )
    s.step(
        "Only the new command is uncommitted, on top of `4f2c9a1`.",
        tools=[
            bash(
                "git add -A && git commit -q -m 'cli: add \"cache clear\" and --no-cache' "
                "-m 'cache.clear() removes every cached response; --no-cache skips cache reads for one call.' "
                "&& git log --oneline -2",
                'b81e07d cli: add "cache clear" and --no-cache\n4f2c9a1 cache: store fetched_at as an ISO-8601 UTC timestamp',
                duration=0.3,
            )
        ],
    )
    s.say("Committed as `b81e07d` on top of `4f2c9a1`. The working tree is clean.")
    s.session_info("Cache: clear command and --no-cache")
    expect = {"branch_points": 0, "labels": dict(s.labels), "name": "Cache: clear command and --no-cache"}
    return s, expect


# ==================================================================================================
# 2. weatherapp: --units imperial, screenshot, compaction with firstKeptEntryId


def session_units(files: dict[str, str]) -> tuple[Session, dict]:
    """``files``: the project as the fork left it (both commits made)."""
    s = Session(seed=102, cwd=WEATHERAPP_CWD, start="2026-03-17T13:58:02.114Z", files=dict(files))
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    s.user(
        "I want a `--units imperial` option for `now` and `forecast` (°F and mph). Default stays "
        "metric. Open-Meteo can convert server-side, see the temperature_unit and wind_speed_unit "
        "query parameters.",
        think=(30, 60),
    )
    s.step(
        "Let me look at the CLI, the API client and the formatter.",
        thinking="Three places: cli.py for the flag, api.py for the request params (and the cache "
        "key!), format.py for the unit labels.",
        tools=[read("src/weatherapp/cli.py"), read("src/weatherapp/api.py"), read("src/weatherapp/format.py")],
    )
    s.step(
        "Plan:\n\n1. `api.current()`/`api.forecast()` take `units` and pass `temperature_unit`/"
        "`wind_speed_unit`; the unit must be part of the cache key, or a metric response would be "
        "served for an imperial request.\n2. `format` takes `units` for the labels.\n3. `--units` "
        "as a global option in the CLI.",
        tools=[
            edit(
                "src/weatherapp/api.py",
                (
                    'FORECAST_URL = "https://api.open-meteo.com/v1/forecast"\n',
                    'FORECAST_URL = "https://api.open-meteo.com/v1/forecast"\n\n'
                    "UNIT_PARAMS = {\n"
                    '    "metric": {"temperature_unit": "celsius", "wind_speed_unit": "kmh"},\n'
                    '    "imperial": {"temperature_unit": "fahrenheit", "wind_speed_unit": "mph"},\n'
                    "}\n",
                ),
                ("def current(city: str) -> dict:\n", 'def current(city: str, units: str = "metric") -> dict:\n'),
                ('    key = f"now:{lat:.2f},{lon:.2f}"\n', '    key = f"now:{lat:.2f},{lon:.2f}:{units}"\n'),
                (
                    '            params={"latitude": lat, "longitude": lon, "current": "temperature_2m,wind_speed_10m,weather_code"},\n',
                    "            params={\n"
                    '                "latitude": lat,\n'
                    '                "longitude": lon,\n'
                    '                "current": "temperature_2m,wind_speed_10m,weather_code",\n'
                    "                **UNIT_PARAMS[units],\n"
                    "            },\n",
                ),
                (
                    "def forecast(city: str, days: int = 3) -> dict:\n",
                    'def forecast(city: str, days: int = 3, units: str = "metric") -> dict:\n',
                ),
                (
                    '    key = f"daily:{lat:.2f},{lon:.2f}:{days}"\n',
                    '    key = f"daily:{lat:.2f},{lon:.2f}:{days}:{units}"\n',
                ),
                (
                    '                "timezone": "auto",\n',
                    '                "timezone": "auto",\n                **UNIT_PARAMS[units],\n',
                ),
            )
        ],
    )
    s.step(
        tools=[
            edit(
                "src/weatherapp/format.py",
                (
                    "def describe(code: int) -> str:\n",
                    'UNIT_LABELS = {"metric": ("°C", "km/h"), "imperial": ("°F", "mph")}\n\n\n'
                    "def describe(code: int) -> str:\n",
                ),
                (
                    """def current(data: dict) -> str:
    return (
        f"{data['name']}: {data['temperature_2m']:.1f}°C, "
        f"wind {data['wind_speed_10m']:.1f} km/h, {describe(data['weather_code'])}"
    )""",
                    """def current(data: dict, units: str) -> str:
    temp, speed = UNIT_LABELS[units]
    return (
        f"{data['name']}: {data['temperature_2m']:.1f}{temp}, "
        f"wind {data['wind_speed_10m']:.1f} {speed}, {describe(data['weather_code'])}"
    )""",
                ),
            )
        ],
    )
    s.step(
        tools=[
            edit(
                "src/weatherapp/cli.py",
                (
                    '    parser.add_argument("--no-cache", action="store_true", help="bypass the response cache")\n',
                    '    parser.add_argument("--no-cache", action="store_true", help="bypass the response cache")\n'
                    '    parser.add_argument("--units", choices=["metric", "imperial"], default="metric")\n',
                ),
                (
                    "            print(format.current(api.current(args.city)))\n",
                    "            print(format.current(api.current(args.city, units=args.units), args.units))\n",
                ),
                (
                    "            print(format.forecast_table(api.forecast(args.city, days=args.days)))\n",
                    "            print(format.forecast_table(api.forecast(args.city, days=args.days, units=args.units)))\n",
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("...........FF....", "")[:-1]
                + """
=================================== FAILURES ===================================
_________________________________ test_current _________________________________

    def test_current():
        data = {"name": "Berlin", "temperature_2m": 6.84, "wind_speed_10m": 14.0, "weather_code": 3}
>       assert format.current(data) == "Berlin: 6.8°C, wind 14.0 km/h, overcast"
E       TypeError: current() missing 1 required positional argument: 'units'

tests/test_format.py:22: TypeError
___________________________________ test_now ___________________________________

fake_api = None, capsys = <_pytest.capture.CaptureFixture object at 0x7fb1e4b6a2d0>

    def test_now(fake_api, capsys):
>       assert cli.main(["now", "berlin"]) == 0

tests/test_cli.py:20:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
src/weatherapp/cli.py:35: in main
    print(format.current(api.current(args.city, units=args.units), args.units))
E   TypeError: test_cli.fake_api.<locals>.<lambda>() got an unexpected keyword argument 'units'
=========================== short test summary info ============================
FAILED tests/test_format.py::test_current - TypeError: current() missing 1 required positional argument: 'units'
FAILED tests/test_cli.py::test_now - TypeError: test_cli.fake_api.<locals>.<lambda>() got an unexpected keyword argument 'units'
2 failed, 15 passed in 0.41s""",
                exit_code=1,
                duration=2.6,
            )
        ]
    )
    s.step(
        "Two failures: `format.current` should default to metric, and the test fake needs to accept `units`.",
        tools=[
            edit(
                "src/weatherapp/format.py",
                (
                    "def current(data: dict, units: str) -> str:",
                    'def current(data: dict, units: str = "metric") -> str:',
                ),
            ),
            edit(
                "tests/test_cli.py",
                ('        api, "current", lambda city: {', '        api, "current", lambda city, units="metric": {'),
            ),
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 17, "17 passed in 0.30s"), duration=2.2)])
    s.step(
        tools=[
            bash(
                "uv run weather now 'New York' --units imperial; uv run weather --units imperial now 'New York'",
                "usage: weather [-h] [--no-cache] [--units {metric,imperial}] {now,forecast,cache} ...\n"
                "weather: error: unrecognized arguments: --units imperial\n"
                "New York: 41.2°F, wind 9.8 mph, partly cloudy",
                duration=1.4,
            )
        ]
    )
    s.say(
        "Works, with one wrinkle: `--units` is a global option, so it has to come before the "
        "subcommand (`weather --units imperial now 'New York'`). Putting it after the city fails, as "
        "shown above. Want me to accept it in both places? argparse can do that with a shared parent "
        "parser."
    )
    s.user("Yes, both places please.", think=(10, 25))
    s.step(
        thinking="Use a parent parser with --units and --no-cache, add it to the main parser and "
        "every subparser with default=argparse.SUPPRESS on the subparsers so the global value isn't "
        "overwritten.",
        tools=[
            edit(
                "src/weatherapp/cli.py",
                (
                    """def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="weather", description="Weather in your terminal.")
    parser.add_argument("--no-cache", action="store_true", help="bypass the response cache")
    parser.add_argument("--units", choices=["metric", "imperial"], default="metric")
    sub = parser.add_subparsers(dest="command", required=True)

    now = sub.add_parser("now", help="current conditions")
    now.add_argument("city")

    fc = sub.add_parser("forecast", help="daily forecast")""",
                    '''def _common(defaults: bool) -> argparse.ArgumentParser:
    """Options accepted both before and after the subcommand."""
    p = argparse.ArgumentParser(add_help=False)
    d = {} if defaults else {"default": argparse.SUPPRESS}
    p.add_argument("--no-cache", action="store_true", help="bypass the response cache", **d)
    p.add_argument("--units", choices=["metric", "imperial"], help="default: metric", **({"default": "metric"} if defaults else d))
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="weather", description="Weather in your terminal.", parents=[_common(defaults=True)]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    common = _common(defaults=False)

    now = sub.add_parser("now", help="current conditions", parents=[common])
    now.add_argument("city")

    fc = sub.add_parser("forecast", help="daily forecast", parents=[common])''',
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run weather now 'New York' --units imperial && uv run weather --units imperial now 'New York' "
                "&& uv run weather now 'New York'",
                "New York: 41.2°F, wind 9.8 mph, partly cloudy\nNew York: 41.2°F, wind 9.8 mph, partly cloudy\n"
                "New York: 5.1°C, wind 15.8 km/h, partly cloudy",
                duration=2.9,
            )
        ]
    )
    s.step(
        "Both positions work and metric is still the default. Adding CLI tests for that.",
        tools=[
            edit(
                "tests/test_cli.py",
                (
                    "def test_requires_command():",
                    """@pytest.mark.parametrize("argv", [["--units", "imperial", "now", "x"], ["now", "x", "--units", "imperial"]])
def test_units_before_or_after_command(argv):
    assert cli.build_parser().parse_args(argv).units == "imperial"


def test_units_default():
    assert cli.build_parser().parse_args(["now", "x"]).units == "metric"


def test_requires_command():""",
                ),
            )
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 20, "20 passed in 0.32s"), duration=2.2)])
    s.say("20 tests pass. `--units` and `--no-cache` now work before or after the subcommand.")

    # The user runs it, it looks fine in the pipe, but not in the terminal.
    s.bash_execution(
        'uv run weather forecast "Rio de Janeiro" --days 4 --units imperial',
        "Rio de Janeiro\ndate        min  max  conditions\n2026-03-17  73°  86°  partly cloudy\n"
        "2026-03-18  72°  84°  light rain\n2026-03-19  74°  88°  thunderstorm\n2026-03-20  73°  85°  partly cloudy\n",
        duration=0.8,
    )
    shot = tiny_png(
        6,
        4,
        [
            (30, 30, 30),
            (200, 200, 200),
            (30, 30, 30),
            (40, 90, 200),
            (30, 30, 30),
            (220, 180, 40),
            (30, 30, 30),
            (200, 200, 200),
            (30, 30, 30),
            (40, 90, 200),
            (220, 180, 40),
            (30, 30, 30),
            (30, 30, 30),
            (200, 200, 200),
            (40, 90, 200),
            (30, 30, 30),
            (220, 60, 40),
            (30, 30, 30),
            (30, 30, 30),
            (30, 30, 30),
            (30, 30, 30),
            (30, 30, 30),
            (30, 30, 30),
            (30, 30, 30),
        ],
    )
    screenshot = s.user(
        "Odd: the output above looks fine, but in my terminal the forecast columns are all over the "
        "place, see the screenshot.",
        images=[shot],
        think=(40, 70),
    )
    s.step(
        "In the pipe the output isn't a TTY, so there's no colour — that's why it looks fine there. "
        "In your terminal the temperatures are coloured, and the column widths are computed with "
        "`len()` on strings that include the ANSI escape codes.",
        thinking="Screenshot: the min/max columns are shifted right by varying amounts, the rest "
        "aligns. _color() wraps the temperature in \\x1b[..m ... \\x1b[0m, so len() counts 9 extra "
        "characters, and ljust pads the uncoloured header less. Fix: compute widths on the visible "
        "text and pad manually.",
        tools=[read("src/weatherapp/format.py", offset=28)],
    )
    s.step(
        tools=[
            edit(
                "src/weatherapp/format.py",
                (
                    "import os\nimport sys\n",
                    'import os\nimport re\nimport sys\n\nANSI = re.compile(r"\\x1b\\[[0-9;]*m")\n',
                ),
                (
                    """    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [data["name"]]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())""",
                    """    widths = [max(_width(row[i]) for row in rows) for i in range(4)]
    lines = [data["name"]]
    for row in rows:
        lines.append("  ".join(cell + " " * (w - _width(cell)) for cell, w in zip(row, widths)).rstrip())""",
                ),
                (
                    "def current(data: dict",
                    '''def _width(text: str) -> int:
    """Columns a cell takes on screen: escape codes take none."""
    return len(ANSI.sub("", text))


def current(data: dict''',
                ),
            )
        ],
    )
    s.step(
        "A test that forces colour on, so this can't come back unnoticed:",
        tools=[
            write(
                "tests/test_format_color.py",
                """import re

from weatherapp import format

from test_format import DAILY


def test_columns_align_with_color(monkeypatch):
    monkeypatch.setattr(format.sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    lines = format.forecast_table(DAILY).splitlines()[1:]
    visible = [re.sub(r"\\x1b\\[[0-9;]*m", "", line) for line in lines]
    assert "\\x1b[" in lines[1]
    starts = {line.index(word) for line, word in zip(visible, ["conditions", "mainly", "light"])}
    assert len(starts) == 1
""",
            )
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 21, "21 passed in 0.35s"), duration=2.3)])
    s.step(
        tools=[
            bash(
                "FORCE_TTY=1 script -qc 'uv run weather forecast \"Rio de Janeiro\" --days 2 --units imperial' /dev/null | cat -v",
                "Rio de Janeiro\r\ndate        min  max  conditions\r\n"
                "2026-03-17  ^[[31m73°^[[0m  ^[[31m86°^[[0m  partly cloudy\r\n"
                "2026-03-18  ^[[31m72°^[[0m  ^[[31m84°^[[0m  light rain\r",
                duration=1.1,
            )
        ]
    )
    s.say(
        "Fixed: widths are now measured without escape codes (`_width()`), so coloured cells pad "
        "correctly — the `script` run above (a real TTY) shows the escapes and the columns line up "
        "around them. New test `tests/test_format_color.py`; 21 tests pass.\n\n"
        "Side note: 73°F is shown in red because the colour thresholds (5 and 25) are in °C. With "
        "`--units imperial` everything above 25°F is red."
    )
    s.user("Ha, good catch. Make the thresholds unit-aware.", think=(15, 30))
    s.step(
        tools=[
            edit(
                "src/weatherapp/format.py",
                (
                    """def _color(text: str, temp: float) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    code = 34 if temp < 5 else 33 if temp < 25 else 31""",
                    """THRESHOLDS = {"metric": (5, 25), "imperial": (41, 77)}  # cold below, hot from


def _color(text: str, temp: float, units: str = "metric") -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    cold, hot = THRESHOLDS[units]
    code = 34 if temp < cold else 33 if temp < hot else 31""",
                ),
                (
                    "def forecast_table(data: dict) -> str:",
                    'def forecast_table(data: dict, units: str = "metric") -> str:',
                ),
                (
                    '        rows.append((day, _color(f"{lo:.0f}°", lo), _color(f"{hi:.0f}°", hi), describe(code)))',
                    '        rows.append((day, _color(f"{lo:.0f}°", lo, units), _color(f"{hi:.0f}°", hi, units), describe(code)))',
                ),
            ),
            edit(
                "src/weatherapp/cli.py",
                (
                    "            print(format.forecast_table(api.forecast(args.city, days=args.days, units=args.units)))\n",
                    "            print(format.forecast_table(api.forecast(args.city, days=args.days, units=args.units), args.units))\n",
                ),
            ),
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 21, "21 passed in 0.33s"), duration=2.2)])
    s.say("Thresholds are per unit now (41°F / 77°F match 5°C / 25°C). Tests pass.")
    s.user(
        "Also validate --days: Open-Meteo allows 1 to 16. Right now --days 30 gives an ugly httpx traceback.",
        think=(20, 40),
    )
    s.step(
        tools=[
            bash(
                "uv run weather forecast berlin --days 30 2>&1 | tail -n 4",
                '  File "/home/user/projects/weatherapp/.venv/lib/python3.12/site-packages/httpx/_models.py", line 829, in raise_for_status\n'
                "    raise HTTPStatusError(message, request=request, response=self)\n"
                "httpx.HTTPStatusError: Client error '400 Bad Request' for url "
                "'https://api.open-meteo.com/v1/forecast?latitude=52.52437&longitude=13.41053&daily=temperature_2m_min%2Ctemperature_2m_max%2Cweather_code&forecast_days=30&timezone=auto&temperature_unit=celsius&wind_speed_unit=kmh'\n"
                "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/400",
                duration=1.3,
            )
        ]
    )
    s.step(
        "I'll validate in argparse with a small type function, so the error looks like every other usage error.",
        tools=[
            edit(
                "src/weatherapp/cli.py",
                (
                    "def _common(defaults: bool)",
                    """def _days(value: str) -> int:
    n = int(value)
    if not 1 <= n <= 16:
        raise argparse.ArgumentTypeError("must be between 1 and 16")
    return n


def _common(defaults: bool)""",
                ),
                (
                    '    fc.add_argument("--days", type=int, default=3)\n',
                    '    fc.add_argument("--days", type=_days, default=3, help="1 to 16 (default: 3)")\n',
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run weather forecast berlin --days 30; echo exit=$?",
                "usage: weather forecast [-h] [--no-cache] [--units {metric,imperial}] [--days DAYS] city\n"
                "weather forecast: error: argument --days: must be between 1 and 16\nexit=2",
                duration=0.6,
            )
        ]
    )
    s.step(
        tools=[
            edit(
                "tests/test_cli.py",
                (
                    "def test_requires_command():",
                    """@pytest.mark.parametrize("days", ["0", "17", "-3"])
def test_days_out_of_range(days):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["forecast", "x", "--days", days])


def test_requires_command():""",
                ),
            )
        ]
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 24, "24 passed in 0.36s"), duration=2.3)])
    s.say("`--days` is checked by argparse now (1–16) and exits with status 2 and a clear message. 24 tests pass.")
    s.bash_execution(
        "git diff --stat",
        " src/weatherapp/api.py    | 22 ++++++++++---\n src/weatherapp/cli.py    | 41 ++++++++++++++++++------\n src/weatherapp/format.py | 31 ++++++++++++++-----\n tests/test_cli.py        | 24 +++++++++++++-\n 4 files changed, 95 insertions(+), 23 deletions(-)\n",
        exclude=True,
        duration=0.1,
    )
    kept = s.user(
        "Good. Before the README: is there anything else that depends on the unit? e.g. wind in "
        "`now` output, or the cache?",
        think=(40, 80),
    )
    s.step(
        thinking="Check every place that formats a temperature or speed, and the cache keys.",
        tools=[grep("°|km/h|mph|units", path="src")],
    )
    s.say(
        "Everything unit-dependent goes through `units` now:\n\n- `api.py`: request parameters "
        "(`UNIT_PARAMS`) and both cache keys end in `:{units}`, so metric and imperial responses are "
        "cached separately.\n- `format.py`: labels (`UNIT_LABELS`) and colour thresholds "
        "(`THRESHOLDS`).\n- The geocoding cache key has no unit, which is right.\n\nNothing else "
        "hard-codes °C or km/h."
    )
    s.compaction(
        "## Goal\nAdd `--units metric|imperial` to the weatherapp CLI (`now` and `forecast`), then "
        "document it in README.md.\n\n"
        "## Constraints & Preferences\n- Default stays metric.\n- Use Open-Meteo's server-side "
        "conversion (`temperature_unit`, `wind_speed_unit`).\n- `--units` and `--no-cache` must work "
        "before and after the subcommand.\n\n"
        "## Progress\n### Done\n- [x] `api.py`: `UNIT_PARAMS`, `units` parameter, unit in cache keys\n"
        "- [x] `format.py`: `UNIT_LABELS`, `_width()` ignores ANSI codes (table misaligned in a "
        "TTY), unit-aware colour `THRESHOLDS`\n- [x] `cli.py`: `_common()` parent parser for "
        "`--units`/`--no-cache`, `_days()` validates `--days` 1..16\n- [x] Tests: "
        "`tests/test_cli.py`, `tests/test_format_color.py`; 24 pass\n\n"
        "### In Progress\n- [ ] README.md update\n\n### Blocked\n- (none)\n\n"
        "## Key Decisions\n- **Unit in the cache key**: otherwise a cached metric response would be "
        "served for an imperial request.\n- **Validation in argparse**: consistent usage errors, "
        "exit status 2.\n\n"
        "## Next Steps\n1. Document `--units`, `--days` range and `--no-cache` in README.md.\n"
        "2. Commit.\n\n"
        "## Critical Context\n- Global options may come before or after the subcommand.",
        kept,
    )
    s.user("Now update the README.", think=(20, 40))
    s.step(tools=[read("README.md")])
    s.step(
        tools=[
            edit(
                "README.md",
                (
                    "$ weather forecast lisbon --days 3\n```\n",
                    "$ weather forecast lisbon --days 3\n$ weather now 'New York' --units imperial\n"
                    "New York: 41.2°F, wind 9.8 mph, partly cloudy\n```\n\n"
                    "Options (before or after the command):\n\n"
                    "- `--units metric|imperial`: °C and km/h (default) or °F and mph\n"
                    "- `--no-cache`: always ask the API (the response is still cached)\n"
                    "- `forecast --days N`: 1 to 16 days (default 3)\n\n"
                    "`weather cache clear` removes every cached response.\n",
                ),
            )
        ]
    )
    s.say("README updated with an imperial example and the three options.")
    s.user("commit", think=(10, 20))
    s.step(
        tools=[
            bash(
                "git add -A && git commit -q -m 'Add --units imperial, validate --days, fix table alignment with colours' && git log --oneline -1",
                "9ac41e2 Add --units imperial, validate --days, fix table alignment with colours",
                duration=0.3,
            )
        ]
    )
    s.say("Committed as `9ac41e2`.")
    s.screenshot = screenshot
    expect = {"branch_points": 0, "labels": {}, "name": None}
    return s, expect


# ==================================================================================================
# 4. shortlinks: non-ASCII slugs (custom entries, branch summary, compaction with retainedTail)


def session_slugs() -> tuple[Session, dict]:
    s = Session(seed=104, cwd=SHORTLINKS_CWD, start="2026-03-18T10:02:44.871Z", files=dict(SHORTLINKS))
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("low")
    s.user(
        'POST /api/links returns a 500 when the slug has non-ASCII characters, e.g. {"url": '
        '"https://example.org/tokyo", "slug": "東京-guide"}. I\'d expect a 400, or for it to just '
        "work. Can you look?",
        think=(30, 60),
    )
    s.custom_message(
        "git-context",
        "Branch: main (up to date with origin/main)\nLast commit: 61d0b2e Add /healthz\nWorking tree clean",
        True,
        {"branch": "main", "ahead": 0, "behind": 0, "dirty": False},
    )
    s.step(
        thinking="Slug validation is in slugs.py; the 500 probably comes from somewhere after validation.",
        tools=[read("shortlinks/slugs.py"), read("shortlinks/app.py")],
    )
    repro = s.step(
        "`is_valid()` uses `str.isalnum()`, which is true for any Unicode letter — so `東京-guide` "
        "passes validation. Let me reproduce the 500.",
        tools=[
            bash(
                "uv run flask --app shortlinks.app run --port 5055 >/tmp/flask.log 2>&1 & sleep 1; "
                "curl -s -i -X POST localhost:5055/api/links -H 'content-type: application/json' "
                '-d \'{"url":"https://example.org/tokyo","slug":"東京-guide"}\'; kill %1; tail -n 5 /tmp/flask.log',
                "HTTP/1.1 500 INTERNAL SERVER ERROR\nServer: Werkzeug/3.1.3 Python/3.12.9\n"
                "Date: Wed, 18 Mar 2026 10:04:12 GMT\nContent-Type: text/html; charset=utf-8\n"
                "Content-Length: 265\nConnection: close\n\n"
                "<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n"
                "<h1>Internal Server Error</h1>\n<p>The server encountered an internal error and was "
                "unable to complete your request. Either the server is overloaded or there is an error "
                "in the application.</p>\n"
                '  File "/home/user/projects/shortlinks/.venv/lib/python3.12/site-packages/werkzeug/serving.py", line 283, in write\n'
                "    self.send_header(key, value)\n"
                '  File "/usr/lib/python3.12/http/server.py", line 532, in send_header\n'
                "    (\"%s: %s\\r\\n\" % (keyword, value)).encode('latin-1', 'strict'))\n"
                "UnicodeEncodeError: 'latin-1' codec can't encode characters in position 10-11: ordinal not in range(256)",
                duration=2.4,
            )
        ],
    )[0]
    s.step(
        "The link is stored, then the response fails: `Location: /東京-guide` can't be encoded, "
        "because HTTP header values are Latin-1. Two ways out: percent-encode the slug in headers "
        "(keep Unicode slugs), or only allow ASCII slugs. I'll try percent-encoding first, since it "
        "keeps the feature.",
        tools=[
            edit(
                "shortlinks/app.py",
                (
                    "from flask import Flask, abort, jsonify, redirect, request\n",
                    "from urllib.parse import quote\n\nfrom flask import Flask, abort, jsonify, redirect, request\n",
                ),
                (
                    '        resp.headers["Location"] = f"/{slug}"\n',
                    '        resp.headers["Location"] = "/" + quote(slug, safe="")\n',
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q && uv run flask --app shortlinks.app run --port 5055 >/dev/null 2>&1 & sleep 1; "
                "curl -s -o /dev/null -D - -X POST localhost:5055/api/links -H 'content-type: application/json' "
                '-d \'{"url":"https://example.org/tokyo","slug":"東京-guide-2"}\' | head -n 1; '
                "curl -s -o /dev/null -w '%{http_code} %{redirect_url}\\n' localhost:5055/%E6%9D%B1%E4%BA%AC-guide-2; kill %1",
                pytest_quiet("." * 8, "8 passed in 0.22s") + "\nHTTP/1.1 201 CREATED\n302 https://example.org/tokyo",
                duration=3.1,
            )
        ]
    )
    s.say(
        "With percent-encoding, creating `東京-guide-2` returns 201 with `Location: "
        "/%E6%9D%B1%E4%BA%AC-guide-2`, and following that URL redirects correctly (Flask decodes "
        "the path). All 8 tests pass.\n\nOne caveat: `東京-guide` and visually identical slugs in other "
        "scripts or normalisation forms (NFC vs NFD) are different keys in the database."
    )
    s.branch_summary(
        repro,
        "## Goal\nFix the 500 on POST /api/links for non-ASCII slugs.\n\n"
        "## Progress\n### Done\n- [x] Root cause: `slugs.is_valid()` accepts any Unicode letter "
        "(`str.isalnum()`); the `Location` header `/東京-guide` is not Latin-1 encodable → "
        "UnicodeEncodeError in http.server.\n- [x] Tried percent-encoding the slug in the Location "
        "header with `urllib.parse.quote` in `shortlinks/app.py`: 201 and redirects worked, 8 tests "
        "passed.\n\n## Key Decisions\n- Abandoned: Unicode slugs raise homoglyph and normalisation "
        "problems (NFC vs NFD are different keys).\n\n## Critical Context\n- The `quote()` edit is "
        "still in `shortlinks/app.py`.",
    )
    s.user(
        "Let's not support Unicode slugs at all (homoglyphs, normalisation…). Allow a-z, 0-9 and '-', "
        "return 400 with a clear error otherwise. Revert the quote() change in app.py.",
        think=(30, 60),
    )
    s.custom(
        "todo",
        {
            "items": [
                {"text": "ASCII-only slugs + 400", "done": False},
                {"text": "revert quote() in app.py", "done": False},
                {"text": "tests for rejected slugs", "done": False},
            ]
        },
    )
    s.step(
        thinking="Regex ^[a-z0-9]+(?:-[a-z0-9]+)*$, length 3..32. Error message should say what is allowed.",
        tools=[
            edit(
                "shortlinks/slugs.py",
                ("import secrets\nimport string\n", "import re\nimport secrets\nimport string\n"),
                (
                    "ALPHABET = string.ascii_lowercase + string.digits\n",
                    'ALPHABET = string.ascii_lowercase + string.digits\nSLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")\nRULES = "3-32 characters: a-z, 0-9 and single dashes between them"\n',
                ),
                (
                    '    return 3 <= len(slug) <= 32 and all(c.isalnum() or c == "-" for c in slug)\n',
                    "    return 3 <= len(slug) <= 32 and SLUG_RE.fullmatch(slug) is not None\n",
                ),
            ),
            edit(
                "shortlinks/app.py",
                (
                    "from urllib.parse import quote\n\nfrom flask import Flask, abort, jsonify, redirect, request\n",
                    "from flask import Flask, abort, jsonify, redirect, request\n",
                ),
                (
                    '        resp.headers["Location"] = "/" + quote(slug, safe="")\n',
                    '        resp.headers["Location"] = f"/{slug}"\n',
                ),
                (
                    '            return jsonify(error="invalid slug"), 400\n',
                    '            return jsonify(error=f"invalid slug: {slugs.RULES}"), 400\n',
                ),
            ),
        ],
    )
    s.step(
        tools=[
            edit(
                "tests/test_api.py",
                ("def test_create_random_slug(client):", "import pytest\n\n\ndef test_create_random_slug(client):"),
                (
                    "def test_duplicate_slug(client):",
                    """@pytest.mark.parametrize("slug", ["東京-guide", "café", "ab", "a--b", "-lead", "ﬁle", "x" * 33])
def test_rejects_bad_slug(client, slug):
    resp = client.post("/api/links", json={"url": "https://example.org/", "slug": slug})
    assert resp.status_code == 400
    assert "a-z, 0-9" in resp.json["error"]


def test_duplicate_slug(client):""",
                ),
            )
        ]
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("." + "F" + "." * 13, "")[:-1]
                + """
=================================== FAILURES ===================================
____________________________ test_create_custom_slug ____________________________

client = <FlaskClient <Flask 'shortlinks.app'>>

    def test_create_custom_slug(client):
        resp = client.post("/api/links", json={"url": "https://example.org/sale", "slug": "Summer-Sale"})
>       assert resp.status_code == 201
E       assert 400 == 201
E        +  where 400 = <WrapperTestResponse 68 bytes [400 BAD REQUEST]>.status_code

tests/test_api.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_api.py::test_create_custom_slug - assert 400 == 201
1 failed, 14 passed in 0.27s""",
                exit_code=1,
                duration=2.0,
            )
        ]
    )
    s.say(
        "The new rejections all work, but an existing test creates `Summer-Sale`, which has "
        "uppercase letters and is now a 400.\n\nShould slugs be case-insensitive (lowercased on "
        "create and on lookup), or should uppercase be rejected?"
    )
    kept = s.user("Lowercase them on create, and make lookups case-insensitive too.", think=(15, 30))
    s.step(
        "Normalising in one place (`slugs.normalize`) and using it on create and lookup:",
        tools=[
            edit(
                "shortlinks/slugs.py",
                (
                    "def is_valid(slug: str) -> bool:",
                    'def normalize(slug: str) -> str:\n    """Slugs are case-insensitive: store and look them up lowercased."""\n    return slug.strip().lower()\n\n\ndef is_valid(slug: str) -> bool:',
                ),
            ),
            edit(
                "shortlinks/app.py",
                (
                    '        slug = body.get("slug") or slugs.random_slug()\n',
                    '        slug = slugs.normalize(body.get("slug") or "") or slugs.random_slug()\n',
                ),
                (
                    "    def follow(slug: str):\n        link = db.get_link(slug)\n",
                    "    def follow(slug: str):\n        slug = slugs.normalize(slug)\n        link = db.get_link(slug)\n",
                ),
                (
                    "        return jsonify(slug=slug, hits=db.hit_count(slug))\n",
                    "        slug = slugs.normalize(slug)\n        return jsonify(slug=slug, hits=db.hit_count(slug))\n",
                ),
            ),
            edit(
                "tests/test_api.py",
                (
                    '    assert resp.headers["Location"] == "/Summer-Sale"\n',
                    '    assert resp.headers["Location"] == "/summer-sale"\n    assert client.get("/SUMMER-sale").status_code == 302\n',
                ),
            ),
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 15, "15 passed in 0.25s"), duration=2.0)])
    s.say(
        "Done:\n\n- `slugs.is_valid()`: 3–32 characters, `a-z`, `0-9` and single dashes between "
        "them; the 400 error says so.\n- `slugs.normalize()` lowercases on create, redirect and "
        "stats, so `/SUMMER-sale` finds `summer-sale`.\n- `quote()` is reverted.\n- New parametrised "
        "test for rejected slugs (including `ﬁle` with the U+FB01 ligature). 15 tests pass."
    )
    s.custom(
        "todo",
        {
            "items": [
                {"text": "ASCII-only slugs + 400", "done": True},
                {"text": "revert quote() in app.py", "done": True},
                {"text": "tests for rejected slugs", "done": True},
            ]
        },
    )
    s.compaction(
        "## Goal\nPOST /api/links returned 500 for non-ASCII slugs such as `東京-guide`; make invalid "
        "slugs a clear 400.\n\n"
        "## Constraints & Preferences\n- No Unicode slugs (homoglyphs, normalisation).\n- Slugs are "
        "case-insensitive: lowercase on create and lookup.\n\n"
        "## Progress\n### Done\n- [x] `shortlinks/slugs.py`: `SLUG_RE`, `RULES`, `normalize()`; "
        "`is_valid()` ASCII-only\n- [x] `shortlinks/app.py`: normalised slugs in create/follow/stats, "
        "400 message with the rules; percent-encoding attempt reverted\n- [x] `tests/test_api.py`: "
        "rejected slugs; `Summer-Sale` → `summer-sale`; 15 tests pass\n\n"
        "### In Progress\n- (none)\n\n### Blocked\n- (none)\n\n"
        "## Key Decisions\n- **ASCII-only slugs**: the 500 came from a non-Latin-1 `Location` "
        "header; percent-encoding worked but was dropped.\n\n"
        "## Next Steps\n1. Existing links with uppercase slugs in production databases can't be "
        "found any more — check whether any exist.\n\n"
        "## Critical Context\n- Werkzeug 3.1.3, Python 3.12.",
        kept,
        retained_tail=True,
        with_usage=True,
    )
    s.user(
        "Good point about existing links. Write a one-off check that lists slugs in the db that "
        "would be unreachable now (uppercase or invalid).",
        think=(40, 70),
    )
    s.custom_message(
        "git-context",
        [
            {
                "type": "text",
                "text": "Branch: main\nUncommitted: shortlinks/app.py, shortlinks/slugs.py, tests/test_api.py",
            }
        ],
        False,
    )
    s.step(
        thinking="A script under scripts/ that opens the db read-only and prints slugs where "
        "normalize(slug) != slug or not is_valid(slug).",
        tools=[
            write(
                "scripts/check_slugs.py",
                '''"""List links whose slugs can no longer be reached after the slug rules changed.

usage: uv run python scripts/check_slugs.py [shortlinks.sqlite3]
"""

import sqlite3
import sys

from shortlinks import slugs


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "shortlinks.sqlite3"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    bad = 0
    for slug, url in db.execute("select slug, url from links order by slug"):
        if slugs.normalize(slug) != slug or not slugs.is_valid(slug):
            print(f"{slug}\\t{url}")
            bad += 1
    print(f"{bad} unreachable link(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
''',
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run python scripts/check_slugs.py ~/srv/shortlinks/shortlinks.sqlite3",
                "Summer-Sale\thttps://shop.example.org/sale\nkonferenz-München\thttps://example.org/konferenz\n\n2 unreachable link(s)",
                exit_code=1,
                duration=0.5,
            )
        ]
    )
    s.say(
        "Two links in the production copy are affected:\n\n| slug | problem |\n|---|---|\n"
        "| `Summer-Sale` | uppercase (reachable as `summer-sale` only after renaming it) |\n"
        "| `konferenz-München` | non-ASCII `ü` |\n\nI'd rename them in the database (`update links "
        "set slug = 'summer-sale' …`) and tell whoever shared the second one. Want a migration for "
        "that, or will you do it by hand?"
    )
    s.user("By hand is fine, thanks.", think=(20, 40))
    s.session_info("Non-ASCII slugs → 400")
    expect = {"branch_points": 1, "labels": {}, "name": "Non-ASCII slugs → 400"}
    return s, expect


# ==================================================================================================
# 5. shortlinks: rate limiter docs (linear, error stop, rename)


def session_ratelimit(files: dict[str, str]) -> tuple[Session, dict]:
    s = Session(seed=105, cwd=SHORTLINKS_CWD, start="2026-03-19T16:20:09.552Z", files=dict(files))
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("off")
    s.user("How does the rate limiter work? I wrote it a year ago and don't remember the details.", think=(15, 30))
    s.step(tools=[grep("ratelimit|RateLimiter|RATE_LIMIT", path="shortlinks")])
    s.step(tools=[read("shortlinks/ratelimit.py")])
    s.say(
        "It's a **token bucket per client**, in memory:\n\n"
        "- `RATE_LIMIT` (default `30/minute`) is parsed by `parse_rate()` into a refill rate (0.5 "
        "tokens/s) and a burst size (30).\n"
        "- Each client starts with a full bucket. Every POST takes one token; tokens refill "
        "continuously at the rate, up to the burst size (`allow()`).\n"
        "- Only **POST** requests are limited (`_limit` returns early for everything else), so "
        "redirects are never throttled.\n"
        "- The client is `request.remote_addr`, or the first `X-Forwarded-For` address when "
        "`TRUST_PROXY` is on.\n"
        '- When empty: **429** with JSON `{"error": "rate limit exceeded", "retry_after": 1.7}` '
        "and a `Retry-After` header (whole seconds, at least 1).\n\n"
        "Caveats: buckets live in one process (with several gunicorn workers each has its own), "
        "and the dict of buckets never shrinks. It uses `time.monotonic()`, which is right here "
        "because nothing is persisted."
    )
    s.session_info("rate limiter")
    s.user("Write that up as docs/rate-limiting.md, with the config knobs and an example 429 response.", think=(20, 40))
    s.assistant(
        stop="error",
        error='529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}',
        zero_usage=True,
    )
    s.thinking_level("low")
    s.user("try again", think=(30, 60))
    s.step(
        thinking="Need the exact env var names: config.py.",
        tools=[read("shortlinks/config.py")],
    )
    doc = """# Rate limiting

shortlinks limits how fast one client can **create** links. Following a link (`GET /<slug>`) is
never limited.

## How it works

Each client has a token bucket. A `POST` takes one token; tokens come back continuously at the
configured rate, up to the burst size. A client that waited long enough can therefore make a short
burst of requests, and a steady stream is held to the rate.

The client is identified by its IP address (`request.remote_addr`). Behind a reverse proxy, set
`SHORTLINKS_TRUST_PROXY=1` to use the first address in `X-Forwarded-For` instead — only if the
proxy overwrites that header, or clients can choose their own identity.

## Configuration

| variable | default | meaning |
|---|---|---|
| `SHORTLINKS_RATE_LIMIT` | `30/minute` | `<count>/<second\\|minute\\|hour>`: the burst size is `count`, the refill rate `count` per period |
| `SHORTLINKS_TRUST_PROXY` | `0` | `1`: identify clients by `X-Forwarded-For` |

## When the limit is hit

```
HTTP/1.1 429 TOO MANY REQUESTS
Content-Type: application/json
Retry-After: 2

{"error": "rate limit exceeded", "retry_after": 1.7}
```

`retry_after` is the time in seconds until the next token; the `Retry-After` header is the same
value rounded, at least 1.

## Limits of this design

- Buckets are kept in memory, per process: with `gunicorn -w 4`, each worker has its own buckets,
  so the effective limit is four times higher. Use one worker or put the limit in the proxy.
- Buckets of clients that went away are never removed; memory grows with the number of distinct
  clients since the last restart.
"""
    s.step(tools=[write("docs/rate-limiting.md", doc)])
    s.say(
        "Wrote `docs/rate-limiting.md`: how the bucket works, both environment variables, an "
        "example 429 with `Retry-After`, and the two limitations (per-process buckets, no cleanup)."
    )
    s.session_info("Docs: rate limiting")
    s.user("Link it from the README.", think=(15, 30))
    s.step(
        tools=[
            edit(
                "README.md",
                (
                    "`DATABASE` (path of the SQLite file) and `RATE_LIMIT` (e.g. `30/minute`), see `shortlinks/config.py`.\n",
                    "`DATABASE` (path of the SQLite file) and `RATE_LIMIT` (e.g. `30/minute`), see `shortlinks/config.py`.\n"
                    "How the rate limit works, and its limits: [docs/rate-limiting.md](docs/rate-limiting.md).\n",
                ),
            )
        ]
    )
    s.say("Linked from the Configuration section of README.md.")
    expect = {"branch_points": 0, "labels": {}, "name": "Docs: rate limiting"}
    return s, expect


# ==================================================================================================
# 6. shortlinks: Dockerfile (isError, ! and !!, name set then cleared)


def session_docker(files: dict[str, str]) -> tuple[Session, dict]:
    s = Session(seed=106, cwd=SHORTLINKS_CWD, start="2026-03-20T11:07:31.090Z", files=dict(files))
    s.model_change("anthropic", "claude-opus-4-5")
    s.thinking_level("medium")
    s.user(
        "Add a Dockerfile (python:3.12-slim, gunicorn, non-root user) and a compose.yaml that keeps "
        "the SQLite database in a volume.",
        think=(25, 50),
    )
    s.step(thinking="Check dependencies and the app factory name for gunicorn.", tools=[read("pyproject.toml")])
    s.step(
        "gunicorn is already a dependency. Writing both files.",
        thinking="uv for installs (fast, uses the lock file). App: shortlinks.app:create_app(). "
        "Database path via SHORTLINKS_DATABASE=/data/shortlinks.sqlite3 and a named volume on /data. "
        "One worker, because the rate limiter is per process.",
        tools=[
            write(
                "Dockerfile",
                """FROM python:3.12-slim

COPY --from=ghcr.io/astral-sh/uv:0.6 /uv /usr/local/bin/uv
WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project
COPY shortlinks ./shortlinks
RUN uv sync --frozen --no-dev

RUN useradd --system --uid 10001 app && mkdir /data && chown app /data
USER app
ENV SHORTLINKS_DATABASE=/data/shortlinks.sqlite3 PATH="/app/.venv/bin:$PATH"
EXPOSE 8000
# One worker: the rate limiter keeps its buckets in process memory.
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--workers", "1", "--threads", "4", "shortlinks.app:create_app()"]
""",
            ),
            write(
                "compose.yaml",
                """services:
  shortlinks:
    build: .
    ports:
      - "8000:8000"
    environment:
      SHORTLINKS_RATE_LIMIT: 30/minute
    volumes:
      - data:/data
    restart: unless-stopped

volumes:
  data:
""",
            ),
        ],
    )
    s.step(
        tools=[
            bash(
                "docker compose build",
                "Cannot connect to the Docker daemon at unix:///run/user/1000/docker.sock. Is the docker daemon running?",
                exit_code=1,
                duration=0.3,
            )
        ]
    )
    s.say(
        "The Docker daemon isn't running (this is a rootless setup: the socket is "
        "`/run/user/1000/docker.sock`). Start it with `systemctl --user start docker` and I'll build "
        "again."
    )
    s.session_info("wip docker")
    s.bash_execution(
        "systemctl --user start docker && docker info --format '{{.ServerVersion}}'", "28.0.1\n", duration=2.8
    )
    s.user("started, try again", think=(5, 15))
    s.step(
        tools=[
            bash(
                "docker compose build 2>&1 | tail -n 6",
                " => [stage-0 6/8] RUN uv sync --frozen --no-dev                                  0.9s\n"
                " => [stage-0 7/8] RUN useradd --system --uid 10001 app && mkdir /data && chown app  0.4s\n"
                " => [stage-0 8/8] exporting to image                                              0.6s\n"
                " => => writing image sha256:5be1c8a0e4b3f2d71c0a9e6f3d28b4c7a1e0f9d2b6c5a4e3d2f1a0b9c8d7e6f5  0.0s\n"
                " => => naming to docker.io/library/shortlinks-shortlinks                          0.0s\n"
                " => [shortlinks] resolving provenance for metadata file                           0.0s",
                duration=38.5,
                timeout=600,
            )
        ]
    )
    s.step(
        tools=[
            bash(
                "docker compose up -d && sleep 2 && curl -s localhost:8000/healthz && "
                'curl -s -X POST localhost:8000/api/links -H \'content-type: application/json\' -d \'{"url":"https://example.org","slug":"docker-test"}\'',
                ' Network shortlinks_default  Created\n Volume "shortlinks_data"  Created\n'
                " Container shortlinks-shortlinks-1  Started\n"
                '{"status":"ok"}\n{"slug":"docker-test","url":"https://example.org"}',
                duration=4.2,
            )
        ]
    )
    s.bash_execution(
        "docker compose logs --tail 3",
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)\n"
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [1] [INFO] Using worker: gthread\n"
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [7] [INFO] Booting worker with pid: 7\n",
        exclude=True,
        duration=0.4,
    )
    s.say(
        "The image builds and the container serves requests: `/healthz` is ok and a link was "
        "created in the `shortlinks_data` volume. It runs as uid 10001 with one gunicorn worker (4 "
        "threads), since the rate limiter is per process."
    )
    s.session_info("")
    expect = {"branch_points": 0, "labels": {}, "name": None}
    return s, expect


# ==================================================================================================


def build() -> list[tuple[str, Session, dict]]:
    cache, cache_expect = session_cache()
    forked, fork_expect = session_fork(cache)
    units, units_expect = session_units(forked.files)
    slugs_, slugs_expect = session_slugs()
    rl, rl_expect = session_ratelimit(slugs_.files)
    docker, docker_expect = session_docker(rl.files)
    return [
        ("cache", cache, cache_expect),
        ("fork", forked, fork_expect),
        ("units", units, units_expect),
        ("slugs", slugs_, slugs_expect),
        ("ratelimit", rl, rl_expect),
        ("docker", docker, docker_expect),
    ]


def write_all(sessions: list[tuple[str, Session, dict]]) -> list[Path]:
    out = DEMO / "sessions"
    if out.exists():
        shutil.rmtree(out)
    paths = []
    for _key, s, _ in sessions:
        p = DEMO / rel_path(s)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(s.to_bytes())
        paths.append(p)
    return paths


# ---- checking with pi's own SessionManager ------------------------------------------------------


def expected_tree(s: Session) -> dict:
    children: dict[str, list[str]] = {}
    roots = []
    for e in s.entries:
        if e["parentId"] is None or e["parentId"] not in s.by_id:
            roots.append(e["id"])
        else:
            children.setdefault(e["parentId"], []).append(e["id"])
    # Timestamps grow in file order in these files, except label chains in a fork.
    for k, v in children.items():
        children[k] = sorted(v, key=lambda i: s.by_id[i]["timestamp"])
    return {"roots": roots, "children": children}


def newer_context_roles(s: Session) -> list[str]:
    """Context roles by the newer rule (format reference §4.4): a compaction with retainedTail is a
    self-contained checkpoint."""
    path = s.path()
    comp = max((i for i, e in enumerate(path) if e["type"] == "compaction"), default=None)

    def roles(e: dict) -> list[str]:
        if e["type"] == "message":
            return [e["message"]["role"]]
        if e["type"] == "custom_message":
            return ["custom"]
        if e["type"] == "branch_summary" and e["summary"]:
            return ["branchSummary"]
        if e["type"] == "compaction":
            return ["compactionSummary"] + [m["role"] for m in e.get("retainedTail") or []]
        return []

    if comp is None:
        return [r for e in path for r in roles(e)]
    c = path[comp]
    if "retainedTail" in c:
        selected = [c, *path[comp + 1 :]]
    else:
        ids = [e["id"] for e in path[:comp]]
        start = ids.index(c["firstKeptEntryId"]) if c.get("firstKeptEntryId") in ids else comp
        selected = [c, *path[start:comp], *path[comp + 1 :]]
    out = []
    for e in selected:
        out += roles(e) if e is c or e["type"] != "compaction" else []
    return out


def check(sessions: list[tuple[str, Session, dict]], paths: list[Path]) -> bool:
    oracle = pi_oracle()
    ok = True
    for (key, s, exp), path in zip(sessions, paths, strict=True):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / path.name
            shutil.copy(path, copy)
            res = subprocess.run(
                ["timeout", "20", "node", oracle, "open", str(copy)], capture_output=True, text=True, check=False
            )
        if res.returncode != 0:
            print(f"{key}: oracle failed: {res.stderr.strip()[:500]}")
            ok = False
            continue
        got = json.loads(res.stdout)
        problems = []
        if got["header"] != s.header:
            problems.append("header")
        if [e[0] for e in got["entryIds"]] != [e["id"] for e in s.entries]:
            problems.append("entry ids")
        if got["leafId"] != s.entries[-1]["id"]:
            problems.append(f"leaf {got['leafId']}")
        if got["branch"] != [e["id"] for e in s.path()]:
            problems.append("branch")
        if got["tree"] != expected_tree(s):
            problems.append("tree")
        if got["labels"] != exp["labels"] or got["labels"] != s.labels:
            problems.append(f"labels {got['labels']}")
        if got["name"] != exp["name"] or got["name"] != s.name:
            problems.append(f"name {got['name']!r}")
        points = sum(1 for v in got["tree"]["children"].values() if len(v) > 1)
        if points != exp["branch_points"]:
            problems.append(f"branch points {points}")
        roles = [m["role"] for m in got["context"]["messages"]]
        if roles != newer_context_roles(s):
            problems.append("context differs from the newer (retainedTail) rule")
        print(
            f"{key:9} {len(s.entries):3} entries, leaf {got['leafId']}, path {len(got['branch'])}, "
            f"branch points {points}, labels {got['labels']}, name {got['name']!r}, "
            f"context {len(roles)} messages ({', '.join(sorted(set(roles)))}), model "
            f"{got['context']['model']['modelId']}, thinking {got['context']['thinkingLevel']}"
        )
        for p in problems:
            print(f"  MISMATCH: {p}")
        ok = ok and not problems
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="load every file with pi's SessionManager")
    args = ap.parse_args()
    sessions = build()
    paths = write_all(sessions)
    for p in paths:
        print(p.relative_to(ROOT))
    if args.check:
        return 0 if check(sessions, paths) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
