"""The due date a student's own server can read: published beside the released assignment.

The due date lives in the teacher's gradebook, which a student never reads. So release also
writes ``<exchange>/<course>/outbound/.due-<assignment>.json``: the due date (UTC), the course's
time zone and the late rule (:class:`~attention_grader.intake.late.SharePerDay`'s settings).
``outbound/`` is the one folder every student can read in every layout (a shared folder, or the
read-only mount of Kubernetes); nbgrader's list and fetch only look at its folders, and a dot
file is no folder, so nothing fetches or submits it. The student's clock
(:mod:`attention_grader.term.student_clock`) reads it and says the due date and how late a
hand-in is, in :func:`~attention_grader.intake.final_scores.how_late`'s words, before Submit.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from attention_grader.intake.due import describe_due, zone_named
from attention_grader.intake.final_scores import how_late

__all__ = ["DueNotice", "notice_path", "publish_notice", "read_notice"]

_MAX_BYTES = 4096  # a notice is a few lines; a bigger file is not one the teacher wrote


@dataclass(frozen=True)
class DueNotice:
    """One assignment's due date and late rule, as a student is told them.

    Attributes
    ----------
    due : datetime
        Aware, UTC.
    timezone : str
        The course's time zone (IANA name), in which the due date is said.
    grace_minutes, share_per_day, max_share : float
        The late rule (``c.SharePerDay``).
    """

    due: datetime
    timezone: str = "UTC"
    grace_minutes: float = 0.0
    share_per_day: float = 0.0
    max_share: float = 0.0

    def due_text(self) -> str:
        """``"2026-12-07 17:00 IST (Asia/Kolkata) = 2026-12-07 11:30 UTC"``."""
        return describe_due(self.due, zone_named(self.timezone))

    def seconds_late(self, at: datetime) -> float:
        """Seconds ``at`` (aware) is after the due date (negative: before it)."""
        return (at - self.due).total_seconds()

    def penalised(self, at: datetime) -> bool:
        """Whether a hand-in at ``at`` costs points (past the due date and the grace)."""
        return self.seconds_late(at) > 60 * self.grace_minutes and self.share_per_day > 0

    def lateness(self, at: datetime) -> str:
        """Say what a hand-in at ``at`` is: ``"on time"``, or ``"late by 1 h 5 min"`` and its cost."""
        late = self.seconds_late(at)
        if late <= 0:
            return "on time"
        said = f"late by {how_late(late)}"
        if not self.penalised(at):
            return f"{said}, within the {self.grace_minutes:g} min grace: no points off"
        days = math.ceil((late - 60 * self.grace_minutes) / 86400)
        share = min(self.max_share, self.share_per_day * days)
        return f"{said}: {share:.0%} of the score is taken off"

    def to_json(self) -> str:
        return json.dumps(
            {
                "due": self.due.astimezone(UTC).isoformat(),
                "timezone": self.timezone,
                "grace_minutes": self.grace_minutes,
                "share_per_day": self.share_per_day,
                "max_share": self.max_share,
            }
        )


def notice_path(exchange: Path, course_id: str, assignment: str) -> Path:
    """Where release puts ``assignment``'s notice in the exchange."""
    return exchange / course_id / "outbound" / f".due-{assignment}.json"


def publish_notice(path: Path, notice: DueNotice | None) -> None:
    """Write ``notice`` to ``path`` (readable by every student), or remove it when None."""
    if notice is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temp.write_text(notice.to_json(), encoding="utf8")
    temp.chmod(0o644)
    temp.replace(path)


def read_notice(path: Path) -> DueNotice | None:
    """Return the notice at ``path``; None when there is none or it cannot be read."""
    try:
        if path.is_symlink() or path.stat().st_size > _MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf8"))
        due = datetime.fromisoformat(data["due"])
        zone_named(str(data.get("timezone", "UTC")))  # an unknown zone: no notice, not a crash
        return DueNotice(
            due=due if due.tzinfo else due.replace(tzinfo=UTC),
            timezone=str(data.get("timezone", "UTC")),
            grace_minutes=float(data.get("grace_minutes", 0)),
            share_per_day=float(data.get("share_per_day", 0)),
            max_share=float(data.get("max_share", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
