"""A student's own copies of the lessons, kept outside the files git tracks.

JupyterLab autosaves what it opens. Opened from ``notebooks/`` (tracked by git), every lesson a
student ran showed as modified and ``git pull`` of a course update conflicted. ``make lab``
runs :func:`sync` first and opens JupyterLab on ``work/`` (git ignores it):

- a lesson with no copy yet is copied;
- a lesson that changed upstream replaces a copy the student never changed (nothing is lost);
- a copy the student changed is kept, and the new version is put beside it as
  ``<lesson> (course update <date>).ipynb``, said in one line: their work is never overwritten.

``work/.lesson-versions.json`` records, per lesson, the hash of the upstream version the copy
was made from: a copy whose bytes still have that hash is untouched. Standard library only.
Usage: ``python -m attention_lab.lesson_copies notebooks work``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

__all__ = ["MANIFEST", "LessonChange", "sync"]

#: In the work folder: lesson file name -> sha256 of the upstream version its copy came from.
MANIFEST = ".lesson-versions.json"


@dataclass(frozen=True)
class LessonChange:
    """What :func:`sync` did to one lesson.

    Attributes
    ----------
    lesson : str
        The lesson's file name (``01_the_bottleneck.ipynb``).
    action : str
        ``"copied"`` (new copy), ``"updated"`` (an untouched copy replaced by the new version)
        or ``"offered"`` (the student's copy kept, the new version written beside it).
    beside : str
        For ``"offered"``: the new version's file name.
    """

    lesson: str
    action: str
    beside: str = ""

    def __str__(self) -> str:
        """Return what a student reads about this change to their copy of the lesson."""
        if self.action == "offered":
            return (
                f"{self.lesson}: the course updated this lesson. Your copy is kept as it is; the "
                f"new version is beside it: {self.beside}"
            )
        return f"{self.lesson}: {self.action}"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_manifest(work: Path) -> dict[str, str]:
    try:
        data = json.loads((work / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _beside(work: Path, lesson: Path, today: date) -> Path:
    """Return a free name for the new version next to the student's copy."""
    stem = f"{lesson.stem} (course update {today.isoformat()})"
    candidate, n = work / f"{stem}.ipynb", 2
    while candidate.exists():
        candidate, n = work / f"{stem} {n}.ipynb", n + 1
    return candidate


def sync(upstream: Path, work: Path, today: date | None = None) -> list[LessonChange]:
    """Bring ``work`` up to date with the lessons in ``upstream`` without losing a student's work.

    Parameters
    ----------
    upstream : path
        The course's lessons (``notebooks/``): ``*.ipynb`` directly inside it.
    work : path
        The student's folder (``work/``); created if missing.
    today : date, optional
        For the name of an offered new version (default: today).

    Returns
    -------
    list of LessonChange
        One per lesson copied, updated or offered; lessons already current are not listed.
    """
    work.mkdir(parents=True, exist_ok=True)
    versions = _read_manifest(work)
    changes = []
    for lesson in sorted(upstream.glob("*.ipynb")):
        new = _digest(lesson)
        copy = work / lesson.name
        if not copy.exists():
            shutil.copyfile(lesson, copy)
            changes.append(LessonChange(lesson.name, "copied"))
        elif versions.get(lesson.name) == new or _digest(copy) == new:
            pass  # current: the student's copy came from this version (or is it)
        elif _digest(copy) == versions.get(lesson.name):  # untouched since it was copied
            shutil.copyfile(lesson, copy)
            changes.append(LessonChange(lesson.name, "updated"))
        else:
            beside = _beside(work, lesson, today or date.today())
            shutil.copyfile(lesson, beside)
            changes.append(LessonChange(lesson.name, "offered", beside.name))
        versions[lesson.name] = new
    (work / MANIFEST).write_text(json.dumps(versions, indent=1, sort_keys=True) + "\n")
    return changes


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m attention_lab.lesson_copies <lessons folder> <work folder>")
        return 2
    upstream, work = Path(argv[1]), Path(argv[2])
    changes = sync(upstream, work)
    for change in changes:
        print(f"  {change}")
    print(
        f"Your lessons are in {work}/ (your own copies; {upstream}/ stays as the course ships it)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
