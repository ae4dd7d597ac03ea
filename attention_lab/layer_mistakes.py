"""Lesson 6's "spot the mistake": four lines of a layer, each with one of its four classic mistakes.

Each :class:`LayerMistake` is one line of numpy as a student might write it, with the mistake it
holds. The lesson shows them in the order of :data:`SPOT_THE_MISTAKE` (not the order the lesson
lists the mistakes in), and :func:`attention_lab.checks.onramps.check_spotted_mistakes` checks a
student's matching. Every snippet runs on the names ``X`` (n, d_model), ``W_Q``, ``W_K``,
``W_V``, ``W_Q1``, ``W_K2`` (d_model, d_k), ``pe`` (n, d_model), ``d_k`` and ``softmax``; the
tests run each one and check that it differs from the right computation.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MISTAKE_NAMES", "SPOT_THE_MISTAKE", "LayerMistake"]

#: What a student types for each mistake, in the order the lesson lists them.
MISTAKE_NAMES = ("shared W_Q", "raw vectors", "positions after", "no transpose")


@dataclass(frozen=True)
class LayerMistake:
    """One line of a layer holding one mistake.

    Attributes
    ----------
    letter : str
        How the lesson labels it (A, B, C, D).
    code : str
        The line, as shown.
    computes : str
        The variable the line sets (``"scores"``, ``"scores_2"`` or ``"out"``).
    mistake : str
        One of :data:`MISTAKE_NAMES`.
    """

    letter: str
    code: str
    computes: str
    mistake: str


SPOT_THE_MISTAKE = (
    LayerMistake("A", "scores = X @ (W_Q @ W_K) @ X.T / np.sqrt(d_k)", "scores", "no transpose"),
    LayerMistake(
        "B",
        "out = softmax((X @ W_Q) @ (X @ W_K).T / np.sqrt(d_k)) @ (X @ W_V) + pe",
        "out",
        "positions after",
    ),
    LayerMistake("C", "scores = X @ X.T / np.sqrt(d_k)", "scores", "raw vectors"),
    LayerMistake(
        "D",
        "scores_2 = (X @ W_Q1) @ (X @ W_K2).T / np.sqrt(d_k)  # head 2",
        "scores_2",
        "shared W_Q",
    ),  # fmt: skip
)
