"""e. Cross-attention English -> Hindi with hand-set vectors, and Bahdanau's additive score beside the dot product."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_lab._types import FloatArray
from attention_lab.core import additive_scores, attention, softmax
from attention_lab.experiments._common import positive_ints, seeded_rng

#: Chapter A's translation example: the English source and the Hindi being generated.
CROSS_SOURCE = ("Ravi", "gave", "the", "book", "to", "Meera")
CROSS_TARGET = ("Ravi", "ne", "Meera", "ko", "kitab", "di")

# Hand-set (not learned) 6-D vectors; one axis per meaning:
# [Ravi, giving, book, Meera, "doer" marker, "receiver" marker].
_SOURCE_KEYS = {
    "Ravi": [1, 0, 0, 0, 0.3, 0],
    "gave": [0, 1, 0, 0, 0.2, 0.2],
    "the": [0, 0, 0.3, 0, 0, 0],
    "book": [0, 0.1, 1, 0, 0, 0],
    "to": [0, 0, 0, 0.3, 0, 1],
    "Meera": [0, 0, 0, 1, 0, 0.3],
}
_TARGET_QUERIES = {
    "Ravi": [1, 0, 0, 0, 0, 0],
    "ne": [0.5, 0, 0, 0, 1, 0],  # the ergative marker "ne" looks for the doer
    "Meera": [0, 0, 0, 1, 0, 0],
    "ko": [0, 0, 0, 0.4, 0, 1],  # "ko" marks the receiver, like "to"
    "kitab": [0, 0, 1, 0, 0, 0],
    "di": [0, 1, 0, 0, 0, 0],  # the verb comes last in Hindi, so it looks back at "gave"
}


@dataclass(frozen=True)
class CrossAttentionResult:
    """Cross-attention of Hindi queries over English keys/values.

    Attributes
    ----------
    source, target : tuple of str
    weights : ndarray, shape (len(target), len(source))
        Row i: how much target word i attends to each source word.
    aligned_to : tuple of str
        The source word each target word attends to most.
    """

    source: tuple[str, ...]
    target: tuple[str, ...]
    weights: FloatArray
    aligned_to: tuple[str, ...]


def cross_attention_alignment(sharpness: float = 4.0) -> CrossAttentionResult:
    """Alignment of "Ravi ne Meera ko kitab di" to "Ravi gave the book to Meera".

    The vectors are hand-set for teaching (one axis per meaning), not learned; ``sharpness``
    multiplies the queries (a trained model learns how peaked to be).

    Parameters
    ----------
    sharpness : float
        Positive factor on the queries.

    Returns
    -------
    CrossAttentionResult
    """
    if not np.isfinite(sharpness) or sharpness <= 0:
        raise ValueError(f"sharpness must be a positive number, got {sharpness!r}")
    K = np.array([_SOURCE_KEYS[w] for w in CROSS_SOURCE], dtype=float)
    Q = sharpness * np.array([_TARGET_QUERIES[w] for w in CROSS_TARGET], dtype=float)
    # The values would be the English words' content; the weights do not depend on them.
    _, weights = attention(Q, K, K, scale=False)
    aligned = tuple(CROSS_SOURCE[j] for j in np.argmax(weights, axis=1))
    return CrossAttentionResult(CROSS_SOURCE, CROSS_TARGET, weights, aligned)


@dataclass(frozen=True)
class AdditiveVsDot:
    """Both scoring rules on the same decoder state and encoder states.

    Attributes
    ----------
    additive_scores, dot_scores : ndarray, shape (n,)
        ``v^T tanh(W s + U h_j)`` and ``s . h_j`` for every encoder state ``h_j``.
    additive_weights, dot_weights : ndarray, shape (n,)
        Their softmaxes.
    additive_parameters : int
        Learned numbers the additive score needs (``W``, ``U``, ``v``); the dot product needs 0.
    """

    additive_scores: FloatArray
    dot_scores: FloatArray
    additive_weights: FloatArray
    dot_weights: FloatArray
    additive_parameters: int


def additive_vs_dot(n: int = 6, d: int = 4, d_attn: int = 8, seed: int = 0) -> AdditiveVsDot:
    """Score ``n`` encoder states against one decoder state both ways (seeded random vectors).

    Parameters
    ----------
    n : int
        Encoder states (source words).
    d : int
        Size of the decoder state and of each encoder state.
    d_attn : int
        Hidden size of Bahdanau's small scoring network.
    seed : int

    Returns
    -------
    AdditiveVsDot
    """
    for name, value in (("n", n), ("d", d), ("d_attn", d_attn)):
        positive_ints(name, [value])
    rng = seeded_rng(seed)
    s = rng.standard_normal(d)
    H = rng.standard_normal((n, d))
    W_a = rng.standard_normal((d_attn, d)) / np.sqrt(d)
    U_a = rng.standard_normal((d_attn, d)) / np.sqrt(d)
    v_a = rng.standard_normal(d_attn)
    add = np.asarray(additive_scores(s, H, W_a, U_a, v_a), dtype=float)
    dot = H @ s
    return AdditiveVsDot(add, dot, softmax(add), softmax(dot), W_a.size + U_a.size + v_a.size)
