THRESHOLDS = {"metric": (5, 25), "imperial": (41, 77)}  # cold below, hot from


def _color(text: str, temp: float, units: str = "metric") -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    cold, hot = THRESHOLDS[units]
    code = 34 if temp < cold else 33 if temp < hot else 31