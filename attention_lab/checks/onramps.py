"""Checks for the on-ramps: a matrix product, a head before training, "spot the mistake".

A matrix product by hand (lesson 3), a head's weights before training and lesson 6's "spot the
mistake".

They work like :mod:`attention_lab.checks`: ``None`` when the answer is right, else a
:class:`~attention_lab.checks.WrongAnswer` or :class:`~attention_lab.checks.AnswerFormatError`
that says what the answer shows and points back to a lesson already done, never the value.
Lessons call them through :func:`attention_lab.checks.selfcheck.self_check`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab.checks import AnswerFormatError, WrongAnswer
from attention_lab.checks._base import as_numbers
from attention_lab.layer_mistakes import MISTAKE_NAMES, SPOT_THE_MISTAKE

__all__ = ["check_matrix_product", "check_spotted_mistakes", "check_start_weights"]

_RTOL, _ATOL = 1e-3, 6e-3


def _close(a: ArrayLike, b: ArrayLike) -> bool:
    return bool(np.allclose(a, b, rtol=_RTOL, atol=_ATOL))


def check_matrix_product(answer: object, A: ArrayLike, B: ArrayLike, name: str = "product") -> None:
    """Check ``A @ B`` computed by hand (row of ``A`` times column of ``B``).

    Parameters
    ----------
    answer : array_like, shape (n, m)
    A : array_like, shape (n, k)
    B : array_like, shape (k, m)
    name : str
    """
    a, b = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    expected = a @ b
    arr = as_numbers(answer, name, expected.shape, f"a {expected.shape[0]} × {expected.shape[1]} "
                     "matrix, one inner list per row")  # fmt: skip
    if _close(arr, expected):
        return
    wrong = [
        (a * b if a.shape == b.shape else None,
         "multiplies the matching entries one by one; a matrix product takes a whole row of the "
         "first matrix times a whole column of the second, then adds"),
        (b @ a if a.shape[1] == b.shape[0] == a.shape[0] else None,
         "is the product in the other order (the second matrix's rows times the first's "
         "columns); the order matters"),
        (a @ b.T if a.shape[1] == b.shape[1] else None,
         "uses the second matrix's rows where its columns belong"),
        (expected.T, "has the right numbers in swapped places: row i, column j is row i of the "
         "first matrix times column j of the second"),
    ]  # fmt: skip
    for candidate, says in wrong:
        if candidate is not None and not _close(candidate, expected) and _close(arr, candidate):
            raise WrongAnswer(f"{name} {says}. (See the primer in lesson 03, section 4.)")
    raise WrongAnswer(
        f"{name} is not right yet. Entry (row i, column j) is row i of the first matrix times "
        "column j of the second: multiply the pairs and add. (See lesson 03, section 4.)"
    )


def check_start_weights(answer: object, position: int, n: int, name: str = "weights") -> None:
    """Check one position's causal attention weights when every score is 0 (before training).

    Parameters
    ----------
    answer : array_like, shape (n,)
        The weights position ``position`` gives to positions 0..n-1.
    position : int
        The position asking (0-based).
    n : int
        The sequence length.
    name : str
    """
    if not 0 <= position < n:
        raise ValueError(f"position must lie in 0..{n - 1}, got {position}")
    arr = as_numbers(answer, name, (n,), f"{n} weights, one per position 0..{n - 1}")
    seen = np.arange(n) <= position
    expected = seen / seen.sum()
    if _close(arr, expected):
        return
    if _close(arr, np.full(n, 1 / n)):
        raise WrongAnswer(
            f"{name} gives weight to positions after {position}, which the causal mask hides: "
            "what weight does a hidden position get? (See lesson 04.)"
        )
    if not _close(arr.sum(), 1.0):
        raise WrongAnswer(
            f"{name} does not add up to 1, and a softmax's weights always do. (See lesson 02.)"
        )
    if np.count_nonzero(arr > _ATOL) == 1:
        raise WrongAnswer(
            f"{name} puts all its weight on one place: that is a pattern training might reach, "
            "not where it starts. Before training every score is about 0: what does the "
            "softmax do with equal scores? (See lesson 02.)"
        )
    raise WrongAnswer(
        f"{name} is not right yet. Before training every allowed score is about 0: what does "
        "the softmax do with equal scores, and which positions may this one see? (Lessons 02, 04.)"
    )


def check_spotted_mistakes(answer: object, name: str = "spotted") -> None:
    """Check which mistake each of the lines A, B, C, D holds.

    Parameters
    ----------
    answer : list of str, length 4
        For A, B, C, D in order: one of ``MISTAKE_NAMES``.
    name : str
    """
    n = len(SPOT_THE_MISTAKE)
    if isinstance(answer, str) or not isinstance(answer, list | tuple) or len(answer) != n:
        raise AnswerFormatError(f"{name} must be a list of {n} names, one for each of A to D")
    given = [str(a).strip() for a in answer]
    unknown = [g for g in given if g not in MISTAKE_NAMES]
    if unknown:
        raise AnswerFormatError(
            f"{name}: {unknown[0]!r} is not one of the four names; use exactly "
            + ", ".join(repr(m) for m in MISTAKE_NAMES)
        )
    if len(set(given)) != n:
        raise WrongAnswer(f"{name} uses one name twice: each line holds a different mistake")
    wrong = [m.letter for m, g in zip(SPOT_THE_MISTAKE, given, strict=True) if g != m.mistake]
    if wrong:
        raise WrongAnswer(
            f"{name}: {n - len(wrong)} of {n} are right. Look again at line "
            f"{wrong[0]}: which of Q, K, V or the positions does it make differently from "
            "Q = X·W_Q, K = X·W_K, V = X·W_V with the positions in X?"
        )
