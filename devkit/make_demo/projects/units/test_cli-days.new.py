@pytest.mark.parametrize("days", ["0", "17", "-3"])
def test_days_out_of_range(days):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["forecast", "x", "--days", days])


def test_requires_command():