"""Checks for lesson 6's questions: projections, one head of several, positions, shapes.

They work like :mod:`.hand`: ``None`` when the answer is right, else a
:class:`~._base.Misconception` (the registry's ``layer_wrong`` computations,
:func:`attention_lab.misconceptions.layer_entries_for`), an :class:`~._base.AnswerFormatError`
or a :class:`~._base.WrongAnswer`. The expected values are recomputed here from the inputs the
test cell passes as literals; no message shows one.

Shapes: ``X`` (n, d_model), ``W_Q`` and ``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v),
``positions`` (n, d_model).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import misconceptions
from attention_lab._layer_steps import LayerCase, compute_layer
from attention_lab._types import FloatArray

from ._base import (
    HAND_ATOL,
    HAND_RTOL,
    AnswerFormatError,
    WrongAnswer,
    ambiguities,
    as_numbers,
    audited,
    close,
    diagnose,
    quiet,
    record,
)

__all__ = [
    "check_concat_shape",
    "check_head_output",
    "check_head_weights",
    "check_projection",
    "heads_tell_apart",
]


def _rows(row: int | None, n: int) -> slice | int:
    if row is None:
        return slice(None)
    if isinstance(row, bool) or not isinstance(row, int | np.integer) or not 0 <= row < n:
        raise ValueError(f"row must be a word's index in 0..{n - 1} or None, got {row!r}")
    return int(row)


def _layer_step(
    case: LayerCase, kind: str, row: int | None
) -> tuple[FloatArray, list[tuple[str, FloatArray]], slice | int]:
    """Return one stage's right answer, each misconception's wrong one, and the rows picked."""
    with quiet():
        right: FloatArray = getattr(compute_layer(case), kind)
        pick = _rows(row, right.shape[0])
        candidates: list[tuple[str, FloatArray]] = []
        for slug, wrong in misconceptions.layer_entries_for(kind):
            steps = compute_layer(case, wrong)
            if steps is not None:
                candidates.append((slug, getattr(steps, kind)[pick]))
    return right[pick], candidates, pick


def _check_layer(
    answer: object, kind: str, case: LayerCase, row: int | None, name: str, what: str, hint: str
) -> None:
    """Compare one stage (all words, or one word's ``row``) with the right and the wrong ones."""
    expected, candidates, _ = _layer_step(case, kind, row)
    arr = as_numbers(answer, name, expected.shape, what)
    record(name, kind, expected, candidates)
    if row is None and kind != "queries" and close(arr, expected.T, HAND_RTOL, HAND_ATOL):
        if not close(expected, expected.T, HAND_RTOL, HAND_ATOL):
            raise WrongAnswer(
                f"{name} has the right numbers in the wrong places: one row per word asking "
                "(its query), one column per word it looks at (or number of its output)."
            )
    diagnose(arr, expected, candidates, name, HAND_RTOL, HAND_ATOL, hint)


def check_projection(
    answer: object, X: ArrayLike, W: ArrayLike, name: str = "your projection"
) -> None:
    """Check word vectors projected by a matrix: ``X @ W`` (queries, keys or values).

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n, d_out), or (d_out,) for a 1-D ``X``
    X : array_like, shape (n, d_model) or (d_model,)
    W : array_like, shape (d_model, d_out)
    name : str
    """
    x, w = np.asarray(X, dtype=float), np.asarray(W, dtype=float)
    expected = x @ w
    what = (
        f"{expected.shape[-1]} numbers (one projected vector)"
        if expected.ndim == 1
        else f"one row of {expected.shape[1]} numbers per word ({expected.shape[0]} rows)"
    )
    arr = as_numbers(answer, name, expected.shape, what)
    with quiet():
        transposed = x @ w.T if w.shape[0] == w.shape[1] else None
    if transposed is not None and not close(transposed, expected, 2 * HAND_RTOL, 2 * HAND_ATOL):
        if close(arr, transposed, HAND_RTOL, HAND_ATOL):
            raise WrongAnswer(
                f"{name} reads the matrix by rows where it should read it by columns: each "
                "number of a projected vector is a word vector times one column of the matrix."
            )
    diagnose(
        arr, expected, [], name, HAND_RTOL, HAND_ATOL,
        "Which numbers of the matrix does each number of a projected vector use?",
    )  # fmt: skip


def check_head_weights(
    answer: object, X: ArrayLike, W_Q: ArrayLike, W_K: ArrayLike, scale: bool = True,
    name: str = "your weights", *, row: int | None = None, positions: ArrayLike | None = None,
    other_W_Q: ArrayLike | None = None,
) -> None:  # fmt: skip
    """Check one head's attention weights on projected queries and keys.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n, n), or (n,) for one word's ``row``
    X : array_like, shape (n, d_model)
    W_Q, W_K : array_like, shape (d_model, d_k)
    scale : bool, default True
        Whether the scores are divided by ``sqrt(d_k)``.
    name : str
    row : int, optional
        Only this word's weights (its query against every key).
    positions : array_like, shape (n, d_model), optional
        Added to ``X`` before the projections.
    other_W_Q : array_like, shape (d_model, d_k), optional
        Another head's ``W_Q``, so an answer made with it can be named.
    """
    case = LayerCase.of(X, W_Q, W_K, None, positions, other_W_Q, scale)
    n = case.X.shape[0]
    what = f"{n} weights, one per word" if row is not None else f"a {n} x {n} matrix of weights"
    _check_layer(
        answer, "weights", case, row, name, what,
        "Which vectors does a score compare, and over which words does one query share out its "
        "weights?",
    )  # fmt: skip


def check_head_output(
    answer: object, X: ArrayLike, W_Q: ArrayLike, W_K: ArrayLike, W_V: ArrayLike,
    scale: bool = True, name: str = "your output", *, row: int | None = None,
    positions: ArrayLike | None = None, other_W_Q: ArrayLike | None = None,
) -> None:  # fmt: skip
    """Check one head's output: the weights times the projected values.

    Parameters are those of :func:`check_head_weights`, plus ``W_V`` of shape (d_model, d_v);
    ``answer`` has shape (n, d_v), or (d_v,) for one word's ``row``.
    """
    case = LayerCase.of(X, W_Q, W_K, W_V, positions, other_W_Q, scale)
    d_v = case.W_V.shape[1]
    what = f"{d_v} numbers" if row is not None else f"one row of {d_v} numbers per word"
    _check_layer(
        answer, "output", case, row, name, what,
        "Which vectors do the weights blend, and what made them from the word vectors?",
    )  # fmt: skip


def check_concat_shape(
    answer: object, n_words: int, n_heads: int, d_v: int, name: str = "your shape"
) -> None:
    """Check the shape of the heads' outputs concatenated word by word: ``(n, h * d_v)``.

    Parameters
    ----------
    answer : tuple or list of 2 ints
    n_words, n_heads, d_v : int
    name : str
    """
    if not isinstance(answer, tuple | list | np.ndarray) or np.size(answer) != 2:
        raise AnswerFormatError(
            f"{name} should be a shape: two whole numbers in brackets, (rows, columns)."
        )
    arr = as_numbers(list(answer), name, (2,), "two whole numbers (rows, columns)")
    if not np.allclose(arr, np.round(arr)):
        raise AnswerFormatError(
            f"{name} should hold whole numbers: a shape counts rows and columns."
        )
    got = tuple(int(x) for x in np.round(arr))
    if got == (n_words, n_heads * d_v):
        return
    if got == (n_heads * n_words, d_v):
        raise WrongAnswer(
            f"{name} stacks the heads below each other (more rows): the heads are joined side by "
            "side, word by word, so each word keeps one row."
        )
    if got == (n_words, d_v):
        raise WrongAnswer(
            f"{name} is the shape of one head's output: concatenating puts every head's numbers "
            "for a word next to each other."
        )
    raise WrongAnswer(f"{name} is not right yet: count the rows (words) and the columns.")


def heads_tell_apart(
    X: ArrayLike,
    W_Q: ArrayLike,
    W_K: ArrayLike,
    W_V: ArrayLike | None = None,
    scale: bool = True,
    *,
    row: int | None = None,
    positions: ArrayLike | None = None,
    other_W_Q: ArrayLike | None = None,
) -> bool:
    """Whether one head's inputs let every misconception be named apart, with no tied weight.

    For a variant generator (:mod:`attention_lab.variants`): raise ``variants.Redraw`` when
    False. Checks the weights, and the output when ``W_V`` is given; the parameters are those
    of :func:`check_head_output`. A square ``W_Q`` or ``W_K`` must also not be symmetric (a
    projection read by rows would give the right numbers).
    """
    for W in (W_Q, W_K):
        w = np.asarray(W, dtype=float)
        if w.shape[0] == w.shape[1] and np.allclose(w, w.T):
            return False
    case = LayerCase.of(X, W_Q, W_K, W_V, positions, other_W_Q, scale)
    kinds = ("weights", "output") if W_V is not None else ("weights",)
    with audited() as found:
        for kind in kinds:
            expected, candidates, _ = _layer_step(case, kind, row)
            record(kind, kind, expected, candidates)
    return not any(ambiguities(f) for f in found)
