"""The explorer's numbers: its inputs, its settings, and what they give (no widgets, no drawing).

:class:`ExplorerModel` holds the tokens and the Q, K, V vectors (checked once, on the way in)
and the queries the student has moved; :func:`compute_state` turns one setting of the controls
into an :class:`ExplorerState` with :func:`attention_lab.attention` itself, which the figure
draws and the readout prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import BoolArray, FloatArray
from attention_lab._validate import as_float_array
from attention_lab.core import attention, causal_mask, dot_product_scores, hard_attention

__all__ = [
    "ExplorerModel",
    "ExplorerState",
    "Settings",
    "check_vectors",
    "compute_state",
]


@dataclass(frozen=True)
class Settings:
    """One setting of the explorer's controls.

    Attributes
    ----------
    query_index : int
        Which token asks.
    scale : bool
        Divide the scores by sqrt(d_k).
    causal : bool
        Causal mask on (query i sees keys 0..i).
    hard : bool
        Hard (argmax) attention instead of softmax.
    beta : float
        Score scale (inverse temperature).
    """

    query_index: int
    scale: bool
    causal: bool = False
    hard: bool = False
    beta: float = 1.0


@dataclass(frozen=True)
class ExplorerState:
    """Everything the explorer shows for one setting of its controls.

    Attributes
    ----------
    query_index : int
        Which token is the query.
    query : numpy.ndarray, shape (2,)
        Its query vector (as the sliders set it, before the score scale).
    scores : numpy.ndarray, shape (n,)
        The query's scores over the keys (scaled by 1/sqrt(d_k) if ``scale``, times ``beta``);
        ``-inf`` where masked.
    weights : numpy.ndarray, shape (n,)
        The query's attention weights.
    output : numpy.ndarray, shape (2,)
        ``weights @ V``.
    weight_matrix : numpy.ndarray, shape (n, n)
        Every token's weights (one row per query), for the heatmap.
    mask : numpy.ndarray of bool, shape (n, n), or None
        The causal mask when on (True = may attend).
    scale, causal, hard : bool
    beta : float
    ties : numpy.ndarray of bool, shape (n, n)
        In hard mode, True for every key that ties for the best score of its row when more
        than one does (argmax then silently takes the first); all False otherwise.
    """

    query_index: int
    query: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    weight_matrix: np.ndarray
    mask: np.ndarray | None
    scale: bool
    causal: bool
    hard: bool
    beta: float
    ties: np.ndarray | None = None

    @property
    def tied(self) -> np.ndarray:
        """Indices of the keys tied for best in the selected query's row (empty if no tie)."""
        if self.ties is None:
            return np.array([], dtype=int)
        return np.flatnonzero(self.ties[self.query_index])


def check_vectors(x: ArrayLike, name: str, n: int | None) -> FloatArray:
    """``x`` as a new float array of n 2-D vectors, with a message saying what is wrong.

    Parameters
    ----------
    x : array_like, shape (n, 2)
    name : str
        ``"Q"``, ``"K"`` or ``"V"``.
    n : int or None
        The number of tokens (None: any).
    """
    arr = as_float_array(x, name, (1, 2, 3), finite=False).copy()
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (n_tokens, 2): the explorer draws and slides 2-D vectors, "
            f"got shape {arr.shape}"
        )
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but there are {n} tokens")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinity; give finite coordinates")
    return arr


def _hard_with_mask(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike, scale: bool
) -> tuple[FloatArray, FloatArray]:
    """Hard attention restricted to the allowed keys (``hard_attention`` takes no mask)."""
    scores = np.atleast_2d(dot_product_scores(Q, K, scale=scale))
    scores = np.where(np.atleast_2d(mask), scores, -np.inf)
    winners = np.argmax(scores, axis=-1)  # ties go to the first key, as in hard_attention
    weights = np.zeros_like(scores)
    weights[np.arange(len(winners)), winners] = 1.0
    output: FloatArray = np.asarray(V, dtype=float)[winners]
    single = np.ndim(Q) == 1
    return (output[0], weights[0]) if single else (output, weights)


def _ties(scores: FloatArray) -> BoolArray:
    """(n_q, n_k) bool: keys whose score equals their row's best, in rows where several do."""
    best: FloatArray = scores.max(axis=-1, keepdims=True)
    # Equal up to rounding: (1, 0).(1, 0) / sqrt 2 and (1, 0).(1, 1) / sqrt 2 must tie.
    tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(best), best, 0.0)))
    at_best = np.isfinite(scores) & (scores >= best - tol)
    several: BoolArray = at_best.sum(axis=-1, keepdims=True) > 1
    return at_best & several


def compute_state(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    query_index: int,
    scale: bool,
    causal: bool = False,
    hard: bool = False,
    beta: float = 1.0,
) -> ExplorerState:
    """Compute what the explorer shows, with :func:`attention_lab.attention` itself.

    The selected query's row is computed with a 1-D call, exactly as a student would call
    ``attention(q, K, V, scale=...)``, so the readout matches it to the last bit.

    Parameters
    ----------
    Q, K, V : numpy.ndarray, shape (n, 2)
    query_index : int
    scale : bool
        Divide scores by sqrt(d_k).
    causal : bool
        Apply the causal mask (query i sees keys 0..i).
    hard : bool
        Hard (argmax) attention instead of softmax.
    beta : float
        Score scale (inverse temperature): the scores are multiplied by ``beta``, done by
        scaling the queries (``(beta q) . k = beta (q . k)``). ``beta == 1`` leaves Q untouched.

    Returns
    -------
    ExplorerState
    """
    n = np.shape(K)[0]
    queries = np.asarray(Q, dtype=float) if beta == 1 else beta * np.asarray(Q, dtype=float)
    mask = causal_mask(n) if causal else None
    q = queries[query_index]
    row_mask = None if mask is None else mask[query_index]
    scores = dot_product_scores(q, K, scale=scale)
    if row_mask is not None:
        scores = np.where(row_mask, scores, -np.inf)
    ties = np.zeros((n, n), dtype=bool)
    if hard:
        all_scores = np.atleast_2d(dot_product_scores(queries, K, scale=scale))
        if mask is not None:
            all_scores = np.where(mask, all_scores, -np.inf)
        ties = _ties(all_scores)
        if mask is None:
            output, weights = hard_attention(q, K, V, scale=scale)
            _, matrix = hard_attention(queries, K, V, scale=scale)
        else:
            assert row_mask is not None  # the row of the mask
            output, weights = _hard_with_mask(q, K, V, row_mask, scale)
            _, matrix = _hard_with_mask(queries, K, V, mask, scale)
        ties[query_index] = _ties(np.atleast_2d(scores))[0]  # the readout's own scores
    else:
        output, weights = attention(q, K, V, mask=row_mask, scale=scale)
        _, matrix = attention(queries, K, V, mask=mask, scale=scale)
    matrix = matrix.copy()
    matrix[query_index] = weights  # the heatmap row equals the readout exactly
    return ExplorerState(
        query_index=query_index,
        query=np.asarray(Q, dtype=float)[query_index].copy(),
        scores=scores,
        weights=weights,
        output=output,
        weight_matrix=matrix,
        mask=mask,
        scale=scale,
        causal=causal,
        hard=hard,
        beta=float(beta),
        ties=ties,
    )


class ExplorerModel:
    """The explorer's tokens and vectors, and the queries as the student has moved them.

    Parameters
    ----------
    tokens : sequence of str, length n
    Q, K, V : array_like, shape (n, 2)

    Attributes
    ----------
    tokens : list of str
    Q0, K, V : numpy.ndarray, shape (n, 2)
        As given (copies; the caller's arrays stay theirs).
    Q : numpy.ndarray, shape (n, 2)
        The current queries (the sliders edit one row).
    """

    def __init__(self, tokens: Iterable[object], Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> None:
        if isinstance(tokens, str):
            raise TypeError("tokens must be a list of strings (one per token), not one string")
        self.tokens = [str(t) for t in tokens]
        n = len(self.tokens)
        if n == 0:
            raise ValueError("tokens is empty; give at least one token")
        self.K = check_vectors(K, "K", n)
        self.V = check_vectors(V, "V", n)
        self.Q0 = check_vectors(Q, "Q", n)
        self.Q = self.Q0.copy()

    def __len__(self) -> int:
        """Return the number of tokens."""
        return len(self.tokens)

    def query_row(self, query_index: int | None) -> int:
        """Return the asking token's row: ``query_index``, or the last token's when None.

        Raises
        ------
        ValueError
            ``query_index`` is not a row of the vectors; says which are.
        """
        n = len(self.tokens)
        row = n - 1 if query_index is None else int(query_index)
        if not 0 <= row < n:
            raise ValueError(f"query_index must be in 0..{n - 1}, got {query_index}")
        return row

    def state(self, settings: Settings) -> ExplorerState:
        """Return what the explorer shows for ``settings`` and the current queries."""
        return compute_state(
            self.Q, self.K, self.V, query_index=settings.query_index, scale=settings.scale,
            causal=settings.causal, hard=settings.hard, beta=settings.beta,
        )  # fmt: skip
