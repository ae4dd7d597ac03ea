"""Measured demonstrations for the lessons: small numpy experiments that run in seconds.

Each function returns plain numbers/arrays (a frozen dataclass) so that the lessons can plot them
and the tests can check the claim each one demonstrates. Every random draw goes through a
``numpy.random.Generator`` built from an explicit ``seed``, so a lesson shows the same figure on
every run.

The six demonstrations, in the order of the course:

a. :func:`bottleneck_recall` - one fixed-size memory vector versus attention over all states.
b. :func:`score_variance`, :func:`softmax_saturation` - why scores are divided by ``sqrt(d_k)``.
c. :func:`word_order_test` - self-attention ignores word order until positions are added.
d. :func:`hard_vs_soft_sweep` - ``v[argmax]`` is a step function; soft attention is smooth.
e. :func:`cross_attention_alignment` - English -> Hindi alignment with hand-set vectors.
f. :func:`rnn_vs_attention_steps` - an RNN steps word by word; attention is one matrix product.

plus :func:`additive_vs_dot` (Bahdanau's additive score next to Luong's dot product).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from attention_lab.core import (
    additive_scores,
    attention,
    causal_mask,
    dot_product_scores,
    hard_attention,
    positional_encoding,
    softmax,
)

__all__ = [
    "BAHDANAU_TABLE1_BLEU",
    "CROSS_SOURCE",
    "CROSS_TARGET",
    "SCALINGS",
    "AdditiveVsDot",
    "BottleneckResult",
    "CrossAttentionResult",
    "HardSoftSweep",
    "SaturationResult",
    "StepsResult",
    "VarianceResult",
    "WordOrderResult",
    "additive_vs_dot",
    "bottleneck_recall",
    "cross_attention_alignment",
    "hard_vs_soft_sweep",
    "rnn_vs_attention_steps",
    "scale_factor",
    "score_variance",
    "softmax_saturation",
    "word_order_test",
]

#: Bahdanau, Cho & Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
#: Translate", Table 1: BLEU on the whole English->French test set for the two models trained on
#: sentences of up to 50 words (fixed-vector encoder-decoder vs the attention model).
BAHDANAU_TABLE1_BLEU = {"RNNencdec-50": 17.82, "RNNsearch-50": 26.75}

#: The three ways of scaling a dot-product score that chapter B compares.
SCALINGS = ("none", "1/d_k", "1/sqrt(d_k)")


def _rng(seed: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int (got {type(seed).__name__}); e.g. seed=0")
    return np.random.default_rng(int(seed))


def _positive_ints(name: str, values, minimum: int = 1) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list of integers, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer) or np.any(arr < minimum):
        raise ValueError(f"{name} must hold integers >= {minimum}, got {values!r}")
    return arr.astype(int)


# ---------------------------------------------------------------------------------------------
# a. The bottleneck
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BottleneckResult:
    """Recall of stored words against sequence length, for the two decoders.

    Attributes
    ----------
    lengths : ndarray, shape (n_lengths,)
        Sequence lengths tried.
    fixed_memory : ndarray, shape (n_lengths,)
        Fraction of words recalled correctly from the single ``d``-number memory vector.
    attention : ndarray, shape (n_lengths,)
        Fraction recalled correctly by attending over all ``n`` stored states.
    d : int
        Size of one vector (the memory, and each stored state).
    vocab_size : int
        How many different words the sequences are drawn from (chance = 1 / vocab_size).
    sharpness : float
        The factor the attention decoder's queries were multiplied by (built in, not learned).
    """

    lengths: np.ndarray
    fixed_memory: np.ndarray
    attention: np.ndarray
    d: int
    vocab_size: int
    sharpness: float

    @property
    def attention_numbers(self) -> np.ndarray:
        """Numbers the attention decoder keeps, per length: ``n * d`` (the memory has ``d``)."""
        return self.lengths * self.d


def _random_rotation(rng: np.random.Generator, d: int) -> np.ndarray:
    # An orthogonal matrix (QR of a Gaussian) - a "recurrent weight" that never loses information
    # by itself, so any forgetting we measure comes from the fixed size alone.
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def bottleneck_recall(
    lengths=(5, 10, 15, 20, 25, 30, 40, 50, 60),
    d: int = 128,
    vocab_size: int = 50,
    n_trials: int = 30,
    seed: int = 0,
    sharpness: float = 20.0,
) -> BottleneckResult:
    """Recall words from one fixed-size memory vector vs attention over every state.

    Each word of a random sequence is a random unit vector in ``R^d``. The *fixed-memory*
    encoder is a linear RNN: ``h <- R h + x_t`` with a random rotation ``R``; after the sequence
    only the final ``h`` (``d`` numbers) is kept. To recall word ``t`` the decoder rotates ``h``
    back by ``R^-(t)`` and picks the closest vocabulary word; the other words add up as noise that
    grows with the length. The *attention* decoder keeps all ``n`` states (value = the word,
    key = a random position code), queries with the position code of ``t`` times ``sharpness``,
    softmaxes the scores and picks the word closest to the blended output.

    Three things are built in, not learned, and a lesson should say so: the decoder is handed
    the exact position code of the word it wants, the ``sharpness`` that makes its softmax
    nearly one-hot, and a memory of ``n * d`` numbers against the fixed memory's ``d``.

    Parameters
    ----------
    lengths : sequence of int
        Sequence lengths to try (each >= 1).
    d : int
        Numbers per vector (memory size and state size).
    vocab_size : int
        Vocabulary size.
    n_trials : int
        Random sequences per length.
    seed : int
        Seed for every random draw.
    sharpness : float
        Factor on the attention queries (larger = closer to picking one slot).

    Returns
    -------
    BottleneckResult
    """
    lengths = _positive_ints("lengths", lengths)
    if not np.isfinite(sharpness) or sharpness <= 0:
        raise ValueError(f"sharpness must be a positive number, got {sharpness!r}")
    for name, value in (("d", d), ("vocab_size", vocab_size), ("n_trials", n_trials)):
        _positive_ints(name, [value], minimum=2 if name != "n_trials" else 1)
    rng = _rng(seed)
    vocab = rng.standard_normal((vocab_size, d))
    vocab /= np.linalg.norm(vocab, axis=1, keepdims=True)
    rotation = _random_rotation(rng, d)
    max_len = int(lengths.max())
    # powers[t] = R^t, so word t (0-based, read first) has been rotated n-1-t times at the end.
    powers = np.empty((max_len, d, d))
    powers[0] = np.eye(d)
    for t in range(1, max_len):
        powers[t] = rotation @ powers[t - 1]
    fixed, attn = [], []
    for n in lengths:
        hits_fixed = hits_attn = 0
        for _ in range(n_trials):
            words = rng.integers(0, vocab_size, size=n)
            x = vocab[words]  # (n, d)
            # Encoder: h = sum_t R^(n-1-t) x_t  (the same as running h <- R h + x_t).
            h = np.einsum("tij,tj->i", powers[n - 1 :: -1][:n], x)
            # Decoder: undo the rotations for each position, nearest vocabulary word.
            recovered = np.einsum("tji,j->ti", powers[n - 1 :: -1][:n], h)
            hits_fixed += int(np.sum(np.argmax(recovered @ vocab.T, axis=1) == words))
            # Attention: keys are random unit position codes; sharpened scores find the slot.
            keys = rng.standard_normal((n, d))
            keys /= np.linalg.norm(keys, axis=1, keepdims=True)
            blended, _ = attention(sharpness * keys, keys, x, scale=False)
            hits_attn += int(np.sum(np.argmax(blended @ vocab.T, axis=1) == words))
        fixed.append(hits_fixed / (n * n_trials))
        attn.append(hits_attn / (n * n_trials))
    return BottleneckResult(
        lengths, np.array(fixed), np.array(attn), d, vocab_size, float(sharpness)
    )


# ---------------------------------------------------------------------------------------------
# b. Why 1/sqrt(d_k)
# ---------------------------------------------------------------------------------------------


def scale_factor(scaling: str, d_k: int) -> float:
    """The number a raw score ``q . k`` is multiplied by under ``scaling``.

    Parameters
    ----------
    scaling : {"none", "1/d_k", "1/sqrt(d_k)"}
    d_k : int
        Dimension of the keys.
    """
    if scaling == "none":
        return 1.0
    if scaling == "1/d_k":
        return 1.0 / d_k
    if scaling == "1/sqrt(d_k)":
        return 1.0 / np.sqrt(d_k)
    raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")


@dataclass(frozen=True)
class VarianceResult:
    """Measured variance of the (scaled) score ``q . k`` for random unit-variance q, k.

    Attributes
    ----------
    d_ks : ndarray, shape (n,)
    variance : dict[str, ndarray of shape (n,)]
        One entry per scaling in :data:`SCALINGS`.
    """

    d_ks: np.ndarray
    variance: dict


def score_variance(
    d_ks=(2, 4, 8, 16, 32, 64, 128, 256, 512), n_samples: int = 4000, seed: int = 0
) -> VarianceResult:
    """Measure ``var(q . k)`` for q, k with independent N(0, 1) components, per scaling.

    Theory (chapter B): unscaled variance = d_k; divided by d_k -> 1/d_k; divided by
    sqrt(d_k) -> 1 whatever d_k is.

    Parameters
    ----------
    d_ks : sequence of int
        Key dimensions to try.
    n_samples : int
        Random (q, k) pairs per dimension.
    seed : int

    Returns
    -------
    VarianceResult
    """
    d_ks = _positive_ints("d_ks", d_ks)
    _positive_ints("n_samples", [n_samples], minimum=2)
    rng = _rng(seed)
    raw = np.empty(len(d_ks))
    for i, d_k in enumerate(d_ks):
        q = rng.standard_normal((n_samples, d_k))
        k = rng.standard_normal((n_samples, d_k))
        raw[i] = np.var(np.einsum("ij,ij->i", q, k))
    # Scaling a random variable by c scales its variance by c^2.
    variance = {s: raw * np.array([scale_factor(s, d) ** 2 for d in d_ks]) for s in SCALINGS}
    return VarianceResult(d_ks, variance)


@dataclass(frozen=True)
class SaturationResult:
    """How peaked softmax gets, and how much gradient losing keys still receive.

    Attributes
    ----------
    d_ks : ndarray, shape (n,)
    n_keys : int
    max_weight : dict[str, ndarray of shape (n,)]
        Median (over trials) of the largest softmax weight: 1 = one-hot (saturated),
        ``1 / n_keys`` = uniform (cannot tell keys apart).
    losing_gradient : dict[str, ndarray of shape (n,)]
        Median over trials and over the losing keys of ``dw_j / ds_j = w_j (1 - w_j)``: how
        much a nudge to a losing key's score can still change its weight. Near 0 = learning stalls.
    """

    d_ks: np.ndarray
    n_keys: int
    max_weight: dict
    losing_gradient: dict


def softmax_saturation(
    d_ks=(2, 4, 8, 16, 32, 64, 128, 256, 512),
    n_keys: int = 8,
    n_trials: int = 400,
    seed: int = 0,
) -> SaturationResult:
    """Softmax peakedness and the gradient reaching losing keys, for each scaling.

    One random query against ``n_keys`` random keys (N(0, 1) components) per trial.

    Parameters
    ----------
    d_ks : sequence of int
    n_keys : int
        Keys competing for one query (>= 2).
    n_trials : int
    seed : int

    Returns
    -------
    SaturationResult
    """
    d_ks = _positive_ints("d_ks", d_ks)
    _positive_ints("n_keys", [n_keys], minimum=2)
    _positive_ints("n_trials", [n_trials])
    rng = _rng(seed)
    max_weight = {s: np.empty(len(d_ks)) for s in SCALINGS}
    losing = {s: np.empty(len(d_ks)) for s in SCALINGS}
    for i, d_k in enumerate(d_ks):
        q = rng.standard_normal((n_trials, 1, d_k))
        k = rng.standard_normal((n_trials, n_keys, d_k))
        raw = np.sum(q * k, axis=-1)  # (n_trials, n_keys)
        for s in SCALINGS:
            w = softmax(raw * scale_factor(s, d_k), axis=-1)
            winner = np.argmax(w, axis=-1)
            max_weight[s][i] = np.median(w[np.arange(n_trials), winner])
            grad = w * (1.0 - w)
            # Drop the winner of each trial; what is left is the gradient the losers get.
            losers = np.ones_like(w, dtype=bool)
            losers[np.arange(n_trials), winner] = False
            losing[s][i] = np.median(grad[losers])
    return SaturationResult(d_ks, n_keys, max_weight, losing)


# ---------------------------------------------------------------------------------------------
# c. Word order: "the dog bit the man"
# ---------------------------------------------------------------------------------------------


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
    rng = _rng(seed)
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


# ---------------------------------------------------------------------------------------------
# d. Hard vs soft
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HardSoftSweep:
    """Outputs of hard (``v[argmax]``) and soft attention as the query turns round.

    Attributes
    ----------
    angles_deg : ndarray, shape (n,)
        Direction of the query, in degrees.
    queries : ndarray, shape (n, d)
    hard : ndarray, shape (n, d_v)
    soft : ndarray, shape (n, d_v)
    hard_slope, soft_slope : ndarray, shape (n, d_v)
        Finite-difference derivative of each output with respect to the angle (per degree).
        Hard: 0 almost everywhere with spikes at the jumps that grow as the grid gets finer (no
        derivative there). Soft: finite everywhere.
    """

    angles_deg: np.ndarray
    queries: np.ndarray
    hard: np.ndarray
    soft: np.ndarray
    hard_slope: np.ndarray
    soft_slope: np.ndarray


def hard_vs_soft_sweep(
    K, V, radius: float = 2.0, start_deg=-45.0, stop_deg=135.0, n_points: int = 181, scale=True
) -> HardSoftSweep:
    """Turn a 2-D query of length ``radius`` from ``start_deg`` to ``stop_deg``.

    Parameters
    ----------
    K : array_like, shape (n_k, 2)
    V : array_like, shape (n_k, d_v)
    radius : float
        Length of the query vector (longer = sharper softmax).
    start_deg, stop_deg : float
    n_points : int
        Number of angles (>= 3).
    scale : bool
        Divide scores by sqrt(d_k) as in scaled dot-product attention.

    Returns
    -------
    HardSoftSweep
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[1] != 2:
        raise ValueError(f"K must have shape (n_keys, 2) for a 2-D sweep, got {K.shape}")
    _positive_ints("n_points", [n_points], minimum=3)
    angles = np.linspace(start_deg, stop_deg, n_points)
    rad = np.deg2rad(angles)
    queries = radius * np.column_stack([np.cos(rad), np.sin(rad)])
    hard, _ = hard_attention(queries, K, V, scale=scale)
    soft, _ = attention(queries, K, V, scale=scale)
    step = angles[1] - angles[0]
    return HardSoftSweep(
        angles,
        queries,
        hard,
        soft,
        np.gradient(hard, step, axis=0),
        np.gradient(soft, step, axis=0),
    )


# ---------------------------------------------------------------------------------------------
# e. Cross-attention: English -> Hindi
# ---------------------------------------------------------------------------------------------

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

    source: tuple
    target: tuple
    weights: np.ndarray
    aligned_to: tuple


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


# ---------------------------------------------------------------------------------------------
# f. Why Transformers parallelise
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepsResult:
    """An RNN pass vs self-attention over the same sequence.

    Attributes
    ----------
    n, d : int
        Sequence length and vector size.
    rnn_sequential_steps : int
        Steps that must wait for the previous one (n).
    attention_sequential_steps : int
        Matrix products that must wait for each other in self-attention (a fixed handful).
    rnn_seconds, attention_seconds, attention_row_by_row_seconds : float
        Best-of-``repeat`` wall times: the RNN loop, all attention rows as matrix products, and
        the attention rows computed one at a time in a Python loop.
    rows_match : bool
        Whether the row-by-row loop gives the same matrix (rows do not depend on each other).
    rnn_multiplications, attention_multiplications : int
        Scalar multiplications of each: ``2 n d^2`` for the RNN (``W h`` and ``U x`` per
        step), ``2 n^2 d`` for attention (``Q K^T`` and ``weights V``), as in Vaswani et al.
        (2017), Table 1: O(n d^2) per recurrent layer, O(n^2 d) per self-attention layer.
    """

    n: int
    d: int
    rnn_sequential_steps: int
    attention_sequential_steps: int
    rnn_seconds: float
    attention_seconds: float
    attention_row_by_row_seconds: float
    rows_match: bool
    rnn_multiplications: int
    attention_multiplications: int


def _best_time(fn, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return float(best)


def rnn_vs_attention_steps(
    n: int = 256, d: int = 64, repeat: int = 5, seed: int = 0
) -> StepsResult:
    """Time an RNN pass (``h_t = tanh(W h_{t-1} + U x_t)``, one step after another) against
    self-attention computed as matrix products, and against the same rows one at a time.

    Parameters
    ----------
    n : int
        Sequence length.
    d : int
        Vector size.
    repeat : int
        Timing repeats (best is kept).
    seed : int

    Returns
    -------
    StepsResult
    """
    for name, value in (("n", n), ("d", d), ("repeat", repeat)):
        _positive_ints(name, [value])
    rng = _rng(seed)
    x = rng.standard_normal((n, d))
    w = rng.standard_normal((d, d)) / np.sqrt(d)
    u = rng.standard_normal((d, d)) / np.sqrt(d)

    def rnn():
        h = np.zeros(d)
        states = np.empty((n, d))
        for t in range(n):  # step t needs h from step t-1: no way to skip ahead
            h = np.tanh(w @ h + u @ x[t])
            states[t] = h
        return states

    def all_rows():
        return attention(x, x, x)[0]

    def row_by_row():
        return np.array([attention(x[i], x, x)[0] for i in range(n)])

    rows_match = bool(np.allclose(all_rows(), row_by_row()))
    return StepsResult(
        n=n,
        d=d,
        rnn_sequential_steps=n,
        # scores = Q K^T, softmax, weights V: three dependent stages whatever n is.
        attention_sequential_steps=3,
        rnn_seconds=_best_time(rnn, repeat),
        attention_seconds=_best_time(all_rows, repeat),
        attention_row_by_row_seconds=_best_time(row_by_row, repeat),
        rows_match=rows_match,
        rnn_multiplications=2 * n * d * d,
        attention_multiplications=2 * n * n * d,
    )


# ---------------------------------------------------------------------------------------------
# Bahdanau (additive) vs Luong (dot product)
# ---------------------------------------------------------------------------------------------


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

    additive_scores: np.ndarray
    dot_scores: np.ndarray
    additive_weights: np.ndarray
    dot_weights: np.ndarray
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
        _positive_ints(name, [value])
    rng = _rng(seed)
    s = rng.standard_normal(d)
    H = rng.standard_normal((n, d))
    W_a = rng.standard_normal((d_attn, d)) / np.sqrt(d)
    U_a = rng.standard_normal((d_attn, d)) / np.sqrt(d)
    v_a = rng.standard_normal(d_attn)
    add = np.asarray(additive_scores(s, H, W_a, U_a, v_a), dtype=float)
    dot = H @ s
    return AdditiveVsDot(add, dot, softmax(add), softmax(dot), W_a.size + U_a.size + v_a.size)
