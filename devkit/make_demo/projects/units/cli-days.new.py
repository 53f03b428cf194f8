def _days(value: str) -> int:
    n = int(value)
    if not 1 <= n <= 16:
        raise argparse.ArgumentTypeError("must be between 1 and 16")
    return n


def _common(defaults: bool)