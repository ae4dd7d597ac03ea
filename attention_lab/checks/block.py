"""Checks for lesson 7's questions: the block, generation, a parameter count.

Layer norm, add & norm, next-token probabilities, the weights at generation, a block's
parameter count.

Like :mod:`.layers`: ``None`` when the answer is right, else a :class:`~._base.Misconception`
(the wrong computations of :mod:`attention_lab.transformer.mistakes`), an
:class:`~._base.AnswerFormatError` or a :class:`~._base.WrongAnswer`. Expected values are
recomputed from the inputs the test cell passes; no message shows one.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._steps import softmax
from attention_lab._types import FloatArray
from attention_lab.transformer.block import layer_norm
from attention_lab.transformer.mistakes import block_entries_for
from attention_lab.transformer.parameters import count_parameters

from ._base import (
    HAND_ATOL,
    HAND_RTOL,
    AnswerFormatError,
    Diagnosed,
    Misconception,
    WrongAnswer,
    ambiguities,
    as_numbers,
    diagnose,
    quiet,
)

__all__ = [
    "PARAMETER_PARTS",
    "block_tells_apart",
    "check_add_and_norm",
    "check_generation_weights",
    "check_layer_norm",
    "check_next_token_probabilities",
    "check_parameter_count",
]

#: What :func:`check_parameter_count` may be asked to count.
PARAMETER_PARTS = ("attention", "feed_forward", "norms", "total")


def _matrix(values: ArrayLike, name: str) -> FloatArray:
    arr: FloatArray = np.asarray(values, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (rows = positions), got shape {arr.shape}")
    return arr


def _candidates(
    kind: str, *inputs: object, pick: slice | int = slice(None)
) -> list[tuple[str, FloatArray]]:
    found: list[tuple[str, FloatArray]] = []
    with quiet():
        for slug, wrong in block_entries_for(kind):
            value = wrong.compute(*inputs)
            if value is not None:
                found.append((slug, np.asarray(value)[pick]))
    return found


def block_tells_apart(kind: str, *inputs: ArrayLike) -> bool:
    """Whether these inputs let every ``kind`` mistake be named apart (a generator's test).

    ``kind`` is a stage of :mod:`attention_lab._block_entries` (``"layer_norm"``,
    ``"add_norm"``), ``inputs`` what its check is given after the answer. False when two
    mistakes give one wrong answer (the feedback could not say which one was made), or when a
    row to normalise has all its numbers equal.
    """
    if kind not in ("layer_norm", "add_norm"):
        raise ValueError(f"block_tells_apart knows 'layer_norm' and 'add_norm', not {kind!r}")
    arrays = [np.asarray(i, dtype=float) for i in inputs]
    normed = np.sum(arrays, axis=0)  # x, or x + f
    if (np.ptp(normed, axis=-1) == 0).any():
        return False  # a row normalised with variance 0: every mistake gives zeros too
    found = Diagnosed(kind, kind, layer_norm(normed), tuple(_candidates(kind, *arrays)))
    return not ambiguities(found)


def _rows_text(shape: tuple[int, ...]) -> str:
    return f"one row of {shape[1]} numbers per position ({shape[0]} rows)"


def check_layer_norm(answer: object, x: ArrayLike, name: str = "your layer norm") -> None:
    """Check ``x`` layer-normalised (gain 1, bias 0, eps 1e-5): each row to mean 0, variance 1.

    Parameters
    ----------
    answer : array_like, shape (n, d)
    x : array_like, shape (n, d)
    """
    x = _matrix(x, "x")
    expected = layer_norm(x)
    arr = as_numbers(answer, name, expected.shape, _rows_text(expected.shape))
    diagnose(
        arr, expected, _candidates("layer_norm", x), name, HAND_RTOL, HAND_ATOL,
        "Each position's own numbers should end with mean 0 and variance 1.",
    )  # fmt: skip


def check_add_and_norm(
    answer: object, x: ArrayLike, sublayer_output: ArrayLike, name: str = "your add & norm"
) -> None:
    """Check one wrapped sub-layer, the original post-norm way: ``LayerNorm(x + f)``.

    Parameters
    ----------
    answer : array_like, shape (n, d)
    x : array_like, shape (n, d)
        The sub-layer's input.
    sublayer_output : array_like, shape (n, d)
        What the sub-layer (attention or feed-forward) gave for ``x``.
    """
    x, f = _matrix(x, "x"), _matrix(sublayer_output, "sublayer_output")
    expected = layer_norm(x + f)
    arr = as_numbers(answer, name, expected.shape, _rows_text(expected.shape))
    diagnose(
        arr, expected, _candidates("add_norm", x, f), name, HAND_RTOL, HAND_ATOL,
        "Which two things are added, and what is normalised?",
    )  # fmt: skip


def check_next_token_probabilities(
    answer: object,
    logits: ArrayLike,
    temperature: float = 1.0,
    row: int | None = None,
    name: str = "your probabilities",
) -> None:
    """Check ``softmax(logits / temperature)`` over the vocabulary (one position's, or all).

    Parameters
    ----------
    answer : array_like, shape (V,) with ``row``, else (n, V)
    logits : array_like, shape (n, V)
        One row per position, one column per token of the vocabulary.
    temperature : float > 0
    row : int, optional
        The position asked about (``-1``: the last, the one generation uses).
    """
    z = _matrix(logits, "logits")
    t = float(temperature)
    if not t > 0:
        raise ValueError(f"temperature must be positive, got {temperature!r}")
    with quiet():
        expected_all = softmax(z / t, axis=-1)
    pick: slice | int = slice(None) if row is None else int(row)
    expected = expected_all[pick]
    what = (
        f"{z.shape[1]} probabilities, one per token of the vocabulary"
        if row is not None
        else _rows_text(z.shape)
    )
    arr = as_numbers(answer, name, expected.shape, what)
    diagnose(
        arr, expected, _candidates("probabilities", z, t, pick=pick), name, HAND_RTOL, HAND_ATOL,
        "Probabilities of the next token: what must add up to 1, and where does the "
        "temperature go?",
    )  # fmt: skip


def check_generation_weights(answer: object, scores: ArrayLike, name: str = "your weights") -> None:
    """Check a block's attention weights while it generates: the causal softmax of ``scores``.

    Parameters
    ----------
    answer : array_like, shape (n, n)
    scores : array_like, shape (n, n)
        Scaled scores, row = the position asking.
    """
    s = _matrix(scores, "scores")
    if s.shape[0] != s.shape[1]:
        raise ValueError(f"scores must be square (self-attention), got shape {s.shape}")
    with quiet():
        expected = softmax(np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf), axis=-1)
    arr = as_numbers(answer, name, expected.shape, _rows_text(s.shape))
    diagnose(
        arr, expected, _candidates("generation_weights", s), name, HAND_RTOL, HAND_ATOL,
        "Which positions may each position look at while the model writes?",
    )  # fmt: skip


def _count(answer: object, name: str) -> int:
    if answer is None or answer is Ellipsis:
        raise AnswerFormatError(f"{name} is still a placeholder: replace it with a whole number.")
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer | float | np.floating):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected one whole number (a count)."
        )
    if not np.isfinite(answer) or float(answer) != int(answer):
        raise AnswerFormatError(f"{name} should be a whole number (a count of parameters).")
    return int(answer)


def check_parameter_count(
    answer: object, d_model: int, h: int, d_ff: int, part: str = "total", name: str = "your count"
) -> None:
    """Check the number of parameters of one block (or of one ``part`` of it).

    Parameters
    ----------
    answer : int
    d_model, h, d_ff : int
    part : {"attention", "feed_forward", "norms", "total"}
    """
    if part not in PARAMETER_PARTS:
        raise ValueError(f"part must be one of {PARAMETER_PARTS}, got {part!r}")
    value = _count(answer, name)
    right = count_parameters(d_model, h, d_ff)
    if value == getattr(right, part):
        return
    for slug, wrong in block_entries_for("parameters"):
        count = wrong.compute(d_model, h, d_ff)
        if count is not None and getattr(count, part) != getattr(right, part):
            if value == getattr(count, part):
                raise Misconception(slug, name)
    raise WrongAnswer(
        f"{name} is not right yet. Count each matrix (rows x columns) and each bias vector of "
        "the part, then add them up."
    )
