"""nbgrader's submit, leaving the submission readable only by its student and the instructors.

nbgrader's ``ExchangeSubmit`` leaves the folder in ``inbound/`` mode 0777 with 0644 files "so
the instructor can delete later": anyone who learns the folder's name (a log line is enough)
reads the notebook and ``submission_secret.txt`` (from which the name of the student's released
feedback follows), and replaces the notebook. ``inbound/`` is setgid (``install.py system``), so
the folder and its files already carry the instructor's group; this submit then sets the folder
(and any folder in it) to 2770 and the files to 0640: the student and the instructors' group,
nobody else. The instructors may still remove it (group write on the folder).

The system-wide ``nbgrader_config.py`` of a hub (``install.py system``) sets
``c.ExchangeFactory.submit`` to :class:`PrivateExchangeSubmit`. The modes are set at submit time,
so they add nothing to the time collect reads (the exchange's ctime, see
:mod:`attention_grader.exchange_identity`).
"""

from __future__ import annotations

import os
import stat

from nbgrader.exchange.default.submit import ExchangeSubmit

__all__ = ["FILE_MODE", "FOLDER_MODE", "PrivateExchangeSubmit", "make_private"]

FOLDER_MODE = 0o2770
FILE_MODE = 0o640


def make_private(folder: str | os.PathLike) -> None:
    """Set ``folder`` and the folders in it to :data:`FOLDER_MODE`, its files to :data:`FILE_MODE`
    (links are left alone, never followed)."""
    for root, dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.chmod(path, FILE_MODE)
        for name in dirs:
            path = os.path.join(root, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):
                os.chmod(path, FOLDER_MODE)
    os.chmod(folder, FOLDER_MODE)


class PrivateExchangeSubmit(ExchangeSubmit):
    """``ExchangeSubmit``, then :func:`make_private` on the new folder in ``inbound/``."""

    def copy_files(self):
        super().copy_files()
        make_private(os.path.join(self.inbound_path, self.assignment_filename))
