def _color(text: str, temp: float) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    code = 34 if temp < 5 else 33 if temp < 25 else 31