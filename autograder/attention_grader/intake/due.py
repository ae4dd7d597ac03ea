"""Due dates: read in the course's time zone, refused with the accepted formats, echoed at release.

``make release A=... DUE="2026-12-07 17:00"`` means 17:00 where the course is, not UTC:
:class:`CourseTime` holds the course's time zone (``c.CourseTime.timezone`` in
``nbgrader_config.py``). A due date may name another zone or an offset; a date without a time,
or words (``"next friday"``), is refused with the formats that work. nbgrader stores due dates
as naive UTC; :func:`parse_due` returns an aware datetime and :func:`describe_due` says it in
the course's zone and in UTC, as release prints it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from traitlets import Bunch, TraitError, Unicode, validate
from traitlets.config import Configurable

__all__ = [
    "ACCEPTED_FORMATS",
    "CourseTime",
    "DueDateError",
    "describe_due",
    "parse_due",
    "zone_named",
]

#: What a teacher may write, shown in every refusal.
ACCEPTED_FORMATS = (
    '"2026-12-07 17:00" (in the course\'s time zone), "2026-12-07 17:00 Asia/Kolkata", '
    '"2026-12-07 17:00 +05:30", "2026-12-07T17:00:00Z"'
)

_DUE = re.compile(
    r"^\s*(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{1,2}:\d{2}(?::\d{2})?)"
    r"\s*(?P<zone>Z|UTC|[+-]\d{2}:?\d{2}|[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*)?\s*$"
)
_OFFSET = re.compile(r"^(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2})$")


class DueDateError(ValueError):
    """A due date that cannot be read; the message lists the accepted formats."""


def zone_named(name: str) -> tzinfo:
    """Return the zone of an IANA name (``Asia/Kolkata``), ``UTC``/``Z`` or ``+05:30``."""
    if name in ("Z", "UTC"):
        return UTC
    offset = _OFFSET.match(name)
    if offset:
        minutes = int(offset["h"]) * 60 + int(offset["m"])
        return timezone(timedelta(minutes=-minutes if offset["sign"] == "-" else minutes))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise DueDateError(
            f"unknown time zone {name!r}: use an IANA name such as Europe/Berlin or "
            "Asia/Kolkata, or an offset such as +05:30"
        ) from err


class CourseTime(Configurable):
    """The course's time zone: how due dates are read and shown."""

    timezone = Unicode(
        "UTC",
        help=(
            "The course's time zone, an IANA name (e.g. 'Asia/Kolkata', 'Europe/Berlin'). A due "
            'date given without a zone (make release DUE="2026-12-07 17:00") is read in it, '
            "and release prints the due date in it and in UTC."
        ),
    ).tag(config=True)

    @validate("timezone")
    def _known_zone(self, proposal: Bunch) -> str:
        try:
            zone_named(proposal["value"])
        except DueDateError as err:
            raise TraitError(f"CourseTime.timezone: {err}") from None
        return cast(str, proposal["value"])  # a Unicode trait's value, checked by it already

    @property
    def zone(self) -> tzinfo:
        return zone_named(self.timezone)


def parse_due(text: str, course_zone: tzinfo) -> datetime:
    """Read a due date; without a zone it is in ``course_zone``.

    Parameters
    ----------
    text : str
        One of :data:`ACCEPTED_FORMATS`.
    course_zone : tzinfo

    Returns
    -------
    datetime
        Aware.

    Raises
    ------
    DueDateError
        Words, a date without a time, an impossible date or an unknown zone; the message says
        which and lists the formats that work.
    """
    found = _DUE.match(text)
    if not found:
        hint = " (add the time: 17:00)" if re.fullmatch(r"\s*\d{4}-\d{2}-\d{2}\s*", text) else ""
        raise DueDateError(
            f"cannot read the due date {text!r}{hint}. Write it as one of: {ACCEPTED_FORMATS}"
        )
    seconds = found["time"] if found["time"].count(":") == 2 else found["time"] + ":00"
    try:
        naive = datetime.fromisoformat(f"{found['date']} {seconds:0>8}")
    except ValueError as err:
        raise DueDateError(f"the due date {text!r} is not a real date or time ({err})") from None
    zone = zone_named(found["zone"]) if found["zone"] else course_zone
    return naive.replace(tzinfo=zone)


def _in_zone(due: datetime, zone: tzinfo) -> str:
    local = due.astimezone(zone)
    name = getattr(zone, "key", None)
    return f"{local:%Y-%m-%d %H:%M} {local:%Z}" + (f" ({name})" if name and name != "UTC" else "")


def describe_due(due: datetime, course_zone: tzinfo, written_zone: tzinfo | None = None) -> str:
    """Say ``due`` in the course's zone, the zone the teacher wrote (if another) and UTC.

    ``"2026-12-07 17:00 IST (Asia/Kolkata) = 2026-12-07 11:30 UTC"``; a teacher who wrote
    ``Asia/Kolkata`` in a UTC course reads ``"2026-12-07 11:30 UTC = 2026-12-07 17:00 IST
    (Asia/Kolkata)"``: each time once.
    """
    said = [_in_zone(due, zone) for zone in (course_zone, written_zone, UTC) if zone is not None]
    return " = ".join(dict.fromkeys(said))
