@pytest.mark.parametrize("argv", [["--units", "imperial", "now", "x"], ["now", "x", "--units", "imperial"]])
def test_units_before_or_after_command(argv):
    assert cli.build_parser().parse_args(argv).units == "imperial"


def test_units_default():
    assert cli.build_parser().parse_args(["now", "x"]).units == "metric"


def test_requires_command():