"""The batch summary of a grading run: one row per submission, as data and as a printed table."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attention_grader.common.flags import Flag, describe
from attention_grader.common.safe_text import csv_cell, printable

__all__ = ["SubmissionResult", "BatchSummary", "STATUSES"]

#: What happened to a submission. ``graded``: autograded now; ``unchanged``: already autograded
#: and not resubmitted (``FORCE=1`` regrades); ``missing``: no notebook under the expected name,
#: scored 0; ``error``: could not be graded (invalid notebook, dead kernel, time budget), the
#: gradebook keeps what it had.
STATUSES = ("graded", "unchanged", "missing", "error")


@dataclass
class SubmissionResult:
    """The outcome for one student's submission.

    Attributes
    ----------
    student : str
    status : str
        One of :data:`STATUSES`.
    reason : str
        One line; empty when graded cleanly.
    flags : list of Flag
        What grading flagged (:mod:`attention_grader.common.flags`).
    score, max_score : float or None
        The submission's score in the gradebook after this run, late penalty subtracted
        (:func:`~attention_grader.intake.late.final_score`, the number ``grades.csv`` has); None when unknown.
    penalty : float
        The late penalty already subtracted from ``score`` (0 when on time).
    waiting : int
        Written answers (cells) that wait for a teacher in the formgrader.
    seconds : float
        Wall time the worker spent on it.
    """

    student: str
    status: str
    reason: str = ""
    flags: list[Flag] = field(default_factory=list)
    score: float | None = None
    max_score: float | None = None
    penalty: float = 0.0
    waiting: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        # Several steps and notebooks may report the same finding: list each once.
        self.flags = list(dict.fromkeys(self.flags))


@dataclass
class BatchSummary:
    """All results of one ``grade`` run for one assignment (sorted by student)."""

    assignment: str
    results: list[SubmissionResult] = field(default_factory=list)
    wall_seconds: float = 0.0
    jobs: int = 1
    log: str = field(default="", repr=False)

    def by_student(self) -> dict[str, SubmissionResult]:
        return {r.student: r for r in self.results}

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def needs_attention(self) -> list[SubmissionResult]:
        """Results that are not cleanly graded: errors, missing notebooks, a reason or a flag."""
        return [r for r in self.results if r.status in ("error", "missing") or r.flags or r.reason]

    def waiting_line(self) -> str:
        """How many written answers wait for a teacher, and where to grade them."""
        waiting = sum(r.waiting for r in self.results)
        if not waiting:
            return "Written answers: none wait for a teacher."
        who = sum(bool(r.waiting) for r in self.results)
        return (
            f"Written answers: {waiting} wait for a teacher ({who} submission(s)): grade them in "
            "the formgrader (make formgrader, then Nbgrader -> Formgrader) before make feedback."
        )

    def table(self) -> str:
        """Return a plain-text table, one line per submission, for the terminal.

        Student ids, reasons and flags are shown with control characters escaped
        (:func:`~attention_grader.common.safe_text.printable`): they hold names a student chose. Each kind of flag in
        the table is explained once below it, in the registry's words (:mod:`~attention_grader.common.flags`).
        """
        header = ("student", "status", "score", "reason / flags")
        rows = [header]
        for r in self.results:
            score = "" if r.score is None else f"{r.score:g}/{r.max_score:g}"
            score += f" (late -{r.penalty:g})" if r.penalty else ""
            notes = "; ".join([r.reason] * bool(r.reason) + [str(f) for f in r.flags])
            rows.append((printable(r.student), r.status, score, printable(notes)))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = [
            "  ".join(row[i].ljust(widths[i]) for i in range(3)) + "  " + row[3] for row in rows
        ]
        lines.insert(1, "-" * len(lines[0]))
        counts = ", ".join(f"{self.count(s)} {s}" for s in STATUSES if self.count(s))
        lines.append(
            f"{self.assignment}: {len(self.results)} submissions ({counts or 'none'}), "
            f"{len(self.needs_attention)} need attention; {self.wall_seconds:.1f} s "
            f"with {self.jobs} worker(s)"
        )
        lines.append(self.waiting_line())
        kinds = describe(f for r in self.results for f in r.flags)
        if kinds:
            lines += ["Flags:"] + [f"  {line}" for line in kinds]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("log")
        return out

    def write(self, folder: Path, when: datetime | None = None) -> tuple[Path, Path]:
        """Write ``batch_summary.json`` and ``.csv`` into ``folder``; add the log to ``grading.log``.

        Every run's log is kept: it is appended to ``grading.log`` under a line naming the run
        (``when``, default now, UTC), so a rerun that skips everything does not erase the log of
        the run that graded. The CSV and the log escape control characters (a teacher may
        ``cat`` them); the JSON keeps the exact text (JSON escapes them itself).
        """
        folder.mkdir(parents=True, exist_ok=True)
        when = when or datetime.now(UTC)
        header = (
            f"##### run of {when:%Y-%m-%d %H:%M:%S %Z}: {printable(self.assignment)}, "
            f"{len(self.results)} submission(s), {self.wall_seconds:.1f} s\n"
        )
        with (folder / "grading.log").open("a") as fh:
            fh.write(header + printable(self.log, keep_newlines=True))
        js, cs = folder / "batch_summary.json", folder / "batch_summary.csv"
        js.write_text(json.dumps(self.to_dict(), indent=1))
        with cs.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["student", "status", "score", "max_score", "late_penalty",
                        "written_waiting", "reason", "flags"])  # fmt: skip
            for r in self.results:
                flags = "; ".join(str(f) for f in r.flags)
                row = [r.student, r.status, r.score, r.max_score, r.penalty, r.waiting, r.reason]
                w.writerow([csv_cell(c) for c in [*row, flags]])
        return js, cs
