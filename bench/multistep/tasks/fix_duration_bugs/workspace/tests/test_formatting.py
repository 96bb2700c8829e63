from formatting import format_duration, timesheet


def test_format():
    assert format_duration(90) == "1h30m"
    assert format_duration(45) == "45m"


def test_timesheet():
    assert timesheet(["1h", "20m", "50m"]) == "2h10m"
