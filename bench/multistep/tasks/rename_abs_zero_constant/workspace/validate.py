"""Input checks for temperatures."""
from convert import ABS_ZERO_C, f_to_c


def check_celsius(value):
    """Return value, or raise ValueError if it is below absolute zero."""
    if value < ABS_ZERO_C:
        raise ValueError(f"{value} C is below absolute zero")
    return value


def check_fahrenheit(value):
    if f_to_c(value) < ABS_ZERO_C:
        raise ValueError(f"{value} F is below absolute zero")
    return value


def parse_reading(text):
    """'21.5C' or '70F' -> temperature in Celsius."""
    text = text.strip().upper()
    number, unit = float(text[:-1]), text[-1]
    if unit == "F":
        return f_to_c(check_fahrenheit(number))
    if unit == "C":
        return check_celsius(number)
    raise ValueError(f"unknown unit {unit!r}")
