import re

from weatherapp import format

from test_format import DAILY


def test_columns_align_with_color(monkeypatch):
    monkeypatch.setattr(format.sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    lines = format.forecast_table(DAILY).splitlines()[1:]
    visible = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    assert "\x1b[" in lines[1]
    starts = {line.index(word) for line, word in zip(visible, ["conditions", "mainly", "light"])}
    assert len(starts) == 1
