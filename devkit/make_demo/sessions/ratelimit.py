"""Session 5, shortlinks: the rate limiter's docs (linear, an error stop, a rename)."""

from __future__ import annotations

from devkit.make_demo.sessions import SHORTLINKS_CWD, data, scripted_session
from devkit.simulator import Session
from devkit.tool_calls import edit, grep, read, write


def build(files: dict[str, str]) -> tuple[Session, dict]:
    s = scripted_session(105, SHORTLINKS_CWD, "2026-03-19T16:20:09.552Z", "anthropic/claude-sonnet-4-5", "off", files)
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
    doc = data("ratelimit", "rate-limiting.md")
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
                    "`DATABASE` (path of the SQLite file) and `RATE_LIMIT` (e.g. `30/minute`), "
                    "see `shortlinks/config.py`.\n",
                    "`DATABASE` (path of the SQLite file) and `RATE_LIMIT` (e.g. `30/minute`), "
                    "see `shortlinks/config.py`.\n"
                    "How the rate limit works, and its limits: [docs/rate-limiting.md](docs/rate-limiting.md).\n",
                ),
            )
        ]
    )
    s.say("Linked from the Configuration section of README.md.")
    s.cache_warm()
    s.cache_warm()
    expect = {"branch_points": 0, "labels": {}, "name": "Docs: rate limiting"}
    return s, expect
