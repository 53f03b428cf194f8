"""Session 3, weatherapp: a fork of session 1 ("Cache: clear command and --no-cache")."""

from __future__ import annotations

from devkit.make_demo.sessions import data, rel_path
from devkit.simulator import Session, fork
from devkit.tool_calls import bash, edit, pytest_quiet, read, write
from pitui.demo import AGENT_DIR_PLACEHOLDER


def build(parent: Session) -> tuple[Session, dict]:
    prompt = parent.by_id[parent.commit_prompt]
    s = fork(
        parent,
        prompt["parentId"],
        seed=103,
        start="2026-03-16T09:31:52.640Z",
        parent_session=f"{AGENT_DIR_PLACEHOLDER}/{rel_path(parent)}",
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
                    data("fork", "cache-clear.new.py"),
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
    test = data("fork", "test_cli_cache.py")
    s.step(tools=[write("tests/test_cli_cache.py", test)])
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("." * 16 + "F", data("fork", "pytest-singular-fails.txt")),
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
                'b81e07d cli: add "cache clear" and --no-cache\n'
                "4f2c9a1 cache: store fetched_at as an ISO-8601 UTC timestamp",
                duration=0.3,
            )
        ],
    )
    s.say("Committed as `b81e07d` on top of `4f2c9a1`. The working tree is clean.")
    s.session_info("Cache: clear command and --no-cache")
    expect = {"branch_points": 0, "labels": dict(s.labels), "name": "Cache: clear command and --no-cache"}
    return s, expect
