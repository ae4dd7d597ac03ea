"""A class roster file: who is a student and who an instructor, read once by the hub and nbgrader.

The file is a CSV with a header; ``id`` and ``role`` are required, the rest optional::

    id,role,first_name,last_name,email
    teacher,instructor,Ada,Lovelace,ada@example.org
    s01,student,Grace,Hopper,

``id`` is the local account name (letters, digits, ``_`` and ``-``, starting with a lower-case
letter or ``_``: what ``useradd`` accepts), ``role`` is ``student`` or ``instructor``. The hub
reads it at start (``ATTENTION_LAB_ROSTER``) to fill the course's groups; ``install.py roster``
creates the missing accounts and imports the students into the instructor's gradebook with
``nbgrader db student import``. Standard library only (the hub loads it).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ROLES", "Person", "Roster", "read_roster", "students_csv"]

ROLES = ("student", "instructor")
NBGRADER_COLUMNS = ("id", "first_name", "last_name", "email")
_ACCOUNT = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


@dataclass(frozen=True)
class Person:
    """One roster row."""

    id: str
    role: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""


@dataclass(frozen=True)
class Roster:
    """Everyone on a class's roster, in file order."""

    people: tuple[Person, ...]

    @property
    def students(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.people if p.role == "student")

    @property
    def instructors(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.people if p.role == "instructor")


def read_roster(path: str | Path) -> Roster:
    """Read and check a roster CSV; a ValueError names the line and what to fix."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        missing = {"id", "role"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(
                f"{path}: the header needs the columns id and role (missing: "
                f"{', '.join(sorted(missing))}); e.g. id,role,first_name,last_name,email"
            )
        people, seen = [], set()
        for line, row in enumerate(reader, start=2):
            person = Person(**{k: (row.get(k) or "").strip() for k in Person.__dataclass_fields__})
            if not _ACCOUNT.match(person.id):
                raise ValueError(
                    f"{path}, line {line}: id {person.id!r} is not a usable account name (lower "
                    "case letters, digits, '_' and '-', at most 32, not starting with a digit)"
                )
            if person.role not in ROLES:
                raise ValueError(
                    f"{path}, line {line}: role {person.role!r} of {person.id} must be one of "
                    f"{', '.join(ROLES)}"
                )
            if person.id in seen:
                raise ValueError(f"{path}, line {line}: {person.id} is listed twice")
            seen.add(person.id)
            people.append(person)
    return Roster(tuple(people))


def students_csv(roster: Roster, dest: str | Path) -> Path:
    """Write the students as the CSV ``nbgrader db student import`` reads; returns ``dest``."""
    with open(dest, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(NBGRADER_COLUMNS)
        for p in roster.people:
            if p.role == "student":
                writer.writerow([p.id, p.first_name, p.last_name, p.email])
    return Path(dest)
