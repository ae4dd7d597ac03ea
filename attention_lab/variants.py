"""Every student's own numbers: per-student variants of a question, from a keyed seed.

A question's numbers come from a generator, ordinary course code in the assignment's read-only
cell (a few lines: ``rng -> numbers``), called by :func:`draw` with a random generator seeded by

    ``HMAC(student seed, student | assignment | question)``, where
    ``student seed = HMAC(course key, "attention-lab/student|" + student)``.

The course key stays with the teacher (``attention_grader.common.variant_key``); a student
only ever holds her own *student seed*, which gives her own numbers and nobody else's, and no
way back to the key. Where :func:`draw` finds the seed, first match wins:

1. the grader's own context (:func:`graded_as`): hidden tests run in the grader with the seed of
   the student the exchange says handed in, never a value from her kernel;
2. the environment variable :data:`SEED_ENV` (``"<student>:<64 hex digits>"``), which the
   classroom hub's spawner, trusted and knowing the login, sets for each student's server, and
   which the grader sets for the kernel that runs her cells. A student of several courses
   with variants holds one seed per course (each course has its own key), one line each,
   ``"@<course> <student>:<64 hex digits>"`` (:func:`seeds_text`); a notebook takes the seed
   of the course whose folder it runs in (the hub fetches ``~/<course>/<assignment>/``);
3. otherwise the *practice* variant, the same for everyone (a laptop without the course).

So one released notebook serves the whole class: the cells, their checksums and ids are the
same; only the numbers the read-only cell draws differ. Nothing here imports the grader.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

__all__ = [
    "PRACTICE",
    "SEED_ENV",
    "Redraw",
    "StudentSeed",
    "draw",
    "graded_as",
    "question_seed",
    "current_seed",
    "seeds_text",
]

#: The environment variable the hub's spawner (and the grader, for a graded kernel) sets.
SEED_ENV = "ATTENTION_LAB_VARIANT_SEED"
#: A generator that draws again this many times without an answer is a broken generator.
MAX_REDRAWS = 1000

_SEED_TEXT = re.compile(r"^(?P<student>[^\n]{1,200}):(?P<secret>[0-9a-f]{64})$")
_STUDENT_LABEL = b"attention-lab/student|"
_QUESTION_PART = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
_COURSE_LINE = re.compile(r"^@(?P<course>[A-Za-z0-9_.\-]{1,100}) (?P<seed>[^\n]+)$")

T = TypeVar("T")


class Redraw(Exception):
    """Raised by a generator to reject a degenerate draw (a tie, equal weights): draw again."""


@dataclass(frozen=True)
class StudentSeed:
    """One student's seed: what her server (and her graded kernel) holds, never the course key.

    Attributes
    ----------
    student : str
        The id the exchange trusts (the hub's login), never a name typed in a notebook.
    secret : bytes, length 32
        ``HMAC-SHA256(course key, "attention-lab/student|" + student)``.
    practice : bool
        The practice seed, the same for everyone (no course key, no hub).
    """

    student: str
    secret: bytes = field(repr=False)
    practice: bool = False

    def __post_init__(self) -> None:
        """Refuse a secret that is no digest and an id that would not round-trip as text.

        Any id the exchange trusts works (a roster may hold ``:`` or spaces): the text form
        ends with the 64 hex digits, so it splits at the last ``:``.
        """
        if len(self.secret) != 32:
            raise ValueError("a student seed's secret is 32 bytes (an HMAC-SHA256 digest)")
        if not self.student or "\n" in self.student:
            raise ValueError(
                f"a student id for a variant seed is one line, not empty: {self.student!r}"
            )

    @classmethod
    def from_key(cls, key: bytes, student: str) -> StudentSeed:
        """Derive ``student``'s seed from the course key (the teacher's side: hub, grader)."""
        if len(key) < 16:
            raise ValueError("the course key is too short (at least 16 bytes)")
        digest = hmac.new(key, _STUDENT_LABEL + student.encode(), hashlib.sha256).digest()
        return cls(student, digest)

    @classmethod
    def from_text(cls, text: str) -> StudentSeed:
        """Read ``"<student>:<64 hex digits>"`` (the form of :data:`SEED_ENV`)."""
        found = _SEED_TEXT.match(text.strip())
        if not found:
            raise ValueError(
                f"{SEED_ENV} must look like '<student id>:<64 hex digits>' (the hub sets it); "
                "unset it to work on the practice numbers"
            )
        return cls(found["student"], bytes.fromhex(found["secret"]))

    def to_text(self) -> str:
        """Return the form :meth:`from_text` reads, for :data:`SEED_ENV`."""
        return f"{self.student}:{self.secret.hex()}"


#: Everyone's numbers on a laptop: no course key, no hub login.
PRACTICE = StudentSeed("practice", hashlib.sha256(b"attention-lab/practice").digest(), True)

_GRADED: contextvars.ContextVar[StudentSeed | None] = contextvars.ContextVar(
    "attention_lab_variant_seed", default=None
)


@contextlib.contextmanager
def graded_as(seed: StudentSeed) -> Iterator[None]:
    """Draw every variant with ``seed`` inside the block (the grader, for trusted checking)."""
    token = _GRADED.set(seed)
    try:
        yield
    finally:
        _GRADED.reset(token)


def seeds_text(seeds: dict[str, StudentSeed]) -> str:
    """Return :data:`SEED_ENV`'s text for a student's courses (course id -> her seed there).

    One course: her seed's own text. Several: one ``"@<course> <seed>"`` line each.
    """
    if len(seeds) == 1:
        return next(iter(seeds.values())).to_text()
    for course in seeds:
        if not _QUESTION_PART.match(course):
            raise ValueError(f"a course id is letters, digits, '_', '.', '-': {course!r}")
    return "\n".join(f"@{course} {seed.to_text()}" for course, seed in sorted(seeds.items()))


def _course_seed(text: str, where: str, any_course: bool) -> StudentSeed:
    """Pick, among one ``"@<course> <seed>"`` line per course, the course of folder ``where``.

    Outside every course's folder: the first course's seed with ``any_course`` (a lesson's
    self-check, graded by nobody), else an error saying where to open the notebook.
    """
    seeds = {}
    for line in text.strip().splitlines():
        found = _COURSE_LINE.match(line.strip())
        if not found:
            raise ValueError(f"{SEED_ENV}: each line must look like '@<course> <seed>'")
        seeds[found["course"]] = found["seed"]
    parts = set(os.path.normpath(where).split(os.sep))
    here = [course for course in seeds if course in parts]
    if len(here) != 1 and any_course:
        here = sorted(seeds)[:1]
    if len(here) != 1:
        raise ValueError(
            f"you study several courses with their own numbers ({', '.join(sorted(seeds))}): "
            "open this notebook from its course's folder (~/<course>/<assignment>/, where "
            "fetching put it) to draw that course's numbers"
        )
    return StudentSeed.from_text(seeds[here[0]])


def current_seed(*, any_course: bool = False) -> StudentSeed:
    """Return the seed :func:`draw` uses here: the grader's, the environment's, or practice.

    ``any_course``: a student of several courses with variants outside every course's folder
    gets her first course's seed (a lesson's self-check) rather than an error.
    """
    graded = _GRADED.get()
    if graded is not None:
        return graded
    text = os.environ.get(SEED_ENV, "")
    if text.lstrip().startswith("@"):
        return _course_seed(text, os.getcwd(), any_course)
    return StudentSeed.from_text(text) if text else PRACTICE


def question_seed(seed: StudentSeed, assignment: str, question: str) -> int:
    """Return the 256-bit seed of one student's variant of one question.

    Parameters
    ----------
    seed : StudentSeed
    assignment, question : str
        Letters, digits, ``_ . -`` (the assignment's folder name, a name for the question).
    """
    for what, part in (("assignment", assignment), ("question", question)):
        if not _QUESTION_PART.match(part):
            raise ValueError(f"a variant's {what} is letters, digits, '_', '.', '-': {part!r}")
    message = f"{seed.student}|{assignment}|{question}".encode()
    return int.from_bytes(hmac.new(seed.secret, message, hashlib.sha256).digest(), "big")


def draw(
    assignment: str,
    question: str,
    generator: Callable[[np.random.Generator], T],
    seed: StudentSeed | None = None,
) -> T:
    """Return this student's numbers for one question, from ``generator``.

    Parameters
    ----------
    assignment, question : str
        Which question (part of the seed): the same pair always gives the same numbers.
    generator : callable
        ``generator(rng)`` returns the question's numbers (arrays, a tuple of them) drawn from
        the ``numpy.random.Generator`` it is given; it raises :class:`Redraw` to reject a
        degenerate draw (the next call continues the same stream, so the result is still
        fixed by the seed).
    seed : StudentSeed, optional
        Defaults to :func:`current_seed`.

    Returns
    -------
    What ``generator`` returned.
    """
    seed = current_seed() if seed is None else seed
    rng = np.random.default_rng(question_seed(seed, assignment, question))
    for _ in range(MAX_REDRAWS):
        try:
            return generator(rng)
        except Redraw:
            continue
    raise RuntimeError(
        f"the variant generator of {assignment}/{question} rejected {MAX_REDRAWS} draws in a "
        "row: loosen what it calls degenerate"
    )
