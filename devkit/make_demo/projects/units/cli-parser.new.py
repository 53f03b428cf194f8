def _common(defaults: bool) -> argparse.ArgumentParser:
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

    fc = sub.add_parser("forecast", help="daily forecast", parents=[common])