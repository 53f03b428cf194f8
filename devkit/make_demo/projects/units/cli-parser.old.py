def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="weather", description="Weather in your terminal.")
    parser.add_argument("--no-cache", action="store_true", help="bypass the response cache")
    parser.add_argument("--units", choices=["metric", "imperial"], default="metric")
    sub = parser.add_subparsers(dest="command", required=True)

    now = sub.add_parser("now", help="current conditions")
    now.add_argument("city")

    fc = sub.add_parser("forecast", help="daily forecast")