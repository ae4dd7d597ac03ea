"""What the query explorer opens on when a lesson starts it from a chapter's worked example.

:func:`example_opening` turns a :class:`~attention_lab.examples.WorkedExample` (and, perhaps, a
query of the lesson's own for the asking token) into the explorer's opening: its vectors,
scaling, asking token and a title that says what the chapter does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab.examples import WorkedExample

__all__ = ["Opening", "example_opening", "start_query"]


@dataclass(frozen=True)
class Opening:
    """The explorer's opening on a worked example.

    Attributes
    ----------
    tokens : tuple of str, length n
    Q, K, V : numpy.ndarray, shape (n, 2)
        The example's vectors; ``Q`` with the lesson's start query in the asking token's row.
    scale : bool
        Whether the chapter scales the scores by 1/sqrt(d_k).
    query_index : int
        The asking token's row.
    title : str
        The tokens, the chapter and whether it scales (what the chapter does, not the
        explorer's state: the sqrt(d_k) box changes the latter).
    """

    tokens: tuple[str, ...]
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scale: bool
    query_index: int
    title: str


def example_opening(example: WorkedExample, start: ArrayLike | None = None) -> Opening:
    """Return the opening on ``example``; ``start`` (2 numbers) replaces the asking token's query.

    Lesson 1 opens away from the chapter's (1, 1), whose winner lesson 2 asks students to
    predict.
    """
    scaled = (
        "the chapter scales the scores by 1/√d_k"
        if example.scale
        else "the chapter does not scale the scores"
    )
    tokens = ", ".join(f"“{t}”" for t in example.tokens)
    Q = np.array(example.Q, dtype=float)
    if start is not None:
        Q[example.query_index] = start_query(start, Q.shape[1])
    return Opening(
        tuple(example.tokens),
        Q,
        example.K,
        example.V,
        example.scale,
        example.query_index,
        f"tokens {tokens} from the chapter “{example.chapter}” ({scaled})",
    )


def start_query(query: ArrayLike, d: int) -> np.ndarray:
    """Return ``query`` as ``d`` finite numbers, shape (d,), or a ValueError that says what to pass."""
    try:
        q = np.asarray(query, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        q = np.array([np.nan])
    if q.shape != (d,) or not np.isfinite(q).all():
        raise ValueError(f"start_query must be {d} finite numbers, e.g. (2, 1); got {query!r}")
    return q
