"""Session 2, weatherapp: ``--units imperial``, a screenshot, a compaction with firstKeptEntryId."""

from __future__ import annotations

from devkit.make_demo.sessions import WEATHERAPP_CWD, data, scripted_session
from devkit.simulator import Session
from devkit.tool_calls import bash, edit, grep, pytest_quiet, read, tiny_png, write


def build(files: dict[str, str]) -> tuple[Session, dict]:
    """``files``: the project as the fork left it (both commits made)."""
    s = scripted_session(
        102, WEATHERAPP_CWD, "2026-03-17T13:58:02.114Z", "anthropic/claude-sonnet-4-5", "medium", files
    )
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
                    '            params={"latitude": lat, "longitude": lon, '
                    '"current": "temperature_2m,wind_speed_10m,weather_code"},\n',
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
                    data("units", "format-current.old.py"),
                    data("units", "format-current.new.py"),
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
                    "            print(format.forecast_table("
                    "api.forecast(args.city, days=args.days, units=args.units)))\n",
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("...........FF....", data("units", "pytest-units-fails.txt")),
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
                    data("units", "cli-parser.old.py"),
                    data("units", "cli-parser.new.py"),
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
                    data("units", "test_cli-units.new.py"),
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
                    data("units", "format-widths.old.py"),
                    data("units", "format-widths.new.py"),
                ),
                (
                    "def current(data: dict",
                    data("units", "format-width.new.py"),
                ),
            )
        ],
    )
    s.step(
        "A test that forces colour on, so this can't come back unnoticed:",
        tools=[
            write(
                "tests/test_format_color.py",
                data("units", "test_format_color.py"),
            )
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 21, "21 passed in 0.35s"), duration=2.3)])
    s.step(
        tools=[
            bash(
                "FORCE_TTY=1 script -qc 'uv run weather forecast \"Rio de Janeiro\" --days 2 --units imperial' "
                "/dev/null | cat -v",
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
                    data("units", "format-color.old.py"),
                    data("units", "format-color.new.py"),
                ),
                (
                    "def forecast_table(data: dict) -> str:",
                    'def forecast_table(data: dict, units: str = "metric") -> str:',
                ),
                (
                    '        rows.append((day, _color(f"{lo:.0f}°", lo), _color(f"{hi:.0f}°", hi), describe(code)))',
                    '        rows.append((day, _color(f"{lo:.0f}°", lo, units), '
                    '_color(f"{hi:.0f}°", hi, units), describe(code)))',
                ),
            ),
            edit(
                "src/weatherapp/cli.py",
                (
                    "            print(format.forecast_table("
                    "api.forecast(args.city, days=args.days, units=args.units)))\n",
                    "            print(format.forecast_table("
                    "api.forecast(args.city, days=args.days, units=args.units), args.units))\n",
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
                data("units", "days-30-traceback.txt"),
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
                    data("units", "cli-days.new.py"),
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
                    data("units", "test_cli-days.new.py"),
                ),
            )
        ]
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 24, "24 passed in 0.36s"), duration=2.3)])
    s.say("`--days` is checked by argparse now (1–16) and exits with status 2 and a clear message. 24 tests pass.")
    s.bash_execution(
        "git diff --stat",
        data("units", "git-diff-stat.txt"),
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
        data("units", "compaction-summary.md"),
        kept,
    )
    s.user("Now update the README.", think=(20, 40))
    (readme,) = s.step(tools=[read("README.md")])
    s.step(
        tools=[
            edit(
                "README.md",
                (
                    "$ weather forecast lisbon --days 3\n```\n",
                    data("units", "README-options.new.md"),
                ),
            )
        ]
    )
    s.say("README updated with an imperial example and the three options.")
    # pi 1.6: the README as read before the edit no longer needs to be in the model's context.
    s.context_edit(readme, {"content": [{"type": "text", "text": "(README.md before the edit: see the edit above)"}]})
    s.user("commit", think=(10, 20))
    s.step(
        tools=[
            bash(
                "git add -A && git commit -q "
                "-m 'Add --units imperial, validate --days, fix table alignment with colours' && git log --oneline -1",
                "9ac41e2 Add --units imperial, validate --days, fix table alignment with colours",
                duration=0.3,
            )
        ]
    )
    s.say("Committed as `9ac41e2`.")
    s.cache_warm()  # pi 1.6 keeps the prompt cache warm while the user is away
    s.screenshot = screenshot
    expect = {"branch_points": 0, "labels": {}, "name": None}
    return s, expect
