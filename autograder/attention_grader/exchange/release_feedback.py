"""nbgrader's release_feedback with the intake applied: only the assignment's pages, never stopping.

:func:`attention_grader.pipeline.configure` puts :class:`SafeExchangeReleaseFeedback` into a
course's ``nbgrader_config.py`` (``c.ExchangeFactory.release_feedback``). It publishes only
``<notebook>.html`` of the assignment's notebooks, as plain single-link files readable by their
student only where the student has an account
(:func:`~attention_grader.exchange.private_submit.readable_only_by`), and a student without a
readable ``submission_secret.txt`` is named and skipped instead of stopping everyone. With one
uid for every pod (:attr:`~attention_grader.exchange.exchange_mounts.ExchangeLayout.per_student_mounts`)
a student's pages go to ``feedback/<folder>/``, the folder the hub mounts (read-only) as
``feedback/`` in that student's pod alone: there a mode cannot keep them apart.
"""

from __future__ import annotations

import glob
import os
import stat
from pathlib import Path
from typing import Any

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

from attention_grader.common.flags import UNEXPECTED_FILE, Flag
from attention_grader.common.safe_text import printable
from attention_grader.exchange.private_submit import readable_only_by
from attention_grader.intake.intake import expected_notebooks, read_plain_file

__all__ = ["SafeExchangeReleaseFeedback"]


def _read_secret(folder: Path) -> str | None:
    """``submission_secret.txt`` as nbgrader wrote it (a plain file of hex digits), else None."""
    data = read_plain_file(folder / "submission_secret.txt", limit=4096)
    text = data.decode("ascii", "replace") if data is not None else ""
    # hashed exactly as read, as nbgrader's fetch_feedback does with the student's own copy
    digits = text.strip()
    return text if digits and all(c in "0123456789abcdefABCDEF" for c in digits) else None


class SafeExchangeReleaseFeedback(ExchangeReleaseFeedback):
    """Release only the generated feedback of the assignment's notebooks; skip, never stop.

    Attributes
    ----------
    released : list of str
        Students whose feedback was published.
    withheld : dict of str to str
        Printable student id -> one-line reason nothing was published for them.
    flags : dict of str to list of Flag
        Files in a feedback folder that were not published (extra ``*.html``, links).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.released: list[str] = []
        self.withheld: dict[str, str] = {}
        self.flags: dict[str, list[Flag]] = {}

    def copy_files(self) -> None:
        exclude = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        expected = expected_notebooks(self.coursedir.root, self.coursedir.assignment_id)
        for folder in sorted(glob.glob(self.src_path)):
            student = os.path.basename(os.path.dirname(folder))
            if student in exclude or not os.path.isdir(folder) or os.path.islink(folder):
                continue
            try:
                self._release_one(Path(folder), student, expected)
            except Exception as err:  # one student's folder never stops the others
                self._withhold(student, f"{type(err).__name__}: {' '.join(str(err).split())[:100]}")

    def _withhold(self, student: str, reason: str) -> None:
        self.withheld[printable(student)] = printable(reason)
        self.log.error("Feedback not released for %s: %s", printable(student), printable(reason))

    def _student_dest(self, student: str) -> Path:
        """Where ``student``'s pages go: ``feedback/``, or with one uid ``feedback/<folder>/``."""
        from attention_grader.exchange.exchange_mounts import ExchangeLayout, folder_slug

        dest = Path(self.dest_path)
        if not ExchangeLayout(parent=self).per_student_mounts:
            return dest
        own = dest / folder_slug(student)
        if not os.path.lexists(own):
            own.mkdir(mode=0o755)
        if not stat.S_ISDIR(os.lstat(own).st_mode):
            raise OSError(f"feedback/{own.name} is not a folder (a link?): move it aside")
        return own

    def _release_one(self, folder: Path, student: str, expected: list[str]) -> None:
        from nbgrader.utils import notebook_hash

        wanted = {f"{nb}.html" for nb in expected}
        extra = sorted(p.name for p in folder.glob("*.html") if p.name not in wanted)
        if extra:
            shown = printable(", ".join(extra)[:100])
            flags = [Flag(UNEXPECTED_FILE, f"feedback/{shown}: not from an assignment notebook; not released")]  # fmt: skip
            self.flags.setdefault(printable(student), []).extend(flags)
            self.log.warning("%s: %s", printable(student), flags[0])
        secret = _read_secret(folder)
        if secret is None:
            return self._withhold(student, "no readable submission_secret.txt (re-collect it)")
        pages = {nb: read_plain_file(folder / f"{nb}.html") for nb in expected}
        if not any(page is not None for page in pages.values()):
            return self._withhold(student, "no feedback page was generated")
        dest = self._student_dest(student)
        for nb, page in pages.items():
            if page is None:
                continue
            checksum = notebook_hash(secret=secret, notebook_id=nb)
            tmp = dest / f"{checksum}-tmp.html"
            if os.path.lexists(tmp):
                os.unlink(tmp)  # never write through a link someone left there
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(page)
            if not readable_only_by(tmp, student):  # no account or no ACLs: nbgrader's 0644
                os.chmod(tmp, 0o644)
            os.replace(tmp, dest / f"{checksum}.html")
            self.log.info("Released feedback for %s: %s", printable(student), printable(nb))
        self.released.append(student)
