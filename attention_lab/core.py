"""The numerics of attention: scores, softmax, weighted blends, masks and positions.

Every function accepts nested lists or numpy arrays, returns float arrays, and rejects bad input
with a message that names the shapes or values involved and what must hold.

Shapes use these names: ``n_q`` queries, ``n_k`` keys (one per value), ``d_k`` the length of a
query/key vector, ``d_v`` the length of a value vector.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import BoolArray, FloatArray
from attention_lab._validate import as_float_array

__all__ = [
    "softmax",
    "dot_product_scores",
    "attention",
    "causal_mask",
    "hard_attention",
    "additive_scores",
    "positional_encoding",
]


def softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    """Turn scores into weights that are positive and sum to 1 along ``axis``.

    Stable for large scores: the row maximum is subtracted before exponentiating, which leaves
    the result unchanged (softmax is shift-invariant) but keeps ``exp`` from overflowing.
    Entries of ``-inf`` (masked keys) get a weight of exactly 0.

    Parameters
    ----------
    x : array_like, any shape
        Scores. ``-inf`` marks a masked entry; ``+inf`` and NaN are rejected.
    axis : int, default -1
        The axis along which the weights sum to 1 (the keys axis for attention scores).

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Weights in [0, 1] summing to 1 along ``axis``.

    Raises
    ------
    ValueError
        If a slice along ``axis`` is entirely ``-inf`` (every key masked for that query), or if
        ``x`` contains NaN or ``+inf``.
    """
    scores = as_float_array(x, "scores", tuple(range(1, 33)))
    if np.isposinf(scores).any():
        raise ValueError("scores contain +inf; only -inf (a masked key) is allowed")
    peak: FloatArray = np.max(scores, axis=axis, keepdims=True)
    if np.isneginf(peak).any():
        raise ValueError(
            "every key is masked for at least one query (its scores are all -inf), so there is "
            "nothing to attend to; allow at least one key per query in the mask"
        )
    exps = np.exp(scores - peak)  # exp(-inf) == 0.0 exactly: masked keys get no weight
    totals: FloatArray = np.sum(exps, axis=axis, keepdims=True)
    return exps / totals


def _queries_and_keys(Q: ArrayLike, K: ArrayLike) -> tuple[FloatArray, FloatArray, bool]:
    """Validate a query (or queries) against keys; return 2-D arrays and whether Q was 1-D."""
    queries = as_float_array(Q, "Q", (1, 2))
    keys = as_float_array(K, "K", (2,))
    single = queries.ndim == 1
    queries = np.atleast_2d(queries)
    if queries.shape[1] != keys.shape[1]:
        raise ValueError(
            f"K has d_k={keys.shape[1]} but Q has d_k={queries.shape[1]}: every query and key "
            f"must have the same length (Q shape {queries.shape}, K shape {keys.shape})"
        )
    return queries, keys, single


def dot_product_scores(Q: ArrayLike, K: ArrayLike, scale: bool = True) -> FloatArray:
    """How well each query matches each key: ``Q @ K.T``, divided by ``sqrt(d_k)`` if ``scale``.

    Parameters
    ----------
    Q : array_like, shape (n_q, d_k) or (d_k,)
        Queries, one per row (a single 1-D query is allowed).
    K : array_like, shape (n_k, d_k)
        Keys, one per row.
    scale : bool, default True
        Divide by ``sqrt(d_k)`` so the scores' variance stays near 1 whatever ``d_k`` is
        (Vaswani et al. 2017). The "Introduction" chapter's worked example uses ``scale=False``.

    Returns
    -------
    numpy.ndarray, shape (n_q, n_k), or (n_k,) for a 1-D query
    """
    queries, keys, single = _queries_and_keys(Q, K)
    scores = queries @ keys.T
    if scale:
        scores = scores / np.sqrt(keys.shape[1])
    return scores[0] if single else scores


def _mask_array(mask: ArrayLike, shape: tuple[int, int]) -> BoolArray:
    """Validate a boolean mask against the (n_q, n_k) score shape."""
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(
            f"mask must be boolean (True = may attend, False = masked), got dtype {arr.dtype}; "
            "build one with causal_mask(n) or a comparison such as `M > 0`"
        )
    arr = np.atleast_2d(arr)
    if arr.shape != shape:
        raise ValueError(
            f"mask has shape {arr.shape} but the scores have shape {shape} (n_queries, n_keys)"
        )
    return arr


def attention(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None, scale: bool = True
) -> tuple[FloatArray, FloatArray]:
    """Scaled dot-product attention: each query's output is a weighted blend of all values.

    ``weights = softmax(Q K^T / sqrt(d_k))`` (masked keys set to ``-inf`` *before* the softmax,
    so they get exactly 0 weight while the allowed weights keep their ratios), then
    ``output = weights @ V``.

    Parameters
    ----------
    Q : array_like, shape (n_q, d_k) or (d_k,)
        Queries. A single 1-D query gives 1-D ``output`` and ``weights``.
    K : array_like, shape (n_k, d_k)
        Keys, used only for matching.
    V : array_like, shape (n_k, d_v)
        Values, the payload blended into the output; one row per key.
    mask : array_like of bool, shape (n_q, n_k) or (n_k,), optional
        True where a query may attend to a key (see :func:`causal_mask`).
    scale : bool, default True
        Divide the scores by ``sqrt(d_k)``.

    Returns
    -------
    output : numpy.ndarray, shape (n_q, d_v), or (d_v,) for a 1-D query
    weights : numpy.ndarray, shape (n_q, n_k), or (n_k,) for a 1-D query
        Each row sums to 1.

    Examples
    --------
    >>> from attention_lab import examples
    >>> out, w = attention(examples.ISRO.query(), examples.ISRO.K, examples.ISRO.V)
    >>> w.round(3), out.round(3)
    (array([0.248, 0.248, 0.503]), array([0.993, 2.51 ]))
    """
    queries, keys, single = _queries_and_keys(Q, K)
    values = as_float_array(V, "V", (2,))
    if values.shape[0] != keys.shape[0]:
        raise ValueError(
            f"V has {values.shape[0]} rows but K has {keys.shape[0]}: every key needs exactly "
            "one value (same number of rows)"
        )
    scores = np.atleast_2d(dot_product_scores(queries, keys, scale=scale))
    if mask is not None:
        scores = np.where(_mask_array(mask, scores.shape), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    output = weights @ values
    return (output[0], weights[0]) if single else (output, weights)


def causal_mask(n: int) -> BoolArray:
    """Return the decoder's mask: token ``i`` may attend to tokens ``0..i`` and never to later ones.

    Parameters
    ----------
    n : int
        Sequence length (positive).

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        Lower-triangular including the diagonal: ``True`` = may attend.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"n must be an int (the sequence length), got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"n must be at least 1 (the sequence length), got {n}")
    return np.tril(np.ones((n, n), dtype=bool))


def hard_attention(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, scale: bool = True
) -> tuple[FloatArray, FloatArray]:
    """Hard (argmax) selection: each query takes the value of its single best-matching key.

    This is the *misconception* lesson's foil, not how Transformers work: the choice of an index
    has no useful derivative, so no gradient reaches the keys that lost.

    Parameters
    ----------
    Q : array_like, shape (n_q, d_k) or (d_k,)
    K : array_like, shape (n_k, d_k)
    V : array_like, shape (n_k, d_v)
    scale : bool, default True
        Scaling does not change the argmax; kept so both functions take the same arguments.

    Returns
    -------
    output : numpy.ndarray, shape (n_q, d_v), or (d_v,) for a 1-D query
        ``V[argmax(scores)]`` per query (ties go to the first key, as ``numpy.argmax`` does).
    weights : numpy.ndarray, shape (n_q, n_k), or (n_k,) for a 1-D query
        One-hot rows.
    """
    queries, keys, single = _queries_and_keys(Q, K)
    values = as_float_array(V, "V", (2,))
    if values.shape[0] != keys.shape[0]:
        raise ValueError(
            f"V has {values.shape[0]} rows but K has {keys.shape[0]}: every key needs exactly "
            "one value (same number of rows)"
        )
    scores = np.atleast_2d(dot_product_scores(queries, keys, scale=scale))
    winners = np.argmax(scores, axis=-1)
    weights = np.zeros_like(scores)
    weights[np.arange(len(winners)), winners] = 1.0
    output = values[winners]
    return (output[0], weights[0]) if single else (output, weights)


def additive_scores(
    s: ArrayLike, H: ArrayLike, W_a: ArrayLike, U_a: ArrayLike, v_a: ArrayLike
) -> FloatArray:
    """Bahdanau et al.'s additive alignment scores ``e_j = v_a^T tanh(W_a s + U_a h_j)``.

    Parameters
    ----------
    s : array_like, shape (d_s,)
        The decoder's previous state ``s_(i-1)``.
    H : array_like, shape (n, d_h)
        Encoder hidden states ``h_1 .. h_n``, one per row.
    W_a : array_like, shape (d_a, d_s)
        Projects the decoder state.
    U_a : array_like, shape (d_a, d_h)
        Projects each encoder state.
    v_a : array_like, shape (d_a,)
        Turns the combined projection into one number per encoder state.

    Returns
    -------
    numpy.ndarray, shape (n,)
        One score per encoder state; ``softmax`` of it gives the alignment weights.
    """
    state = as_float_array(s, "s", (1,))
    states = as_float_array(H, "H", (2,))
    w = as_float_array(W_a, "W_a", (2,))
    u = as_float_array(U_a, "U_a", (2,))
    v = as_float_array(v_a, "v_a", (1,))
    if w.shape[1] != state.shape[0]:
        raise ValueError(f"W_a has {w.shape[1]} columns but s has length {state.shape[0]}")
    if u.shape[1] != states.shape[1]:
        raise ValueError(
            f"U_a has {u.shape[1]} columns but each row of H has length {states.shape[1]}"
        )
    if not (w.shape[0] == u.shape[0] == v.shape[0]):
        raise ValueError(
            f"W_a, U_a and v_a must share the attention size d_a: W_a has {w.shape[0]} rows, "
            f"U_a has {u.shape[0]} rows, v_a has length {v.shape[0]}"
        )
    return np.tanh(w @ state + states @ u.T) @ v


def positional_encoding(n_positions: int, d_model: int) -> FloatArray:
    """Sinusoidal positional encodings (Vaswani et al. 2017), one row per position.

    ``PE[p, 2i] = sin(p / 10000^(2i/d_model))`` and ``PE[p, 2i+1] = cos(p / 10000^(2i/d_model))``.
    Added to the embeddings, they give each token a position that the dot products can see.

    Parameters
    ----------
    n_positions : int
        Number of positions (positive).
    d_model : int
        Embedding length (positive; odd lengths drop the last cosine column).

    Returns
    -------
    numpy.ndarray, shape (n_positions, d_model)
    """
    for name, value in (("n_positions", n_positions), ("d_model", d_model)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    positions = np.arange(n_positions)[:, None]
    rates = 1.0 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    angles = positions * rates
    pe = np.empty((n_positions, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
