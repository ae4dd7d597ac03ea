"""The implement-it check of scaled dot-product attention: the student's function on several inputs.

Its inputs are grouped by behaviour (:data:`ATTENTION_BEHAVIOURS`), one graded cell each (see
:mod:`attention_lab.checks.functions`). The check runs the student's attention with a correct
softmax in place of their own ``stable_softmax`` (graded in its own cells), so a broken softmax
is charged once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attention_lab import misconceptions
from attention_lab._steps import Case, compute
from attention_lab._steps import softmax as _reference_softmax
from attention_lab._types import FloatArray

from ._base import (
    CODE_ATOL,
    CODE_RTOL,
    AnswerFormatError,
    Misconception,
    WrongAnswer,
    close,
    first_match,
    quiet,
)
from ._library import StudentRaised, call, check_function, substituted
from .functions import behaviour_groups, overflow_failure, returned_array

__all__ = ["ATTENTION_BEHAVIOURS", "check_attention_function"]

#: behaviour -> what it tries, for the attention exercise.
ATTENTION_BEHAVIOURS = {
    "example": "the chapters' worked examples",
    "shapes": "random shapes (n_q, n_k, d_k, d_v all different)",
    "masked": "a random mask and a causal mask",
    "large": "overflow-size scores",
}

_REFERENCE_PATH = "attention_lab._steps.softmax"


def _attention_cases(group: str, visible: bool, rng: np.random.Generator) -> list[tuple[str, Case]]:
    """Return (description, Case) for one behaviour group."""
    if group == "example":
        isro_k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        isro_v = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
        cases = [("the ISRO example (3 tokens, d_k = 2)", Case.of(isro_k, isro_k, isro_v))]
        if not visible:
            keys = np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
            values = np.array([[5.0, 2.0], [5.0, 6.0], [2.0, 2.0], [0.0, 8.0]])
            query = np.array([[1.0, 1.0], [2.0, 0.0]])
            cases.append(("the tiffin example (4 tokens, 2 queries)", Case.of(query, keys, values)))
        return cases
    if visible:
        return []
    n_q, n_k, d_k, d_v = (int(v) for v in rng.integers(3, 7, size=4))
    if d_v == d_k:
        d_v += 1  # different lengths expose blending the keys instead of the values
    if group == "shapes":
        K = rng.normal(size=(n_k, d_k)) * 2
        return [
            ("random shapes with values as wide as the keys",
             Case.of(rng.normal(size=(n_q + 1, d_k)), K, rng.normal(size=(n_k, d_k)))),
            ("random shapes (n_q, n_k, d_k, d_v all different)",
             Case.of(rng.normal(size=(n_q, d_k)), K, rng.normal(size=(n_k, d_v)))),
        ]  # fmt: skip
    if group == "masked":
        # Every row keeps at least one allowed and one masked key, so a mask read backwards
        # still gives finite weights and can be recognised.
        mask = rng.random((n_q, n_k)) < 0.5
        mask[np.arange(n_q), rng.integers(0, n_k // 2, size=n_q)] = True
        mask[np.arange(n_q), rng.integers(n_k // 2, n_k, size=n_q)] = False
        n = int(rng.integers(4, 7))
        return [
            ("a random mask with masked entries in several rows",
             Case.of(rng.normal(size=(n_q, d_k)) * 2, rng.normal(size=(n_k, d_k)),
                     rng.normal(size=(n_k, d_v)), mask=mask)),
            ("a causal mask (lower triangle)",
             Case.of(rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)),
                     rng.normal(size=(n, d_v)), mask=np.tril(np.ones((n, n), dtype=bool)))),
        ]  # fmt: skip
    # Scores around +-2 000 (a naive softmax overflows) that differ by about 1, so the softmax is
    # not saturated and scaling, hard attention or unnormalised weights still show.
    # Alternate rows sit near +2 000 and -2 000, so one global maximum underflows half of them.
    Q, K = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))
    Q[:, 0] = K[:, 0] = np.sqrt(2000.0 * np.sqrt(d_k))
    Q[1::2, 0] *= -1
    return [("overflow-size scores (thousands)", Case.of(Q, K, rng.normal(size=(n_k, d_v))))]


def _attention_result(
    result: object, name: str, case: str, c: Case
) -> tuple[FloatArray, FloatArray]:
    """Read ``(output, weights)`` and check their shapes; raise a format failure otherwise."""
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise AnswerFormatError(
            f"{name} returned a {type(result).__name__} on {case}; expected a pair "
            "(output, weights), in that order."
        )
    out = returned_array(result[0], name, case, "(output, weights)")
    weights = returned_array(result[1], name, case, "(output, weights)")
    assert c.V is not None  # a case for an attention function has values
    n_q, n_k, d_v = c.Q.shape[0], c.n_k, c.V.shape[1]
    if out.shape == (n_q, n_k) and weights.shape == (n_q, d_v) and n_k != d_v:
        raise AnswerFormatError(
            f"{name} returned (weights, output) on {case}; return them as (output, weights)."
        )
    if weights.shape != (n_q, n_k):
        raise AnswerFormatError(
            f"{name} returned weights of shape {weights.shape} on {case}; expected one row "
            "per query and one column per key."
        )
    if out.shape != (n_q, d_v):
        if out.shape == (n_q, c.d_k):
            raise Misconception("keys_as_values", name, f"(On {case}.)")
        raise AnswerFormatError(
            f"{name} returned an output of shape {out.shape} on {case}; expected one row per "
            "query and one column per value component."
        )
    return out, weights


def _attention_case(fn: Callable[..., object], name: str, case: str, c: Case, large: bool) -> None:
    args = [np.array(a, copy=True) for a in (c.Q, c.K, c.V)]
    mask_kw = {} if c.mask is None else {"mask": c.mask.copy()}
    try:
        result = call(fn, name, case, *args, **mask_kw)
    except StudentRaised:
        raise overflow_failure(name, case, large) from None
    out, weights = _attention_result(result, name, case, c)
    expected = compute(c)
    assert expected is not None  # only a wrong computation can not apply
    if close(weights, expected.weights, CODE_RTOL, CODE_ATOL) and close(
        out, expected.output, CODE_RTOL, CODE_ATOL
    ):
        return
    with quiet():
        candidates = []
        for slug, wrong in misconceptions.entries_for("attention"):
            steps = compute(c, wrong)
            if steps is None or (
                close(steps.output, expected.output, 2 * CODE_RTOL, 2 * CODE_ATOL, nan=True)
                and close(steps.weights, expected.weights, 2 * CODE_RTOL, 2 * CODE_ATOL, nan=True)
            ):
                continue
            candidates.append((slug, steps.output))
    found = first_match(out, None, candidates, CODE_RTOL, CODE_ATOL, nan=True)
    if found:
        raise Misconception(found, name, f"(On {case}.)")
    if not (np.isfinite(out).all() and np.isfinite(weights).all()):
        raise overflow_failure(name, case, large)
    if not np.allclose(np.sum(weights, axis=-1), 1.0, atol=1e-3):
        raise Misconception("weights_not_normalised", name, f"(On {case}.)")
    part = "output" if close(weights, expected.weights, CODE_RTOL, CODE_ATOL) else "weights"
    raise WrongAnswer(
        f"{name} gives a wrong {part} on {case}. Print every stage of your function on a tiny "
        "example you can work by hand (one from the lessons) and find the first stage that "
        "differs from your hand computation."
    )


def check_attention_function(
    fn: Callable[..., object],
    name: str = "attention",
    visible: bool = False,
    behaviour: str | None = None,
    softmax_name: str | None = "stable_softmax",
) -> None:
    """Check a student's ``fn(Q, K, V, mask=None) -> (output, weights)``.

    Parameters
    ----------
    fn : callable
        The student's function (or a grader's proxy for it).
    name : str
        Its name, used in messages.
    visible : bool
        Only the public example (the ISRO example).
    behaviour : str, optional
        A key of :data:`ATTENTION_BEHAVIOURS`; None runs them all.
    softmax_name : str or None
        The student's own softmax function, which ``fn`` may call: it is replaced by a correct
        softmax while ``fn`` runs (and not inspected for library use), so a wrong softmax is
        charged only in its own exercise. None keeps the student's own.
    """
    provided = frozenset({softmax_name} if softmax_name else ())
    check_function(fn, name, provided)
    rng = np.random.default_rng(20261201)
    for group in behaviour_groups(behaviour, ATTENTION_BEHAVIOURS):
        for case, c in _attention_cases(group, visible, rng):
            if softmax_name:
                with substituted(fn, softmax_name, _reference_softmax, _REFERENCE_PATH):
                    _attention_case(fn, name, case, c, large=group == "large")
            else:
                _attention_case(fn, name, case, c, large=group == "large")
