"""Your own numbers for a lesson's exercise, so a classmate's worked answer is not yours.

A lesson's your-turn exercise that asks for numbers on a new query or new rows (a new decoder state, a
new word's query) draws that query for the student, as the graded assignments do
(:mod:`attention_lab.variants`): on the class's hub from the seed its spawner gives her
server (the login), so each student computes on her own query and her self-check recomputes
the answer for it. On a laptop without the hub's seed every student works on the lesson's
printed numbers (``practice``), so what the lesson's text says about them stays true there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import checks, variants

__all__ = ["your_query", "your_rows"]

#: A drawn query's numbers are whole numbers in this range: worked by hand in a minute.
LOW, HIGH = -2, 3


def your_query(
    lesson: str,
    name: str,
    keys: ArrayLike,
    values: ArrayLike | None = None,
    *,
    scale: bool,
    practice: Sequence[int],
    tell_apart: bool = True,
    show: bool = True,
) -> np.ndarray:
    """Return this student's query for one exercise, and print it.

    Parameters
    ----------
    lesson, name : str
        The lesson's file name (``"01_the_bottleneck"``) and the query's name (``"s2"``):
        together, which exercise (the same pair always gives the same student the same query).
    keys : array_like, shape (n_k, d_k)
        The keys the query meets.
    values : array_like, shape (n_k, d_v), optional
        The values it blends (default: the keys, as in lesson 1's encoder states).
    scale : bool
        Whether the exercise divides the scores by sqrt(d_k).
    practice : sequence of int, length d_k
        The lesson's printed query: everyone's on a laptop without the hub's seed.
    tell_apart : bool
        Draw only queries on which every step's misconceptions give different wrong answers
        (:func:`attention_lab.checks.tells_apart`). False where the keys leave two mistakes
        alike whatever the query (the four tiffin keys): then only no tie is asked for.
    show : bool
        Print ``name = [...]`` and whose numbers they are.

    Returns
    -------
    numpy.ndarray, shape (d_k,), int
        Small whole numbers, not all zero, on which no two scores tie.
    """
    keys_a = np.asarray(keys)
    values_a = keys_a if values is None else np.asarray(values)

    def generator(rng: np.random.Generator) -> np.ndarray:
        query: np.ndarray = np.asarray(rng.integers(LOW, HIGH + 1, size=keys_a.shape[1]))
        scores = keys_a @ query
        if not query.any() or len(np.unique(scores)) < len(scores):
            raise variants.Redraw  # a tie: "which state dominates?" would have no answer
        if tell_apart and not checks.tells_apart(query, keys_a, values_a, scale=scale):
            raise variants.Redraw
        return query

    return _yours(lesson, name, generator, np.asarray(practice, dtype=int), show)


def _yours(
    lesson: str,
    name: str,
    generator: Callable[[np.random.Generator], np.ndarray],
    practice: np.ndarray,
    show: bool,
) -> np.ndarray:
    """Draw with the student's seed (the lesson's ``practice`` numbers without one); print."""
    seed = variants.current_seed(any_course=True)  # a lesson belongs to no course folder
    if seed.practice:
        drawn = practice
        whose = "the lesson's numbers; on the class's hub you get your own"
    else:
        drawn = variants.draw(lesson, name, generator, seed)
        whose = f"your own numbers, drawn for {seed.student}"
    if show:
        print(f"{name} = {drawn.tolist()}  ({whose})")
    return drawn


def your_rows(
    lesson: str,
    name: str,
    *,
    practice: Sequence[Sequence[float]],
    low: int,
    high: int,
    step: float = 1.0,
    tell_apart: str | None = None,
    given: Sequence[ArrayLike] = (),
    show: bool = True,
) -> np.ndarray:
    """Return this student's matrix for one exercise (one row per position), and print it.

    Parameters
    ----------
    lesson, name : str
        Which exercise (as :func:`your_query`).
    practice : sequence of rows, shape (n, d)
        The lesson's printed numbers: everyone's on a laptop without the hub's seed.
    low, high : int
        Each number is ``step`` times a whole number from ``low`` to ``high``.
    step : float
        ``1`` for whole numbers, ``0.5`` for halves: worked by hand in a minute.
    tell_apart : str, optional
        The lesson 7 stage the exercise checks (``"layer_norm"``, ``"add_norm"``): draw only
        numbers on which its mistakes give different wrong answers
        (:func:`attention_lab.checks.block_tells_apart`). A row of equal numbers is always
        drawn again (its variance is 0).
    given : sequence of arrays
        The stage's inputs before this matrix (``add_norm``: ``x``, then the drawn sub-layer
        output).
    show : bool
        Print ``name = [...]`` and whose numbers they are.

    Returns
    -------
    numpy.ndarray, shape (n, d), float
    """
    shape = np.shape(practice)

    def generator(rng: np.random.Generator) -> np.ndarray:
        drawn = rng.integers(low, high + 1, size=shape) * float(step)
        if (np.ptp(drawn, axis=-1) == 0).any():
            raise variants.Redraw  # a row with variance 0
        if tell_apart and not checks.block_tells_apart(tell_apart, *given, drawn):
            raise variants.Redraw
        return np.asarray(drawn, dtype=float)

    return _yours(lesson, name, generator, np.asarray(practice, dtype=float), show)
