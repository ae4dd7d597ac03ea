"""When ``make check`` may say whether a choice is right: its count of tries and released feedback.

With unlimited checks a few tries would reveal any multiple-choice answer by elimination, so a
choice's verdict is held back until the teacher has released feedback or the student has run
the check ``SelfStudy.choice_tries`` times. Both facts are read only from what the check itself
and the teacher's side keep, never from what the student's work can write:

* the count is kept in the user's state folder (``$XDG_STATE_HOME``, else ``~/.local/state``),
  under ``attention-lab/checks/<uid>/``: outside the course folder and the working copy (her
  folder, which JupyterLab and her code write, and which the checked kernel gets a copy of),
  keyed by the uid the system says runs the check, and by the course's own path. A try is
  counted when the check is asked for, before anything of hers runs.
* feedback is released when the teacher's side made a page for her: the course's
  ``feedback/<her user name>/<assignment>/`` (``make feedback``). Pages in her own folder
  (*Fetch Feedback* copies them there, and so can she) are not evidence.

On her own laptop she owns every file, the solutions in ``source/`` too: these rules keep the
count away from her notebook, her folder and her code, not from the machine's owner.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ChoiceGate", "choices_revealed", "count_try", "feedback_released", "tries_file"]


def _state_home() -> Path:
    """Return the user's state folder (``XDG_STATE_HOME`` of the XDG base directory spec)."""
    given = os.environ.get("XDG_STATE_HOME", "")
    return Path(given) if os.path.isabs(given) else Path.home() / ".local" / "state"


def tries_file(course_root: Path, assignment: str) -> Path:
    """Return where the count of checks of ``assignment`` in this course is kept for this user.

    The assignment is a name, never a path; the course is keyed by its resolved path.
    """
    course_key = hashlib.sha256(str(Path(course_root).resolve()).encode()).hexdigest()[:16]
    name = Path(assignment).name or "assignment"
    return _state_home() / "attention-lab" / "checks" / str(os.getuid()) / course_key / name


def count_try(course_root: Path, assignment: str) -> int:
    """Add one to the assignment's count of checks and return it (1 on the first check).

    An unreadable count starts again at 1: fewer tries hold more back, never less.
    """
    path = tries_file(course_root, assignment).with_suffix(".json")
    try:
        tries = int(json.loads(path.read_text()).get("tries", 0))
    except (OSError, ValueError, AttributeError, TypeError):
        tries = 0
    tries = max(tries, 0) + 1
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"tries": tries}))
    os.replace(tmp, path)
    return tries


def feedback_released(course_root: Path, assignment: str) -> bool:
    """Tell whether the teacher's side made a feedback page of ``assignment`` for this user."""
    me = pwd.getpwuid(os.getuid()).pw_name
    folder = Path(course_root) / "feedback" / me / Path(assignment).name
    return any(folder.glob("*.html"))


@dataclass(frozen=True)
class ChoiceGate:
    """Whether choice answers are revealed in this check, and why (for the printout)."""

    revealed: bool
    note: str


def choices_revealed(released: bool, tries: int, limit: int) -> ChoiceGate:
    """Reveal choices after feedback is released, or on the run after ``limit`` checks."""
    if released:
        return ChoiceGate(True, "Feedback is released: choice answers show ✓ or what they show.")
    if limit > 0 and tries > limit:
        return ChoiceGate(True, f"After {limit} checks, choice answers show ✓ or what they show.")
    later = "until your teacher releases feedback" + (
        f" or until your check number {limit + 1}" if limit > 0 else ""
    )
    return ChoiceGate(
        False,
        f"Multiple-choice and true/false answers only say 'checked' (the format is right) "
        f"{later}; then they say whether they are right. This was check {tries} of this "
        "assignment.",
    )
