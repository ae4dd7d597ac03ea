"""Your own numbers for a lesson's exercise, so a classmate's worked answer is not yours.

A lesson's your-turn exercise that asks for numbers on a new query (a new decoder state, a
new word's query) draws that query for the student, as the graded assignments do
(:mod:`attention_lab.variants`): on the class's hub from the seed its spawner gives her
server (the login), so each student computes on her own query and her self-check recomputes
the answer for it. On a laptop without the hub's seed every student works on the lesson's
printed numbers (``practice``), so what the lesson's text says about them stays true there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import checks, variants

__all__ = ["your_query"]

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
    seed = variants.current_seed()

    def generator(rng: np.random.Generator) -> np.ndarray:
        query: np.ndarray = np.asarray(rng.integers(LOW, HIGH + 1, size=keys_a.shape[1]))
        scores = keys_a @ query
        if not query.any() or len(np.unique(scores)) < len(scores):
            raise variants.Redraw  # a tie: "which state dominates?" would have no answer
        if tell_apart and not checks.tells_apart(query, keys_a, values_a, scale=scale):
            raise variants.Redraw
        return query

    if seed.practice:
        query = np.asarray(practice, dtype=int)
        whose = "the lesson's numbers; on the class's hub you get your own"
    else:
        query = variants.draw(lesson, name, generator, seed)
        whose = f"your own numbers, drawn for {seed.student}"
    if show:
        print(f"{name} = {query.tolist()}  ({whose})")
    return query
