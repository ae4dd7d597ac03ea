"""Checks for implement-it exercises: run the student's function on several inputs.

Each exercise's inputs are grouped by behaviour (the public example, large scores, random
shapes, masked rows, ...), and an assignment grades each behaviour in its own test cell with its
own points, so one mistake costs only its share. ``behaviour=None`` runs every group (what the
lessons' self-checks use).

This module holds the softmax and causal mask checks and the helpers every implement-it check
shares (choosing the groups, reading a returned array, an overflow's failure); the scaled
dot-product attention check, the largest, is :mod:`attention_lab.checks.attention_function`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from attention_lab import misconceptions
from attention_lab._steps import softmax as _reference_softmax
from attention_lab._types import FloatArray

from ._base import (
    CODE_ATOL,
    CODE_RTOL,
    AnswerFormatError,
    CheckFailure,
    Misconception,
    WrongAnswer,
    close,
    first_match,
    quiet,
)
from ._library import StudentRaised, call, check_function

__all__ = [
    "CAUSAL_MASK_BEHAVIOURS",
    "SOFTMAX_BEHAVIOURS",
    "behaviour_groups",
    "check_causal_mask_function",
    "check_softmax_function",
    "overflow_failure",
    "returned_array",
]

#: behaviour -> what it tries, for the softmax exercise (one graded cell each).
SOFTMAX_BEHAVIOURS = {
    "example": "small vectors, among them the chapter's scores",
    "large": "overflow-size scores (1-D)",
    "shapes": "random 2-D batches along either axis, masked (-inf) rows, rows of very different size",
}
#: behaviour -> what it tries, for the causal mask exercise.
CAUSAL_MASK_BEHAVIOURS = {"example": "n = 3 and n = 2", "sizes": "n = 1 and random sizes"}


def behaviour_groups(behaviour: str | None, known: Mapping[str, str]) -> list[str]:
    """Return the groups to run: ``behaviour``'s alone, or every key of ``known`` for None."""
    if behaviour is None:
        return list(known)
    if behaviour not in known:
        raise ValueError(f"unknown behaviour {behaviour!r}; choose one of {sorted(known)}")
    return [behaviour]


def returned_array(result: object, name: str, case: str, what: str) -> FloatArray:
    """Read a returned value as a float array, or raise AnswerFormatError."""
    if result is None:
        raise AnswerFormatError(f"{name} returned None on {case}: add a `return` with {what}.")
    try:
        with quiet():
            return np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        raise AnswerFormatError(
            f"{name} returned a {type(result).__name__} on {case} that is not numbers; "
            f"expected {what}."
        ) from None


def overflow_failure(name: str, case: str, large: bool) -> CheckFailure:
    """Return the failure for an overflow error or a nan/inf result no candidate explains."""
    if large:
        return Misconception("naive_softmax_overflow", name, f"(On {case}.)")
    return WrongAnswer(f"{name} gave nan or inf on {case}; every result should be a real number.")


# --------------------------------------------------------------------------------------------
# Softmax
# --------------------------------------------------------------------------------------------


def _softmax_cases(
    group: str, visible: bool, rng: np.random.Generator
) -> list[tuple[str, FloatArray, int]]:
    """Return (description, scores, axis) for one behaviour group."""
    if group == "example":
        cases = [("a short vector of scores", np.array([1.0, 2.0, 0.5]), -1)]
        if not visible:
            chapter = np.array([1.0, 1.0, 2.0]) / np.sqrt(2.0)
            cases.append(("the chapter's scaled scores for 'Chandrayaan'", chapter, -1))
        return cases
    if visible:
        return []
    if group == "large":
        big = 1e4 + rng.uniform(-3, 3, size=5)
        return [
            ("large scores of different sizes (thousands)", np.array([1e3, 2.5e3, 4e3, 3e3]), -1),
            ("scores just past exp's limit (around 710)", 706.0 + np.arange(6.0), -1),
            ("overflow-size scores (around 10 000)", big, -1),
            ("large negative scores (around -10 000)", -big, -1),
        ]  # fmt: skip
    masked = rng.normal(size=(4, 6))
    masked[masked < -0.3] = -np.inf
    masked[:, 0] = rng.normal(size=4)  # every row keeps at least one allowed key
    rows, cols = (int(n) for n in rng.integers(2, 7, size=2))
    # Rows 800 apart, none past exp's limit (about 709): only a global maximum fails here.
    ragged = np.vstack(
        [rng.normal(size=6) * 3, 400 + rng.normal(size=6), -400 + rng.normal(size=6)]
    )
    return [
        ("a random 2-D batch (softmax across each row)", rng.normal(size=(rows, cols)) * 3, -1),
        ("a random 2-D batch with axis=0", rng.normal(size=(cols + 1, rows)) * 3, 0),
        ("rows with masked (-inf) scores", masked, -1),
        ("rows of very different size (thousands apart)", ragged, -1),
    ]


def _softmax_case(
    fn: Callable[..., object], name: str, case: str, x: FloatArray, axis: int, large: bool
) -> None:
    try:
        result = call(fn, name, case, x.copy(), **({"axis": axis} if axis != -1 else {}))
    except StudentRaised:
        raise overflow_failure(name, case, large) from None
    got = returned_array(result, name, case, "an array of weights")
    if got.shape != x.shape:
        raise AnswerFormatError(
            f"{name} returned shape {got.shape} on {case}; a softmax returns one weight per "
            "score (the same shape as its input)."
        )
    expected = _reference_softmax(x, axis=axis)
    if close(got, expected, CODE_RTOL, CODE_ATOL):
        return
    with quiet():
        candidates = [
            (slug, wrong.softmax(x, axis))
            for slug, wrong in misconceptions.entries_for("softmax")
            if wrong.softmax is not None  # always: entries_for("softmax") gives only those
        ]
    slug = first_match(got, expected, candidates, CODE_RTOL, CODE_ATOL, nan=True)
    if slug:
        raise Misconception(slug, name, f"(On {case}.)")
    if not np.isfinite(got).all():
        raise overflow_failure(name, case, large)
    with quiet():
        sums = np.sum(got, axis=axis)
    if not np.allclose(sums, 1.0, atol=1e-3):
        raise Misconception("weights_not_normalised", name, f"(On {case}.)")
    raise WrongAnswer(
        f"{name} gives wrong weights on {case}. Work one small row by hand and compare: are "
        "all your weights positive, do they add up to 1 along the given axis, and do they stay "
        "the same when every score of the row moves by the same amount?"
    )


def check_softmax_function(
    fn: Callable[..., object],
    name: str = "stable_softmax",
    visible: bool = False,
    behaviour: str | None = None,
) -> None:
    """Check a student's softmax ``fn(x, axis=-1)`` on the inputs of one behaviour (or all).

    Parameters
    ----------
    fn : callable
        The student's function (or a grader's proxy for it).
    name : str
        Its name, used in messages.
    visible : bool
        Only the public example (a visible test); groups without one run nothing more than
        the format check.
    behaviour : str, optional
        A key of :data:`SOFTMAX_BEHAVIOURS`; None runs them all.
    """
    check_function(fn, name)
    rng = np.random.default_rng(20261130)
    for group in behaviour_groups(behaviour, SOFTMAX_BEHAVIOURS):
        for case, x, axis in _softmax_cases(group, visible, rng):
            _softmax_case(fn, name, case, x, axis, large=group == "large")


# --------------------------------------------------------------------------------------------
# Causal mask
# --------------------------------------------------------------------------------------------


def _mask_sizes(group: str, visible: bool, rng: np.random.Generator) -> list[int]:
    if group == "example":
        return [3] if visible else [3, 2]
    return [] if visible else [*(int(n) for n in rng.integers(4, 12, size=2)), 1]


def _causal_mask_case(fn: Callable[..., object], name: str, n: int) -> None:
    case = f"n = {n}" if n < 4 else "a random sequence length"
    result = call(fn, name, case, n)
    if result is None:
        raise AnswerFormatError(f"{name} returned None on {case}: add a `return`.")
    try:
        got = np.asarray(result)
    except (TypeError, ValueError):
        raise AnswerFormatError(f"{name} returned something that is not an array.") from None
    if got.shape != (n, n):
        raise AnswerFormatError(
            f"{name} returned shape {got.shape} on {case}; expected an n x n array "
            "(one row per query token, one column per key token)."
        )
    if got.dtype != bool:
        if not np.isin(got, (0, 1)).all():
            raise AnswerFormatError(
                f"{name} returned values other than True/False on {case}; return booleans "
                "(True = may attend), not scores such as 0 and -inf."
            )
        got = got.astype(bool)  # 0/1 integers mean the same thing
    expected = np.tril(np.ones((n, n), dtype=bool))
    if np.array_equal(got, expected):
        return
    for slug, wrong in misconceptions.entries_for("causal_mask"):
        assert wrong.causal_mask is not None  # entries_for("causal_mask") gives only those
        candidate = wrong.causal_mask(n)
        if not np.array_equal(candidate, expected) and np.array_equal(got, candidate):
            raise Misconception(slug, name, f"(On {case}.)")
    raise WrongAnswer(
        f"{name} is not a causal mask on {case}: True where the key's position is at most "
        "the query's position (lower triangle with the diagonal)."
    )


def check_causal_mask_function(
    fn: Callable[..., object],
    name: str = "causal_mask",
    visible: bool = False,
    behaviour: str | None = None,
) -> None:
    """Check a student's ``fn(n)`` returns the boolean causal mask (True = may attend).

    ``visible=True`` runs only ``n = 3``; ``behaviour`` is a key of
    :data:`CAUSAL_MASK_BEHAVIOURS` (None runs them all).
    """
    check_function(fn, name)
    rng = np.random.default_rng(20261202)
    for group in behaviour_groups(behaviour, CAUSAL_MASK_BEHAVIOURS):
        for n in _mask_sizes(group, visible, rng):
            _causal_mask_case(fn, name, n)
