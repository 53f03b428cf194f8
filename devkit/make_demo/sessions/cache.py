"""Session 1, weatherapp: the cache never expires after a reboot (three branches, labels)."""

from __future__ import annotations

from devkit.make_demo.sessions import WEATHERAPP_CWD, data, scripted_session
from devkit.simulator import Session
from devkit.tool_calls import bash, edit, grep, pytest_quiet, read, write


def build() -> tuple[Session, dict]:
    s = scripted_session(101, WEATHERAPP_CWD, "2026-03-16T08:41:17.303Z", "anthropic/claude-opus-4-5", "high")
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
    test_v1 = data("cache", "test_cache_reboot-v1.py")
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
                pytest_quiet("F", data("cache", "pytest-reboot-fails.txt")),
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
        data("cache", "branch-a-summary.md"),
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
                    data("cache", "cache-get.old.py"),
                    data("cache", "cache-get.new.py"),
                ),
                (
                    '    entry = {"fetched_at": time.time(), "data": data}',
                    '    entry = {"fetched_at": _now().isoformat(), "data": data}',
                ),
            )
        ],
    )[0]
    test_v2 = data("cache", "test_cache_reboot-v2.py")
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
                data("cache", "weather-now-and-cache-file.txt"),
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
