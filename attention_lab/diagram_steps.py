"""The numbers and words of the diagrams in :mod:`attention_lab.diagram`.

:func:`query_steps` computes every step of single-query attention (:class:`QuerySteps`); the
alt texts say in words every number a diagram shows, made from the same numbers as the drawing,
so a caption quoting them can be checked against the code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._format import fmt, fmt_vec
from attention_lab._validate import as_float_array
from attention_lab.core import softmax
from attention_lab.heads import MultiHeadResult

__all__ = [
    "QuerySteps",
    "computation_alt_text",
    "multi_head_alt_text",
    "query_steps",
    "shape_text",
]


@dataclass(frozen=True, eq=False)
class QuerySteps:
    """Every intermediate number of single-query attention.

    Attributes
    ----------
    tokens : tuple of str, length n
    query_name : str
    query : numpy.ndarray, shape (d_k,)
    keys : numpy.ndarray, shape (n, d_k)
    values : numpy.ndarray, shape (n, d_v)
    raw : numpy.ndarray, shape (n,)
        ``q · k`` for every key.
    divisor : float
        ``sqrt(d_k)`` when scaled, else 1.
    scaled : numpy.ndarray, shape (n,)
        ``raw / divisor``.
    exps : numpy.ndarray, shape (n,)
        ``e`` to the power of each scaled score.
    weights : numpy.ndarray, shape (n,)
        ``exps / exps.sum()``.
    terms : numpy.ndarray, shape (n, d_v)
        Each value times its weight.
    output : numpy.ndarray, shape (d_v,)
        The sum of ``terms``.
    scale : bool
    """

    tokens: tuple[str, ...]
    query_name: str
    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    raw: np.ndarray
    divisor: float
    scaled: np.ndarray
    exps: np.ndarray
    weights: np.ndarray
    terms: np.ndarray
    output: np.ndarray
    scale: bool


def query_steps(
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    tokens: Sequence[str],
    query_name: str,
    scale: bool = True,
) -> QuerySteps:
    """Compute every step of attention for one query.

    Parameters
    ----------
    query : array_like, shape (d_k,)
    keys : array_like, shape (n, d_k)
    values : array_like, shape (n, d_v)
    tokens : sequence of str, length n
    query_name : str
        The word asking (shown in titles and the alt text).
    scale : bool, default True
        Divide the scores by ``sqrt(d_k)`` (chapter A's example does not).

    Returns
    -------
    QuerySteps
    """
    q = as_float_array(query, "query", (1,))
    k = as_float_array(keys, "keys", (2,))
    v = as_float_array(values, "values", (2,))
    names = tuple(str(t) for t in tokens)
    if isinstance(tokens, str) or len(names) != k.shape[0] or v.shape[0] != k.shape[0]:
        raise ValueError(
            f"give one token, one key and one value per word: {len(names)} tokens, "
            f"{k.shape[0]} keys, {v.shape[0]} values"
        )
    if k.shape[1] != q.shape[0]:
        raise ValueError(f"the query has {q.shape[0]} numbers but each key has {k.shape[1]}")
    raw = k @ q
    divisor = float(np.sqrt(q.shape[0])) if scale else 1.0
    scaled = raw / divisor
    exps = np.exp(scaled)
    weights = softmax(scaled)
    terms = weights[:, None] * v
    return QuerySteps(
        names, str(query_name), q, k, v, raw, divisor, scaled, exps, weights, terms,
        terms.sum(axis=0), bool(scale),
    )  # fmt: skip


def shape_text(arr: ArrayLike) -> str:
    """Say an array's shape as numpy prints it: ``(3,)``, ``(3, 2)``."""
    shape = np.shape(arr)
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"


def _listing(tokens: Iterable[str], numbers: Iterable[float]) -> str:
    return ", ".join(f"{t} {fmt(x)}" for t, x in zip(tokens, numbers, strict=True))


def computation_alt_text(steps: QuerySteps) -> str:
    """Describe the diagram in words: every step's numbers and shape, from ``steps``."""
    s = steps
    n, d_k, d_v = len(s.tokens), s.keys.shape[1], s.values.shape[1]
    division = (
        f"2. each score divided by √d_k = {s.divisor:.4f}: {_listing(s.tokens, s.scaled)}"
        if s.scale
        else "2. no division by √d_k (the chapter skips it)"
    )
    return (
        f'A diagram of attention for the query of "{s.query_name}", q = {fmt_vec(s.query)}, '
        f"shape ({d_k},), against the keys K, shape ({n}, {d_k}), in columns from left to right. "
        f"1. the scores q · k: {_listing(s.tokens, s.raw)}, shape ({n},). {division}. "
        f"3. e to the power of each: {_listing(s.tokens, s.exps)}, adding up to "
        f"{fmt(s.exps.sum())}. 4. the weights, each divided by that sum: "
        f"{_listing(s.tokens, s.weights)}, shape ({n},), adding up to {fmt(s.weights.sum())}. "
        f"5. each value times its weight, shape ({n}, {d_v}): "
        + ", ".join(f"{t} {fmt_vec(row)}" for t, row in zip(s.tokens, s.terms, strict=True))
        + f'. 6. the rows added up: the output for "{s.query_name}", {fmt_vec(s.output)}, '
        f"shape ({d_v},)."
    )


def multi_head_alt_text(
    result: MultiHeadResult, tokens: Sequence[str], row: int, names: Sequence[str]
) -> str:
    """Describe the multi-head diagram in words, from the same numbers."""
    word = str(tokens[row])
    parts = [f'A diagram of {len(result.heads)} heads working side by side on the word "{word}".']
    for i, (head, name) in enumerate(zip(result.heads, names, strict=True), start=1):
        parts.append(
            f'Head {i}, titled "{name}", gives "{word}" the weights '
            f"{_listing(tokens, head.weights[row])}; "
            f"times head {i}'s values they give its output {fmt_vec(head.output[row])}, "
            f"shape ({head.output.shape[1]},)."
        )
    parts.append(
        f"The outputs joined side by side: {fmt_vec(result.concat[row])}, shape "
        f"({result.concat.shape[1]},). Times W_O, shape {shape_text(result.W_O)}: the output for "
        f'"{word}", {fmt_vec(result.output[row])}, shape ({result.output.shape[1]},), as long as '
        "the word's input vector."
    )
    return " ".join(parts)
