"""Command line entry point: ``weather now CITY`` and ``weather forecast CITY``."""

from __future__ import annotations

import argparse
import sys

from . import api, format


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="weather", description="Weather in your terminal.")
    sub = parser.add_subparsers(dest="command", required=True)

    now = sub.add_parser("now", help="current conditions")
    now.add_argument("city")

    fc = sub.add_parser("forecast", help="daily forecast")
    fc.add_argument("city")
    fc.add_argument("--days", type=int, default=3)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "now":
            print(format.current(api.current(args.city)))
        else:
            print(format.forecast_table(api.forecast(args.city, days=args.days)))
    except api.CityNotFound as exc:
        print(f"weather: no such city: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
