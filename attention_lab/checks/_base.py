"""What every check shares: the failures it raises, reading answers, comparing, diagnosing."""

from __future__ import annotations

import contextlib
import contextvars
import io
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import misconceptions

# Hand-computed answers may be rounded to 3 decimals in intermediate steps (the chapters do).
#: Each misconception's ``(id, wrong answer)``; None where the mistake cannot happen here.
Candidates = Iterable[tuple[str, ArrayLike | None]]

HAND_RTOL, HAND_ATOL = 1e-3, 6e-3
#: A wrong answer this close to the right one is the same computation on these inputs
#: (float rounding apart), not a coincidence of the numbers drawn.
SAME_RTOL, SAME_ATOL = 1e-9, 1e-12
# Implementations may use float32: near scores of 10 000 it rounds to about 1e-3, which moves
# the weights by about 0.1% (relative).
CODE_RTOL, CODE_ATOL = 3e-3, 1e-4


@dataclass(frozen=True)
class Diagnosed:
    """What one hand check compared, for the release check of a variant family.

    Attributes
    ----------
    name : str
        The answer's name.
    kind : str
        The stage checked (``"scores"``, ``"weights"``, ``"output"``, a layer's stage).
    expected : numpy.ndarray
        The right answer for these inputs.
    candidates : tuple of (str, numpy.ndarray)
        Each misconception's wrong answer for these inputs.
    """

    name: str
    kind: str
    expected: np.ndarray
    candidates: tuple[tuple[str, np.ndarray], ...]


_AUDIT: contextvars.ContextVar[list[Diagnosed] | None] = contextvars.ContextVar(
    "attention_lab_check_audit", default=None
)


@contextlib.contextmanager
def audited() -> Iterator[list[Diagnosed]]:
    """Collect what every hand check inside the block compared (the grader's release check)."""
    found: list[Diagnosed] = []
    token = _AUDIT.set(found)
    try:
        yield found
    finally:
        _AUDIT.reset(token)


def record(name: str, kind: str, expected: ArrayLike, candidates: Candidates) -> None:
    """Note one comparison when :func:`audited` is collecting (else nothing)."""
    found = _AUDIT.get()
    if found is not None:
        pairs = tuple((slug, np.asarray(c, dtype=float)) for slug, c in candidates)
        found.append(Diagnosed(name, kind, np.asarray(expected, dtype=float), pairs))


@dataclass(frozen=True)
class Ambiguity:
    """One way a comparison could not diagnose well, its kind as data.

    Attributes
    ----------
    kind : str
        ``"alike"`` (two misconceptions, one wrong answer), ``"tie"`` (two right scores or
        weights equal) or ``"accepted"`` (a misconception's wrong answer is within the hand
        tolerances of the right one, so the check would accept it). A mistake whose answer
        is the right one to rounding (:data:`SAME_RTOL`) is the same computation here (a
        mask's mistake where nothing is masked): it cannot be made in this question.
    text : str
        What the release check prints.
    misconception : str or None
        The misconception accepted as right (``"accepted"`` only).
    """

    kind: str
    text: str
    misconception: str | None = None


def diagnosis_problems(found: Diagnosed) -> list[Ambiguity]:
    """Every way one comparison could not diagnose well (see :class:`Ambiguity`)."""
    live = []
    why = []
    for slug, c in found.candidates:
        if not close(c, found.expected, HAND_RTOL, HAND_ATOL, nan=True):
            live.append((slug, c))
        elif not close(c, found.expected, SAME_RTOL, SAME_ATOL, nan=True):
            text = f"{found.name}: the wrong answer of [{slug}] is accepted as the right one"
            why.append(Ambiguity("accepted", text, slug))
    why += [
        Ambiguity("alike", f"{found.name}: [{a}] and [{b}] give the same wrong answer")
        for a, b in _same_pairs(live)
    ]
    if found.kind in ("scores", "weights") and found.expected.ndim == 1:
        if np.any(np.diff(np.sort(found.expected)) <= HAND_ATOL):
            why.append(Ambiguity("tie", f"{found.name}: two of the right {found.kind} tie"))
    return why


def ambiguities(found: Diagnosed) -> list[str]:
    """Why one comparison could not diagnose well: two mistakes, one wrong answer; a tie.

    A variant of a question must let every misconception be named apart (else the feedback
    would guess between two), its wrong answer must not pass for the right one (that mistake
    would earn the points), and the right scores or weights must not tie (a tie makes "the
    best key" ambiguous; all weights equal is the extreme case).
    """
    return [a.text for a in diagnosis_problems(found)]


def _same_pairs(candidates: list[tuple[str, np.ndarray]]) -> list[tuple[str, str]]:
    """Pairs of different ids whose answers agree within the hand tolerances (as :func:`close`).

    All pairs at once per shape: a release check compares some twenty candidates per step on
    each of 200 variants.
    """
    pairs = []
    shapes: dict[tuple[int, ...], list[tuple[str, np.ndarray]]] = {}
    for slug, c in candidates:
        shapes.setdefault(np.shape(c), []).append((slug, np.asarray(c, dtype=float)))
    for group in shapes.values():
        flat = np.stack([c.reshape(-1) for _, c in group])
        a, b = flat[:, None, :], flat[None, :, :]
        with quiet():
            near = (a == b) | (np.abs(a - b) <= HAND_ATOL + HAND_RTOL * np.abs(b))
            same = np.all(near | (np.isnan(a) & np.isnan(b)), axis=-1)
        for i, j in zip(*np.nonzero(np.triu(same, 1)), strict=True):
            if group[i][0] != group[j][0]:
                pairs.append((group[i][0], group[j][0]))
    return pairs


class CheckFailure(AssertionError):
    """Base of every failed check: an AssertionError, so nbgrader counts the test as failed.

    IPython shows only ``Name: message`` for these (via ``_render_traceback_``), not a traceback
    that would quote the test cell's code.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class Misconception(CheckFailure):
    """The wrong answer equals a known buggy computation; ``str(err)`` is ``"[id] name: ..."``.

    ``id`` is the registry id (:mod:`attention_lab.misconceptions`) and ``text`` what the
    student reads (``"name: message detail"``): the grader records both as data in the graded
    cell (:mod:`attention_grader.common.diagnosis`), so nothing reads the id back from the message.
    ``message`` replaces the entry's own message (a choice question shows the entry's idea).
    """

    def __init__(self, id: str, name: str = "your answer", detail: str = "", message: str = ""):
        misconceptions.get(id)  # KeyError for an id the registry does not know
        self.id = id
        self.text = misconceptions.diagnosis_text(id, name, message=message, detail=detail)
        super().__init__(f"[{id}] {self.text}")


class AnswerFormatError(CheckFailure):
    """The answer has the wrong type or shape; the message says what was expected."""


class WrongAnswer(CheckFailure):
    """The answer is wrong in a way no known misconception explains."""


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence numpy floating-point warnings, Python warnings and stderr inside a check."""
    with (
        np.errstate(all="ignore"),
        warnings.catch_warnings(),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def as_numbers(
    answer: object, name: str, shape: tuple[int, ...], what: str, *, allow_minus_inf: bool = False
) -> np.ndarray:
    """Convert an answer to a float array of ``shape`` or raise AnswerFormatError.

    An array with the same numbers and extra length-1 axes (a row ``(1, n)`` or a column
    ``(n, 1)`` from a matrix product) is accepted and squeezed. ``None`` and ``...`` are the
    placeholders exercises ship with, alone or inside a list. ``allow_minus_inf``: ``-inf`` is
    a right entry (a masked score); ``nan`` and ``+inf`` never are.
    """
    if answer is None or answer is Ellipsis:
        shown = "None" if answer is None else "..."
        raise AnswerFormatError(
            f"{name} is still {shown}, a placeholder: replace {shown} with {what}."
        )
    if isinstance(answer, list | tuple) and any(x is None or x is Ellipsis for x in answer):
        raise AnswerFormatError(f"{name} still has a placeholder in it: replace it with a number.")
    if isinstance(answer, str | bytes | dict | set):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected {what} (numbers, not text)."
        )
    try:
        with quiet():
            arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise AnswerFormatError(
            f"{name} could not be read as numbers ({type(answer).__name__}); expected {what}."
        ) from None
    if arr.shape != tuple(shape) and arr.size == int(np.prod(shape)) and len(shape) <= 1:
        squeezed = arr.reshape(tuple(shape))
        if sum(n != 1 for n in arr.shape) <= 1:  # only length-1 axes were added
            arr = squeezed
    if arr.shape != tuple(shape):
        raise AnswerFormatError(
            f"{name} has shape {arr.shape}; expected {what}, i.e. shape {tuple(shape)}."
        )
    bad = np.isnan(arr) | np.isposinf(arr) | (np.isneginf(arr) & (not allow_minus_inf))
    if bad.any():
        finite = "" if allow_minus_inf else " (finite numbers)"
        raise AnswerFormatError(f"{name} contains nan or inf; expected {what}{finite}.")
    return arr


def close(a: object, b: object, rtol: float, atol: float, nan: bool = False) -> bool:
    """Return True when ``a`` and ``b`` have the same shape and agree within the tolerances.

    ``nan=True`` counts nan as equal to nan (a wrong computation's nan pattern is a fingerprint).
    """
    if a is None or b is None:
        return False
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with quiet():
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=nan))


def diagnose(
    answer: object,
    expected: ArrayLike,
    candidates: Candidates,
    name: str,
    rtol: float,
    atol: float,
    wrong: str,
) -> None:
    """Pass if ``answer`` matches ``expected``; else raise the first matching misconception.

    ``candidates`` are ``(id, wrong answer)`` pairs. A candidate that cannot be told apart from
    the expected value (within twice the tolerance) is skipped: for these inputs the bug would
    give the right answer, so it cannot be named.
    """
    if close(answer, expected, rtol, atol):
        return
    slug = first_match(answer, expected, candidates, rtol, atol)
    if slug:
        raise Misconception(slug, name)
    raise WrongAnswer(f"{name} is not right yet. {wrong}".rstrip())


def first_match(
    answer: object,
    expected: ArrayLike | None,
    candidates: Candidates,
    rtol: float,
    atol: float,
    nan: bool = False,
) -> str | None:
    """Return the id of the candidate ``answer`` equals (and ``expected`` does not), or None.

    When several candidates match (two bugs can give nearly the same numbers on some inputs),
    the closest wins; on an exact tie, the first (the registry's order). A candidate within
    the tolerance of ``expected`` is skipped (the bug gives the right answer here); one just
    outside it still counts, so that a mistake is named on the step where its effect is small
    too (dividing by sqrt(3) instead of sqrt(2) moves an output by less than twice the
    tolerance) and not mistaken for its neighbour.
    """
    best: str | None = None
    best_gap = np.inf
    for slug, candidate in candidates:
        if candidate is None or close(candidate, expected, rtol, atol, nan):
            continue
        if close(answer, candidate, rtol, atol, nan):
            gap = _gap(answer, candidate)
            if gap < best_gap:
                best, best_gap = slug, gap
    return best


def _gap(a: object, b: ArrayLike) -> float:
    """Largest absolute difference, counting matching nan/inf entries as equal."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with quiet():
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        diff = np.where(same, 0.0, np.abs(a - b))
    return float(np.max(diff, initial=0.0))
