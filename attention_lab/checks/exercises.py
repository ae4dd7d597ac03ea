"""Checks for lesson exercises that no graded assignment asks.

Masked attention by hand, what hard selection (``v[argmax]``) returns, what makes a dot product
large (lengths as well as the angle), and the pattern a head trained to copy the previous token
will learn (lesson 6's prediction).

They work like :mod:`attention_lab.checks` (and raise its failures): ``None`` when the answer is
right, else :class:`~attention_lab.checks.Misconception` naming what the answer shows,
:class:`~attention_lab.checks.AnswerFormatError` or :class:`~attention_lab.checks.WrongAnswer`.
The expected value is recomputed from the inputs and never appears in a message. Lessons call
them through :func:`attention_lab.checks.selfcheck.self_check`.

A mask is a boolean row, one entry per key: ``True`` = may attend, ``False`` = masked.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import misconceptions
from attention_lab._types import BoolArray, FloatArray
from attention_lab.checks import AnswerFormatError, Misconception, WrongAnswer
from attention_lab.checks._base import as_numbers
from attention_lab.core import softmax

__all__ = [
    "check_masked_scores",
    "check_masked_weights",
    "check_masked_output",
    "check_hard_output",
    "check_top_key",
    "check_parallel_key_beats",
    "check_previous_token_pattern",
]

#: ``(id, or (id, this exercise's own explanation), or "unmasked"; a wrong answer or None)``
_Candidates = Iterable[tuple[str | tuple[str, str], FloatArray | None]]

# Hand-computed answers may be rounded to 3 decimals on the way (as in the assignments' checks).
_RTOL, _ATOL = 1e-3, 6e-3
# A masked score below this is as good as -inf: exp() of it is exactly 0 next to a normal score.
_AS_GOOD_AS_MINUS_INF = -745.0

_UNMASKED = (
    "the masked key still counts, so the mask has not been applied yet. Hint: which score "
    "has an exponential of exactly 0, so that the softmax gives it no weight? (See lesson 04.)"
)


def _scores(query: ArrayLike, keys: ArrayLike, scale: bool) -> FloatArray:
    """q.k for each key (n_k,), divided by sqrt(d_k) if ``scale``."""
    q: FloatArray = np.asarray(query, dtype=float)
    k: FloatArray = np.asarray(keys, dtype=float)
    return k @ q / (np.sqrt(k.shape[1]) if scale else 1.0)


def _inputs(
    query: ArrayLike, keys: ArrayLike, mask: ArrayLike, scale: bool
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Return the scores (n_k,), the scores with the other scaling, and the mask row (n_k,)."""
    scores, other = _scores(query, keys, scale), _scores(query, keys, not scale)
    row = np.asarray(mask, dtype=bool)
    if row.shape != scores.shape or not row.any():
        raise ValueError("mask must be one boolean per key, with at least one True")
    return scores, other, row


def _close(a: ArrayLike, b: ArrayLike) -> bool:
    return bool(np.allclose(a, b, rtol=_RTOL, atol=_ATOL))


def _diagnose(
    answer: FloatArray, expected: FloatArray, candidates: _Candidates, name: str, wrong: str
) -> None:
    """Pass if ``answer`` matches ``expected``; else name the first candidate it matches."""
    if _close(answer, expected):
        return
    for what, candidate in candidates:
        if candidate is None or _close(candidate, expected) or not _close(answer, candidate):
            continue
        if what == "unmasked":
            raise WrongAnswer(f"{name}: {_UNMASKED}")
        if isinstance(what, tuple):  # (slug, this exercise's own explanation)
            raise Misconception(what[0], name, message=what[1])
        raise Misconception(what, name)
    raise WrongAnswer(f"{name} is not right yet. {wrong}")


def _masked(scores: FloatArray, row: BoolArray, fill: float = -np.inf) -> FloatArray:
    return np.where(row, scores, fill)


def _weight_candidates(
    scores: FloatArray, other: FloatArray, row: BoolArray, scale: bool
) -> list[tuple[str | tuple[str, str], FloatArray | None]]:
    """Return (what, weights) known mistakes give; ``other`` = the scores with the other scaling."""
    with np.errstate(all="ignore"):
        total = _masked(scores, row, 0.0).sum()
        summed = _masked(scores, row, 0.0) / total if total else None
    return [
        ("unmasked", softmax(scores)),
        ("mask_zero_not_inf", softmax(_masked(scores, row, 0.0))),
        ("mask_after_softmax", softmax(scores) * row),
        ("forgot_scaling" if scale else "scaled_when_not_asked", softmax(_masked(other, row))),
        ("sum_normalised", summed),
    ]


def check_masked_scores(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    mask: ArrayLike,
    scale: bool,
    name: str = "masked scores",
) -> None:
    """Check one query's scores after masking: allowed ones as they were, masked ones -inf.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n_k,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    mask : array_like of bool, shape (n_k,)
        True = may attend, False = masked.
    scale : bool
        Whether the scores are divided by ``sqrt(d_k)``.
    name : str
    """
    scores, other, row = _inputs(query, keys, mask, scale)
    n = len(scores)
    arr = as_numbers(
        answer, name, (n,), f"{n} scores, minus infinity where masked", allow_minus_inf=True
    )
    hidden = arr[~row]
    if (arr[row] <= _AS_GOOD_AS_MINUS_INF).any():
        raise Misconception("mask_inverted", name)
    if np.allclose(hidden, 0.0):
        raise Misconception("mask_zero_not_inf", name)
    if _close(hidden, scores[~row]):
        raise WrongAnswer(f"{name}: {_UNMASKED}")
    if not (hidden <= _AS_GOOD_AS_MINUS_INF).all():
        raise WrongAnswer(
            f"{name}: a masked score must vanish in the softmax, so its exponential must be "
            "exactly 0. Hint: which number has an exponential of exactly 0?"
        )
    _diagnose(
        arr[row], scores[row],
        [("forgot_scaling" if scale else "scaled_when_not_asked", other[row])],
        name, "The allowed scores stay exactly as they were: q.k for each allowed key.",
    )  # fmt: skip


def check_masked_weights(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    mask: ArrayLike,
    scale: bool,
    name: str = "masked weights",
) -> None:
    """Check one query's softmax weights under a mask (masked keys get exactly 0).

    Parameters are those of :func:`check_masked_scores`; ``answer`` holds weights.
    """
    scores, other, row = _inputs(query, keys, mask, scale)
    n = len(scores)
    arr = as_numbers(answer, name, (n,), f"{n} weights, one per key (0 where masked)")
    expected = softmax(_masked(scores, row))
    candidates = _weight_candidates(scores, other, row, scale)
    after_softmax = candidates[2][1]  # "mask_after_softmax": always a wrong answer
    assert after_softmax is not None
    if abs(arr.sum() - 1.0) > 2 * _ATOL and not _close(arr, after_softmax):
        raise Misconception("weights_not_normalised", name)
    _diagnose(
        arr, expected, candidates, name,
        "Hint: which step comes first, hiding the masked keys or the softmax? Work the "
        "allowed keys by hand.",
    )  # fmt: skip


def check_masked_output(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    mask: ArrayLike,
    scale: bool,
    name: str = "masked output",
) -> None:
    """Check one query's output under a mask: the blend of the allowed values only.

    Parameters are those of :func:`check_masked_scores`, plus ``values`` of shape (n_k, d_v);
    ``answer`` has shape (d_v,).
    """
    scores, other, row = _inputs(query, keys, mask, scale)
    v = np.asarray(values, dtype=float)
    arr = as_numbers(answer, name, (v.shape[1],), f"a vector of {v.shape[1]} numbers")
    weights = softmax(_masked(scores, row))
    candidates = [(what, w @ v if w is not None else None) for what, w in
                  _weight_candidates(scores, other, row, scale)]  # fmt: skip
    allowed = np.flatnonzero(row)
    candidates.append(("hard_attention", v[allowed[np.argmax(scores[allowed])]]))
    if np.shape(keys) == v.shape:
        candidates.append(("keys_as_values", weights @ np.asarray(keys, dtype=float)))
    _diagnose(
        arr, weights @ v, candidates, name,
        "The output is the sum of each value times its masked weight (masked values count 0).",
    )  # fmt: skip


def check_hard_output(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    scale: bool,
    name: str = "hard output",
) -> None:
    """Check what *hard* selection returns: the value of the best-scoring key, ``v[argmax]``.

    This is what attention does **not** do; the exercise asks for it so the student can compare.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (d_v,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    values : array_like, shape (n_k, d_v)
    scale : bool
    name : str
    """
    k, v = np.asarray(keys, dtype=float), np.asarray(values, dtype=float)
    arr = as_numbers(answer, name, (v.shape[1],), f"a vector of {v.shape[1]} numbers (one value)")
    scores = _scores(query, keys, scale)
    best = int(np.argmax(scores))
    soft = softmax(scores) @ v
    if _close(arr, soft):
        raise WrongAnswer(
            f"{name} is the soft blend of all the values, which is what attention really "
            "returns; this exercise asks what hard selection would give: the value of the "
            "best-matching key alone."
        )
    _diagnose(
        arr, v[best],
        [(("keys_as_values", "your answer is the best key itself, the label the query was "
          "matched against. Hint: in the library picture, what do you take home?"), k[best])],
        name,
        "Which key scores highest against the query, and what does that token hand back?",
    )  # fmt: skip


_LENGTH_COUNTS = (
    "a dot product grows with the lengths of both arrows as well as with how well they line up "
    "(q.k = |q| |k| cos(angle))"
)


def _length_feedback(first: str) -> str:
    """Return this exercise's own first level, then the registry entry's hint and lesson."""
    return misconceptions.get("dot_is_direction_only").feedback(first)


def check_top_key(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    tokens: Iterable[object],
    name: str = "your answer",
) -> None:
    """Check which token's key gets the most weight (the largest score) from ``query``.

    Parameters
    ----------
    answer : str
        A token's name.
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    tokens : sequence of str, length n_k
    name : str
    """
    names = [str(t) for t in tokens]
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: replace it with one of the words {names}.")
    chosen = answer.strip().strip("'\"").lower() if isinstance(answer, str) else None
    lowered = [t.lower() for t in names]
    if chosen not in lowered:
        raise AnswerFormatError(f"{name} must be one of the words {names}, as a string in quotes.")
    scores = _scores(query, keys, scale=False)
    picked = lowered.index(chosen)
    if np.isclose(scores[picked], scores.max()):
        return
    k = np.asarray(keys, dtype=float)
    cosines = scores / (np.linalg.norm(query) * np.linalg.norm(k, axis=1))
    if np.isclose(cosines[picked], cosines.max()):
        raise Misconception(
            "dot_is_direction_only",
            name,
            message=_length_feedback(
                f"that key points the most the same way as the query, but {_LENGTH_COUNTS}."
            ),
        )
    raise WrongAnswer(f"{name}: not that one. Compute every score q.k: the largest wins.")


def check_parallel_key_beats(
    answer: object, query: ArrayLike, rival: ArrayLike, name: str = "your key"
) -> None:
    """Check a key that points exactly along ``query`` yet scores more than ``rival`` does.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (d_k,)
    query : array_like, shape (d_k,)
        A non-zero query.
    rival : array_like, shape (d_k,)
        The key to beat.
    name : str
    """
    q = np.asarray(query, dtype=float)
    arr = as_numbers(answer, name, q.shape, f"a key of {q.size} numbers")
    if not arr.any():
        raise WrongAnswer(f"{name} is all zeros: it has no direction at all.")
    cos = float(arr @ q / (np.linalg.norm(arr) * np.linalg.norm(q)))
    if cos < 1 - 1e-9:
        raise WrongAnswer(
            f"{name} does not point exactly the way the query does (the angle between them is "
            "not 0): every number must be the same multiple of the query's, a positive one."
        )
    if arr @ q <= np.asarray(rival, dtype=float) @ q + 1e-9:
        raise Misconception(
            "dot_is_direction_only",
            name,
            message=_length_feedback(
                f"your key points the right way but does not beat the other key's score yet: "
                f"{_LENGTH_COUNTS}."
            ),
        )


def check_previous_token_pattern(answer: object, n: int, name: str = "looks_at") -> None:
    """Check a prediction of where each position of a "copy the previous token" head looks.

    Parameters
    ----------
    answer : list of int, length n
        For each position 0..n-1 (with a causal mask), the position it will put most weight on.
    n : int
        Sequence length.
    name : str
    """
    arr = as_numbers(answer, name, (n,), f"{n} positions, one per row of the heatmap")
    if not np.allclose(arr, np.round(arr)) or (arr < 0).any() or (arr > n - 1).any():
        raise WrongAnswer(f"{name}: each entry is a position, a whole number from 0 to {n - 1}.")
    looks = np.round(arr).astype(int)
    rows = np.arange(n)
    if (looks > rows).any():
        raise WrongAnswer(
            f"{name}: some position looks at a later one, which the causal mask hides: a "
            "position sees only itself and the ones before it."
        )
    if (looks[1:] == rows[1:]).all():
        raise WrongAnswer(
            f"{name}: every position looks at itself; but the task is to say which token came "
            "before, and a position holds its own token, not that one."
        )
    if (looks[1:] == 0).all():
        raise WrongAnswer(
            f"{name}: every position looks at the first token; the token each must say is a "
            "different one for each position."
        )
    if not (looks[1:] == rows[1:] - 1).all():
        raise WrongAnswer(
            f"{name} is not right yet: for each position, which place holds the token the task "
            "asks it to say?"
        )
