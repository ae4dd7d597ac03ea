"""c. Self-attention ignores word order until positions are added."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray, IntArray
from attention_lab.core import attention, causal_mask, dot_product_scores, positional_encoding
from attention_lab.experiments._common import seeded_rng


@dataclass(frozen=True)
class WordOrderResult:
    """Self-attention outputs for a sentence and its reordering, with and without positions.

    Attributes
    ----------
    sentence_a, sentence_b : tuple of str
        The two orderings of the same words.
    permutation : ndarray of int, shape (n,)
        ``sentence_b[i] == sentence_a[permutation[i]]``.
    scores_a, scores_b : ndarray, shape (n, n)
        Self-attention scores (no positions) for each sentence.
    max_diff_without_positions : float
        Largest difference between each word's output in sentence a and the same word's output in
        sentence b, without positional encoding (0 up to rounding without a causal mask: the
        order is invisible; clearly > 0 with one).
    max_diff_with_positions : float
        The same with sinusoidal positional encodings added to the embeddings (clearly > 0).
    """

    sentence_a: tuple[str, ...]
    sentence_b: tuple[str, ...]
    permutation: IntArray
    scores_a: FloatArray
    scores_b: FloatArray
    max_diff_without_positions: float
    max_diff_with_positions: float


def _match_words(a: Sequence[str], b: Sequence[str]) -> IntArray:
    # For repeated words ("the" twice) match occurrences in order.
    used: set[int] = set()
    perm = []
    for word in b:
        j = next((j for j, w in enumerate(a) if w == word and j not in used), None)
        if j is None:
            raise ValueError(f"sentence_b must reorder the words of sentence_a; {word!r} is extra")
        used.add(j)
        perm.append(j)
    return np.array(perm)


def word_order_test(
    sentence_a: Sequence[str] = ("the", "dog", "bit", "the", "man"),
    sentence_b: Sequence[str] = ("the", "man", "bit", "the", "dog"),
    d: int = 16,
    seed: int = 0,
    causal: bool = False,
) -> WordOrderResult:
    """Run self-attention on two orderings of the same words, with and without positions.

    Each distinct word gets one seeded random embedding; queries, keys and values come from
    seeded random projections ``W_Q, W_K, W_V`` (as in a real layer).

    Parameters
    ----------
    sentence_a, sentence_b : sequence of str
        ``sentence_b`` must use exactly the words of ``sentence_a`` in another order.
    d : int
        Embedding size (even, for the sinusoidal encoding).
    seed : int
    causal : bool
        Give the layer a causal mask (each word sees only itself and earlier words). Then the
        order matters even without positional encodings: a word's output depends on which
        words come before it.

    Returns
    -------
    WordOrderResult
    """
    a, b = tuple(sentence_a), tuple(sentence_b)
    if len(a) != len(b) or sorted(a) != sorted(b):
        raise ValueError(f"sentence_b must be a reordering of sentence_a: {a} vs {b}")
    if d < 2 or d % 2:
        raise ValueError(f"d must be an even integer >= 2 (got {d})")
    rng = seeded_rng(seed)
    vocab = sorted(set(a))
    table = {w: rng.standard_normal(d) for w in vocab}
    w_q, w_k, w_v = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
    perm = _match_words(a, b)

    mask = causal_mask(len(a)) if causal else None

    def layer(x: FloatArray) -> FloatArray:
        out, _ = attention(x @ w_q, x @ w_k, x @ w_v, mask=mask)
        return out

    xa = np.array([table[w] for w in a])
    xb = np.array([table[w] for w in b])
    # Output of word sentence_b[i] vs the output of the same word in sentence_a.
    without = float(np.max(np.abs(layer(xb) - layer(xa)[perm])))
    pe = positional_encoding(len(a), d)
    with_pe = float(np.max(np.abs(layer(xb + pe) - layer(xa + pe)[perm])))
    scores_a = dot_product_scores(xa @ w_q, xa @ w_k)
    scores_b = dot_product_scores(xb @ w_q, xb @ w_k)
    return WordOrderResult(a, b, perm, scores_a, scores_b, without, with_pe)


@dataclass(frozen=True)
class ShuffleResult:
    """Self-attention over a sentence and over the same words in another order.

    Attributes
    ----------
    tokens, shuffled_tokens : tuple of str, length n
        ``shuffled_tokens[i] == tokens[order[i]]``.
    order : ndarray of int, shape (n,)
    weights, shuffled_weights : ndarray, shape (n, n)
        The self-attention weight matrices (row = query word, column = key word).
    outputs, shuffled_outputs : ndarray, shape (n, d_v)
    weights_follow : bool
        Whether the shuffled matrix is the original one with rows and columns reordered.
    output_change : float
        Largest change of any word's output between the two orders (0 up to rounding).
    """

    tokens: tuple[str, ...]
    shuffled_tokens: tuple[str, ...]
    order: IntArray
    weights: FloatArray
    shuffled_weights: FloatArray
    outputs: FloatArray
    shuffled_outputs: FloatArray
    weights_follow: bool
    output_change: float


def shuffled_self_attention(
    tokens: Sequence[str],
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    order: ArrayLike,
    scale: bool = True,
) -> ShuffleResult:
    """Run self-attention (no mask, no positions) on a sentence and on a reordering of it.

    Parameters
    ----------
    tokens : sequence of str, length n
    Q, K, V : array_like, shape (n, d_k), (n, d_k), (n, d_v)
        One row per token; each row moves with its token.
    order : sequence of int, length n
        A permutation of ``0 … n-1``: the new sentence is ``tokens[order[0]], tokens[order[1]], …``.
    scale : bool
        Divide the scores by ``sqrt(d_k)``.

    Returns
    -------
    ShuffleResult
    """
    words = tuple(tokens)
    perm = np.asarray(order)
    if sorted(perm.tolist()) != list(range(len(words))):
        raise ValueError(
            f"order must list each of the positions 0 to {len(words) - 1} once (got {order!r})"
        )
    q, k, v = (np.asarray(x, dtype=float) for x in (Q, K, V))
    outputs, weights = attention(q, k, v, scale=scale)
    shuffled_outputs, shuffled_weights = attention(q[perm], k[perm], v[perm], scale=scale)
    return ShuffleResult(
        words,
        tuple(words[i] for i in perm),
        perm,
        weights,
        shuffled_weights,
        outputs,
        shuffled_outputs,
        bool(np.allclose(shuffled_weights, weights[np.ix_(perm, perm)])),
        float(np.max(np.abs(shuffled_outputs - outputs[perm]))),
    )
