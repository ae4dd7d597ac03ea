"""nbgrader's ``list --inbound``, reading both layouts of ``inbound/`` with collect's identity rule.

nbgrader's ``ExchangeList`` globs ``inbound/<student>+<assignment>+*``: on a hub with per-user
disks (``autograder/attention_hub/user_disk.py``) it shows nothing of the students' own folders
``inbound/<student>/``, and a student, who cannot list ``inbound/`` there, sees nothing at all.
It also takes the student from the folder's name, and globs ids (a folder named ``*+…`` is a
"student"). :class:`SafeExchangeList` lists what collect would read
(:mod:`attention_grader.exchange.exchange_identity`):

* **an instructor** (whoever can list ``inbound/``, as collect requires; a laptop's one user):
  every submission directly in ``inbound/`` and in each student's own folder
  (:func:`~attention_grader.exchange.exchange_identity.inbound_entries`);
* **a student** (who cannot): their own folder ``inbound/<student>/`` only
  (:func:`~attention_grader.exchange.private_submit.own_student_folder`, where
  :class:`~attention_grader.exchange.private_submit.PrivateExchangeSubmit` hands in); on one
  machine without those folders, the hand-ins in ``inbound/`` her own cached copies name
  (:func:`~attention_grader.exchange.private_submit.remembered_inbound`), each still judged below;
* each one judged by :func:`~attention_grader.exchange.exchange_identity.read_inbound`: the student
  is the folder's owner, an entry of ``inbound/<student>/`` must name that student, the id is on
  the roster collect uses (the instructor's own course) or of safe characters; a refused folder
  is not listed, and the instructor's log gets collect's one line for it ("refused: folder owned
  by mallory names alice …"). ``--student`` and the assignment are compared, never globbed;
* a folder nbgrader's listing could not read safely (a link, FIFO or oversized file where it
  reads, a name it would glob) is named in one "not listed: …" line instead.

Each submission keeps nbgrader's keys (``timestamp`` is still the name's, which a student's
fetched feedback is filed under) and gains ``handed_in``: the time collect uses (the exchange's
for a student's folder), which the printed line shows. ``--remove`` removes what is listed
(nbgrader's ``rmtree``, which refuses a link).
The hub's system-wide ``nbgrader_config.py`` and the course's
(:func:`attention_grader.pipeline.configure`) set ``c.ExchangeFactory.list`` to it.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from nbgrader.exchange.default.list import ExchangeList
from nbgrader.utils import check_mode

from attention_grader.common.safe_text import printable
from attention_grader.config.settings import intake_limits
from attention_grader.exchange.exchange_identity import (
    NBGRADER_TIME,
    SAFE_ID,
    Inbound,
    course_roster,
    inbound_entries,
    read_inbound,
    student_entries,
)
from attention_grader.exchange.exchange_mounts import ExchangeLayout
from attention_grader.exchange.private_submit import own_student_folder, remembered_inbound

__all__ = ["SafeExchangeList"]

#: What glob reads specially: nbgrader's list globs each listed folder for its notebooks.
_GLOB_MAGIC = re.compile(r"[*?\[]")


class SafeExchangeList(ExchangeList):
    """``ExchangeList`` whose ``--inbound`` reads both layouts and judges each folder as collect.

    Released (``outbound/``) and cached listings are nbgrader's.
    """

    def init_dest(self) -> None:
        """Find the submissions to list (nbgrader's glob, for anything but ``--inbound``)."""
        if not self.inbound:
            super().init_dest()
            return
        self._judged: dict[str, tuple[str, Inbound]] = {}
        for course in self._courses():
            for item in self._course_submissions(course):
                self._judged[str(item.path)] = (course, item)
        self.assignments = sorted(self._judged)

    def _courses(self) -> list[str]:
        """Return the configured course, else every course folder of the exchange with a safe name."""
        if self.coursedir.course_id:
            return [self.coursedir.course_id]
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return []
        return sorted(e.name for e in entries
                      if SAFE_ID.fullmatch(e.name) and e.is_dir(follow_symlinks=False))  # fmt: skip

    def _course_submissions(self, course: str) -> list[Inbound]:
        """Return the accepted submissions of ``course`` this user may see; log the refused ones."""
        inbound = Path(self.root, course, "inbound")
        if not os.path.isdir(inbound):
            return []
        if check_mode(inbound, read=True, execute=True):  # an instructor, as collect requires
            trusted = frozenset({0, os.geteuid()})
            roster = self._roster() if course == self.coursedir.course_id else None
            entries = inbound_entries(inbound)
        else:  # a student: their own folder only, which only they (and the instructors) write
            own = own_student_folder(inbound)
            trusted, roster = frozenset({0, os.lstat(inbound).st_uid}), None
            if own is not None:
                entries = student_entries(Path(own[1]), Path(own[1]).name)
            else:  # one machine, no per-user folders: the hand-ins her own cache names
                cache = os.path.join(self.cache, course)
                entries = [(Path(p), None) for p in remembered_inbound(cache, str(inbound))]
        by_mount = ExchangeLayout(parent=self).per_student_mounts
        time_entries = intake_limits(self.config).max_time_entries
        wanted = self.coursedir.assignment_id or "*"
        student = self.coursedir.student_id or "*"
        found = []
        for path, under in entries:
            parts = path.name.rsplit("+", 3)
            if len(parts) < 2 or wanted not in ("*", parts[1]):
                continue
            if student not in ("*", parts[0]):
                continue
            item = read_inbound(path, trusted, roster, under, by_mount, time_entries)
            if item.refused:
                self.log.warning("%s", item.line())
            elif why := self._not_listable(path):
                self.log.warning("not listed: exchange folder %s: %s", printable(item.name), why)
            else:
                found.append(item)
        return found

    def _not_listable(self, folder: Path) -> str:
        """Return why nbgrader's listing must not read ``folder``, or "".

        nbgrader's ``parse_assignments`` globs the folder for notebooks and reads
        ``submission_secret.txt`` (without it, each notebook) whole, following links: a link to
        ``/dev/zero``, a FIFO or a huge file there would hang the list or fill its memory.
        Collect copies none of those (it flags them); the list names the folder instead.
        """
        if _GLOB_MAGIC.search(folder.name):
            return "its name has '*', '?' or '[' (nbgrader's list would glob it)"
        limits = intake_limits(self.config)
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            return f"not readable ({type(err).__name__})"
        for entry in entries:
            notebook = entry.name.endswith(".ipynb") and not entry.name.startswith(".")
            if not notebook and entry.name != "submission_secret.txt":
                continue
            limit = limits.max_notebook_bytes if notebook else limits.max_bookkeeping_bytes
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1 or st.st_size > limit:
                return f"{printable(entry.name)} is not a plain file of at most {limit} bytes"
        return ""

    def _roster(self) -> frozenset[str] | None:
        """Return the roster collect checks against (``c.SafeExchangeCollect.roster_file`` …)."""
        value = self.config.get("SafeExchangeCollect", {}).get("roster_file", "")
        path = value if isinstance(value, str) else ""
        if path and not os.path.isfile(path):  # collect refuses to run; the list says so
            self.log.warning("the roster %s (c.SafeExchangeCollect.roster_file) does not exist: "
                             "ids are only checked for safe characters", printable(path))  # fmt: skip
        return course_roster(path, self.coursedir.root)

    def parse_assignment(self, assignment: str) -> dict[str, Any]:
        """Nbgrader's fields of a listed folder, from the judgement, never from a regex on its path."""
        if not self.inbound:
            info: dict[str, Any] = super().parse_assignment(assignment)
            return info
        course, item = self._judged[assignment]
        parts = item.name.rsplit("+", 3)
        assert item.time is not None, f"{item.name!r} was refused, it has no time"
        return {
            "course_id": course,
            "student_id": item.student,
            "assignment_id": parts[1],
            "timestamp": parts[2],
            "random_string": f"+{parts[3]}" if len(parts) > 3 else None,
            "handed_in": item.time.strftime(NBGRADER_TIME),
        }

    def format_inbound_assignment(self, info: dict[str, Any]) -> str:
        """Nbgrader's line, with the time collect uses."""
        shown = dict(info, timestamp=info.get("handed_in", info["timestamp"]))
        line: str = super().format_inbound_assignment(shown)
        return line
