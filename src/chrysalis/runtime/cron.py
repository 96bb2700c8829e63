"""Cron expressions as ``chrysalis schedule add`` takes them: 5 fields, or 6 with seconds first.

DBOS fires schedules with croniter (``second_at_beginning=True``); this module only checks an
expression before it is stored, field by field, so a bad one is refused naming the field and what it
allows (croniter's own answer is a yes or a no).
"""

from __future__ import annotations

from chrysalis.errors import UsageError

__all__ = ["FIELDS", "check_cron"]

FIELDS = ("minute", "hour", "day of month", "month", "day of week")
"""The five fields of a cron expression; a sixth, ``second``, may come first."""
_ALLOWED = {
    "second": "0-59",
    "minute": "0-59",
    "hour": "0-23",
    "day of month": "1-31",
    "month": "1-12 or jan-dec",
    "day of week": "0-7 or sun-sat (0 and 7 are Sunday)",
}
_FORMS = "'*', a value, a range a-b, a step */n or a-b/n, or a list a,b"


def check_cron(text: str) -> str:
    """``text`` as a cron expression DBOS can fire, its fields separated by one space.

    Raises:
        UsageError: the wrong number of fields, or a field with a value it does not allow (named).
    """
    from croniter import croniter

    fields = text.split()
    if len(fields) not in (5, 6):
        raise UsageError(
            f"CRON {text!r} has {len(fields)} fields: give 5 ({' '.join(f.replace(' ', '-') for f in FIELDS)}) "
            "or 6 with seconds first, e.g. '0 9 * * 1-5' (9:00 on weekdays) or '*/2 * * * * *' (every 2 s)."
        )
    names = FIELDS if len(fields) == 5 else ("second", *FIELDS)
    for index, (name, value) in enumerate(zip(names, fields, strict=True)):
        probe = ["*"] * len(fields)
        probe[index] = value
        if not croniter.is_valid(" ".join(probe), second_at_beginning=True):
            raise UsageError(
                f"CRON {text!r}: the {name} field ({index + 1} of {len(fields)}) is {value!r}, which is not "
                f"allowed: use {_ALLOWED[name]}, as {_FORMS}."
            )
    expression = " ".join(fields)
    if not croniter.is_valid(expression, second_at_beginning=True):
        raise UsageError(f"CRON {text!r} is not a cron expression croniter accepts: check its fields together.")
    return expression
