def _width(text: str) -> int:
    """Columns a cell takes on screen: escape codes take none."""
    return len(ANSI.sub("", text))


def current(data: dict