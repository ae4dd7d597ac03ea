"""c. Self-attention ignores word order until positions are added."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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

    sentence_a: tuple
    sentence_b: tuple
    permutation: np.ndarray
    scores_a: np.ndarray
    scores_b: np.ndarray
    max_diff_without_positions: float
    max_diff_with_positions: float


def _match_words(a: tuple, b: tuple) -> np.ndarray:
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
    sentence_a=("the", "dog", "bit", "the", "man"),
    sentence_b=("the", "man", "bit", "the", "dog"),
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

    def layer(x):
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
